import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { cleCreeSchema, cleOpen311Schema, nouvelleCleSchema, type CleOpen311 } from '../../../domain/open311.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { reponses } from '../../http.js';
import { hashCleApi, nouvelleCleApi } from './cles.js';
import type { CleListee, Open311Repository } from './repository.js';

const CLE_INTROUVABLE = 'Cette clé d’API n’existe pas.';
const cleParams = z.object({ id: z.uuid({ error: CLE_INTROUVABLE }) });

function vueCle(row: CleListee): CleOpen311 {
  const nom = [row.creeParPrenom, row.creeParNom].filter((p): p is string => Boolean(p?.trim())).join(' ');
  return { id: row.id, libelle: row.libelle, creePar: nom || null, creeLe: row.creeLe, revoqueeLe: row.revoqueeLe, utiliseeLe: row.utiliseeLe };
}

/**
 * The admins' Open311 API keys (docs/api.md « Open311 GeoReport v2 »), registered in a scope that refuses
 * everyone else (index.ts): list, issue (the key shown in this answer only), revoke. The log names a key by
 * its id, never by its value.
 */
export function routesClesOpen311(deps: { repository: Open311Repository; now: () => Date }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, now } = deps;

    app.get('/open311/cles', { schema: { response: reponses(200, z.object({ data: z.array(cleOpen311Schema) })) } }, async () => ({
      data: (await repository.cles()).map(vueCle),
    }));

    app.post('/open311/cles', { schema: { body: nouvelleCleSchema, response: reponses(201, z.object({ data: cleCreeSchema })) } }, async (request, reply) => {
      const admin = (await compteDe(request))!;
      const apiKey = nouvelleCleApi();
      const id = randomUUID();
      await repository.ajouterCle({
        id,
        libelle: request.body.libelle,
        cleHash: hashCleApi(apiKey),
        creePar: admin.id,
        creeLe: now().toISOString(),
        revoqueeLe: null,
        revoqueePar: null,
        utiliseeLe: null,
      });
      request.log.info({ cle: id, par: admin.id }, 'clé d’API Open311 délivrée');
      return reply.status(201).send({ data: { cle: vueCle((await repository.cle(id))!), apiKey } });
    });

    // Revoking twice answers the key as it is (revoked at its first date).
    app.post('/open311/cles/:id/revoquer', { schema: { params: cleParams, response: reponses(200, z.object({ data: cleOpen311Schema })) } }, async (request) => {
      const admin = (await compteDe(request))!;
      if (!(await repository.revoquer(request.params.id, now().toISOString(), admin.id))) throw new ApiError(404, 'NOT_FOUND', CLE_INTROUVABLE);
      request.log.info({ cle: request.params.id, par: admin.id }, 'clé d’API Open311 révoquée');
      return { data: vueCle((await repository.cle(request.params.id))!) };
    });
  };
}
