import type { Note, SuiviVue } from '../../../domain/instruction.js';
import type { InstructionRepository } from './repository.js';

/**
 * State changes of the managers' handling: each one is a transaction that also records itself in the audit
 * (docs/produit.md « Instruction »).
 */
export class InstructionService {
  constructor(private readonly deps: { repository: InstructionRepository; now: () => Date }) {}

  async ajouterNote(housingRequestId: string, auteurId: string, texte: string): Promise<Note> {
    const { repository } = this.deps;
    const le = this.deps.now().toISOString();
    const id = await repository.transaction(async (trx) => {
      const noteId = await repository.ajouterNote(housingRequestId, auteurId, texte, le, trx);
      await repository.journaliser({ housingRequestId, acteurUserId: auteurId, action: 'note', le }, trx);
      return noteId;
    });
    return { id, texte, le, auteur: await repository.nomDuCompte(auteurId) };
  }

  /**
   * « Suivre » makes the manager the one who follows the request (taking it over from another, who is then
   * named in the audit by the change); « Ne plus suivre » frees it, only when it is theirs. Answers the new state.
   */
  async changerSuivi(housingRequestId: string, managerId: string, suivre: boolean): Promise<SuiviVue> {
    const { repository } = this.deps;
    const le = this.deps.now().toISOString();
    await repository.transaction(async (trx) => {
      const courant = (await repository.suivi(housingRequestId, trx))?.id ?? null;
      if (suivre ? courant === managerId : courant !== managerId) return;
      await repository.changerSuivi(housingRequestId, suivre ? managerId : null, trx);
      await repository.journaliser({ housingRequestId, acteurUserId: managerId, action: suivre ? 'suivi' : 'fin-suivi', le }, trx);
    });
    const suiviePar = await repository.suivi(housingRequestId);
    return { suiviePar, moi: suiviePar?.id === managerId };
  }
}
