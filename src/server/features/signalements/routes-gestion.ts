import contentDisposition from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MESSAGES } from '../../../domain/erreurs.js';
import {
  categorieGestionSchema,
  codeCategorieParamsSchema,
  erreurPeriode,
  listeGestionSignalementsQuerySchema,
  listeGestionSignalementsSchema,
  miseAJourGestionCorpsSchema,
  moderationSchema,
  modificationCategorieSchema,
  noteSignalementSchema,
  nouvelleCategorieSchema,
  nouvelleNoteSignalementSchema,
  numeroSignalementParamsSchema,
  signalementGestionSchema,
  type SignalementGestion,
} from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import type { SignalementRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { fichier, reponses } from '../../http.js';
import type { Storage } from '../../storage/index.js';
import { USER_FILE_HEADERS } from '../../http.js';
import type { SignalementsRepository } from './repository.js';
import type { GestionSignalementsRepository } from './repository-gestion.js';
import type { SignalementsService } from './service.js';
import { categorieGestion, type GestionSignalementsService } from './service-gestion.js';
import { libelles, ligneGestion, vueGestion } from './vues.js';

const photoParams = numeroSignalementParamsSchema.extend({ id: z.uuid({ error: 'Cette photo n’existe pas pour ce signalement.' }) });
const photoIntrouvable = () => new ApiError(404, 'NOT_FOUND', 'Cette photo n’existe pas (ou plus) pour ce signalement.');
const vueSchema = z.object({ data: signalementGestionSchema });

/**
 * The managers' routes of technical reports (docs/api.md « Signalements techniques », « Côté mairie »), registered
 * in a scope reserved to managers and admins (index.ts): their list, a report seen in full, public updates and
 * state changes, private notes, moderation, every photo. Every answer keeps the API's `Cache-Control: private,
 * no-store` (they carry the reporters' e-mails and names).
 */
export function routesGestionSignalements(deps: {
  repository: SignalementsRepository;
  gestion: GestionSignalementsRepository;
  service: SignalementsService;
  serviceGestion: GestionSignalementsService;
  storage: Storage;
}) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, gestion, service, serviceGestion, storage } = deps;

    const charger = async (numero: string): Promise<SignalementRow> => {
      const row = await repository.parNumero(numero);
      if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
      return row;
    };
    const vue = async (row: SignalementRow): Promise<SignalementGestion> => {
      const [categories, photos, misesAJour, suiveurs, original, doublons, notes, moderation, viaOpen311] = await Promise.all([
        repository.categories(),
        repository.photos(row.id, { avecMasquees: true }),
        gestion.misesAJour(row.id),
        repository.compterSuiveurs(row.id),
        row.doublonDe ? repository.parId(row.doublonDe) : Promise.resolve(undefined),
        gestion.doublons(row.id),
        gestion.notes(row.id),
        gestion.moderations(row.id),
        row.open311CleId ? gestion.libelleCleOpen311(row.open311CleId) : Promise.resolve(null),
      ]);
      return vueGestion(row, libelles(categories), { photos, misesAJour, suiveurs, doublonDe: original?.numero ?? null, doublons, notes, moderation, viaOpen311 });
    };
    const acteur = async (request: Parameters<typeof compteDe>[0]) => (await compteDe(request))!.id;

    // Server-side search, filters, sorts and pages (docs/produit.md « Signalements techniques », « Côté mairie »).
    app.get('/technique/gestion/signalements', { schema: { querystring: listeGestionSignalementsQuerySchema, response: reponses(200, listeGestionSignalementsSchema) } }, async (request) => {
      const q = request.query;
      const periode = erreurPeriode(q);
      if (periode) throw new ApiError(400, 'VALIDATION', MESSAGES.requeteInvalide, { au: periode });
      const [{ rows, total, exact }, categories] = await Promise.all([gestion.page(q), repository.categories()]);
      const noms = libelles(categories);
      return { data: rows.map((r) => ligneGestion(r, noms)), total, totalExact: exact, page: q.page, parPage: q.parPage };
    });

    app.get('/technique/gestion/signalements/:numero', { schema: { params: numeroSignalementParamsSchema, response: reponses(200, vueSchema) } }, async (request) => ({
      data: await vue(await charger(request.params.numero)),
    }));

    // A public update: a new state (« doublon » with its original), a text, or both; e-mailed to the followers.
    app.post(
      '/technique/gestion/signalements/:numero/mises-a-jour',
      { schema: { params: numeroSignalementParamsSchema, body: miseAJourGestionCorpsSchema, response: reponses(200, vueSchema) } },
      async (request) => {
        const row = await charger(request.params.numero);
        const { etat, texte, doublonDe } = request.body;
        const apres = await service.publierMiseAJour(
          row.id,
          { ...(etat !== undefined ? { etat } : {}), ...(doublonDe !== undefined ? { doublonDe } : {}), texte: texte ?? null, par: 'mairie', auteurUserId: await acteur(request) },
          request.log,
        );
        return { data: await vue((await repository.parId(apres.id))!) };
      },
    );

    // A private note: managers only, never shown publicly, never e-mailed.
    app.post(
      '/technique/gestion/signalements/:numero/notes',
      { schema: { params: numeroSignalementParamsSchema, body: nouvelleNoteSignalementSchema, response: reponses(201, z.object({ data: noteSignalementSchema })) } },
      async (request, reply) => {
        const row = await charger(request.params.numero);
        const note = await serviceGestion.ajouterNote(row, await acteur(request), request.body.texte, request.log);
        return reply.status(201).send({ data: note });
      },
    );

    // Moderation: hide or show again the title, the description, a photo or an update; logged.
    app.post(
      '/technique/gestion/signalements/:numero/moderation',
      { schema: { params: numeroSignalementParamsSchema, body: moderationSchema, response: reponses(200, vueSchema) } },
      async (request) => {
        const row = await charger(request.params.numero);
        await serviceGestion.moderer(row, request.body, await acteur(request), request.log);
        return { data: await vue((await repository.parId(row.id))!) };
      },
    );

    // Every photo of the report, hidden ones too (the public route answers 404 for those).
    app.get('/technique/gestion/signalements/:numero/photos/:id', { schema: { params: photoParams, response: fichier() } }, async (request, reply) => {
      const row = await charger(request.params.numero);
      const enregistree = await repository.photo(row.id, request.params.id);
      if (!enregistree) throw photoIntrouvable();
      if (!(await storage.exists(enregistree.storageKey))) {
        request.log.error({ storageKey: enregistree.storageKey }, 'photo enregistrée mais absente du stockage');
        throw photoIntrouvable();
      }
      return reply
        .headers(USER_FILE_HEADERS)
        .header('Content-Type', 'image/jpeg')
        .header('Content-Length', enregistree.taille)
        .header('Content-Disposition', contentDisposition(`signalement-${row.numero}-photo.jpg`, { type: 'inline' }))
        .send(storage.read(enregistree.storageKey));
    });
  };
}

