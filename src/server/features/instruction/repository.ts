import { randomUUID } from 'node:crypto';
import { isGestionnaire } from '../../../domain/compte.js';
import type { ActionJournal, EntreeJournal, ExportJournalise, Gestionnaire, Note } from '../../../domain/instruction.js';
import { ACTIONS_JOURNAL, DERNIERS_EXPORTS_MAX, lireDetailExport } from '../../../domain/instruction.js';
import { STATUT_RADIEE } from '../../../domain/statut.js';
import { aLaPremiereUtilisation } from '../../../domain/paresseux.js';
import type { Db } from '../../db/index.js';

/** Who wrote or did it, as managers read it: « Prénom Nom », or a deleted account. */
const nomDe = (r: { prenom: string | null; nom: string | null }) => (r.prenom || r.nom ? `${r.prenom ?? ''} ${r.nom ?? ''}`.trim() : 'Compte supprimé');

/** Managers' names in the order people read them: accents and case aside. */
const parNom = aLaPremiereUtilisation(() => new Intl.Collator('fr', { sensitivity: 'base', numeric: true }));

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
   * Whom to tell of what the applicant did (a message, « corrections faites »): the manager who follows the
   * request; else `repli` (the manager who asked for the corrections); else the manager who last wrote in its
   * thread or last asked for corrections on it; else nobody (null). An account that is no longer a manager is
   * skipped at every step: it is told nothing of the request. Their e-mail, and whether they follow it.
   */
  async destinataire(housingRequestId: string, trx: Db = this.db, repli: string | null = null): Promise<{ email: string; suit: boolean } | null> {
    const suivi = await trx
      .selectFrom('housingRequests')
      .innerJoin('user', 'user.id', 'housingRequests.suiviePar')
      .select(['user.email', 'user.userType'])
      .where('housingRequests.id', '=', housingRequestId)
      .executeTakeFirst();
    if (suivi && isGestionnaire(suivi.userType)) return { email: suivi.email, suit: true };
    const demandeur = repli ? await this.gestionnaire(repli, trx) : undefined;
    if (demandeur) return { email: demandeur.email, suit: false };
    const ecrits = trx
      .selectFrom('messages')
      .select(['auteurUserId as userId', 'le'])
      .where('housingRequestId', '=', housingRequestId)
      .where('de', '=', 'mairie')
      .where('auteurUserId', 'is not', null);
    const demandes = trx
      .selectFrom('corrections')
      .select(['demandeePar as userId', 'demandeeLe as le'])
      .where('housingRequestId', '=', housingRequestId)
      .where('demandeePar', 'is not', null);
    const candidats = await trx
      .selectFrom(ecrits.unionAll(demandes).as('c'))
      .innerJoin('user', 'user.id', 'c.userId')
      .select(['user.email', 'user.userType'])
      .orderBy('c.le', 'desc')
      .execute();
    const dernier = candidats.find((c) => isGestionnaire(c.userType));
    return dernier ? { email: dernier.email, suit: false } : null;
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

  async nomDuCompte(userId: string, trx: Db = this.db): Promise<string> {
    const row = await trx.selectFrom('user').select(['prenom', 'nom']).where('id', '=', userId).executeTakeFirst();
    return nomDe(row ?? { prenom: null, nom: null });
  }

  /** The accounts a request may be given to (managers and admins), by « Prénom Nom »; never their e-mail. */
  async gestionnaires(): Promise<Gestionnaire[]> {
    const rows = await this.db.selectFrom('user').select(['id', 'prenom', 'nom']).where('userType', 'in', ['manager', 'admin']).execute();
    return rows.map((r) => ({ id: r.id, nom: nomDe(r) })).sort((a, b) => parNom().compare(a.nom, b.nom) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** A manager's or an admin's account: their name and their e-mail (to tell them); undefined for any other id. */
  async gestionnaire(userId: string, trx: Db = this.db): Promise<{ id: string; nom: string; email: string } | undefined> {
    const row = await trx.selectFrom('user').select(['id', 'prenom', 'nom', 'email', 'userType']).where('id', '=', userId).executeTakeFirst();
    return row && isGestionnaire(row.userType) ? { id: row.id, nom: nomDe(row), email: row.email } : undefined;
  }

  async numeroDe(housingRequestId: string, trx: Db = this.db): Promise<string> {
    return (await trx.selectFrom('housingRequests').select('numeroUnique').where('id', '=', housingRequestId).executeTakeFirstOrThrow()).numeroUnique;
  }

  /** What a live event names of the request: its numéro and its status. */
  async pourEvenement(housingRequestId: string): Promise<{ numeroUnique: string; statutDeLaDemande: string } | undefined> {
    return this.db.selectFrom('housingRequests').select(['numeroUnique', 'statutDeLaDemande']).where('id', '=', housingRequestId).executeTakeFirst();
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

  /**
   * The request's audit, with its status changes made by someone (from the history; the jobs' are not), oldest
   * first. A change undone within its window (« Annuler ») left the history but stays here, followed by its undo.
   */
  async journal(housingRequestId: string): Promise<EntreeJournal[]> {
    const actions = await this.db
      .selectFrom('journalGestion')
      .leftJoin('user', 'user.id', 'journalGestion.acteurUserId')
      .select(['journalGestion.action', 'journalGestion.detail', 'journalGestion.le', 'journalGestion.acteurUserId', 'user.prenom', 'user.nom'])
      .where('journalGestion.housingRequestId', '=', housingRequestId)
      .execute();
    // Status changes made by someone (not the registration nor the yearly job's striking off), and reactivations.
    const statuts = await this.db
      .selectFrom('statusEvents')
      .innerJoin('housingRequests', 'housingRequests.id', 'statusEvents.housingRequestId')
      .leftJoin('user', 'user.id', 'statusEvents.actorUserId')
      .leftJoin('user as annuleur', 'annuleur.id', 'statusEvents.undoneBy')
      .select([
        'statusEvents.fromStatus',
        'statusEvents.toStatus',
        'statusEvents.actorUserId',
        'statusEvents.at',
        'statusEvents.undoneAt',
        'housingRequests.ownerUserId',
        'user.prenom',
        'user.nom',
        'annuleur.prenom as aPrenom',
        'annuleur.nom as aNom',
      ])
      .where('statusEvents.housingRequestId', '=', housingRequestId)
      .where((eb) => eb.or([eb('statusEvents.actorUserId', 'is not', null), eb('statusEvents.fromStatus', '=', STATUT_RADIEE)]))
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
    // « a confié la demande à »: the colleague is kept as their account id, and named now (a deleted account too).
    const confiesA = [...new Set(actions.filter((a) => a.action === 'confie' && a.detail).map((a) => a.detail!))];
    const collegues = new Map(
      confiesA.length === 0
        ? []
        : (await this.db.selectFrom('user').select(['id', 'prenom', 'nom']).where('id', 'in', confiesA).execute()).map((u) => [u.id, nomDe(u)] as const),
    );
    const detailDe = (a: { action: string; detail: string | null }) =>
      a.action === 'confie' && a.detail ? (collegues.get(a.detail) ?? nomDe({ prenom: null, nom: null })) : a.detail;
    const entree = (action: ActionJournal, par: string, le: string): EntreeJournal => ({ action, libelle: ACTIONS_JOURNAL[action], par, le });
    const entrees: EntreeJournal[] = [
      ...corrections.flatMap((c) => [
        entree('correction', nomDe({ prenom: c.dPrenom, nom: c.dNom }), c.demandeeLe),
        ...(c.faiteLe ? [entree('corrections-faites', 'Le demandeur', c.faiteLe)] : []),
        ...(c.closeLe ? [entree('correction-close', nomDe({ prenom: c.cPrenom, nom: c.cNom }), c.closeLe)] : []),
      ]),
      ...actions.map((a) => {
        const detail = detailDe(a);
        return {
          action: a.action as ActionJournal,
          libelle: ACTIONS_JOURNAL[a.action as ActionJournal] ?? a.action,
          // No account: the applicant (by the private key or as the owner), who acts in no manager's name.
          par: a.acteurUserId === null ? 'Le demandeur' : nomDe(a),
          le: a.le,
          ...(detail ? { detail } : {}),
        };
      }),
      ...statuts.flatMap((s) => {
        // The applicant reactivated their struck-off request (by the private key: no account; or as its owner).
        if (s.fromStatus === STATUT_RADIEE && (s.actorUserId === null || s.actorUserId === s.ownerUserId)) {
          return [{ ...entree('reactivee', 'Le demandeur', s.at), detail: s.toStatus }];
        }
        return [
          // « a changé le statut : Attribué, puis annulé », then who undid it and when.
          { ...entree('statut', nomDe(s), s.at), detail: s.undoneAt ? `${s.toStatus}, puis annulé` : s.toStatus },
          ...(s.undoneAt ? [{ ...entree('statut-annule', nomDe({ prenom: s.aPrenom, nom: s.aNom }), s.undoneAt), detail: s.toStatus }] : []),
        ];
      }),
    ];
    return entrees.sort((a, b) => (a.le < b.le ? -1 : a.le > b.le ? 1 : 0));
  }

  /** The latest exports of the managers' list, newest first: who, when, the format and the columns' count. */
  async derniersExports(): Promise<ExportJournalise[]> {
    const rows = await this.db
      .selectFrom('journalGestion')
      .leftJoin('user', 'user.id', 'journalGestion.acteurUserId')
      .select(['journalGestion.le', 'journalGestion.detail', 'user.prenom', 'user.nom'])
      .where('journalGestion.housingRequestId', 'is', null)
      .where('journalGestion.action', '=', 'export')
      .orderBy('journalGestion.le', 'desc')
      .orderBy('journalGestion.id', 'desc')
      .limit(DERNIERS_EXPORTS_MAX)
      .execute();
    return rows.map((r) => {
      const lu = lireDetailExport(r.detail);
      return { par: nomDe(r), le: r.le, format: lu?.format ?? null, colonnes: lu?.colonnes ?? null };
    });
  }
}
