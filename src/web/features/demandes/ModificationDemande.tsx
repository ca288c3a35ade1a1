import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { demandeSaisieSchema, type DemandeComplete, type DemandeCreation, type DemandeSaisie } from '../../../domain/demande.js';
import { errorMessage } from '../../lib/api.js';
import { useModificationDemande } from './apiCorrections.js';
import { AlertesDuFormulaire, ChampsDemande, erreursDuServeur } from './ChampsDemande.js';

/** An amount as the form shows it: French decimal comma, empty when unknown. */
const montant = (n: number | null) => (n === null ? '' : String(n).replace('.', ','));

/** The request's current values, as the form's inputs hold them. */
export function valeursDuFormulaire(d: DemandeComplete): DemandeSaisie {
  return {
    numeroUnique: d.numeroUnique,
    prenom: d.prenom,
    nom: d.nom,
    sexe: d.sexe ?? '',
    dateDeNaissance: d.dateDeNaissance ?? '',
    email: d.email,
    numeroDeTelephone: d.numeroDeTelephone,
    adresse: d.adresse,
    adresseComplement: d.adresseComplement,
    codePostal: d.codePostal,
    ville: d.ville,
    salaireBrut: montant(d.salaireBrut),
    salaireAvisImpot1: montant(d.salaireAvisImpot1),
    salaireAvisImpot2: montant(d.salaireAvisImpot2),
    situationFamiliale: d.situationFamiliale,
    nombreDEnfants: d.nombreDEnfants,
    logementActuel: d.logementActuel,
    typeDeLogementActuel: d.typeDeLogementActuel,
    quartierActuel: d.quartierActuel ?? '',
    bailleurActuel: d.bailleurActuel,
    typeDeLogementSouhaite: d.typeDeLogementSouhaite,
    quartierSouhaite: d.quartierSouhaite,
    motivations: d.motivations,
    commentaires: d.commentaires,
  } as DemandeSaisie;
}

/**
 * « Modifier ma demande » (docs/produit.md « Modifier sa demande »): the applicant's form, filled with the
 * request as it is, every field but the numéro. `onFermer(true)` once saved, `onFermer(false)` on « Annuler ».
 */
export function ModificationDemande({ demande, onFermer }: { demande: DemandeComplete; onFermer: (enregistre: boolean) => void }) {
  const modification = useModificationDemande(demande.numeroUnique);
  const [formError, setFormError] = useState<string | null>(null);
  const titreRef = useRef<HTMLHeadingElement>(null);
  const form = useForm<DemandeSaisie, unknown, DemandeCreation>({
    resolver: zodResolver(demandeSaisieSchema),
    defaultValues: valeursDuFormulaire(demande),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
  });
  const {
    handleSubmit,
    formState: { isSubmitting },
  } = form;

  useEffect(() => titreRef.current?.focus(), []);

  const onSubmit = async ({ numeroUnique: _numero, ...champs }: DemandeCreation) => {
    setFormError(null);
    try {
      await modification.mutateAsync(champs);
      onFermer(true);
    } catch (error) {
      erreursDuServeur(form, error);
      setFormError(errorMessage(error));
    }
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="modification-titre">
      <Stack gap="lg">
        <div>
          <Title order={2} size="h3" id="modification-titre" ref={titreRef} tabIndex={-1}>
            Modifier ma demande
          </Title>
          <Text mt="xs">
            Corrigez ce qui a changé, puis enregistrez. La mairie annexe verra quelles informations vous avez modifiées. Les champs marqués d’un
            astérisque (*) sont obligatoires.
          </Text>
        </div>
        <AlertesDuFormulaire form={form} erreur={formError} titre="Vos modifications n’ont pas été enregistrées" />
        <form onSubmit={handleSubmit(onSubmit)} noValidate aria-label="Modifier ma demande">
          <Stack gap="lg">
            <ChampsDemande form={form} numeroFige />
            <Group>
              <Button type="submit" loading={isSubmitting} loaderProps={{ 'aria-label': 'Enregistrement en cours' }}>
                Enregistrer les modifications
              </Button>
              <Button variant="default" onClick={() => onFermer(false)}>
                Annuler
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
