import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Anchor,
  Box,
  Button,
  Card,
  Checkbox,
  CloseButton,
  CopyButton,
  FileButton,
  Group,
  Image,
  Loader,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconCurrentLocation } from '@tabler/icons-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Controller, useForm, useWatch, type FieldErrors, type Resolver } from 'react-hook-form';
import { Link } from 'react-router';
import { formatHorodatage } from '../../../domain/dates.js';
import { dansPolygone } from '../../../domain/geometrie.js';
import { pluriel } from '../../../domain/pluriel.js';
import {
  codeCategorieSchema,
  DESCRIPTION_MAX,
  DISTANCE_DOUBLON_M,
  ETAT_SIGNALEMENT_LIBELLES,
  HORS_PERIMETRE,
  nouveauSignalementSchema,
  PHOTOS_MAX,
  suivreSchema,
  TITRE_MAX,
  type NouveauSignalement,
  type Point,
  type SignalementCree,
  type SignalementProche,
} from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import { AdresseField } from '../../components/AdresseField.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { BROUILLON_DUREE_JOURS, brouillonSignalement, type Brouillon } from '../../lib/brouillon.js';
import { saveCleSignalement } from '../../lib/clesSignalements.js';
import { useParametres } from '../../lib/parametres.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { creerSignalement, envoyerPhoto, suivre, useCategories, usePerimetre, useProches } from './api.js';
import { CarteDuQuartier } from './CarteDuQuartier.js';
import { EtatBadge } from './Etat.js';
import { consignePhotos, estPhotoAcceptee, photoTropLourde, reduirePhoto } from './photos.js';

/** Said until a point is placed, and when the form is sent without one. */
export const PLACER_LE_POINT = 'Placez le problème : touchez la carte, utilisez votre position ou choisissez une adresse.';

/** The form's values as typed; `lat`/`lon` come from the map, the position or the address. */
export interface SaisieSignalement {
  categorie: string;
  titre: string;
  description: string;
  adresse: string;
  email: string;
  nom: string;
  nomMasque: boolean;
  lat?: number | undefined;
  lon?: number | undefined;
}

const VIDE: SaisieSignalement = { categorie: '', titre: '', description: '', adresse: '', email: '', nom: '', nomMasque: false };

/** The domain's schema (the server's own), with the form's words for what is not chosen yet. */
const formulaireSchema = nouveauSignalementSchema.extend({
  categorie: z.string({ error: 'Choisissez une catégorie.' }).min(1, { error: 'Choisissez une catégorie.' }).pipe(codeCategorieSchema),
  lat: z.number({ error: PLACER_LE_POINT }),
  lon: z.number({ error: PLACER_LE_POINT }),
});

/** The order fields are checked in, for the focus after a refused submit. */
const ORDRE: (keyof SaisieSignalement)[] = ['lat', 'categorie', 'titre', 'description', 'email', 'nom'];

/** How long typing must pause before the draft is written. */
const BROUILLON_DELAI_MS = 400;

/** How the point was placed (said beside it). */
type Source = 'carte' | 'position' | 'adresse';
const SOURCES: Record<Source, string> = { carte: 'sur la carte', position: 'à votre position', adresse: 'à l’adresse choisie' };

/** A photo chosen for the report: the file to send (made smaller on the device), its preview, its sending. */
interface PhotoChoisie {
  id: number;
  fichier: File;
  nomOriginal: string;
  apercu: string;
  etat: 'a-envoyer' | 'envoi' | 'envoyee' | 'echec';
  erreur?: string;
}

type Fin = { quoi: 'cree'; cree: SignalementCree; email: string } | { quoi: 'suivi'; proche: SignalementProche; email: string };

export function NouveauSignalementPage() {
  const [fin, setFin] = useState<Fin | null>(null);
  const [photos, setPhotos] = useState<PhotoChoisie[]>([]);
  usePageTitle(fin?.quoi === 'cree' ? 'Signalement enregistré — Nouveau signalement technique' : fin?.quoi === 'suivi' ? 'Signalement suivi — Nouveau signalement technique' : 'Nouveau signalement technique');
  // The previews' object URLs are freed when the page goes.
  const apercus = useRef(photos);
  useEffect(() => {
    apercus.current = photos;
  });
  useEffect(() => () => apercus.current.forEach((p) => URL.revokeObjectURL(p.apercu)), []);

  if (fin?.quoi === 'suivi') return <SuiviAuLieuDUnDoublon proche={fin.proche} email={fin.email} />;
  if (fin?.quoi === 'cree') return <SignalementEnregistre cree={fin.cree} email={fin.email} photos={photos} setPhotos={setPhotos} />;
  return <FormulaireSignalement photos={photos} setPhotos={setPhotos} onFini={setFin} />;
}

