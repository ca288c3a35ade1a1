import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Avatar, Button, FileButton, Group, NativeSelect, PasswordInput, Radio, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Controller, useForm, type FieldPath } from 'react-hook-form';
import {
  capitaliser,
  GENRES,
  inscriptionSchema,
  isPhotoType,
  MOT_DE_PASSE_MAX,
  MOT_DE_PASSE_MIN,
  PAYS_DEFAUT,
  PHOTO_MAX_OCTETS,
  PHOTO_TAILLE_MESSAGE,
  PHOTO_TYPE_MESSAGE,
  PHOTO_TYPES,
  QUARTIER,
  VILLE,
  type Inscription,
  type InscriptionInput,
} from '../../../domain/compte.js';
import { aujourdhui, NAISSANCE_MIN } from '../../../domain/dates.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { Dialog } from '../../components/Dialog.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { useTerritoire } from '../../lib/parametres.js';
import { cles } from '../../lib/queryKeys.js';
import { useEnvoiPhoto, useInscription } from './api.js';

const DEFAULT_PIC = '/avatar-defaut.svg';

/**
 * Sign-up (docs/produit.md « Comptes »): the dim backdrop and Escape close it. `onCreated` runs once the
 * account exists (the sign-in screen then shows its welcome), just before the session is read again.
 */
export function InscriptionModal({
  opened,
  onClose,
  onCreated,
  inviterUid,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: () => void;
  inviterUid?: string | undefined;
}) {
  return (
    // What was typed stays: a near-miss tap beside the form on a phone must not close it (its button or Escape do).
    <Dialog opened={opened} onClose={onClose} title="Créer un compte" fermeAuClicDehors={false}>
      <InscriptionForm inviterUid={inviterUid} onCreated={onCreated} />
    </Dialog>
  );
}

