import { Alert, Anchor, Box, Button, Card, FileButton, Group, Loader, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { formatHorodatage } from '../../../domain/dates.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { pluriel } from '../../../domain/pluriel.js';
import {
  ETAT_SIGNALEMENT_EXPLICATIONS,
  ETAT_SIGNALEMENT_LIBELLES,
  MISE_A_JOUR_MAX,
  numeroSignalementSchema,
  PHOTOS_MAX,
  suivreSchema,
  type MiseAJour,
  type SignalementVue,
} from '../../../domain/signalements.js';
import { Dialog } from '../../components/Dialog.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { takeCleSignalementFromHash } from '../../lib/clesSignalements.js';
import { useParametres } from '../../lib/parametres.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { isGestionnaire } from '../../../domain/compte.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { envoyerPhoto, useSignalement, useSuivre, useToujoursPasResolu } from './api.js';
import { CarteDuQuartier } from './CarteDuQuartier.js';
import { clesTechnique } from './cles.js';
import { useSignalementEnDirect } from './enDirect.js';
import { EtatBadge } from './Etat.js';
import { Traitement } from './Traitement.js';
import { consignePhotos, estPhotoAcceptee, photoTropLourde, reduirePhoto } from './photos.js';

export function SignalementPage() {
  const brut = useParams().numero ?? '';
  const lu = numeroSignalementSchema.safeParse(brut);
  usePageTitle(`Signalement n° ${brut}`);
  return (
    <Stack maw={960} gap="lg">
      <Anchor component={Link} to={paths.technique} w="fit-content">
        ← Signalements techniques
      </Anchor>
      {lu.success ? (
        <Signalement numero={lu.data} />
      ) : (
        <>
          <Title order={1} style={{ overflowWrap: 'anywhere' }}>
            Signalement n° {brut}
          </Title>
          <Alert color="red" role="alert">
            {lu.error.issues[0]?.message}
          </Alert>
        </>
      )}
    </Stack>
  );
}

function Signalement({ numero }: { numero: string }) {
  // The key in the address (#cle=…) is kept in this tab before the first fetch, then hidden.
  useState(() => takeCleSignalementFromHash(numero));
  const { data, error, isPending, refetch, isFetching } = useSignalement(numero);
  // A state changed by the town hall shows here without reloading (managers: their own changes and notes too).
  const { data: moi, isPending: moiEnCours } = useMoi();
  useSignalementEnDirect(numero, moiEnCours ? undefined : !!moi && isGestionnaire(moi.userType));

  if (isPending) {
    return (
      <Group gap="xs" role="status">
        <Loader size="sm" aria-hidden="true" />
        <Text>Chargement du signalement…</Text>
      </Group>
    );
  }
  if (error) {
    const introuvable = error instanceof ApiError && error.status === 404;
    return (
      <Stack gap="sm" align="flex-start">
        <Title order={1}>Signalement n° {numero}</Title>
        <Alert color={introuvable ? 'orange' : 'red'} role="alert">
          {introuvable ? MESSAGES.signalementIntrouvable : errorMessage(error)}
        </Alert>
        {introuvable ? (
          <Text>
            Vérifiez le numéro, ou{' '}
            <Anchor component={Link} to={paths.nouveauSignalement}>
              faites un nouveau signalement
            </Anchor>
            .
          </Text>
        ) : (
          <Button onClick={() => void refetch()} loading={isFetching}>
            Réessayer
          </Button>
        )}
      </Stack>
    );
  }
  return <Detail s={data} />;
}

function Detail({ s }: { s: SignalementVue }) {
  const { numero, lat, lon, etat, titre } = s;
  const { data: moi } = useMoi();
  const centre = useMemo(() => ({ lat, lon }), [lat, lon]);
  const marqueurs = useMemo(() => [{ numero, lat, lon, etat, nom: titre }], [numero, lat, lon, etat, titre]);
  return (
    <Stack gap="lg">
      <div>
        <Text size="sm" fw={600}>
          Signalement n° {s.numero} — {s.categorie.libelle}
        </Text>
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          {s.titre}
        </Title>
        {s.titreMasque && (
          <Text size="sm" c="dimmed">
            Le titre donné a été retiré par la modération : c’est le nom de la catégorie qui s’affiche.
          </Text>
        )}
      </div>

      <Card withBorder padding="md" component="section" aria-labelledby="etat-titre">
        <Group gap="sm" align="center" wrap="wrap">
          <Title order={2} size="h4" id="etat-titre">
            État :
          </Title>
          <EtatBadge etat={s.etat} />
        </Group>
        <Text mt="xs" role="status">
          {ETAT_SIGNALEMENT_EXPLICATIONS[s.etat]}
        </Text>
        {s.doublonDe && (
          <Text mt="xs">
            Le signalement d’origine :{' '}
            <Anchor component={Link} to={paths.signalement(s.doublonDe)}>
              n° {s.doublonDe}
            </Anchor>
            .
          </Text>
        )}
        {s.estSignalant && <ToujoursPasResolu numero={s.numero} resolu={s.etat === 'resolu'} />}
      </Card>

      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
        <Stack gap="xs">
          <Box component="dl" m={0}>
            <Ligne terme="Lieu">{s.adresse || 'Placé sur la carte, sans adresse.'}</Ligne>
            <Ligne terme="Signalé le">{formatHorodatage(s.creeLe)}</Ligne>
            {s.auteur && <Ligne terme="Par">{s.auteur}</Ligne>}
            <Ligne terme="Suivi par">{s.suiveurs > 0 ? pluriel(s.suiveurs, 'personne', 'personnes') : 'personne pour le moment'}</Ligne>
          </Box>
          {s.description ? (
            <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{s.description}</Text>
          ) : (
            s.descriptionMasquee && (
              <Text size="sm" c="dimmed">
                La description a été retirée par la modération.
              </Text>
            )
          )}
        </Stack>
        <CarteDuQuartier
          nom="Carte : emplacement du signalement"
          centre={centre}
          marqueurs={marqueurs}
          petite
          alternative="Le lieu ci-contre situe le problème."
        />
      </SimpleGrid>

      <Photos s={s} />
      <Historique s={s} />
      {moi && isGestionnaire(moi.userType) && <Traitement numero={s.numero} />}
      {s.estSignalant ? (
        <Text size="sm">Vous avez fait ce signalement : vous recevez un e-mail à chaque étape.</Text>
      ) : (
        <Suivre numero={s.numero} />
      )}
    </Stack>
  );
}

function Ligne({ terme, children }: { terme: string; children: React.ReactNode }) {
  return (
    <Group gap={6} wrap="nowrap" align="baseline">
      <Text component="dt" fw={600} size="sm" style={{ flexShrink: 0 }}>
        {terme} :
      </Text>
      <Text component="dd" m={0} size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Group>
  );
}

function Photos({ s }: { s: SignalementVue }) {
  if (s.photos.length === 0 && !s.peutAjouterPhotos) return null;
  return (
    <Stack component="section" aria-labelledby="photos-titre" gap="sm">
      <Title order={2} size="h3" id="photos-titre">
        Photos
      </Title>
      {s.photos.length > 0 ? (
        <SimpleGrid cols={{ base: 1, xs: 2, sm: 3 }} spacing="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {s.photos.map((photo, i) => (
            <li key={photo.id}>
              <a href={photo.url} target="_blank" rel="noreferrer" title={`Vue ${i + 1} en grand (nouvel onglet)`}>
                <img
                  src={photo.url}
                  alt={`Vue ${i + 1} sur ${s.photos.length} du problème signalé : ${s.titre}`}
                  width={photo.largeur}
                  height={photo.hauteur}
                  loading="lazy"
                  style={{ width: '100%', height: 'auto', borderRadius: 'var(--mantine-radius-sm)', display: 'block' }}
                />
              </a>
            </li>
          ))}
        </SimpleGrid>
      ) : (
        <Text size="sm">Pas encore de photo.</Text>
      )}
      {s.peutAjouterPhotos && <AjouterPhoto numero={s.numero} restantes={PHOTOS_MAX - s.photos.length} />}
    </Stack>
  );
}

