import type { FastifyInstance } from 'fastify';
import { MAX_FICHIERS_PAR_ENVOI, TYPES_ACCEPTES } from '../../../domain/documents.js';

/** Limits the web app checks before sending (the server checks them again). */
export default async function parametresRoutes(app: FastifyInstance): Promise<void> {
  const data = {
    uploadMaxBytes: app.deps.config.uploadMaxBytes,
    maxFichiersParEnvoi: MAX_FICHIERS_PAR_ENVOI,
    typesAcceptes: TYPES_ACCEPTES,
  };
  app.get('/parametres', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=300').send({ data }));
}
