import type { Db } from '../../db/index.js';
import type { Open311CleRow, SignalementMiseAJourRow, SignalementPhotoRow, SignalementRow } from '../../db/schema.js';

/** The filters of GET requests.json once read (docs/api.md « Open311 GeoReport v2 »): a period, codes, open or closed. */
export interface FiltreRequetes {
  /** ISO instants, both included. */
  depuis: string;
  jusqua: string;
  codes: readonly string[];
  /** 1 open, 0 closed, undefined both. */
  ouvert?: 0 | 1;
  limite: number;
}

/** An API key as the admins' list shows it: the row, and the name of the admin who issued it. */
export type CleListee = Open311CleRow & { creeParPrenom: string | null; creeParNom: string | null };

/** `in` lists are cut to this many values (SQLite's and PostgreSQL's limits on bound parameters are far above). */
const PAQUET = 500;

function paquets<T>(valeurs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < valeurs.length; i += PAQUET) out.push(valeurs.slice(i, i + PAQUET));
  return out;
}

/**
 * The SQL of Open311 that the technical reports' repository (features/signalements) lacks: reports by numbers
 * and by period, the public details of many reports at once (photos, updates, originals of duplicates), and the
 * API keys (migration 0021). Reads only, but for the keys.
 */
export class Open311Repository {
  constructor(private readonly db: Db) {}

  // --- Reports --------------------------------------------------------------------------------------

  /** The reports with these numbers, newest first (unknown numbers are left out). */
  async parNumeros(numeros: readonly string[]): Promise<SignalementRow[]> {
    if (numeros.length === 0) return [];
    const rows: SignalementRow[] = [];
    for (const paquet of paquets([...new Set(numeros)])) rows.push(...(await this.db.selectFrom('signalements').selectAll().where('numero', 'in', paquet).execute()));
    return rows.sort((a, b) => (a.creeLe === b.creeLe ? (a.id < b.id ? 1 : -1) : a.creeLe < b.creeLe ? 1 : -1));
  }

  /**
   * The reports made in a period, newest first, at most `limite`: the (`cree_le`, `id`) indexes of migration 0019
   * serve the period with or without one category, and with the open/closed flag.
   */
  requetes(filtre: FiltreRequetes): Promise<SignalementRow[]> {
    let query = this.db.selectFrom('signalements').selectAll().where('creeLe', '>=', filtre.depuis).where('creeLe', '<=', filtre.jusqua);
    if (filtre.codes.length === 1) query = query.where('categorie', '=', filtre.codes[0]!);
    else if (filtre.codes.length > 1) query = query.where('categorie', 'in', [...filtre.codes]);
    if (filtre.ouvert !== undefined) query = query.where('ouvert', '=', filtre.ouvert);
    return query.orderBy('creeLe', 'desc').orderBy('id', 'desc').limit(filtre.limite).execute();
  }

  /** The first public photo of each report (hidden photos left out), by report id. */
  async premieresPhotos(ids: readonly string[]): Promise<Map<string, SignalementPhotoRow>> {
    const out = new Map<string, SignalementPhotoRow>();
    for (const paquet of paquets(ids)) {
      const rows = await this.db
        .selectFrom('signalementPhotos')
        .selectAll()
        .where('signalementId', 'in', paquet)
        .where('masquee', '=', 0)
        .orderBy('signalementId')
        .orderBy('creeLe')
        .orderBy('id')
        .execute();
      for (const row of rows) if (!out.has(row.signalementId)) out.set(row.signalementId, row);
    }
    return out;
  }

  /** Every update of each report (hidden ones too: a hidden step still changed the state), oldest first, by report id. */
  async misesAJour(ids: readonly string[]): Promise<Map<string, SignalementMiseAJourRow[]>> {
    const out = new Map<string, SignalementMiseAJourRow[]>();
    for (const paquet of paquets(ids)) {
      const rows = await this.db.selectFrom('signalementMisesAJour').selectAll().where('signalementId', 'in', paquet).orderBy('signalementId').orderBy('le').orderBy('id').execute();
      for (const row of rows) {
        const liste = out.get(row.signalementId);
        if (liste) liste.push(row);
        else out.set(row.signalementId, [row]);
      }
    }
    return out;
  }

  /** The numbers of reports by id (the originals of duplicates). */
  async numeros(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const paquet of paquets([...new Set(ids)])) {
      for (const row of await this.db.selectFrom('signalements').select(['id', 'numero']).where('id', 'in', paquet).execute()) out.set(row.id, row.numero);
    }
    return out;
  }

  // --- API keys -------------------------------------------------------------------------------------

  /** Every key, newest first, with the name of the admin who issued it. */
  cles(): Promise<CleListee[]> {
    return this.db
      .selectFrom('open311Cles')
      .leftJoin('user', 'user.id', 'open311Cles.creePar')
      .selectAll('open311Cles')
      .select(['user.prenom as creeParPrenom', 'user.nom as creeParNom'])
      .orderBy('open311Cles.creeLe', 'desc')
      .orderBy('open311Cles.id', 'desc')
      .execute();
  }

  async cle(id: string): Promise<CleListee | undefined> {
    return this.db
      .selectFrom('open311Cles')
      .leftJoin('user', 'user.id', 'open311Cles.creePar')
      .selectAll('open311Cles')
      .select(['user.prenom as creeParPrenom', 'user.nom as creeParNom'])
      .where('open311Cles.id', '=', id)
      .executeTakeFirst();
  }

  async ajouterCle(row: Open311CleRow): Promise<void> {
    await this.db.insertInto('open311Cles').values(row).execute();
  }

  /** The key whose hash this is, revoked or not. */
  cleParHash(cleHash: string): Promise<Open311CleRow | undefined> {
    return this.db.selectFrom('open311Cles').selectAll().where('cleHash', '=', cleHash).executeTakeFirst();
  }

  /** Revokes a key (a revoked key stays revoked, with its first date); false when there is no such key. */
  async revoquer(id: string, le: string, par: string): Promise<boolean> {
    await this.db.updateTable('open311Cles').set({ revoqueeLe: le, revoqueePar: par }).where('id', '=', id).where('revoqueeLe', 'is', null).execute();
    return (await this.db.selectFrom('open311Cles').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  /** Records a use of the key (at most one write a minute per key: the date is a minute's precision). */
  async utilisee(id: string, le: string): Promise<void> {
    const avant = new Date(Date.parse(le) - 60_000).toISOString();
    await this.db
      .updateTable('open311Cles')
      .set({ utiliseeLe: le })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('utiliseeLe', 'is', null), eb('utiliseeLe', '<', avant)]))
      .execute();
  }
}
