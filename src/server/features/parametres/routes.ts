import type { FastifyInstance } from 'fastify';
import { MAX_FICHIERS_PAR_ENVOI, TYPES_ACCEPTES } from '../../../domain/documents.js';

/** Limits the web app checks before sending (the server checks them again). */
export default async function parametresRoutes(app: FastifyInstance): Promise<void> {
  const { config, territory } = app.deps;
  const data = {
    uploadMaxBytes: config.uploadMaxBytes,
    maxFichiersParEnvoi: MAX_FICHIERS_PAR_ENVOI,
    typesAcceptes: TYPES_ACCEPTES,
    /** The "Connexion avec Google" button shows only when Google sign-in is configured. */
    google: config.google !== undefined,
  };
  app.get('/parametres', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=300').send({ data }));

  // The sign-up lists (SPEC §5): one city, one quartier, the district's streets.
  const territoire = { ville: territory.ville, quartier: territory.quartier, rues: territory.rues.map((r) => r.nom) };
  app.get('/territoire', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').send({ data: territoire }));
}