function InscriptionForm({ inviterUid, onCreated }: { inviterUid?: string | undefined; onCreated: () => void }) {
  const queryClient = useQueryClient();
  const { data: territoire } = useTerritoire();
  const [pic, setPic] = useState<File | null>(null);
  const [picUrl, setPicUrl] = useState<string>(DEFAULT_PIC);
  const [picError, setPicError] = useState<string | null>(null);
  const inscription = useInscription();
  const envoiPhoto = useEnvoiPhoto();
  const {
    register,
    control,
    handleSubmit,
    setValue,
    getValues,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<InscriptionInput, unknown, Inscription>({
    resolver: zodResolver(inscriptionSchema),
    defaultValues: { nom: '', prenom: '', gender: 'F', birthday: '', pays: PAYS_DEFAUT, ville: VILLE, quartier: QUARTIER, residence: '', rue: '', email: '', password: '' },
  });

  // The street list's first entry is the default (docs/produit.md « Comptes »).
  useEffect(() => {
    if (territoire && !getValues('rue')) setValue('rue', territoire.rues[0] ?? '');
  }, [territoire, getValues, setValue]);

  useEffect(() => () => {
    if (picUrl !== DEFAULT_PIC) URL.revokeObjectURL(picUrl);
  }, [picUrl]);

  function choosePic(file: File | null) {
    setPicError(null);
    if (!file) return;
    if (!isPhotoType(file.type)) {
      setPicError(PHOTO_TYPE_MESSAGE);
      return;
    }
    if (file.size > PHOTO_MAX_OCTETS) {
      setPicError(PHOTO_TAILLE_MESSAGE);
      return;
    }
    setPic(file);
    setPicUrl(URL.createObjectURL(file));
  }

  const onSubmit = async (data: Inscription) => {
    // The previous attempt's server message goes, so that it never sits beside this one's.
    inscription.reset();
    try {
      await inscription.mutateAsync({ ...data, ...(inviterUid ? { inviterUid } : {}) });
    } catch (error) {
      if (error instanceof ApiError) {
        for (const [field, message] of Object.entries(error.fields)) setError(field as FieldPath<InscriptionInput>, { message });
      }
      return;
    }
    if (pic) {
      // The account exists: a failed picture only leaves the default one.
      await envoiPhoto.mutateAsync(pic).catch(() => undefined);
    }
    // The welcome first, then the session: signed in without it, the sign-in screen would send the person on.
    onCreated();
    await queryClient.invalidateQueries({ queryKey: cles.moi });
  };

  const formError = inscription.error ? errorMessage(inscription.error, MESSAGES.reseau) : null;
  const err = (name: keyof InscriptionInput) => errors[name]?.message as string | undefined;

  return (
    <form onSubmit={handleSubmit(onSubmit, () => inscription.reset())} noValidate aria-label="Création de compte">
      <Stack gap="sm">
        {formError && (
          <Alert color="red" role="alert" title="Le compte n’a pas été créé">
            {formError}
          </Alert>
        )}
        <Group>
          <Avatar src={picUrl} alt="Votre photo de profil" size={72} radius="xl" />
          <Stack gap={4}>
            <FileButton onChange={choosePic} accept={PHOTO_TYPES.join(',')}>
              {(props) => (
                <Button {...props} variant="outline" size="compact-md">
                  Choisir une photo
                </Button>
              )}
            </FileButton>
            <Text size="sm" c="dimmed">
              Facultatif : JPEG ou PNG, 5 Mo au plus.
            </Text>
            {picError && (
              <Text size="sm" c="red.8" role="alert">
                {picError}
              </Text>
            )}
          </Stack>
        </Group>
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <TextInput
            {...register('nom', { onBlur: (e) => setValue('nom', capitaliser(e.target.value)) })}
            label="Nom"
            required
            autoComplete="family-name"
            error={err('nom')}
          />
          <TextInput
            {...register('prenom', { onBlur: (e) => setValue('prenom', capitaliser(e.target.value)) })}
            label="Prénom"
            required
            autoComplete="given-name"
            error={err('prenom')}
          />
        </SimpleGrid>
        <Controller
          control={control}
          name="gender"
          render={({ field }) => (
            <Radio.Group label="Genre" name={field.name} value={field.value} onChange={field.onChange} error={err('gender')}>
              <Group mt={4}>
                {GENRES.map((g) => (
                  <Radio key={g.value} value={g.value} label={g.value === 'Autre' ? 'Autre' : `${g.label} (${g.value})`} />
                ))}
              </Group>
            </Radio.Group>
          )}
        />
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <TextInput {...register('birthday')} type="date" label="Date de naissance" required min={NAISSANCE_MIN} max={aujourdhui()} autoComplete="bday" error={err('birthday')} />
          <TextInput {...register('pays')} label="Pays" required autoComplete="country-name" error={err('pays')} />
          <NativeSelect {...register('ville')} label="Ville" data={[VILLE]} error={err('ville')} />
          <NativeSelect {...register('quartier')} label="Quartier" data={[QUARTIER]} error={err('quartier')} />
        </SimpleGrid>
        <TextInput {...register('residence')} label="Résidence" description="Nom de votre résidence ou de votre immeuble" required error={err('residence')} />
        <NativeSelect {...register('rue')} label="Rue" data={territoire?.rues ?? []} required error={err('rue')} />
        <TextInput {...register('email')} type="email" label="Adresse e-mail" required autoComplete="email" error={err('email')} />
        <PasswordInput
          {...register('password')}
          label="Mot de passe"
          description={`De ${MOT_DE_PASSE_MIN} à ${MOT_DE_PASSE_MAX} caractères. Une phrase facile à retenir fait un bon mot de passe.`}
          required
          autoComplete="new-password"
          error={err('password')}
          visibilityToggleButtonProps={{ 'aria-label': 'Afficher ou masquer le mot de passe' }}
        />
        <Button type="submit" loading={isSubmitting} mt="xs">
          Créer mon compte
        </Button>
      </Stack>
    </form>
  );
}