function FormulaireSignalement({
  photos,
  setPhotos,
  onFini,
}: {
  photos: PhotoChoisie[];
  setPhotos: React.Dispatch<React.SetStateAction<PhotoChoisie[]>>;
  onFini: (fin: Fin) => void;
}) {
  const { data: moi } = useMoi();
  const { data: perimetre } = usePerimetre();
  const categories = useCategories();
  const [brouillon, setBrouillon] = useState<Brouillon<SaisieSignalement> | null>(() => brouillonSignalement.lire<SaisieSignalement>());
  const [erreurEnvoi, setErreurEnvoi] = useState<string | null>(null);
  const [progression, setProgression] = useState<string | null>(null);
  const [placement, setPlacement] = useState<{ source: Source; note?: string } | null>(null);
  const [erreurPlacement, setErreurPlacement] = useState<string | null>(null);
  const [chercheLaPosition, setChercheLaPosition] = useState(false);
  const sectionOu = useRef<HTMLHeadingElement>(null);
  const alerteEnvoi = useRef<HTMLDivElement>(null);

  const form = useForm<SaisieSignalement, unknown, NouveauSignalement>({
    // The form types its values as typed (no point yet: lat and lon undefined); the schema refuses them then.
    resolver: zodResolver(formulaireSchema) as unknown as Resolver<SaisieSignalement, unknown, NouveauSignalement>,
    defaultValues: VIDE,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    shouldFocusError: false,
  });
  const {
    register,
    control,
    handleSubmit,
    setValue,
    formState: { errors, isSubmitting },
  } = form;
  const lat = useWatch({ control, name: 'lat' });
  const lon = useWatch({ control, name: 'lon' });
  const point: Point | null = useMemo(() => (lat !== undefined && lon !== undefined ? { lat, lon } : null), [lat, lon]);
  const proches = useProches(point);
  const marqueursProches = useMemo(() => (proches.data ?? []).map((s) => ({ numero: s.numero, lat: s.lat, lon: s.lon, etat: s.etat, nom: s.titre })), [proches.data]);

  // Signed in: the account's name and e-mail fill the form, unless the person already typed something.
  useEffect(() => {
    if (moi && !form.formState.isDirty) {
      form.reset({ ...VIDE, ...form.getValues(), email: moi.email, nom: [moi.prenom, moi.nom].filter(Boolean).join(' ') });
    }
  }, [moi, form]);

  // What is typed is kept on the device, so that a closed tab or a lost connection loses nothing.
  useEffect(() => {
    let minuteur: ReturnType<typeof setTimeout> | undefined;
    const desabonner = form.subscribe({
      formState: { values: true },
      callback: ({ values, name }) => {
        if (!name) return;
        clearTimeout(minuteur);
        minuteur = setTimeout(() => brouillonSignalement.ecrire(values), BROUILLON_DELAI_MS);
      },
    });
    return () => {
      clearTimeout(minuteur);
      desabonner();
    };
  }, [form]);

  useEffect(() => {
    if (erreurEnvoi) alerteEnvoi.current?.focus();
  }, [erreurEnvoi]);

  /** Every way of placing the point ends here: refused outside the district before any call. */
  const placer = (p: Point, source: Source, note?: string) => {
    if (perimetre && !dansPolygone(p, perimetre.perimetre)) {
      setErreurPlacement(HORS_PERIMETRE);
      return;
    }
    setErreurPlacement(null);
    setValue('lat', p.lat, { shouldDirty: true });
    setValue('lon', p.lon, { shouldDirty: true });
    form.clearErrors(['lat', 'lon']);
    setPlacement({ source, ...(note ? { note } : {}) });
  };

  const maPosition = () => {
    setErreurPlacement(null);
    if (!('geolocation' in navigator)) {
      setErreurPlacement('Ce navigateur ne donne pas votre position : touchez la carte ou saisissez une adresse.');
      return;
    }
    setChercheLaPosition(true);
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => {
        setChercheLaPosition(false);
        const precision = Math.round(coords.accuracy);
        placer(
          { lat: coords.latitude, lon: coords.longitude },
          'position',
          precision > 50 ? `Position approximative (à ${precision} m près) : vérifiez le point sur la carte et touchez-la pour le corriger.` : undefined,
        );
      },
      (error) => {
        setChercheLaPosition(false);
        setErreurPlacement(
          error.code === error.PERMISSION_DENIED
            ? 'Vous n’avez pas autorisé l’accès à votre position. Autorisez-le dans les réglages du navigateur, ou touchez la carte, ou saisissez une adresse.'
            : error.code === error.TIMEOUT
              ? 'Votre position n’a pas été trouvée à temps. Réessayez, ou touchez la carte, ou saisissez une adresse.'
              : 'Votre position n’est pas disponible (localisation désactivée ou sans signal). Touchez la carte ou saisissez une adresse.',
        );
      },
      { enableHighAccuracy: true, timeout: 15_000, maximumAge: 60_000 },
    );
  };

  const reprendre = (b: Brouillon<SaisieSignalement>) => {
    form.reset({ ...VIDE, ...b.valeurs });
    if (b.valeurs.lat !== undefined && b.valeurs.lon !== undefined) setPlacement({ source: 'carte' });
    setBrouillon(null);
  };
  const effacer = () => {
    brouillonSignalement.effacer();
    setBrouillon(null);
  };

  const focaliserPremiereErreur = (errs: FieldErrors<SaisieSignalement>) => {
    const premiere = ORDRE.find((champ) => errs[champ] || (champ === 'lat' && errs.lon));
    if (premiere === 'lat') sectionOu.current?.focus();
    else if (premiere) form.setFocus(premiere);
  };

  const envoyer = async (data: NouveauSignalement) => {
    setErreurEnvoi(null);
    let cree: SignalementCree;
    setProgression('Enregistrement du signalement…');
    try {
      cree = await creerSignalement(data);
    } catch (error) {
      setProgression(null);
      if (error instanceof ApiError) {
        for (const [champ, message] of Object.entries(error.fields)) {
          if (champ === 'lat' || champ === 'lon') setErreurPlacement(message);
          else form.setError(champ as keyof SaisieSignalement, { message });
        }
      }
      setErreurEnvoi(errorMessage(error));
      return;
    }
    saveCleSignalement(cree.numero, cree.cle);
    brouillonSignalement.effacer();
    // One call per photo, with the key; a failure is said on the next screen, the report is kept.
    const aEnvoyer = photos.filter((p) => p.etat !== 'envoyee');
    for (const [i, photo] of aEnvoyer.entries()) {
      setProgression(`Envoi de la photo ${i + 1} sur ${aEnvoyer.length}…`);
      await envoyerUnePhoto(cree.numero, photo, setPhotos);
    }
    setProgression(null);
    onFini({ quoi: 'cree', cree, email: data.email });
  };

  const nbCategories = categories.data?.length ?? 0;

  return (
    <Stack maw={880} gap="lg">
      <div>
        <Anchor component={Link} to={paths.technique}>
          ← Signalements techniques
        </Anchor>
        <Title order={1} mt="xs">
          Nouveau signalement technique
        </Title>
        <Text mt="xs">
          Un problème dans l’espace public du Jas de Bouffan : chaussée, éclairage, propreté, espaces verts, mobilier urbain. Pour une urgence ou
          un danger immédiat, appelez le 112. Les champs marqués d’un astérisque (*) sont obligatoires.
        </Text>
      </div>

      {brouillon && (
        <Alert color="blue" variant="light" title="Un signalement commencé sur cet appareil" role="region">
          <Text size="sm">
            Vous aviez commencé un signalement{brouillon.valeurs.titre ? ` (« ${brouillon.valeurs.titre} »)` : ''} le{' '}
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

      {erreurEnvoi && (
        <Alert ref={alerteEnvoi} tabIndex={-1} color="red" role="alert" title="Le signalement n’a pas été enregistré">
          {erreurEnvoi}
        </Alert>
      )}
      {!erreurEnvoi && form.formState.submitCount > 0 && Object.keys(errors).length > 0 && (
        <Alert color="red" role="alert" title="Le signalement n’a pas été enregistré">
          {pluriel(Object.keys(errors).filter((c) => c !== 'lon' || !errors.lat).length, 'champ est à corriger', 'champs sont à corriger')} : voyez
          les messages sous chacun.
        </Alert>
      )}

      <form onSubmit={(e) => void handleSubmit(envoyer, focaliserPremiereErreur)(e)} noValidate aria-label="Nouveau signalement technique">
        <Stack gap="xl">
          <Stack component="section" aria-labelledby="ou-titre" gap="sm">
            <Title order={2} size="h3" id="ou-titre" ref={sectionOu} tabIndex={-1}>
              1. Où est le problème ? *
            </Title>
            <Text size="sm">Touchez la carte à l’endroit du problème, utilisez votre position, ou choisissez une adresse.</Text>
            <CarteDuQuartier
              nom="Carte pour placer le problème"
              description="Touchez ou cliquez la carte à l’endroit du problème. Au clavier : déplacez la carte avec les flèches, zoomez avec + et −, puis utilisez le bouton « Placer le point au centre de la carte »."
              point={point}
              onToucher={(p) => placer(p, 'carte')}
              marqueurs={marqueursProches}
              alternative="Utilisez votre position ou une adresse ci-dessous pour placer le problème."
            />
            <Group gap="sm">
              <Button
                variant="outline"
                onClick={maPosition}
                loading={chercheLaPosition}
                loaderProps={{ 'aria-label': 'Recherche de votre position' }}
                leftSection={<IconCurrentLocation size={18} aria-hidden="true" />}
              >
                Utiliser ma position
              </Button>
            </Group>
            <Controller
              control={control}
              name="adresse"
              render={({ field }) => (
                <AdresseField
                  name={field.name}
                  inputRef={field.ref}
                  value={field.value}
                  onChange={field.onChange}
                  onPick={(s) => {
                    setValue('adresse', s.adresse, { shouldDirty: true });
                    if (s.lat !== undefined && s.lon !== undefined) placer({ lat: s.lat, lon: s.lon }, 'adresse');
                    else setErreurPlacement('Cette adresse est connue sans position précise : touchez la carte à l’endroit du problème.');
                  }}
                  label="Adresse ou lieu du problème"
                  description="Commencez à taper, puis choisissez une suggestion : le point se place à cette adresse. Vous pouvez aussi décrire le lieu (« devant l’école »)."
                  autoComplete="off"
                  error={errors.adresse?.message}
                />
              )}
            />
            <div role="status">
              {point && placement && !erreurPlacement && (
                <Text size="sm">
                  Point placé {SOURCES[placement.source]}. {placement.note ?? ''}
                </Text>
              )}
            </div>
            {(erreurPlacement ?? errors.lat?.message ?? errors.lon?.message) && (
              <Alert color="orange" role="alert" variant="light">
                {erreurPlacement ?? errors.lat?.message ?? errors.lon?.message}
              </Alert>
            )}
            {point && (
              <DejaSignale
                proches={proches.data}
                chargement={proches.isPending}
                emailParDefaut={form.getValues('email')}
                onSuivi={(proche, email) => {
                  brouillonSignalement.effacer();
                  onFini({ quoi: 'suivi', proche, email });
                }}
              />
            )}
          </Stack>

          <Stack component="section" aria-labelledby="quoi-titre" gap="md">
            <Title order={2} size="h3" id="quoi-titre">
              2. Le problème
            </Title>
            <Controller
              control={control}
              name="categorie"
              render={({ field }) => (
                <Radio.Group
                  name={field.name}
                  label="Catégorie"
                  description="Elle fait arriver le signalement au bon service."
                  withAsterisk
                  value={field.value}
                  onChange={field.onChange}
                  error={errors.categorie?.message}
                >
                  {categories.isPending && <Text size="sm">Chargement des catégories…</Text>}
                  {categories.error && <Text size="sm">Les catégories n’ont pas pu être chargées : {errorMessage(categories.error)}</Text>}
                  <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="sm">
                    {(categories.data ?? []).map((c, i) => (
                      <Radio
                        key={c.code}
                        value={c.code}
                        label={c.libelle}
                        description={c.description}
                        // The first radio takes the focus after a refused submit (Radio.Group has no element of its own to focus).
                        ref={i === 0 ? field.ref : undefined}
                      />
                    ))}
                  </SimpleGrid>
                  {nbCategories === 0 && categories.data && <Text size="sm">Aucune catégorie n’est ouverte pour le moment.</Text>}
                </Radio.Group>
              )}
            />
            <TextInput
              {...register('titre')}
              label="Titre"
              description={`Le problème en quelques mots (${TITRE_MAX} caractères au plus), par exemple « Lampadaire éteint ».`}
              withAsterisk
              required
              maxLength={TITRE_MAX}
              autoComplete="off"
              error={errors.titre?.message}
            />
            <Textarea
              {...register('description')}
              label="Description"
              description="Ce qui aiderait le service : depuis quand, le danger, où exactement."
              autosize
              minRows={3}
              maxLength={DESCRIPTION_MAX}
              error={errors.description?.message}
            />
            <Photos photos={photos} setPhotos={setPhotos} />
          </Stack>

          <Stack component="section" aria-labelledby="vous-titre" gap="md">
            <Title order={2} size="h3" id="vous-titre">
              3. Vous
            </Title>
            <TextInput
              {...register('email')}
              type="email"
              label="Adresse e-mail"
              description="Pour vous tenir au courant : vous recevrez le numéro du signalement, votre lien de suivi et un e-mail à chaque étape. Elle n’est jamais affichée."
              withAsterisk
              required
              autoComplete="email"
              inputMode="email"
              error={errors.email?.message}
            />
            <TextInput {...register('nom')} label="Votre nom" description="Facultatif." autoComplete="name" error={errors.nom?.message} />
            <Checkbox
              {...register('nomMasque')}
              label="Ne pas afficher mon nom publiquement"
              description="Seule la mairie le verra. Sinon, il apparaît sur la page publique du signalement."
            />
          </Stack>

          <Stack gap="xs">
            <Group>
              <Button type="submit" size="md" loading={isSubmitting} loaderProps={{ 'aria-label': 'Envoi en cours' }}>
                Envoyer le signalement
              </Button>
            </Group>
            <div role="status">{progression && <Text size="sm">{progression}</Text>}</div>
            <Text size="sm" c="dimmed">
              Le signalement, ses photos et son historique seront publics, sans votre adresse e-mail. Ce que vous saisissez est gardé sur cet appareil
              jusqu’à l’envoi, {BROUILLON_DUREE_JOURS} jours au plus (sans les photos). Sur un ordinateur partagé,{' '}
              <Anchor component="button" type="button" size="sm" onClick={effacer}>
                effacez le brouillon
              </Anchor>{' '}
              avant de partir.
            </Text>
          </Stack>
        </Stack>
      </form>
    </Stack>
  );
}

/** Sends one photo with the report's key; its state says how it went. */
async function envoyerUnePhoto(numero: string, photo: PhotoChoisie, setPhotos: React.Dispatch<React.SetStateAction<PhotoChoisie[]>>): Promise<void> {
  const maj = (changes: Partial<PhotoChoisie>) => setPhotos((liste) => liste.map((p) => (p.id === photo.id ? { ...p, ...changes } : p)));
  maj({ etat: 'envoi', erreur: undefined });
  try {
    await envoyerPhoto(numero, photo.fichier);
    maj({ etat: 'envoyee' });
  } catch (error) {
    maj({ etat: 'echec', erreur: errorMessage(error) });
  }
}

let prochainId = 1;

/** Up to PHOTOS_MAX photos, checked and made smaller on the device, each previewed with its text alternative. */
function Photos({ photos, setPhotos }: { photos: PhotoChoisie[]; setPhotos: React.Dispatch<React.SetStateAction<PhotoChoisie[]>> }) {
  const { data: parametres } = useParametres();
  const maxOctets = parametres?.uploadMaxBytes ?? 10 * 1024 * 1024;
  const [refus, setRefus] = useState<string[]>([]);
  const [reduction, setReduction] = useState(false);
  const resetRef = useRef<() => void>(null);
  const place = PHOTOS_MAX - photos.length;

  const choisir = async (fichiers: File[]) => {
    resetRef.current?.();
    const refuses: string[] = [];
    const acceptes: PhotoChoisie[] = [];
    setReduction(true);
    for (const fichier of fichiers) {
      if (acceptes.length >= place) {
        refuses.push(`« ${fichier.name} » n’est pas ajoutée : ${PHOTOS_MAX} photos au plus.`);
        continue;
      }
      if (!estPhotoAcceptee(fichier)) {
        refuses.push(`« ${fichier.name} » n’est pas acceptée : une photo est un fichier JPEG ou PNG.`);
        continue;
      }
      const reduite = await reduirePhoto(fichier);
      if (reduite.size > maxOctets) {
        refuses.push(photoTropLourde(fichier.name, reduite.size, maxOctets));
        continue;
      }
      acceptes.push({ id: prochainId++, fichier: reduite, nomOriginal: fichier.name, apercu: URL.createObjectURL(reduite), etat: 'a-envoyer' });
    }
    setReduction(false);
    setRefus(refuses);
    setPhotos((liste) => [...liste, ...acceptes]);
  };

  const retirer = (photo: PhotoChoisie) => {
    URL.revokeObjectURL(photo.apercu);
    setPhotos((liste) => liste.filter((p) => p.id !== photo.id));
  };

  return (
    <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }} aria-describedby="photos-consigne">
      <Text component="legend" fw={500} size="sm" p={0}>
        Photos (facultatif)
      </Text>
      <Text size="sm" c="dimmed" id="photos-consigne">
        {consignePhotos(maxOctets)} Elles sont réduites sur votre appareil avant l’envoi ; la mairie retire leurs informations de lieu et d’appareil.
      </Text>
      {photos.length > 0 && (
        <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Photos choisies">
          {photos.map((photo, i) => (
            <Box component="li" key={photo.id} pos="relative">
              <Image src={photo.apercu} alt={`Aperçu ${i + 1} : ${photo.nomOriginal}`} h={110} fit="cover" radius="sm" />
              <CloseButton
                pos="absolute"
                top={4}
                right={4}
                variant="filled"
                size="lg"
                aria-label={`Retirer la photo ${i + 1} (${photo.nomOriginal})`}
                onClick={() => retirer(photo)}
              />
            </Box>
          ))}
        </SimpleGrid>
      )}
      {refus.length > 0 && (
        <Alert color="orange" role="alert" variant="light">
          {refus.map((r) => (
            <Text size="sm" key={r}>
              {r}
            </Text>
          ))}
        </Alert>
      )}
      <Group gap="sm">
        {place > 0 ? (
          <FileButton resetRef={resetRef} onChange={(f) => void choisir(f)} accept="image/jpeg,image/png" multiple>
            {(props) => (
              <Button variant="outline" {...props} loading={reduction} loaderProps={{ 'aria-label': 'Préparation des photos' }}>
                {photos.length === 0 ? 'Ajouter des photos' : 'Ajouter une autre photo'}
              </Button>
            )}
          </FileButton>
        ) : (
          <Text size="sm">{PHOTOS_MAX} photos choisies : c’est le maximum.</Text>
        )}
      </Group>
    </Stack>
  );
}

