import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MAX_FICHIERS_PAR_ENVOI, TYPES_ACCEPTES } from '../../../domain/documents.js';
import { parametresSchema, territoireSchema, type Parametres, type Territoire } from '../../../domain/parametres.js';
import { z } from '../../../domain/zod.js';
import { reponses } from '../../http.js';

/** Limits the web app checks before sending (the server checks them again), and the sign-up lists. */
export default async function parametresRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { config, territory } = app.deps;
  const data: Parametres = {
    uploadMaxBytes: config.uploadMaxBytes,
    maxFichiersParEnvoi: MAX_FICHIERS_PAR_ENVOI,
    quotaDocuments: { fichiers: config.uploadQuota.fichiers, octets: config.uploadQuota.octets },
    typesAcceptes: TYPES_ACCEPTES as unknown as Parametres['typesAcceptes'],
    google: config.google !== undefined,
    cycleDeVie: {
      validiteMois: config.cycleDeVie.validiteMois,
      radiationMois: config.cycleDeVie.radiationMois,
      reactivationMois: config.cycleDeVie.reactivationMois,
      conservationMois: config.cycleDeVie.conservationMois,
      rappelsJours: config.cycleDeVie.rappelsJours,
    },
  };
  app.get('/parametres', { schema: { response: reponses(200, z.object({ data: parametresSchema })) } }, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=300').send({ data }),
  );

  // The sign-up lists: one city, one quartier, the district's streets.
  const territoire: Territoire = { ville: territory.ville, quartier: territory.quartier, rues: territory.rues.map((r) => r.nom) };
  app.get('/territoire', { schema: { response: reponses(200, z.object({ data: territoireSchema })) } }, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').send({ data: territoire }),
  );
}