/** The reporter adds a photo (in the hour after the report, or while it is « nouveau »). */
function AjouterPhoto({ numero, restantes }: { numero: string; restantes: number }) {
  const queryClient = useQueryClient();
  const { data: parametres } = useParametres();
  const maxOctets = parametres?.uploadMaxBytes ?? 10 * 1024 * 1024;
  const [etat, setEtat] = useState<{ enCours: boolean; message?: string; erreur?: string }>({ enCours: false });
  const resetRef = useRef<() => void>(null);
  const envoyer = async (fichier: File | null) => {
    resetRef.current?.();
    if (!fichier) return;
    if (!estPhotoAcceptee(fichier)) {
      setEtat({ enCours: false, erreur: `« ${fichier.name} » n’est pas acceptée : une photo est un fichier JPEG ou PNG.` });
      return;
    }
    setEtat({ enCours: true });
    const reduite = await reduirePhoto(fichier);
    if (reduite.size > maxOctets) {
      setEtat({ enCours: false, erreur: photoTropLourde(fichier.name, reduite.size, maxOctets) });
      return;
    }
    try {
      await envoyerPhoto(numero, reduite);
      setEtat({ enCours: false, message: `« ${fichier.name} » est ajoutée.` });
      await queryClient.invalidateQueries({ queryKey: clesTechnique.signalement(numero) });
    } catch (error) {
      setEtat({ enCours: false, erreur: `« ${fichier.name} » n’a pas été envoyée : ${errorMessage(error)}` });
    }
  };
  return (
    <Stack gap="xs" align="flex-start">
      <Text size="sm" id="ajout-photo-consigne">
        Vous avez fait ce signalement : vous pouvez encore ajouter {pluriel(restantes, 'photo', 'photos')}. {consignePhotos(maxOctets)}
      </Text>
      <FileButton resetRef={resetRef} onChange={(f) => void envoyer(f)} accept="image/jpeg,image/png">
        {(props) => (
          <Button variant="outline" {...props} loading={etat.enCours} loaderProps={{ 'aria-label': 'Envoi de la photo' }} aria-describedby="ajout-photo-consigne">
            Ajouter une photo
          </Button>
        )}
      </FileButton>
      <div role="status">{etat.message && <Text size="sm">{etat.message}</Text>}</div>
      {etat.erreur && (
        <Alert color="red" role="alert">
          {etat.erreur}
        </Alert>
      )}
    </Stack>
  );
}