/**
 * « Déjà signalé tout près ? »: the open reports within 50 m of the point, with « C’est le même problème », which
 * asks the e-mail and follows that report instead of making a duplicate.
 */
function DejaSignale({
  proches,
  chargement,
  emailParDefaut,
  onSuivi,
}: {
  proches: SignalementProche[] | undefined;
  chargement: boolean;
  emailParDefaut: string;
  onSuivi: (proche: SignalementProche, email: string) => void;
}) {
  const [choisi, setChoisi] = useState<string | null>(null);
  if (chargement) {
    return (
      <Group gap="xs" role="status">
        <Loader size="xs" aria-hidden="true" />
        <Text size="sm">Recherche des signalements déjà faits tout près…</Text>
      </Group>
    );
  }
  if (!proches || proches.length === 0) {
    return (
      <Text size="sm" role="status">
        Aucun signalement ouvert à moins de {DISTANCE_DOUBLON_M} m de ce point.
      </Text>
    );
  }
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="proches-titre" bg="yellow.0">
      <Title order={3} size="h4" id="proches-titre">
        Déjà signalé tout près ?
      </Title>
      <Text size="sm" mb="sm">
        {pluriel(proches.length, 'signalement ouvert', 'signalements ouverts')} à moins de {DISTANCE_DOUBLON_M} m. Si c’est le même problème, suivez-le
        plutôt que d’en faire un nouveau : vous serez prévenu de chaque étape, et le service le traitera plus vite.
      </Text>
      <Stack component="ul" gap="sm" m={0} p={0} style={{ listStyle: 'none' }}>
        {proches.map((s) => (
          <Box component="li" key={s.numero}>
            <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
              <div>
                <Anchor component={Link} to={paths.signalement(s.numero)} fw={600}>
                  {s.titre}
                </Anchor>
                <Text size="sm">
                  {s.categorie.libelle}, à {Math.round(s.distanceM)} m — n° {s.numero}, signalé le {new Date(s.creeLe).toLocaleDateString('fr-FR')}
                </Text>
              </div>
              <EtatBadge etat={s.etat} />
            </Group>
            {choisi === s.numero ? (
              <SuivreAuLieuDeSignaler proche={s} emailParDefaut={emailParDefaut} onSuivi={onSuivi} onAnnuler={() => setChoisi(null)} />
            ) : (
              <Button variant="light" size="sm" mt="xs" onClick={() => setChoisi(s.numero)} aria-label={`C’est le même problème : ${s.titre}`}>
                C’est le même problème
              </Button>
            )}
          </Box>
        ))}
      </Stack>
    </Card>
  );
}

