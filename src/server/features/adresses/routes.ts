import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { adressesQuerySchema, adressesReponseSchema, separerComplement, type Suggestion } from '../../../domain/adresses.js';
import { foldForSearch } from '../../../domain/normalise.js';
import { z } from '../../../domain/zod.js';
import { reponses } from '../../http.js';
import type { Territory } from '../../territory.js';

const banAnswer = z.object({
  features: z.array(
    z.object({
      // GeoJSON: longitude then latitude (WGS 84). Read when it is a valid point; a suggestion without it still counts.
      geometry: z
        .object({ type: z.literal('Point'), coordinates: z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]) })
        .optional()
        .catch(undefined),
      properties: z.object({
        label: z.string(),
        name: z.string().optional(),
        postcode: z.string().optional(),
        city: z.string().optional(),
      }),
    }),
  ),
});

/** After a failure the national API is left alone for this long: offline servers answer at once. */
const BAN_RETRY_AFTER_MS = 60_000;

/** Abbreviations people type for street kinds (La Poste's usual ones). */
const ABREVIATIONS: Record<string, string> = {
  all: 'allee',
  av: 'avenue',
  ave: 'avenue',
  bd: 'boulevard',
  bld: 'boulevard',
  bvd: 'boulevard',
  ch: 'chemin',
  che: 'chemin',
  imp: 'impasse',
  pl: 'place',
  r: 'rue',
  rte: 'route',
  sq: 'square',
};

/** Suggestions from the territory's own street list: "12 av jean monnet" finds "12 Avenue Jean-Monnet". */
export function searchTerritory(territory: Territory, q: string, limit: number): Suggestion[] {
  const match = /^(\d+\s?(?:bis|ter|[a-d])?)\s*,?\s+(.*)$/iu.exec(q.trim());
  const numero = match?.[1]?.replace(/\s/gu, '') ?? '';
  const words = foldForSearch(match?.[2] ?? q)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => ABREVIATIONS[w] ?? w);
  return territory.rues
    .filter((rue) => {
      const folded = foldForSearch(rue.nom);
      return words.every((w) => folded.includes(w));
    })
    .slice(0, limit)
    .map((rue) => {
      const adresse = numero ? `${numero} ${rue.nom}` : rue.nom;
      return { label: `${adresse} ${rue.codePostal} ${territory.ville}`, adresse, codePostal: rue.codePostal, ville: territory.ville };
    });
}

export default async function adressesRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { config, territory, rateLimits } = app.deps;
  let banDownUntil = 0;

  /**
   * The national address search (IGN Géoplateforme, `ADRESSE_API_URL`): the same GeoJSON answer as the former
   * api-adresse.data.gouv.fr, here asked for addresses of the territory's commune only (`citycode`).
   */
  async function searchBan(q: string, limit: number): Promise<Suggestion[] | null> {
    // It refuses (400) a query under 3 characters or not starting with a letter or a digit (« Bât C, 8 » leaves « 8 »):
    // not asked, the street list answers.
    if (q.length < 3 || !/^[\p{L}\p{N}]/u.test(q)) return null;
    if (Date.now() < banDownUntil) return null;
    const url = new URL(config.adresseApiUrl);
    url.searchParams.set('q', q);
    url.searchParams.set('limit', String(limit));
    url.searchParams.set('autocomplete', '1');
    url.searchParams.set('index', 'address');
    url.searchParams.set('citycode', territory.codeInsee);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(config.adresseApiTimeoutMs) });
      // A query it refuses says nothing of its health: the street list answers this one, the next is asked again.
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = banAnswer.parse(await response.json());
      return body.features.map(({ properties: p, geometry }) => ({
        label: p.label,
        adresse: p.name ?? p.label,
        codePostal: p.postcode ?? '',
        ville: p.city ?? '',
        ...(geometry ? { lon: geometry.coordinates[0], lat: geometry.coordinates[1] } : {}),
      }));
    } catch (error) {
      banDownUntil = Date.now() + BAN_RETRY_AFTER_MS;
      app.log.warn({ err: error }, "API Adresse injoignable : suggestions tirées de la liste des rues du territoire");
      return null;
    }
  }

  app.get(
    '/adresses',
    { config: { rateLimit: rateLimits.adresses }, schema: { querystring: adressesQuerySchema, response: reponses(200, adressesReponseSchema) } },
    async (request) => {
    const { q, limit } = request.query;
    const { recherche, complement } = separerComplement(q);
    const avecComplement = (suggestions: Suggestion[]) => (complement ? suggestions.map((s) => ({ ...s, complement })) : suggestions);
    const ban = await searchBan(recherche, limit);
    if (ban) return { data: avecComplement(ban), source: 'ban' as const };
    return { data: avecComplement(searchTerritory(territory, recherche, limit)), source: 'territoire' as const };
    },
  );
}
