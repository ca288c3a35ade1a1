import { randomUUID } from 'node:crypto';
import type { ActionJournal, EntreeJournal, Note } from '../../../domain/instruction.js';
import { ACTIONS_JOURNAL } from '../../../domain/instruction.js';
import type { Db } from '../../db/index.js';

/** Who wrote or did it, as managers read it: « Prénom Nom », or a deleted account. */
const nomDe = (r: { prenom: string | null; nom: string | null }) => (r.prenom || r.nom ? `${r.prenom ?? ''} ${r.nom ?? ''}`.trim() : 'Compte supprimé');

/** The SQL of the managers' handling of requests: notes, « Suivie par », the audit (migration 0013). */
export class InstructionRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** The request's id from its numéro, erased requests left out. */
  async demandeId(numeroUnique: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('housingRequests')
      .select('id')
      .where('numeroUnique', '=', numeroUnique)
      .where('effaceeLe', 'is', null)
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * Whom to tell of what the applicant did: the manager who follows the request, else the account `repli`
   * (the manager who asked for the corrections); their e-mail, or null.
   */
  async emailDuSuivi(housingRequestId: string, repli: string | null = null, trx: Db = this.db): Promise<string | null> {
    const demande = await trx.selectFrom('housingRequests').select('suiviePar').where('id', '=', housingRequestId).executeTakeFirst();
    const userId = demande?.suiviePar ?? repli;
    if (!userId) return null;
    const user = await trx.selectFrom('user').select('email').where('id', '=', userId).executeTakeFirst();
    return user?.email ?? null;
  }

  async notes(housingRequestId: string): Promise<Note[]> {
    const rows = await this.db
      .selectFrom('notesInternes')
      .leftJoin('user', 'user.id', 'notesInternes.auteurUserId')
      .select(['notesInternes.id', 'notesInternes.texte', 'notesInternes.le', 'user.prenom', 'user.nom'])
      .where('notesInternes.housingRequestId', '=', housingRequestId)
      .orderBy('notesInternes.le')
      .orderBy('notesInternes.id')
      .execute();
    return rows.map((r) => ({ id: r.id, texte: r.texte, le: r.le, auteur: nomDe(r) }));
  }

  async ajouterNote(housingRequestId: string, auteurUserId: string, texte: string, le: string, trx: Db): Promise<string> {
    const id = randomUUID();
    await trx.insertInto('notesInternes').values({ id, housingRequestId, auteurUserId, texte, le }).execute();
    return id;
  }

  async nomDuCompte(userId: string): Promise<string> {
    const row = await this.db.selectFrom('user').select(['prenom', 'nom']).where('id', '=', userId).executeTakeFirst();
    return nomDe(row ?? { prenom: null, nom: null });
  }

  async suivi(housingRequestId: string, trx: Db = this.db): Promise<{ id: string; nom: string } | null> {
    const row = await trx
      .selectFrom('housingRequests')
      .leftJoin('user', 'user.id', 'housingRequests.suiviePar')
      .select(['housingRequests.suiviePar', 'user.prenom', 'user.nom'])
      .where('housingRequests.id', '=', housingRequestId)
      .executeTakeFirst();
    return row?.suiviePar ? { id: row.suiviePar, nom: nomDe(row) } : null;
  }

  /** Sets who follows the request (null: nobody). */
  async changerSuivi(housingRequestId: string, userId: string | null, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ suiviePar: userId }).where('id', '=', housingRequestId).execute();
  }

  /** Records what a manager did. `detail` never holds personal data (a block name, a status). */
  async journaliser(entree: { housingRequestId: string | null; acteurUserId: string | null; action: ActionJournal; detail?: string; le: string }, trx: Db = this.db): Promise<void> {
    await trx
      .insertInto('journalGestion')
      .values({ id: randomUUID(), housingRequestId: entree.housingRequestId, acteurUserId: entree.acteurUserId, action: entree.action, detail: entree.detail ?? null, le: entree.le })
      .execute();
  }

  /** The request's audit, with its status changes made by someone (from the history; the jobs' are not), oldest first. */
  async journal(housingRequestId: string): Promise<EntreeJournal[]> {
    const actions = await this.db
      .selectFrom('journalGestion')
      .leftJoin('user', 'user.id', 'journalGestion.acteurUserId')
      .select(['journalGestion.action', 'journalGestion.detail', 'journalGestion.le', 'journalGestion.acteurUserId', 'user.prenom', 'user.nom'])
      .where('journalGestion.housingRequestId', '=', housingRequestId)
      .execute();
    const statuts = await this.db
      .selectFrom('statusEvents')
      .innerJoin('user', 'user.id', 'statusEvents.actorUserId')
      .select(['statusEvents.toStatus', 'statusEvents.at', 'user.prenom', 'user.nom'])
      .where('statusEvents.housingRequestId', '=', housingRequestId)
      .where('statusEvents.undoneAt', 'is', null)
      .execute();
    // Requests for corrections: asked and closed by a manager, answered by the applicant (no name: a key holder).
    const corrections = await this.db
      .selectFrom('corrections')
      .leftJoin('user as demandeur', 'demandeur.id', 'corrections.demandeePar')
      .leftJoin('user as cloreur', 'cloreur.id', 'corrections.closePar')
      .select([
        'corrections.demandeeLe',
        'corrections.faiteLe',
        'corrections.closeLe',
        'demandeur.prenom as dPrenom',
        'demandeur.nom as dNom',
        'cloreur.prenom as cPrenom',
        'cloreur.nom as cNom',
      ])
      .where('corrections.housingRequestId', '=', housingRequestId)
      .execute();
    const entree = (action: ActionJournal, par: string, le: string): EntreeJournal => ({ action, libelle: ACTIONS_JOURNAL[action], par, le });
    const entrees: EntreeJournal[] = [
      ...corrections.flatMap((c) => [
        entree('correction', nomDe({ prenom: c.dPrenom, nom: c.dNom }), c.demandeeLe),
        ...(c.faiteLe ? [entree('corrections-faites', 'Le demandeur', c.faiteLe)] : []),
        ...(c.closeLe ? [entree('correction-close', nomDe({ prenom: c.cPrenom, nom: c.cNom }), c.closeLe)] : []),
      ]),
      ...actions.map((a) => ({
        action: a.action as ActionJournal,
        libelle: ACTIONS_JOURNAL[a.action as ActionJournal] ?? a.action,
        // No account: the applicant (by the private key or as the owner), who acts in no manager's name.
        par: a.acteurUserId === null ? 'Le demandeur' : nomDe(a),
        le: a.le,
        ...(a.detail ? { detail: a.detail } : {}),
      })),
      ...statuts.map((s) => ({ action: 'statut' as const, libelle: ACTIONS_JOURNAL.statut, par: nomDe(s), le: s.at, detail: s.toStatus })),
    ];
    return entrees.sort((a, b) => (a.le < b.le ? -1 : a.le > b.le ? 1 : 0));
  }
}
