import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MESSAGES } from '../../../domain/erreurs.js';
import {
  categorieSchema,
  desabonnementSchema,
  jetonSchema,
  listeSignalementsQuerySchema,
  listeSignalementsSchema,
  numeroSignalementParamsSchema,
  perimetreSchema,
  photoSchema,
  pointSchema,
  DISTANCE_DOUBLON_M,
  PROCHES_MAX,
  signalementCreeSchema,
  signalementProcheSchema,
  signalementVueSchema,
  suivreSchema,
  toujoursPasResoluSchema,
  nouveauSignalementSchema,
  type Perimetre,
  type SignalementVue,
} from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import type { SignalementRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { avecFichiers, fichier, reponses } from '../../http.js';
import type { Storage } from '../../storage/index.js';
import { holdsPrivateKey } from '../demandes/access.js';
import { USER_FILE_HEADERS } from '../../http.js';
import { preparerPhoto, recevoirPhoto, type PhotoPreparee } from './photos.js';
import type { SignalementsRepository } from './repository.js';
import type { SignalementsService } from './service.js';
import { libelles, photo, proche, resume, vuePublique } from './vues.js';

const photoParams = numeroSignalementParamsSchema.extend({ id: z.uuid({ error: 'Cette photo n’existe pas pour ce signalement.' }) });
const photoIntrouvable = () => new ApiError(404, 'NOT_FOUND', 'Cette photo n’existe pas (ou plus) pour ce signalement.');

/**
 * Whether this HTTP request comes from the report's reporter: the holder of its private key (header
 * X-Access-Key, as for housing requests) or the signed-in account that made it.
 */
export async function estSignalant(request: FastifyRequest, row: Pick<SignalementRow, 'accessKeyHash' | 'ownerUserId'>): Promise<boolean> {
  if (holdsPrivateKey(request, row)) return true;
  if (row.ownerUserId === null) return false;
  return (await compteDe(request))?.id === row.ownerUserId;
}

/**
 * The public routes of technical reports (docs/api.md « Signalements techniques »): anyone may report (signed in
 * or not), look, follow and ask for alerts; the reporter (private key or owning account) adds photos and says
 * « Toujours pas résolu ». Every answer keeps the API's `Cache-Control: private, no-store`.
 */
export function routesSignalements(deps: { repository: SignalementsRepository; service: SignalementsService; storage: Storage; perimetre: Perimetre }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, service, storage, perimetre } = deps;
    const { rateLimits, config } = app.deps;

    const charger = async (numero: string): Promise<SignalementRow> => {
      const row = await repository.parNumero(numero);
      if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
      return row;
    };
    const pourLeSignalant = async (request: FastifyRequest, numero: string): Promise<SignalementRow> => {
      const row = await charger(numero);
      if (!(await estSignalant(request, row))) throw new ApiError(403, 'FORBIDDEN', MESSAGES.reserveSignalant);
      return row;
    };
    const noms = async () => libelles(await repository.categories());
    const vue = async (request: FastifyRequest, row: SignalementRow): Promise<SignalementVue> => {
      const signalant = await estSignalant(request, row);
      const [categories, photos, misesAJour, suiveurs, original, nbPhotos] = await Promise.all([
        noms(),
        repository.photos(row.id),
        // Hidden ones too: a hidden update keeps its change of state in the public history (vues.historiquePublic).
        repository.misesAJour(row.id, { avecMasquees: true }),
        repository.compterSuiveurs(row.id),
        row.doublonDe ? repository.parId(row.doublonDe) : Promise.resolve(undefined),
        signalant ? repository.compterPhotos(row.id) : Promise.resolve(0),
      ]);
      return {
        ...vuePublique(row, categories, { photos, misesAJour, suiveurs, doublonDe: original?.numero ?? null }),
        estSignalant: signalant,
        peutAjouterPhotos: signalant && service.refusPhoto(row, nbPhotos) === null,
      };
    };

    // The district's boundary, for the map (the same polygon refuses points outside).
    app.get('/technique/perimetre', { schema: { response: reponses(200, z.object({ data: perimetreSchema })) } }, async () => ({ data: perimetre }));

    // The categories a resident may choose, in the form's order.
    app.get('/technique/categories', { schema: { response: reponses(200, z.object({ data: z.array(categorieSchema) })) } }, async () => ({
      data: (await repository.categories({ actives: true })).map((c) => ({ code: c.code, libelle: c.libelle, description: c.description, active: true })),
    }));

    // Open reports within DISTANCE_DOUBLON_M of a point, nearest first (« C’est peut-être le même problème »).
    app.get(
      '/technique/signalements/proches',
      { schema: { querystring: pointSchema, response: reponses(200, z.object({ data: z.array(signalementProcheSchema) })) } },
      async (request) => {
        const [rows, categories] = await Promise.all([repository.proches(request.query, DISTANCE_DOUBLON_M, PROCHES_MAX), noms()]);
        return { data: rows.map((r) => proche(r, categories)) };
      },
    );

    // The public list and map: filters, newest first, a bounded page and count.
    app.get('/technique/signalements', { schema: { querystring: listeSignalementsQuerySchema, response: reponses(200, listeSignalementsSchema) } }, async (request) => {
      const q = request.query;
      const [{ rows, total, exact }, categories] = await Promise.all([repository.page(q, app.deps.now()), noms()]);
      return { data: rows.map((r) => resume(r, categories)), total, totalExact: exact, page: q.page, parPage: q.parPage };
    });

    app.post(
      '/technique/signalements',
      {
        config: { rateLimit: rateLimits.signalement },
        schema: { body: nouveauSignalementSchema, response: reponses(201, z.object({ data: signalementCreeSchema })) },
      },
      async (request, reply) => {
        // Made while signed in: the report belongs to that account too.
        const compte = await compteDe(request);
        const { row, cle } = await service.creer(request.body, compte?.id ?? null, request.log);
        return reply.status(201).send({ data: { numero: row.numero, cle } });
      },
    );

    app.get(
      '/technique/signalements/:numero',
      { schema: { params: numeroSignalementParamsSchema, response: reponses(200, z.object({ data: signalementVueSchema })) } },
      async (request) => ({ data: await vue(request, await charger(request.params.numero)) }),
    );

    // One photo a call (multipart), by the reporter, while photos are open (PHOTO_DELAI_MS, « nouveau », PHOTOS_MAX).
    // Files: multipart in this route's scope only (http.ts avecFichiers).
    await app.register(
      avecFichiers((fichiers) => {
        fichiers.post(
          '/technique/signalements/:numero/photos',
          {
            config: { rateLimit: rateLimits.photosSignalement },
            schema: { params: numeroSignalementParamsSchema, response: reponses(201, z.object({ data: photoSchema })) },
          },
          async (request, reply) => {
            let preparee: PhotoPreparee;
            let row: SignalementRow;
            try {
              row = await pourLeSignalant(request, request.params.numero);
              if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'La photo doit être envoyée en multipart/form-data.');
              // Refused before a byte of the photo is read.
              const refus = service.refusPhoto(row, await repository.compterPhotos(row.id));
              if (refus) throw refus;
              const { octets, nom } = await recevoirPhoto(request, config.uploadMaxBytes);
              preparee = await preparerPhoto(octets, nom);
            } catch (error) {
              // A refused upload may leave most of its body unread: the connection closes after the answer.
              reply.header('Connection', 'close');
              throw error;
            }
            const enregistree = await service.ajouterPhoto(row, preparee, request.log);
            return reply.status(201).send({ data: photo(row.numero, enregistree) });
          },
        );
      }),
    );

    app.get('/technique/signalements/:numero/photos/:id', { schema: { params: photoParams, response: fichier() } }, async (request, reply) => {
      const row = await charger(request.params.numero);
      const enregistree = await repository.photo(row.id, request.params.id);
      if (!enregistree || enregistree.masquee === 1) throw photoIntrouvable();
      if (!(await storage.exists(enregistree.storageKey))) {
        request.log.error({ storageKey: enregistree.storageKey }, 'photo enregistrée mais absente du stockage');
        throw photoIntrouvable();
      }
      return reply
        .headers(USER_FILE_HEADERS)
        // A public photo, which Open311 hands out as media_url: another site may show it (the managers' route, which
        // also serves hidden ones, keeps same-origin).
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('Content-Type', 'image/jpeg')
        .header('Content-Length', enregistree.taille)
        .header('Content-Disposition', contentDisposition(`signalement-${row.numero}-photo.jpg`, { type: 'inline' }))
        .send(storage.read(enregistree.storageKey));
    });

    // « Suivre ce signalement » and « C’est le même problème »: the same answer whether the address followed already or not.
    app.post(
      '/technique/signalements/:numero/suivre',
      {
        config: { rateLimit: rateLimits.suiviSignalement },
        schema: { params: numeroSignalementParamsSchema, body: suivreSchema, response: reponses(200, z.object({ data: z.object({ suivi: z.literal(true) }) })) },
      },
      async (request) => {
        await service.suivre(await charger(request.params.numero), request.body.email);
        return { data: { suivi: true as const } };
      },
    );

    app.post(
      '/technique/signalements/:numero/toujours-pas-resolu',
      {
        config: { rateLimit: rateLimits.suiviSignalement },
        schema: { params: numeroSignalementParamsSchema, body: toujoursPasResoluSchema.nullish(), response: reponses(200, z.object({ data: signalementVueSchema })) },
      },
      async (request) => {
        const row = await pourLeSignalant(request, request.params.numero);
        const rouvert = await service.toujoursPasResolu(row, request.body?.texte ?? '', request.log);
        return { data: await vue(request, rouvert) };
      },
    );

    // The e-mailed links' pages post their token here (it rides in the page's fragment, never in a URL the server logs).
    app.post(
      '/technique/desabonnement',
      { config: { rateLimit: rateLimits.suiviSignalement }, schema: { body: jetonSchema, response: reponses(200, z.object({ data: desabonnementSchema })) } },
      async (request) => ({ data: await service.desabonner(request.body.jeton) }),
    );

    // « Prévenez-moi des nouveaux signalements dans le quartier »: a confirmation link is e-mailed (double opt-in).
    app.post(
      '/technique/alertes',
      { config: { rateLimit: rateLimits.alerteSignalement }, schema: { body: suivreSchema, response: reponses(202, z.object({ data: z.object({ envoye: z.literal(true) }) })) } },
      async (request, reply) => {
        await service.demanderAlerte(request.body.email);
        return reply.status(202).send({ data: { envoye: true as const } });
      },
    );

    app.post(
      '/technique/alertes/confirmer',
      { config: { rateLimit: rateLimits.suiviSignalement }, schema: { body: jetonSchema, response: reponses(200, z.object({ data: z.object({ confirme: z.literal(true) }) })) } },
      async (request) => {
        await service.confirmerAlerte(request.body.jeton);
        return { data: { confirme: true as const } };
      },
    );
  };
}
