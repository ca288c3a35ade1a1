import type {
  EntreeModeration,
  EtatSignalement,
  LigneGestionSignalement,
  MiseAJour,
  NoteSignalement,
  Photo,
  PhotoGestion,
  SignalementGestion,
  SignalementProche,
  SignalementPublic,
  SignalementResume,
} from '../../../domain/signalements.js';
import type { SignalementCategorieRow, SignalementMiseAJourRow, SignalementPhotoRow, SignalementRow } from '../../db/schema.js';
import type { ResumeRow } from './repository.js';
import type { LigneGestionRow } from './repository-gestion.js';

/** The libellé of each category code (older reports keep a category even when it is no longer offered). */
export type Libelles = ReadonlyMap<string, string>;

export function libelles(categories: readonly Pick<SignalementCategorieRow, 'code' | 'libelle'>[]): Libelles {
  return new Map(categories.map((c) => [c.code, c.libelle]));
}

const categorieDe = (code: string, noms: Libelles) => ({ code, libelle: noms.get(code) ?? code });

/** The title as the public sees it: the category's name when moderation withdrew it. */
const titrePublic = (row: Pick<SignalementRow, 'titre' | 'titreMasque' | 'categorie'>, noms: Libelles) => (row.titreMasque ? (noms.get(row.categorie) ?? row.categorie) : row.titre);

export const photoUrl = (numero: string, id: string) => `/app/api/technique/signalements/${encodeURIComponent(numero)}/photos/${id}`;

export function resume(row: ResumeRow, noms: Libelles): SignalementResume {
  return {
    numero: row.numero,
    categorie: categorieDe(row.categorie, noms),
    titre: titrePublic(row, noms),
    lat: row.lat,
    lon: row.lon,
    adresse: row.adresse,
    etat: row.etat as EtatSignalement,
    creeLe: row.creeLe,
    misAJourLe: row.misAJourLe,
  };
}

export function proche(row: ResumeRow & { distanceM: number }, noms: Libelles): SignalementProche {
  return { ...resume(row, noms), distanceM: Math.round(row.distanceM * 10) / 10 };
}

export function photo(numero: string, row: SignalementPhotoRow): Photo {
  return { id: row.id, url: photoUrl(numero, row.id), largeur: row.largeur, hauteur: row.hauteur };
}

export function miseAJour(row: SignalementMiseAJourRow): MiseAJour {
  return { le: row.le, etat: (row.etat as EtatSignalement | null) ?? null, texte: row.texte, par: row.par as MiseAJour['par'] };
}

/**
 * The public history: a hidden update loses its text but keeps its change of state (moderation withdraws what
 * someone wrote, not the facts of the report's handling); a hidden update without a change of state is left out.
 */
export function historiquePublic(rows: readonly SignalementMiseAJourRow[]): MiseAJour[] {
  return rows.flatMap((r) => (r.masquee !== 1 ? [miseAJour(r)] : r.etat ? [{ ...miseAJour(r), texte: null }] : []));
}

/**
 * A report as anyone sees it: no e-mail, the name only when given and not hidden, moderated text replaced
 * (the title by the category's name, the description by nothing), hidden photos and updates left out
 * (the repository's reads without `avecMasquees`; with them, historiquePublic keeps a hidden update's state only).
 */
export function vuePublique(
  row: SignalementRow,
  noms: Libelles,
  details: { photos: readonly SignalementPhotoRow[]; misesAJour: readonly SignalementMiseAJourRow[]; doublonDe: string | null; suiveurs: number },
): SignalementPublic {
  return {
    numero: row.numero,
    categorie: categorieDe(row.categorie, noms),
    titre: titrePublic(row, noms),
    description: row.descriptionMasquee ? '' : row.description,
    titreMasque: row.titreMasque === 1,
    descriptionMasquee: row.descriptionMasquee === 1,
    lat: row.lat,
    lon: row.lon,
    adresse: row.adresse,
    etat: row.etat as EtatSignalement,
    creeLe: row.creeLe,
    misAJourLe: row.misAJourLe,
    auteur: row.nom && row.nomMasque !== 1 ? row.nom : null,
    photos: details.photos.map((p) => photo(row.numero, p)),
    miseAJours: historiquePublic(details.misesAJour),
    doublonDe: details.doublonDe,
    suiveurs: details.suiveurs,
  };
}

/** The managers' photo route: every photo, hidden ones too (GET /technique/gestion/signalements/:numero/photos/:id). */
export const photoGestionUrl = (numero: string, id: string) => `/app/api/technique/gestion/signalements/${encodeURIComponent(numero)}/photos/${id}`;

export function photoGestion(numero: string, row: SignalementPhotoRow): PhotoGestion {
  return { id: row.id, url: photoGestionUrl(numero, row.id), largeur: row.largeur, hauteur: row.hauteur, masquee: row.masquee === 1 };
}

/** A row of the managers' list: the real title, the reporter's contact, moderation's mark, the original of a duplicate. */
export function ligneGestion(row: LigneGestionRow & { doublonDeNumero: string | null }, noms: Libelles): LigneGestionSignalement {
  return {
    numero: row.numero,
    categorie: categorieDe(row.categorie, noms),
    titre: row.titre,
    titreMasque: row.titreMasque === 1,
    contenuMasque: row.contenuMasque === 1,
    lat: row.lat,
    lon: row.lon,
    adresse: row.adresse,
    etat: row.etat as EtatSignalement,
    creeLe: row.creeLe,
    misAJourLe: row.misAJourLe,
    email: row.email,
    nom: row.nom,
    nomMasque: row.nomMasque === 1,
    doublonDe: row.doublonDeNumero,
  };
}

/** A report as managers see it: everything, hidden text, photos and updates included and marked. */
export function vueGestion(
  row: SignalementRow,
  noms: Libelles,
  details: {
    photos: readonly SignalementPhotoRow[];
    misesAJour: readonly (SignalementMiseAJourRow & { auteur: string | null })[];
    doublonDe: string | null;
    doublons: string[];
    suiveurs: number;
    notes: NoteSignalement[];
    moderation: EntreeModeration[];
    /** The name of the Open311 API key the report was posted with, or null. */
    viaOpen311: string | null;
  },
): SignalementGestion {
  return {
    ...ligneGestion({ ...row, doublonDeNumero: details.doublonDe }, noms),
    description: row.description,
    descriptionMasquee: row.descriptionMasquee === 1,
    parUnCompte: row.ownerUserId !== null,
    photos: details.photos.map((p) => photoGestion(row.numero, p)),
    miseAJours: details.misesAJour.map((m) => ({ ...miseAJour(m), id: m.id, masquee: m.masquee === 1, auteur: m.auteur })),
    doublons: details.doublons,
    suiveurs: details.suiveurs,
    notes: details.notes,
    moderation: details.moderation,
    viaOpen311: details.viaOpen311,
  };
}
