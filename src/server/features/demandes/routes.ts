import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isGestionnaire } from '../../../domain/compte.js';
import {
  demandeCreeeSchema,
  demandeSaisieSchema,
  demandeVueSchema,
  documentsFermes,
  evenementStatutSchema,
  maDemandeSchema,
  numeroUniqueParamsSchema,
  recoitDesDocuments,
} from '../../../domain/demande.js';
import type { EtatCorrection } from '../../../domain/corrections.js';
import { documentsParCategorieSchema, libelleCategorie } from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { ajouterFichier } from '../../storage/zip.js';
import { avecFichiers, fichier, reponses, USER_FILE_HEADERS, zipStream } from '../../http.js';
import type { InstructionRepository } from '../instruction/repository.js';
import { accesParCompte, ACCESS_KEY_HEADER, demandeEnAccesComplet, demandeOu404, hasFullAccess, holdsPrivateKey, sansJustificatif, statutEnAccesComplet, statutOu404 } from './access.js';
import type { DemandesRepository } from './repository.js';
import type { DemandesService } from './service.js';
import { nomsDansLeZip, receiveDocuments } from './upload.js';
import { groupDocuments, toComplete, toStatutVue } from './vues.js';

const documentParams = numeroUniqueParamsSchema.extend({ id: z.uuid({ error: "Ce document n’existe pas pour cette demande." }) });
const documentQuery = z.object({ download: z.enum(['0', '1'], { error: 'download vaut 0 ou 1.' }).optional() });

