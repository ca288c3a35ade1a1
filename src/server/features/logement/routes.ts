import archiver from 'archiver';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isGestionnaire } from '../../../domain/compte.js';
import { fieldMessages, logementInputSchema, type LogementCree } from '../../../domain/logement.js';
import { isValidNumeroUnique, normaliseNumeroUnique, NUMERO_UNIQUE_MESSAGE } from '../../../domain/normalise.js';
import { sessionUser } from '../../auth/index.js';
import { isUniqueViolation } from '../../db/index.js';
import type { HousingRequestRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { hashAccessKey, hasFullAccess, newAccessKey, privateLink } from './access.js';
import { findByNumero, groupDocuments, insertLogement, listDocuments, listHistorique, toComplet, toStatutVue } from './repository.js';
import { receiveDocuments } from './upload.js';

export const DUPLICATE_MESSAGE = 'Une demande existe déjà pour ce numéro unique !';
export const NOT_FOUND_MESSAGE = "Il n'existe pas de demande de logement pour ce numéro unique";
const FULL_ACCESS_MESSAGE =
  "Accès refusé : ouvrez le lien privé reçu lors de l'enregistrement de la demande (ou par e-mail) pour accéder à ses informations et à ses documents.";

function numeroFromParams(params: unknown): string {
  const raw = (params as { numeroUnique?: string }).numeroUnique ?? '';
  const numero = normaliseNumeroUnique(raw);
  if (!isValidNumeroUnique(numero)) throw new ApiError(400, 'INVALID_NUMERO', NUMERO_UNIQUE_MESSAGE, { numeroUnique: NUMERO_UNIQUE_MESSAGE });
  return numero;
}

const documentParams = z.object({ id: z.uuid() });

export default async function logementRoutes(app: FastifyInstance): Promise<void> {
  const { db, storage, mailer, config, rateLimits, auth } = app.deps;

  async function loadRequest(request: FastifyRequest): Promise<HousingRequestRow> {
    const row = await findByNumero(db, numeroFromParams(request.params));
    if (!row) throw new ApiError(404, 'NOT_FOUND', NOT_FOUND_MESSAGE);
    return row;
  }

  async function loadWithFullAccess(request: FastifyRequest): Promise<HousingRequestRow> {
    const row = await loadRequest(request);
    if (!(await hasFullAccess(request, row, auth))) throw new ApiError(403, 'FORBIDDEN', FULL_ACCESS_MESSAGE);
    return row;
  }

  async function create(request: FastifyRequest): Promise<{ data: LogementCree }> {
    const parsed = logementInputSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      throw new ApiError(400, 'VALIDATION', 'Le formulaire contient des erreurs : corrigez les champs signalés.', fieldMessages(parsed.error));
    }
    const accessKey = newAccessKey();
    // Submitted while signed in: the request belongs to that account (issue 4 ownership).
    const owner = await sessionUser(auth, request);
    let row: HousingRequestRow;
    try {
      row = await insertLogement(db, parsed.data, hashAccessKey(accessKey), new Date(), owner?.id ?? null);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, 'DUPLICATE', DUPLICATE_MESSAGE, { numeroUnique: DUPLICATE_MESSAGE });
      throw error;
    }
    const link = privateLink(config.publicUrl, row.numeroUnique, accessKey);
    mailer.send({
      to: row.email,
      subject: `Votre demande de logement n° ${row.numeroUnique} est enregistrée`,
      text: [
        `Bonjour ${row.prenom},`,
        '',
        `Votre demande de logement social (numéro unique ${row.numeroUnique}) a bien été enregistrée par la mairie annexe du Jas de Bouffan.`,
        `Son statut actuel : ${row.statutDeLaDemande}.`,
        '',
        'Voici votre lien privé. Il vous permet de suivre votre demande et d’envoyer vos documents (livret de famille, pièce d’identité, avis d’imposition, bulletins de salaire) :',
        link,
        '',
        'Gardez ce lien pour vous : toute personne qui le possède peut voir votre demande et vos documents.',
        '',
        'Quartier Vivant — Jas de Bouffan, Aix-en-Provence',
      ].join('\n'),
    });
    return { data: { ...toComplet(row, []), accessKey, privateLink: link } };
  }

  // POST /logement/add reaches this same route (see ALIASES in app.ts), so both count against one limit.
  app.post('/logement', { config: { rateLimit: rateLimits.create } }, async (request, reply) =>
    reply.status(201).send(await create(request)),
  );

  // "Mes demandes": the requests submitted by the signed-in account.
  app.get('/logement/mine', async (request) => {
    const user = await sessionUser(auth, request);
    if (!user) throw new ApiError(401, 'UNAUTHENTICATED', 'Connectez-vous pour voir vos demandes.');
    const rows = await db
      .selectFrom('housingRequests')
      .selectAll()
      .where('ownerUserId', '=', user.id)
      .orderBy('dateDEnregistrement', 'desc')
      .execute();
    return { data: rows.map(toStatutVue) };
  });

  app.get('/logement/:numeroUnique', async (request) => {
    const row = await loadRequest(request);
    if (!(await hasFullAccess(request, row, auth))) return { data: toStatutVue(row) };
    return { data: toComplet(row, await listDocuments(db, row.id)) };
  });

  // The status history, as a dated timeline; managers also see who changed it.
  app.get('/logement/:numeroUnique/historique', async (request) => {
    const row = await loadRequest(request);
    const user = await sessionUser(auth, request);
    return { data: await listHistorique(db, row.id, user !== null && isGestionnaire(user.userType)) };
  });

  // "Tout télécharger": the request's documents in one zip, streamed (no compression: PDF and JPEG already are).
  app.get('/logement/:numeroUnique/documents.zip', async (request, reply) => {
    const row = await loadWithFullAccess(request);
    const docs = await listDocuments(db, row.id);
    if (docs.length === 0) throw new ApiError(404, 'NO_DOCUMENT', "Cette demande n'a encore aucun document.");
    const archive = archiver('zip', { store: true });
    archive.on('warning', (error) => request.log.warn({ err: error }, 'zip'));
    archive.on('error', (error) => request.log.error({ err: error }, 'zip'));
    for (const doc of docs) {
      archive.append(storage.read(doc.storageKey), { name: doc.storageKey.split('/').pop()!, date: new Date(doc.uploadedAt) });
    }
    void archive.finalize();
    return reply
      .header('Content-Type', 'application/zip')
      .header('Content-Disposition', contentDisposition(`demande-${row.numeroUnique}-documents.zip`))
      .header('Cache-Control', 'private, no-store')
      .send(archive);
  });

  app.post('/logement/upload-files/:numeroUnique', { config: { rateLimit: rateLimits.upload } }, async (request, reply) => {
    const row = await loadWithFullAccess(request);
    if (!request.isMultipart()) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Les fichiers doivent être envoyés en multipart/form-data.');
    }
    await receiveDocuments(request, { db, storage, maxBytes: config.uploadMaxBytes, now: () => new Date() }, row);
    return reply.status(201).send({ data: { documents: groupDocuments(row.numeroUnique, await listDocuments(db, row.id)) } });
  });

  app.get('/logement/:numeroUnique/documents/:id', async (request, reply) => {
    const row = await loadWithFullAccess(request);
    const params = documentParams.safeParse(request.params);
    const doc = params.success
      ? await db
          .selectFrom('documents')
          .selectAll()
          .where('id', '=', params.data.id)
          .where('housingRequestId', '=', row.id)
          .executeTakeFirst()
      : undefined;
    if (!doc) throw new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document n'existe pas pour cette demande.");
    if (!(await storage.exists(doc.storageKey))) {
      request.log.error({ storageKey: doc.storageKey }, 'document recorded but missing from storage');
      throw new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document est introuvable. Prévenez la mairie annexe pour qu'elle vous le redemande.");
    }
    const download = (request.query as { download?: string }).download === '1';
    return reply
      .header('Content-Type', doc.contentType)
      .header('Content-Length', doc.size)
      .header('Content-Disposition', contentDisposition(doc.originalName, { type: download ? 'attachment' : 'inline' }))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'private, no-store')
      .send(storage.read(doc.storageKey));
  });
}