/** The report's own first step: the server records it as the reporter's « nouveau ». */
const estLaCreation = (m: MiseAJour) => m.par === 'signalant' && m.etat === 'nouveau';

function libelleMiseAJour(m: MiseAJour, auteur: string | null): string {
  // « par Nadia B. » ends the sentence itself.
  if (estLaCreation(m)) return `Signalement fait${auteur ? ` par ${auteur}` : ''}.`.replace(/\.\.$/u, '.');
  if (m.par === 'signalant') return 'La personne qui a fait le signalement indique que le problème n’est toujours pas résolu.';
  return m.etat ? `La mairie a passé le signalement à l’état « ${ETAT_SIGNALEMENT_LIBELLES[m.etat]} ».` : 'La mairie a ajouté une information.';
}

/** The public history, oldest first: the report, then each update (state, text, or both). */
function Historique({ s }: { s: SignalementVue }) {
  const etapes = [...s.miseAJours].sort((a, b) => a.le.localeCompare(b.le));
  // Reports recorded before their creation was a step of their history start with it all the same.
  if (!etapes.some(estLaCreation)) etapes.unshift({ le: s.creeLe, etat: 'nouveau', texte: null, par: 'signalant' });
  return (
    <Stack component="section" aria-labelledby="historique-titre" gap="sm">
      <Title order={2} size="h3" id="historique-titre">
        Historique
      </Title>
      <Box component="ol" m={0} pl="lg">
        {etapes.map((m, i) => (
          <Box component="li" key={`${i}-${m.le}`} mb="xs">
            <Text size="sm">
              <strong>{formatHorodatage(m.le)}</strong> — {libelleMiseAJour(m, s.auteur)}
            </Text>
            {m.texte && (
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {m.par === 'signalant' ? 'Son message' : 'Message de la mairie'} : {m.texte}
              </Text>
            )}
          </Box>
        ))}
      </Box>
    </Stack>
  );
}

