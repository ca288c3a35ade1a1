import type archiverType from 'archiver';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { aujourdhui } from '../../../domain/dates.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { compteDe } from '../../auth/guards.js';
import type { DemandeRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { fichier, zipStream } from '../../http.js';
import type { Storage } from '../../storage/index.js';
import { ajouterFichier } from '../../storage/zip.js';
import { ajouterSignalements, donneesSignalements } from '../compte/donnees-signalements.js';
import { CompteRepository } from '../compte/repository.js';
import { toPersonnel, toPublic } from '../compte/vues.js';
import type { DemandesRepository } from './repository.js';
import { nomsDansLeZip } from './upload.js';
import { toComplete } from './vues.js';

/**
 * One request's data in the zip, under `demande-<numéro>/`: demande.json (every field, the documents'
 * descriptions and reviews, the requests for corrections and the status history with refusal reasons) and each document's file under documents/.
 */
export async function ajouterDemande(archive: archiverType.Archiver, deps: { repository: DemandesRepository; storage: Storage }, row: DemandeRow): Promise<void> {
  const { repository, storage } = deps;
  const dossier = `demande-${row.numeroUnique}/`;
  const docs = await repository.listDocuments(row.id);
  const noms = nomsDansLeZip(docs);
  const { acces: _acces, documents: _documents, correction: _correction, ...champs } = toComplete(row, docs);
  const json = {
    ...champs,
    documents: docs.map((d) => ({
      categorie: d.category,
      position: d.position,
      nom: d.originalName,
      type: d.contentType,
      taille: d.size,
      sha256: d.sha256,
      deposeLe: d.uploadedAt,
      avis: d.avis,
      motifAvis: d.avisMotif,
      fichier: `documents/${noms.get(d.id)!}`,
    })),
    // What the town hall asked the person to correct, and when they answered: written to them.
    corrections: (await repository.corrections(row.id)).map((c) => ({ motif: c.motif, demandeeLe: c.demandeeLe, faiteLe: c.faiteLe, closeLe: c.closeLe })),
    messages: (await repository.messages(row.id)).map((m) => ({ de: m.de, texte: m.texte, le: m.le })),
    historique: await repository.historique(row.id, false, true),
  };
  archive.append(JSON.stringify(json, null, 2), { name: `${dossier}demande.json` });
  for (const doc of docs) ajouterFichier(archive, storage, doc.storageKey, { name: `${dossier}documents/${noms.get(doc.id)!}`, date: new Date(doc.uploadedAt) });
}

/**
 * « Télécharger mes données » (registered in the signed-in scope): compte.json (the profile, who the
 * account follows and who follows it, as the profile page shows them), each request it owns, as
 * `ajouterDemande` writes it, and its technical reports (compte/donnees-signalements.ts): each report it made
 * under `signalement-<numéro>/` with its photos, the followings and the district alert of its confirmed address.
 */
export function routesDonneesCompte(deps: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository } = deps;
    const { db, storage, photosSignalements } = app.deps;
    const comptes = new CompteRepository(db);

    app.get('/compte/export.zip', { schema: { response: fichier() } }, async (request, reply) => {
      const me = (await compteDe(request))!;
      const user = await comptes.findById(me.id);
      if (!user) throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
      const [followers, following, demandes, signalements] = await Promise.all([
        comptes.related(user.id, 'followers'),
        comptes.related(user.id, 'following'),
        repository.listByOwner(user.id),
        donneesSignalements(db, user),
      ]);
      const archive = zipStream(request, reply, `quartier-vivant-mes-donnees-${aujourdhui(app.deps.now())}.zip`);
      const compte = {
        profil: toPersonnel(user),
        // Followers and followees are neighbours: each sees the other's name (as on the profile page).
        abonnements: following.map((u) => toPublic(u, 'complet')),
        abonnes: followers.map((u) => toPublic(u, 'complet')),
        demandes: demandes.map((d) => `demande-${d.numeroUnique}/demande.json`),
        ...signalements.compte,
      };
      archive.append(JSON.stringify(compte, null, 2), { name: 'compte.json' });
      for (const row of demandes) await ajouterDemande(archive, { repository, storage }, row);
      ajouterSignalements(archive, photosSignalements, signalements);
      void archive.finalize();
      return reply.send(archive);
    });
  };
}
