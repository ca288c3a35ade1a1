import type { Service, ServiceRequest } from '../../../domain/open311.js';
import { ETAT_SIGNALEMENT_EXPLICATIONS, ETAT_SIGNALEMENT_LIBELLES, estEtatSignalement, statutOpen311, uneLigne } from '../../../domain/signalements.js';
import type { SignalementCategorieRow, SignalementMiseAJourRow, SignalementPhotoRow, SignalementRow } from '../../db/schema.js';
import { photoUrl } from '../signalements/vues.js';

/** A date as GeoReport v2 writes it: W3C, to the second, in UTC (`2026-11-26T08:15:30Z`). */
export function dateW3c(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/u, 'Z');
}

/** The group every service belongs to (the specification's example: « sanitation », « street »). */
export const GROUPE_SERVICES = 'Espace public';

/** A category as an Open311 service: its name and its description's parts as keywords; no attributes. */
export function service(categorie: Pick<SignalementCategorieRow, 'code' | 'libelle' | 'description'>): Service {
  const mots = [categorie.libelle, ...categorie.description.split(',')].map((m) => m.trim().toLocaleLowerCase('fr')).filter((m) => m.length > 0);
  return {
    service_code: categorie.code,
    service_name: categorie.libelle,
    description: categorie.description || categorie.libelle,
    metadata: false,
    type: 'realtime',
    keywords: [...new Set(mots)].join(', '),
    group: GROUPE_SERVICES,
  };
}

/**
 * The report's text as the public sees it: the title and the description, each left out when moderation
 * withdrew it; the description alone when it begins with the title (a report made through Open311 takes its
 * title from its description's first line). Null when nothing is left.
 */
export function descriptionPublique(row: Pick<SignalementRow, 'titre' | 'titreMasque' | 'description' | 'descriptionMasquee'>): string | null {
  const titre = row.titreMasque === 1 ? '' : row.titre.trim();
  const description = row.descriptionMasquee === 1 ? '' : row.description.trim();
  if (!description) return titre || null;
  if (!titre) return description;
  const debut = titre.endsWith('…') ? titre.slice(0, -1) : titre;
  return uneLigne(description).startsWith(debut) ? description : `${titre}\n\n${description}`;
}

/**
 * `status_notes`: the text of the latest public update since the report entered its current state (an older
 * text spoke of an earlier state), or null. A hidden update's text is never read, but its change of state counts.
 */
export function notesDeStatut(etapes: readonly SignalementMiseAJourRow[]): string | null {
  let debut = 0;
  for (let i = etapes.length - 1; i >= 0; i -= 1) {
    if (etapes[i]!.etat !== null) {
      debut = i;
      break;
    }
  }
  for (let i = etapes.length - 1; i >= debut; i -= 1) {
    const etape = etapes[i]!;
    if (etape.masquee === 0 && etape.texte) return etape.texte;
  }
  return null;
}

/** What the public context of a report adds to its row. */
export interface Contexte {
  publicUrl: string;
  /** The town hall's name (LEGAL_EDITEUR): responsible for every report but those « hors compétence ». */
  agence: string;
  /** The district's postcode, when it has only one. */
  codePostal: string | null;
  libelles: ReadonlyMap<string, string>;
  photos: ReadonlyMap<string, SignalementPhotoRow>;
  misesAJour: ReadonlyMap<string, readonly SignalementMiseAJourRow[]>;
  /** Numbers of the originals of duplicates, by id. */
  originaux: ReadonlyMap<string, string>;
}

/**
 * A report as GET requests.json answers it: public data only. Never the e-mail address, the name, the private
 * key's hash or the owning account; moderated text and hidden photos and updates left out.
 */
export function requete(row: SignalementRow, contexte: Contexte): ServiceRequest {
  const etat = estEtatSignalement(row.etat) ? row.etat : 'nouveau';
  const photo = contexte.photos.get(row.id);
  const original = row.doublonDe ? contexte.originaux.get(row.doublonDe) : undefined;
  const adresse = row.adresse.trim();
  return {
    service_request_id: row.numero,
    status: statutOpen311(etat),
    status_notes: notesDeStatut(contexte.misesAJour.get(row.id) ?? []),
    service_name: contexte.libelles.get(row.categorie) ?? row.categorie,
    service_code: row.categorie,
    description: descriptionPublique(row),
    agency_responsible: etat === 'hors_competence' ? null : contexte.agence,
    service_notice: `${ETAT_SIGNALEMENT_LIBELLES[etat]} : ${ETAT_SIGNALEMENT_EXPLICATIONS[etat]}${original ? ` Signalement d’origine : ${original}.` : ''}`,
    requested_datetime: dateW3c(row.creeLe),
    updated_datetime: dateW3c(row.misAJourLe),
    expected_datetime: null,
    address: adresse || null,
    address_id: null,
    zipcode: /\b(\d{5})\b/u.exec(adresse)?.[1] ?? contexte.codePostal,
    lat: row.lat,
    long: row.lon,
    media_url: photo ? `${contexte.publicUrl}${photoUrl(row.numero, photo.id)}` : null,
  };
}