function SuivreAuLieuDeSignaler({
  proche,
  emailParDefaut,
  onSuivi,
  onAnnuler,
}: {
  proche: SignalementProche;
  emailParDefaut: string;
  onSuivi: (proche: SignalementProche, email: string) => void;
  onAnnuler: () => void;
}) {
  const [email, setEmail] = useState(emailParDefaut);
  const [erreur, setErreur] = useState<string | null>(null);
  const [enCours, setEnCours] = useState(false);
  const champ = useRef<HTMLInputElement>(null);
  useEffect(() => champ.current?.focus(), []);

  const confirmer = async () => {
    const lu = suivreSchema.safeParse({ email });
    if (!lu.success) {
      setErreur(lu.error.issues[0]?.message ?? 'L’adresse e-mail n’est pas valable.');
      champ.current?.focus();
      return;
    }
    setErreur(null);
    setEnCours(true);
    try {
      await suivre(proche.numero, lu.data.email);
      onSuivi(proche, lu.data.email);
    } catch (error) {
      setErreur(errorMessage(error));
      setEnCours(false);
    }
  };

  // Part of the report's form: its own button sends it, Enter in the field too (not the report).
  return (
    <Stack gap="xs" mt="xs" p="sm" bg="white" style={{ borderRadius: 'var(--mantine-radius-sm)' }}>
      <TextInput
        ref={champ}
        type="email"
        label={`Votre adresse e-mail, pour suivre le signalement n° ${proche.numero}`}
        description="Vous recevrez un e-mail à chaque étape de ce signalement."
        autoComplete="email"
        inputMode="email"
        required
        value={email}
        onChange={(e) => setEmail(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void confirmer();
          }
        }}
        error={erreur}
      />
      <Group gap="sm">
        <Button size="sm" onClick={() => void confirmer()} loading={enCours} loaderProps={{ 'aria-label': 'Envoi en cours' }}>
          Suivre ce signalement
        </Button>
        <Button size="sm" variant="subtle" onClick={onAnnuler}>
          Ce n’est pas le même
        </Button>
      </Group>
    </Stack>
  );
}

