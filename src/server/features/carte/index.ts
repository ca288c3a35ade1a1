import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { carteSchema } from '../../../domain/carte.js';
import { z } from '../../../domain/zod.js';
import { reponses } from '../../http.js';

/**
 * The map's settings for the web app (CARTE_TUILES_URL, CARTE_ATTRIBUTION; README « Configuration »): public, the
 * same for everyone, changed only by a restart. The answer keeps the API's `no-store` (no reviewed exception to add
 * for some 300 bytes: the web app asks once per visit). The Content-Security-Policy allows images from the tiles'
 * origin alone (app.ts, config.ts origineDesTuiles).
 */
export default async function carte(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { tuilesUrl, attribution } = app.deps.config.carte;
  app.get('/carte', { schema: { response: reponses(200, z.object({ data: carteSchema })) } }, async () => ({ data: { tuilesUrl, attribution } }));
}
