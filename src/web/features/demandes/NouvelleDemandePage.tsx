import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Anchor,
  Button,
  Card,
  Checkbox,
  CopyButton,
  Divider,
  Fieldset,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, type FieldPath } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import {
  CHAMPS_DEMANDE,
  DEMANDE_VALEURS_INITIALES,
  demandeSaisieSchema,
  TEXTE_LONG_MAX,
  type DemandeCreation,
  type DemandeCreee,
  type DemandeSaisie,
} from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { AdresseField } from './AdresseField.js';
import { SeSouvenirDeCetAppareil } from './CetAppareil.js';
import { demandeExiste, useCreationDemande } from './api.js';
import { saveCle } from '../../lib/clesDAcces.js';

const BANNER_MS = 5000;

export function NouvelleDemandePage() {
  usePageTitle('Nouvelle demande de logement');
  const [created, setCreated] = useState<DemandeCreee | null>(null);
  return created ? <DemandeEnregistree demande={created} /> : <DemandeForm onCreated={setCreated} />;
}

type Champ = keyof typeof CHAMPS_DEMANDE;
type ChampAOptions = { [C in Champ]: (typeof CHAMPS_DEMANDE)[C] extends { options: unknown } ? C : never }[Champ];
/** A field's label and a select's options, as the domain's field table writes them. */
const label = (champ: Champ) => CHAMPS_DEMANDE[champ].label;
const options = (champ: ChampAOptions) => CHAMPS_DEMANDE[champ].options;

