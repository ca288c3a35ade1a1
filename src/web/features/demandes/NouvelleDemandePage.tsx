import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Button, Card, CopyButton, Divider, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { formatHorodatage } from '../../../domain/dates.js';
import {
  DEMANDE_VALEURS_INITIALES,
  demandeSaisieSchema,
  saisieDepuisLeCompte,
  type DemandeCreation,
  type DemandeCreee,
  type DemandeSaisie,
} from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { AlertesDuFormulaire, ChampsDemande, erreursDuServeur } from './ChampsDemande.js';
import { SeSouvenirDeCetAppareil } from './CetAppareil.js';
import { demandeExiste, useCreationDemande } from './api.js';
import { saveCle } from '../../lib/clesDAcces.js';
import { BROUILLON_DUREE_JOURS, brouillonDemande, type Brouillon } from '../../lib/brouillon.js';
import { useMoi } from '../../lib/session.js';

const BANNER_MS = 5000;

export function NouvelleDemandePage() {
  const [created, setCreated] = useState<DemandeCreee | null>(null);
  // Once saved, the title says so first, as the page's heading does (RGAA 8.6).
  usePageTitle(created ? 'Demande enregistrée — Nouvelle demande de logement' : 'Nouvelle demande de logement');
  return created ? <DemandeEnregistree demande={created} /> : <DemandeForm onCreated={setCreated} />;
}

const VIDE = DEMANDE_VALEURS_INITIALES as unknown as DemandeSaisie;
const sansAbonnement = () => () => {};
/** How long typing must pause before the draft is written. */
const BROUILLON_DELAI_MS = 400;