/** « C’est le même problème »: no duplicate, the person follows the existing report. */
function SuiviAuLieuDUnDoublon({ proche, email }: { proche: SignalementProche; email: string }) {
  const titre = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    titre.current?.focus();
    window.scrollTo({ top: 0 });
  }, []);
  return (
    <Stack maw={760} gap="lg">
      <Title order={1} ref={titre} tabIndex={-1}>
        Vous suivez ce signalement
      </Title>
      <Alert color="teal" variant="light" role="status" title="Merci : aucun doublon n’a été créé">
        Le problème était déjà signalé. Vous suivez désormais le signalement n° <strong>{proche.numero}</strong> « {proche.titre} » (
        {ETAT_SIGNALEMENT_LIBELLES[proche.etat]}) : un e-mail de confirmation vous a été envoyé à <strong>{email}</strong>, puis vous en recevrez un
        à chaque étape.
      </Alert>
      <Group>
        <Button component={Link} to={paths.signalement(proche.numero)}>
          Voir le signalement n° {proche.numero}
        </Button>
        <Button component={Link} to={paths.technique} variant="outline">
          Tous les signalements
        </Button>
      </Group>
    </Stack>
  );
}

/** After saving: the number, the private follow link, the photos' fate (a failed one may be sent again). */
function SignalementEnregistre({
  cree,
  email,
  photos,
  setPhotos,
}: {
  cree: SignalementCree;
  email: string;
  photos: PhotoChoisie[];
  setPhotos: React.Dispatch<React.SetStateAction<PhotoChoisie[]>>;
}) {
  const titre = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    titre.current?.focus();
    window.scrollTo({ top: 0 });
  }, []);
  const lien = `${window.location.origin}${paths.signalement(cree.numero)}#cle=${cree.cle}`;
  const echecs = photos.filter((p) => p.etat === 'echec');
  const envoyees = photos.filter((p) => p.etat === 'envoyee').length;

  return (
    <Stack maw={760} gap="lg">
      <Title order={1} ref={titre} tabIndex={-1}>
        Votre signalement est enregistré
      </Title>
      <Text>
        Numéro du signalement : <strong>{cree.numero}</strong>. Un e-mail vous a été envoyé à <strong>{email}</strong> avec ce numéro et votre lien
        de suivi ; vous en recevrez un à chaque étape.
      </Text>
      {photos.length > 0 && (
        <Stack gap="xs" role="status">
          {envoyees > 0 && <Text>{pluriel(envoyees, 'photo envoyée', 'photos envoyées')}.</Text>}
          {echecs.length > 0 && (
            <Alert color="orange" variant="light" title={echecs.length === 1 ? 'Une photo n’a pas été envoyée' : 'Des photos n’ont pas été envoyées'}>
              <Stack gap="xs">
                <Text size="sm">Le signalement est bien enregistré. Vous pouvez renvoyer la photo maintenant, ou depuis la page du signalement dans l’heure.</Text>
                {echecs.map((p) => (
                  <Group key={p.id} gap="sm" wrap="wrap">
                    <Text size="sm">
                      « {p.nomOriginal} » : {p.erreur}
                    </Text>
                    <Button size="xs" variant="outline" onClick={() => void envoyerUnePhoto(cree.numero, p, setPhotos)}>
                      Renvoyer « {p.nomOriginal} »
                    </Button>
                  </Group>
                ))}
              </Stack>
            </Alert>
          )}
          {photos.some((p) => p.etat === 'envoi') && <Text size="sm">Envoi en cours…</Text>}
        </Stack>
      )}
      <Card withBorder padding="lg" component="section" aria-labelledby="lien-suivi-titre">
        <Title order={2} size="h3" id="lien-suivi-titre" mb="xs">
          Votre lien de suivi
        </Title>
        <Text mb="sm">
          Ce lien vous permet d’ajouter des photos dans l’heure, puis, si la mairie déclare le problème résolu alors qu’il ne l’est pas, de le dire.
          Gardez-le pour vous. Cet onglet s’en souvient jusqu’à sa fermeture.
        </Text>
        <TextInput label="Lien de suivi du signalement" value={lien} readOnly onFocus={(e) => e.currentTarget.select()} />
        <Group mt="sm">
          <CopyButton value={lien}>
            {({ copied, copy }) => (
              <Button variant="outline" onClick={copy} aria-live="polite">
                {copied ? 'Lien copié' : 'Copier le lien'}
              </Button>
            )}
          </CopyButton>
          <Button component={Link} to={paths.signalement(cree.numero)}>
            Voir mon signalement
          </Button>
        </Group>
      </Card>
    </Stack>
  );
}