export function DemandeForm({ onCreated }: { onCreated: (d: DemandeCreee) => void }) {
  const [formError, setFormError] = useState<string | null>(null);
  const creation = useCreationDemande();
  const alertRef = useRef<HTMLDivElement>(null);
  const {
    register,
    control,
    handleSubmit,
    setError,
    setValue,
    formState: { errors, isSubmitting, submitCount },
  } = useForm<DemandeSaisie, unknown, DemandeCreation>({
    resolver: zodResolver(demandeSaisieSchema),
    defaultValues: DEMANDE_VALEURS_INITIALES as unknown as DemandeSaisie,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
  });
  const errorCount = Object.keys(errors).length;

  useEffect(() => {
    if (formError) alertRef.current?.focus();
  }, [formError]);

  const onSubmit = async (data: DemandeCreation) => {
    setFormError(null);
    try {
      if (await demandeExiste(data.numeroUnique)) {
        setError('numeroUnique', { message: MESSAGES.doublon }, { shouldFocus: true });
        setFormError(MESSAGES.doublon);
        return;
      }
      const created = await creation.mutateAsync(data);
      saveCle(created.numeroUnique, created.accessKey);
      onCreated(created);
    } catch (error) {
      if (error instanceof ApiError) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<DemandeSaisie>, { message });
        }
      }
      setFormError(error instanceof ApiError && error.status === 409 ? MESSAGES.doublon : errorMessage(error));
    }
  };

  const err = (name: keyof DemandeSaisie) => errors[name]?.message as string | undefined;

  return (
    <Stack maw={880} gap="lg">
      <div>
        <Anchor component={Link} to={paths.logement}>
          ← Logement social
        </Anchor>
        <Title order={1} mt="xs">
          Nouvelle demande de logement social
        </Title>
        <Text mt="xs">
          Les champs marqués d'un astérisque (*) sont obligatoires. Vous pourrez envoyer vos documents juste après l'enregistrement.
        </Text>
      </div>

      {formError && (
        <Alert ref={alertRef} tabIndex={-1} color="red" title="La demande n'a pas été enregistrée" role="alert">
          {formError}
        </Alert>
      )}
      {!formError && submitCount > 0 && errorCount > 0 && (
        <Alert color="red" role="alert" title="Le formulaire contient des erreurs">
          {errorCount === 1 ? '1 champ est à corriger.' : `${errorCount} champs sont à corriger.`}
        </Alert>
      )}

      <form onSubmit={handleSubmit(onSubmit)} noValidate aria-label="Demande de logement social">
        <Stack gap="lg">
          <Fieldset legend="Identité">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                {...register('numeroUnique')}
                label={label('numeroUnique')}
                description="Inscrit sur votre attestation d'enregistrement (commence par 013…)"
                placeholder="013…"
                withAsterisk
                required
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                error={err('numeroUnique')}
              />
              <div />
              <TextInput {...register('prenom')} label={label('prenom')} withAsterisk required autoComplete="given-name" error={err('prenom')} />
              <TextInput {...register('nom')} label={label('nom')} autoComplete="family-name" error={err('nom')} />
              <NativeSelect {...register('sexe')} label={label('sexe')} data={[{ value: '', label: 'Non précisé' }, ...options('sexe')]} error={err('sexe')} />
              <TextInput {...register('dateDeNaissance')} type="date" label={label('dateDeNaissance')} autoComplete="bday" error={err('dateDeNaissance')} />
            </SimpleGrid>
          </Fieldset>

          <Fieldset legend="Coordonnées">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                {...register('email')}
                type="email"
                label={label('email')}
                description="Votre lien privé vous y sera envoyé."
                withAsterisk
                required
                autoComplete="email"
                inputMode="email"
                error={err('email')}
              />
              <TextInput {...register('numeroDeTelephone')} type="tel" label={label('numeroDeTelephone')} autoComplete="tel" error={err('numeroDeTelephone')} />
            </SimpleGrid>
            <Stack gap="sm" mt="sm">
              <Controller
                control={control}
                name="adresse"
                render={({ field }) => (
                  <AdresseField
                    name={field.name}
                    inputRef={field.ref}
                    value={(field.value as string | undefined) ?? ''}
                    onChange={field.onChange}
                    onPick={(s) => {
                      setValue('adresse', s.adresse, { shouldDirty: true });
                      setValue('codePostal', s.codePostal, { shouldDirty: true });
                      setValue('ville', s.ville, { shouldDirty: true });
                    }}
                    error={err('adresse')}
                  />
                )}
              />
              <TextInput {...register('adresseComplement')} label={label('adresseComplement')} description="Bâtiment, étage, appartement…" autoComplete="address-line2" error={err('adresseComplement')} />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput {...register('codePostal')} label={label('codePostal')} autoComplete="postal-code" inputMode="numeric" error={err('codePostal')} />
                <TextInput {...register('ville')} label={label('ville')} autoComplete="address-level2" error={err('ville')} />
              </SimpleGrid>
            </Stack>
          </Fieldset>

          <Fieldset legend="Situation familiale">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect {...register('situationFamiliale')} label={label('situationFamiliale')} data={options('situationFamiliale')} error={err('situationFamiliale')} />
              <NativeSelect {...register('nombreDEnfants')} label="Nombre d'enfants à charge" data={options('nombreDEnfants')} error={err('nombreDEnfants')} />
            </SimpleGrid>
          </Fieldset>

          <Fieldset legend="Logement actuel">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect {...register('logementActuel')} label={label('logementActuel')} data={options('logementActuel')} error={err('logementActuel')} />
              <NativeSelect {...register('typeDeLogementActuel')} label={label('typeDeLogementActuel')} data={options('typeDeLogementActuel')} error={err('typeDeLogementActuel')} />
              <NativeSelect
                {...register('quartierActuel')}
                label={label('quartierActuel')}
                data={[{ value: '', label: 'Autre / hors Aix-en-Provence' }, ...options('quartierActuel')]}
                error={err('quartierActuel')}
              />
              <NativeSelect {...register('bailleurActuel')} label={label('bailleurActuel')} data={options('bailleurActuel')} error={err('bailleurActuel')} />
            </SimpleGrid>
          </Fieldset>

          <Fieldset legend="Logement souhaité">
            <Stack gap="md">
              <NativeSelect
                {...register('typeDeLogementSouhaite')}
                label={label('typeDeLogementSouhaite')}
                data={options('typeDeLogementSouhaite')}
                error={err('typeDeLogementSouhaite')}
                maw={360}
              />
              <Controller
                control={control}
                name="quartierSouhaite"
                render={({ field }) => (
                  <Checkbox.Group
                    label={label('quartierSouhaite')}
                    description="Cochez un ou plusieurs quartiers."
                    value={(field.value as string[] | undefined) ?? []}
                    onChange={field.onChange}
                    error={err('quartierSouhaite')}
                  >
                    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} mt="xs" spacing="xs">
                      {options('quartierSouhaite').map((q) => (
                        <Checkbox key={q.value} value={q.value} label={q.label} />
                      ))}
                    </SimpleGrid>
                  </Checkbox.Group>
                )}
              />
            </Stack>
          </Fieldset>

          <Fieldset legend="Ressources">
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <TextInput {...register('salaireBrut')} label={`${label('salaireBrut')} (€)`} inputMode="decimal" error={err('salaireBrut')} />
              <TextInput {...register('salaireAvisImpot1')} label={`${label('salaireAvisImpot1')} (€)`} description="Avis d'imposition de l'an dernier" inputMode="decimal" error={err('salaireAvisImpot1')} />
              <TextInput {...register('salaireAvisImpot2')} label={`${label('salaireAvisImpot2')} (€)`} description="Avis d'imposition d'il y a deux ans" inputMode="decimal" error={err('salaireAvisImpot2')} />
            </SimpleGrid>
          </Fieldset>

          <Fieldset legend="Motivations et commentaires">
            <Stack gap="sm">
              <Textarea
                {...register('motivations')}
                label={label('motivations')}
                description="Pourquoi demandez-vous un logement ? (logement trop petit, loyer trop cher, santé, rapprochement…)"
                withAsterisk
                required
                autosize
                minRows={4}
                maxLength={TEXTE_LONG_MAX}
                error={err('motivations')}
              />
              <Textarea {...register('commentaires')} label={label('commentaires')} autosize minRows={2} maxLength={TEXTE_LONG_MAX} error={err('commentaires')} />
            </Stack>
          </Fieldset>

          <Group>
            <Button type="submit" size="md" loading={isSubmitting} loaderProps={{ 'aria-label': 'Enregistrement en cours' }}>
              Enregistrer ma demande
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