/** The categories as admins keep them (a scope reserved to admins, index.ts). */
export function routesCategoriesAdmin(deps: { gestion: GestionSignalementsRepository; serviceGestion: GestionSignalementsService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { gestion, serviceGestion } = deps;
    const uneSchema = z.object({ data: categorieGestionSchema });

    app.get('/technique/categories/admin', { schema: { response: reponses(200, z.object({ data: z.array(categorieGestionSchema) })) } }, async () => ({
      data: (await gestion.categoriesAvecUsage()).map(categorieGestion),
    }));

    app.post('/technique/categories/admin', { schema: { body: nouvelleCategorieSchema, response: reponses(201, uneSchema) } }, async (request, reply) =>
      reply.status(201).send({ data: await serviceGestion.creerCategorie(request.body) }),
    );

    app.put('/technique/categories/admin/:code', { schema: { params: codeCategorieParamsSchema, body: modificationCategorieSchema, response: reponses(200, uneSchema) } }, async (request) => ({
      data: await serviceGestion.modifierCategorie(request.params.code, request.body),
    }));

    app.delete('/technique/categories/admin/:code', { schema: { params: codeCategorieParamsSchema, response: reponses(204, z.null()) } }, async (request, reply) => {
      await serviceGestion.supprimerCategorie(request.params.code);
      return reply.status(204).send(null);
    });
  };
}
