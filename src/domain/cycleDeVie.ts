import { STATUT_RADIEE, type Statut } from './statut.js';
import { z } from './zod.js';

/**
 * The life cycle of a request (docs/produit.md « Cycle de vie d'une demande »): valid for a year from its
 * registration or last renewal, renewable from two months before its end, struck off (« Radiée ») a month
 * after it, reactivable until 18 months after the validity's start; closed requests are kept a year, then erased.
 */

/** Statuses that close a request: its retention year starts then, and it needs no renewal. */
export const STATUTS_CLOTURES: readonly Statut[] = ['Attribué', 'Refusé', STATUT_RADIEE];
export function estCloturee(statut: string): boolean {
  return (STATUTS_CLOTURES as readonly string[]).includes(statut);
}

/** A year of validity (the rule; VALIDITE_MOIS may change it). */
export const VALIDITE_MOIS_DEFAUT = 12;
/** A request may be renewed from this many months before the end of its validity. */
export const RENOUVELABLE_AVANT_MOIS = 2;
/** The history's reason when the daily job strikes a request off. */
export const MOTIF_RADIATION = 'Demande non renouvelée';

/** The instant `mois` months later (earlier when negative), in UTC; the 31st becomes the month's last day. */
export function ajouterMois(iso: string, mois: number): string {
  const d = new Date(iso);
  const target = new Date(d.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + mois);
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return target.toISOString();
}

/** The durations, from the server's configuration (GET /parametres). */
export const cycleDeVieParametresSchema = z.object({
  validiteMois: z.number(),
  radiationMois: z.number(),
  reactivationMois: z.number(),
  conservationMois: z.number(),
  /** Reminders, in days before the end of the validity, largest first. */
  rappelsJours: z.array(z.number()),
});
export type CycleDeVieParametres = z.infer<typeof cycleDeVieParametresSchema>;

/** A request's life cycle as its requester and the managers see it. */
export const cycleDeVieSchema = z.object({
  valideJusqua: z.string(),
  /** From when « Renouveler ma demande » is open; null when the request cannot be renewed (closed). */
  renouvelableDes: z.string().nullable(),
  /** Struck off for want of renewal: when, and until when it can be reactivated. */
  radieeLe: z.string().nullable(),
  reactivableJusqua: z.string().nullable(),
  /**
   * Closed (Radiée, Refusé, Attribué): since when. A closed request has no validity any more, and no attestation
   * d'enregistrement is given for it. Null while open.
   */
  clotureeLe: z.string().nullable(),
  /** Closed: from when its personal data and documents are erased (CONSERVATION_MOIS later). Null while open. */
  effaceeAPartirDu: z.string().nullable(),
});
export type CycleDeVie = z.infer<typeof cycleDeVieSchema>;

/** The managers' filter on the validity. */
export const EXPIRATIONS = ['bientot', 'expiree', 'radiee'] as const;
export type Expiration = (typeof EXPIRATIONS)[number];
export const EXPIRATION_LABELS: Record<Expiration, string> = {
  bientot: 'Expire dans 30 jours',
  expiree: 'Expirée (non renouvelée)',
  radiee: 'Radiée',
};
/** « Expire dans 30 jours ». */
export const BIENTOT_JOURS = 30;

export function cycleDeVie(
  row: {
    statutDeLaDemande: string;
    valideJusqua: string;
    dateDEnregistrement: string;
    dernierRenouvellement: string | null;
    radieeLe: string | null;
    clotureeLe: string | null;
  },
  mois: { reactivation: number; validite: number; conservation: number },
): CycleDeVie {
  const debut = row.dernierRenouvellement ?? ajouterMois(row.valideJusqua, -mois.validite);
  const radiee = row.statutDeLaDemande === STATUT_RADIEE && row.radieeLe !== null;
  const close = estCloturee(row.statutDeLaDemande);
  const clotureeLe = close ? row.clotureeLe : null;
  return {
    valideJusqua: row.valideJusqua,
    renouvelableDes: close ? null : ajouterMois(row.valideJusqua, -RENOUVELABLE_AVANT_MOIS),
    radieeLe: radiee ? row.radieeLe : null,
    reactivableJusqua: radiee ? ajouterMois(debut, mois.reactivation) : null,
    clotureeLe,
    effaceeAPartirDu: clotureeLe === null ? null : ajouterMois(clotureeLe, mois.conservation),
  };
}