/** After saving: the 5-second banner, then the private link to keep. */
function DemandeEnregistree({ demande }: { demande: DemandeCreee }) {
  const navigate = useNavigate();
  const [banner, setBanner] = useState(true);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
    window.scrollTo({ top: 0 });
    const timer = setTimeout(() => setBanner(false), BANNER_MS);
    return () => clearTimeout(timer);
  }, []);

  return (
    <Stack maw={760} gap="lg">
      <div role="status" aria-live="polite">
        {banner && (
          <Alert color="teal.9" variant="filled" title={MESSAGES.enregistre}>
            Votre demande n° {demande.numeroUnique} est enregistrée.
          </Alert>
        )}
      </div>
      <Title order={1} ref={headingRef} tabIndex={-1}>
        Votre demande est enregistrée
      </Title>
      <Text>
        Numéro unique : <strong>{demande.numeroUnique}</strong> — statut : <strong>{demande.statutDeLaDemande}</strong>.
      </Text>
      <Card withBorder padding="lg" component="section" aria-labelledby="lien-prive-titre">
        <Title order={2} size="h3" id="lien-prive-titre" mb="xs">
          Votre lien privé
        </Title>
        <Text mb="sm">
          Ce lien donne accès à votre demande et vous permet d'envoyer vos documents. Il vient aussi de vous être envoyé par e-mail à{' '}
          <strong>{demande.email}</strong>. Gardez-le pour vous.
        </Text>
        <TextInput label="Lien privé de la demande" value={demande.privateLink} readOnly onFocus={(e) => e.currentTarget.select()} />
        <Group mt="sm">
          <CopyButton value={demande.privateLink}>
            {({ copied, copy }) => (
              <Button variant="outline" onClick={copy} aria-live="polite">
                {copied ? 'Lien copié' : 'Copier le lien'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={() => navigate(paths.demande(demande.numeroUnique))}>Ouvrir ma demande</Button>
        </Group>
        <Divider my="md" />
        <SeSouvenirDeCetAppareil numeroUnique={demande.numeroUnique} />
      </Card>
    </Stack>
  );
}