export function DemandeForm({ onCreated }: { onCreated: (d: DemandeCreee) => void }) {
  const [formError, setFormError] = useState<string | null>(null);
  // The numéro of a request that already exists: its page, where one who lost its private link gets it again.
  const [doublon, setDoublon] = useState<string | null>(null);
  // A draft left on this device by an earlier visit, offered back (not put in the form unasked).
  // The one found when the form opens, shown once the page is hydrated: the page prerendered at build has none, and
  // the render that hydrates it must match it (a mismatch makes React draw the form again, and drop what was typed
  // before the script arrived).
  const [trouve] = useState(() => (typeof window === 'undefined' ? null : brouillonDemande.lire<DemandeSaisie>()));
  const hydrate = useSyncExternalStore(sansAbonnement, () => true, () => false);
  const [ecarte, setEcarte] = useState(false);
  const brouillon: Brouillon<DemandeSaisie> | null = hydrate && !ecarte ? trouve : null;
  const creation = useCreationDemande();
  const { data: moi } = useMoi();
  const form = useForm<DemandeSaisie, unknown, DemandeCreation>({
    resolver: zodResolver(demandeSaisieSchema),
    defaultValues: VIDE,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
  });
  const {
    handleSubmit,
    setError,
    formState: { isSubmitting },
  } = form;

  // Whether the person typed in the form or took a draft back: what is there is theirs. (react-hook-form's isDirty
  // stays false while nothing reads it during the render: it did not protect what was typed.)
  const saisi = useRef(false);
  // Signed in: the account's fields fill the form, unless the person already typed something.
  useEffect(() => {
    if (moi && !saisi.current) form.reset({ ...VIDE, ...saisieDepuisLeCompte(moi) });
  }, [moi, form]);

  // What is typed is kept on the device, so that a closed tab or a lost connection loses nothing.
  useEffect(() => {
    let minuteur: ReturnType<typeof setTimeout> | undefined;
    const desabonner = form.subscribe({
      formState: { values: true },
      callback: ({ values, name }) => {
        // A field changed (typed, picked): not the form's reset by the account or the draft.
        if (!name) return;
        saisi.current = true;
        clearTimeout(minuteur);
        minuteur = setTimeout(() => brouillonDemande.ecrire(values), BROUILLON_DELAI_MS);
      },
    });
    return () => {
      clearTimeout(minuteur);
      desabonner();
    };
  }, [form]);

  const reprendre = (b: Brouillon<DemandeSaisie>) => {
    saisi.current = true;
    form.reset({ ...VIDE, ...b.valeurs });
    setEcarte(true);
  };
  const effacer = () => {
    brouillonDemande.effacer();
    setEcarte(true);
  };

  const onSubmit = async (data: DemandeCreation) => {
    setFormError(null);
    setDoublon(null);
    try {
      if (await demandeExiste(data.numeroUnique)) {
        setError('numeroUnique', { message: MESSAGES.doublon }, { shouldFocus: true });
        setFormError(MESSAGES.doublon);
        setDoublon(data.numeroUnique);
        return;
      }
      const created = await creation.mutateAsync(data);
      saveCle(created.numeroUnique, created.accessKey);
      brouillonDemande.effacer();
      onCreated(created);
    } catch (error) {
      erreursDuServeur(form, error);
      const existe = error instanceof ApiError && error.status === 409;
      setFormError(existe ? MESSAGES.doublon : errorMessage(error));
      if (existe) setDoublon(data.numeroUnique);
    }
  };

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
          Les champs marqués d’un astérisque (*) sont obligatoires. Vous pourrez envoyer vos documents juste après l’enregistrement.
        </Text>
      </div>

      {brouillon && (
        <Alert color="blue" variant="light" title="Une demande commencée sur cet appareil" role="region">
          <Text size="sm">
            Vous aviez commencé une demande{brouillon.valeurs.prenom ? ` au nom de ${brouillon.valeurs.prenom}` : ''} le{' '}
            {formatHorodatage(brouillon.enregistreLe)}.
          </Text>
          <Group mt="sm" gap="sm">
            <Button size="sm" onClick={() => reprendre(brouillon)}>
              Reprendre ce brouillon
            </Button>
            <Button size="sm" variant="outline" onClick={effacer}>
              Effacer le brouillon
            </Button>
          </Group>
        </Alert>
      )}

      <AlertesDuFormulaire
        form={form}
        erreur={formError}
        titre="La demande n’a pas été enregistrée"
        suite={
          doublon && (
            <Text size="sm" mt="xs">
              C’est la vôtre ?{' '}
              <Anchor component={Link} to={paths.demande(doublon)} size="sm">
                Voir la demande n° {doublon}
              </Anchor>{' '}
              : si vous avez perdu son lien privé, vous pourrez l’y recevoir de nouveau par e-mail.
            </Text>
          )
        }
      />

      {/* method="post": sent before the app's script has loaded, the person's data never goes into the address (GET
          would put it in the history and in a proxy's log). */}
      <form method="post" onSubmit={handleSubmit(onSubmit)} noValidate aria-label="Demande de logement social">
        <Stack gap="lg">
          <ChampsDemande form={form} />

          <Group>
            {/* Disabled in the prerendered page until the app's script has taken it over: sent before, the form could
                only come back empty (the server reads no form). What is typed meanwhile stays in the fields. */}
            <Button type="submit" size="md" disabled={!hydrate} loading={isSubmitting} loaderProps={{ 'aria-label': 'Enregistrement en cours' }}>
              Enregistrer ma demande
            </Button>
          </Group>
          <noscript>
            <Text size="sm">L’envoi de la demande a besoin de JavaScript : activez-le dans votre navigateur, puis rechargez la page.</Text>
          </noscript>
          <Text size="sm" c="dimmed">
            Ce que vous saisissez est gardé sur cet appareil jusqu’à l’enregistrement de la demande, {BROUILLON_DUREE_JOURS} jours
            au plus. Sur un ordinateur partagé,{' '}
            <Anchor component="button" type="button" size="sm" onClick={effacer}>
              effacez le brouillon
            </Anchor>{' '}
            avant de partir.
          </Text>
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
          <Alert role="none" color="teal.9" variant="filled" title={MESSAGES.enregistre} />
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
          Ce lien donne accès à votre demande et vous permet d’envoyer vos documents. Il vient aussi de vous être envoyé par e-mail à{' '}
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