/** Routes anyone may call; what each shows depends on who asks (docs/produit.md « Confidentialité »). */
export function routesPubliques(deps: { repository: DemandesRepository; service: DemandesService; journal: InstructionRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, service, journal } = deps;
    const { storage, config, rateLimits } = app.deps;
    /** A manager's look at a resident's papers is recorded in the audit (issue 12 point 9); the resident's own is not. */
    const journaliserConsultation = async (request: FastifyRequest, housingRequestId: string, action: 'document-consulte' | 'documents-zip', detail?: string) => {
      const user = await compteDe(request);
      if (user && isGestionnaire(user.userType)) {
        await journal.journaliser({ housingRequestId, acteurUserId: user.id, action, le: app.deps.now().toISOString(), ...(detail ? { detail } : {}) });
      }
    };

    const load = (numeroUnique: string) => demandeOu404(repository, numeroUnique);
    const loadWithFullAccess = (request: FastifyRequest, numeroUnique: string) => demandeEnAccesComplet(repository, request, numeroUnique);

    // POST /logement/add reaches this same route (see ALIASES in app.ts), so both count against one limit.
    app.post(
      '/logement',
      { config: { rateLimit: rateLimits.create }, schema: { body: demandeSaisieSchema, response: reponses(201, z.object({ data: demandeCreeeSchema })) } },
      async (request, reply) => {
        // Submitted while signed in: the request belongs to that account.
        const owner = await compteDe(request);
        const { row, accessKey, privateLink } = await service.creer(request.body, owner?.id ?? null, request.log);
        return reply.status(201).send({ data: { ...toComplete(row, []), accessKey, privateLink } });
      },
    );

    app.get(
      '/logement/:numeroUnique',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: demandeVueSchema })) } },
      async (request) => {
        // A private key presented (a resident's link, the common full view): the request read whole in one
        // statement, and the key decides on that very row.
        if (request.headers[ACCESS_KEY_HEADER] !== undefined) {
          const lue = await repository.findCompleteParNumero(request.params.numeroUnique);
          if (!lue) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
          // The key first, without a promise: it opens the request on most calls that carry one.
          if (!holdsPrivateKey(request, lue.row) && !(await accesParCompte(request, lue.row))) return { data: toStatutVue(lue.row) };
          return { data: toComplete(lue.row, lue.documents, lue.correction) };
        }
        // Otherwise the few columns that decide access and make the status view; the whole row only for a full
        // view, by id (the numéro of an erased request is freed and may name another one meanwhile).
        const statut = await statutOu404(repository, request.params.numeroUnique);
        if (sansJustificatif(request) || !(await hasFullAccess(request, statut))) return { data: toStatutVue(statut) };
        const complete = await repository.findComplete(statut.id);
        if (!complete) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
        return { data: toComplete(complete.row, complete.documents, complete.correction) };
      },
    );

    // The status history, as a dated timeline; managers also see who changed it.
    app.get(
      '/logement/:numeroUnique/historique',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: z.array(evenementStatutSchema) })) } },
      async (request) => {
        const row = await load(request.params.numeroUnique);
        const user = await compteDe(request);
        // A refusal's reason only for those who see the request in full (owner, private key, managers).
        return { data: await repository.historique(row.id, user !== null && isGestionnaire(user.userType), await hasFullAccess(request, row)) };
      },
    );

    // "Tout télécharger": the request's documents in one zip, streamed (no compression: PDF and JPEG already are).
    app.get('/logement/:numeroUnique/documents.zip', { schema: { params: numeroUniqueParamsSchema, response: fichier() } }, async (request, reply) => {
      const row = await loadWithFullAccess(request, request.params.numeroUnique);
      const docs = await repository.listDocuments(row.id);
      if (docs.length === 0) throw new ApiError(404, 'NO_DOCUMENT', "Cette demande n’a encore aucun document.");
      await journaliserConsultation(request, row.id, 'documents-zip');
      const archive = zipStream(request, reply, `demande-${row.numeroUnique}-documents.zip`);
      const noms = nomsDansLeZip(docs);
      for (const doc of docs) ajouterFichier(archive, storage, doc.storageKey, { name: noms.get(doc.id)!, date: new Date(doc.uploadedAt) });
      void archive.finalize();
      return reply.send(archive);
    });

    // Files: multipart in this route's scope only (http.ts avecFichiers).
    await app.register(
      avecFichiers((fichiers) => {
        fichiers.post(
          '/logement/upload-files/:numeroUnique',
          {
            config: { rateLimit: rateLimits.upload },
            schema: { params: numeroUniqueParamsSchema, response: reponses(201, z.object({ data: z.object({ documents: documentsParCategorieSchema }) })) },
          },
          async (request, reply) => {
            // The few columns that decide access (the lookup's read), not the request's whole row.
            const row = await statutEnAccesComplet(repository, request, request.params.numeroUnique);
            // A closed request takes no more documents (its page no longer asks for them): refused before a byte is read.
            if (!recoitDesDocuments(row.statutDeLaDemande)) {
              reply.header('Connection', 'close');
              throw new ApiError(409, 'DEMANDE_CLOSE', documentsFermes(row.statutDeLaDemande));
            }
            if (!request.isMultipart()) {
              throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Les fichiers doivent être envoyés en multipart/form-data.');
            }
            let documents;
            try {
              documents = await receiveDocuments(request, { repository, storage, maxBytes: config.uploadMaxBytes, quota: config.uploadQuota, now: () => new Date() }, row);
            } catch (error) {
              // A refused upload may leave most of its body unread: the connection closes after the answer
              // rather than reading the rest (or waiting for a client that stopped sending).
              reply.header('Connection', 'close');
              throw error;
            }
            return reply.status(201).send({ data: { documents: groupDocuments(row.numeroUnique, documents) } });
          },
        );
      }),
    );

    app.get('/logement/:numeroUnique/documents/:id', { schema: { params: documentParams, querystring: documentQuery, response: fichier() } }, async (request, reply) => {
      const row = await loadWithFullAccess(request, request.params.numeroUnique);
      const doc = await repository.findDocument(row.id, request.params.id);
      if (!doc) throw new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document n’existe pas pour cette demande.");
      if (!(await storage.exists(doc.storageKey))) {
        // By its ids: the stored key ends with the name the person gave the file.
        request.log.error({ demande: row.id, document: doc.id }, 'document recorded but missing from storage');
        throw new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document est introuvable. Prévenez la mairie annexe pour qu’elle vous le redemande.");
      }
      await journaliserConsultation(request, row.id, 'document-consulte', libelleCategorie(doc.category));
      // Inline (a PDF or an image, checked at upload, opened in the browser's viewer) unless download=1.
      return reply
        .headers(USER_FILE_HEADERS)
        .header('Content-Type', doc.contentType)
        .header('Content-Length', doc.size)
        .header('Content-Disposition', contentDisposition(doc.originalName, { type: request.query.download === '1' ? 'attachment' : 'inline' }))
        .send(storage.read(doc.storageKey));
    });
  };
}

/** Routes of the signed-in account (registered in a scope that answers 401 to anyone else). */
export function routesCompte(deps: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    // "Mes demandes": the requests submitted by the signed-in account.
    app.get('/logement/mine', { schema: { response: reponses(200, z.object({ data: z.array(maDemandeSchema) })) } }, async (request) => ({
      data: (await deps.repository.listByOwner((await compteDe(request))!.id)).map((row) => ({ ...toStatutVue(row), correction: row.correction as EtatCorrection | null })),
    }));
  };
}