/** « Suivre ce signalement »: an e-mail at each update (the same answer whether the address followed already or not). */
function Suivre({ numero }: { numero: string }) {
  const { data: moi } = useMoi();
  const [email, setEmail] = useState<string | null>(null);
  const [erreur, setErreur] = useState<string | null>(null);
  const [suiviPar, setSuiviPar] = useState<string | null>(null);
  const suivre = useSuivre(numero);
  const champ = useRef<HTMLInputElement>(null);
  const valeur = email ?? moi?.email ?? '';

  const envoyer = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const lu = suivreSchema.safeParse({ email: valeur });
    if (!lu.success) {
      setErreur(lu.error.issues[0]?.message ?? 'L’adresse e-mail n’est pas valable.');
      champ.current?.focus();
      return;
    }
    setErreur(null);
    try {
      await suivre.mutateAsync(lu.data.email);
      setSuiviPar(lu.data.email);
    } catch (error) {
      setErreur(errorMessage(error));
      champ.current?.focus();
    }
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="suivre-titre">
      <Title order={2} size="h3" id="suivre-titre" mb="xs">
        Suivre ce signalement
      </Title>
      <Text size="sm" mb="sm">
        Recevez un e-mail à chaque étape de ce signalement. Chaque e-mail contient un lien pour ne plus en recevoir.
      </Text>
      <div role="status">
        {suiviPar && (
          <Alert color="teal" variant="light" role="none" mb="sm" title="C’est noté">
            Un e-mail de confirmation a été envoyé à <strong>{suiviPar}</strong> ; vous serez prévenu à chaque étape.
          </Alert>
        )}
      </div>
      <form onSubmit={(e) => void envoyer(e)} noValidate aria-labelledby="suivre-titre">
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            ref={champ}
            type="email"
            label="Votre adresse e-mail"
            autoComplete="email"
            inputMode="email"
            required
            value={valeur}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={erreur}
            style={{ flex: '1 1 16rem' }}
          />
          <Button type="submit" mt={{ base: 0, xs: 25 }} loading={suivre.isPending} loaderProps={{ 'aria-label': 'Envoi en cours' }}>
            Suivre ce signalement
          </Button>
        </Group>
      </form>
    </Card>
  );
}

/** For the holder of the follow link, on a resolved report: say it is not, after a confirmation. */
function ToujoursPasResolu({ numero, resolu }: { numero: string; resolu: boolean }) {
  const [ouvert, setOuvert] = useState(false);
  const [texte, setTexte] = useState('');
  const [fait, setFait] = useState(false);
  const mutation = useToujoursPasResolu(numero);
  return (
    <Stack gap="xs" mt="md" align="flex-start">
      {resolu && (
        <>
          <Text size="sm">Vous avez fait ce signalement. Si le problème n’est pas réglé, dites-le : le signalement sera rouvert et le service prévenu.</Text>
          <Button variant="outline" color="#b03a08" onClick={() => setOuvert(true)}>
            Toujours pas résolu
          </Button>
        </>
      )}
      <div role="status">{fait && <Text size="sm">C’est noté : le signalement est rouvert et le service est prévenu.</Text>}</div>
      <Dialog opened={ouvert} onClose={() => !mutation.isPending && setOuvert(false)} title="Le problème n’est toujours pas résolu ?" fermeAuClicDehors={false}>
        <Stack gap="sm">
          <Text size="sm">
            Le signalement n° {numero} repassera à l’état « {ETAT_SIGNALEMENT_LIBELLES.confirme} », le service concerné sera prévenu, et les personnes qui le
            suivent recevront un e-mail.
          </Text>
          <Textarea
            label="Ce qui ne va toujours pas"
            description="Facultatif. Ce texte sera public, dans l’historique du signalement."
            autosize
            minRows={3}
            maxLength={MISE_A_JOUR_MAX}
            value={texte}
            onChange={(e) => setTexte(e.currentTarget.value)}
          />
          {mutation.error && (
            <Alert color="red" role="alert">
              {errorMessage(mutation.error)}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setOuvert(false)} disabled={mutation.isPending}>
              Annuler
            </Button>
            <Button
              color="#b03a08"
              loading={mutation.isPending}
              loaderProps={{ 'aria-label': 'Envoi en cours' }}
              onClick={() =>
                mutation.mutate(texte, {
                  onSuccess: () => {
                    setOuvert(false);
                    setFait(true);
                  },
                })
              }
            >
              Confirmer : toujours pas résolu
            </Button>
          </Group>
        </Stack>
      </Dialog>
    </Stack>
  );
}

