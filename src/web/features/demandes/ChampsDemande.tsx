import { Alert, Checkbox, Fieldset, NativeSelect, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useEffect, useRef, type ReactNode } from 'react';
import { Controller, type FieldPath, type UseFormReturn } from 'react-hook-form';
import { aujourdhui, NAISSANCE_MIN } from '../../../domain/dates.js';
import { CHAMPS_DEMANDE, TEXTE_LONG_MAX, type DemandeCreation, type DemandeSaisie } from '../../../domain/demande.js';
import { ApiError } from '../../lib/api.js';
import { AdresseField } from './AdresseField.js';

type Champ = keyof typeof CHAMPS_DEMANDE;
type ChampAOptions = { [C in Champ]: (typeof CHAMPS_DEMANDE)[C] extends { options: unknown } ? C : never }[Champ];
/** A field's label and a select's options, as the domain's field table writes them. */
const label = (champ: Champ) => CHAMPS_DEMANDE[champ].label;
const options = (champ: ChampAOptions) => CHAMPS_DEMANDE[champ].options;

/**
 * The fields of a housing request, section by section: the new request's form and the applicant's corrections
 * (`numeroFige`: the numéro is shown, not edited) share them.
 */
export function ChampsDemande({ form, numeroFige = false }: { form: UseFormReturn<DemandeSaisie, unknown, DemandeCreation>; numeroFige?: boolean }) {
  const {
    register,
    control,
    setValue,
    getValues,
    formState: { errors },
  } = form;
  const err = (name: keyof DemandeSaisie) => errors[name]?.message as string | undefined;
  return (
    <>
      <Fieldset legend="Identité">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {numeroFige ? (
            <TextInput {...register('numeroUnique')} label={label('numeroUnique')} description="Il identifie votre demande : il ne change pas." variant="filled" readOnly />
          ) : (
            <TextInput
              {...register('numeroUnique')}
              label={label('numeroUnique')}
              description="Inscrit sur votre attestation d’enregistrement (commence par 013…)"
              placeholder="013…"
              withAsterisk
              required
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              error={err('numeroUnique')}
            />
          )}
          <div />
          <TextInput {...register('prenom')} label={label('prenom')} withAsterisk required autoComplete="given-name" error={err('prenom')} />
          <TextInput {...register('nom')} label={label('nom')} autoComplete="family-name" error={err('nom')} />
          <NativeSelect {...register('sexe')} label={label('sexe')} data={[{ value: '', label: 'Non précisé' }, ...options('sexe')]} error={err('sexe')} />
          <TextInput {...register('dateDeNaissance')} type="date" label={label('dateDeNaissance')} min={NAISSANCE_MIN} max={aujourdhui()} autoComplete="bday" error={err('dateDeNaissance')} />
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
                  // « Bât. C, 12 av… »: the building goes to the complement, unless one was typed there already.
                  if (s.complement && !getValues('adresseComplement')) setValue('adresseComplement', s.complement, { shouldDirty: true });
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
          <NativeSelect {...register('nombreDEnfants')} label="Nombre d’enfants à charge" data={options('nombreDEnfants')} error={err('nombreDEnfants')} />
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
          <TextInput {...register('salaireAvisImpot1')} label={`${label('salaireAvisImpot1')} (€)`} description="Avis d’imposition de l’an dernier" inputMode="decimal" error={err('salaireAvisImpot1')} />
          <TextInput {...register('salaireAvisImpot2')} label={`${label('salaireAvisImpot2')} (€)`} description="Avis d’imposition d’il y a deux ans" inputMode="decimal" error={err('salaireAvisImpot2')} />
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
    </>
  );
}

type FormulaireDemande = UseFormReturn<DemandeSaisie, unknown, DemandeCreation>;

/** The server's per-field messages, set on the form's fields. */
export function erreursDuServeur(form: FormulaireDemande, error: unknown): void {
  if (!(error instanceof ApiError)) return;
  for (const [field, message] of Object.entries(error.fields)) form.setError(field as FieldPath<DemandeSaisie>, { message });
}

/**
 * Above the form: why it was not saved (`erreur`, focused when it appears), or how many fields are to fix
 * once a submit found some.
 */
/** `suite`: what to do next, under the error (a link). */
export function AlertesDuFormulaire({ form, erreur, titre, suite }: { form: FormulaireDemande; erreur: string | null; titre: string; suite?: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const { errors, submitCount } = form.formState;
  const errorCount = Object.keys(errors).length;
  useEffect(() => {
    if (erreur) ref.current?.focus();
  }, [erreur]);
  if (erreur) {
    return (
      <Alert ref={ref} tabIndex={-1} color="red" title={titre} role="alert">
        {erreur}
        {suite}
      </Alert>
    );
  }
  if (submitCount === 0 || errorCount === 0) return null;
  return (
    <Alert color="red" role="alert" title="Le formulaire contient des erreurs">
      {errorCount === 1 ? '1 champ est à corriger.' : `${errorCount} champs sont à corriger.`}
    </Alert>
  );
}
