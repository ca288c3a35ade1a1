import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { fieldMessages } from '../../../domain/erreurs.js';
import {
  discoverySchema,
  jurisdictionQuerySchema,
  MESSAGES_OPEN311,
  nouvelleRequeteSchema,
  OPEN311_CHANGESET,
  OPEN311_CHEMIN,
  OPEN311_FORMATS,
  OPEN311_JOURS,
  OPEN311_MAX_REQUESTS,
  OPEN311_SPECIFICATION,
  requestsQuerySchema,
  serviceDefinitionSchema,
  serviceRequestCreeSchema,
  serviceRequestSchema,
  serviceSchema,
  type ErreursOpen311,
  type NouvelleRequete,
  type RequestsQuery,
} from '../../../domain/open311.js';
import { DESCRIPTION_MAX, NUMERO_SIGNALEMENT, nouveauSignalementSchema, TITRE_MAX, uneLigne } from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import type { RateLimit } from '../../app.js';
import type { SignalementRow } from '../../db/schema.js';
import { ApiError, hasNulByte, nulByteError, toApiError } from '../../errors.js';
import { avecFichiers, reponses } from '../../http.js';
import type { SignalementsRepository } from '../signalements/repository.js';
import type { SignalementsService } from '../signalements/service.js';
import { hashCleApi } from './cles.js';
import type { Open311Repository } from './repository.js';
import { requete, service } from './vues.js';

const JOUR_MS = 86_400_000;

/** An Open311 refusal: its HTTP status, and its description for the person (French). */
export class ErreurOpen311 extends ApiError {
  constructor(status: 400 | 403 | 404 | 429, description: string) {
    super(status, status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : status === 429 ? 'RATE_LIMITED' : 'BAD_REQUEST', description);
  }
}

/**
 * Any error as GeoReport v2 writes it: `[{ code, description }]`, `code` the HTTP status. The specification's
 * statuses are 404 (no such resource), 403 (api_key) and 400 for every other refusal: the app's other 4xx
 * (415, 413…) answer 400 here; 429 (rate limits) and the 5xx keep theirs. One error per distinct message
 * (a point outside the district is one error, not one for `lat` and one for `long`).
 */
export function erreursOpen311(error: FastifyError | Error, request: FastifyRequest): { status: number; corps: ErreursOpen311 } {
  const api = toApiError(error, request);
  const status = api.statusCode === 403 || api.statusCode === 404 || api.statusCode === 429 || api.statusCode >= 500 ? api.statusCode : 400;
  const messages = api.fields && Object.keys(api.fields).length > 0 ? [...new Set(Object.values(api.fields))] : [api.message];
  return { status, corps: messages.map((description) => ({ code: status, description })) };
}

/** Our names of a report's fields, as Open311 names them (for the core's refusals). */
const CHAMPS_OPEN311: Record<string, string> = { categorie: 'service_code', lat: 'lat', lon: 'long', adresse: 'address_string', email: 'email', nom: 'first_name, last_name', titre: 'description', description: 'description' };

/**
 * A report's title from an Open311 description (which has none): its first line, cut at a word to
 * TITRE_MAX characters; the service's name when the description is empty or too short.
 */
export function titreDepuis(description: string, libelle: string): string {
  const premiere = description.split(/\r?\n/u).map(uneLigne).find((l) => l.length > 0) ?? '';
  const base = premiere.length >= 3 ? premiere : libelle.length >= 3 ? libelle : `Signalement ${libelle}`;
  if (base.length <= TITRE_MAX) return base;
  const coupe = base.slice(0, TITRE_MAX - 1);
  const espace = coupe.lastIndexOf(' ');
  return `${(espace > TITRE_MAX / 2 ? coupe.slice(0, espace) : coupe).trimEnd()}…`;
}

/** The resource and its format from a path segment (`voirie.json`); anything but .json is refused (400). */
function enJson(segment: string): string {
  const m = /^(.*)\.([A-Za-z0-9]+)$/u.exec(segment);
  if (!m || m[2] !== 'json') throw new ErreurOpen311(400, MESSAGES_OPEN311.formatJsonSeulement);
  return m[1]!;
}

/** The period of GET requests.json: the last 90 days by default, at most 90 days (GeoReport v2). */
export function periode(q: Pick<RequestsQuery, 'start_date' | 'end_date'>, maintenant: Date): { depuis: Date; jusqua: Date } {
  const fenetre = OPEN311_JOURS * JOUR_MS;
  const { start_date: debut, end_date: fin } = q;
  if (debut && fin) {
    if (fin.getTime() < debut.getTime()) throw new ErreurOpen311(400, MESSAGES_OPEN311.periodeInversee);
    if (fin.getTime() - debut.getTime() > fenetre) throw new ErreurOpen311(400, MESSAGES_OPEN311.periodeTropLongue);
    return { depuis: debut, jusqua: fin };
  }
  if (debut) return { depuis: debut, jusqua: new Date(debut.getTime() + fenetre) };
  if (fin) return { depuis: new Date(fin.getTime() - fenetre), jusqua: fin };
  return { depuis: new Date(maintenant.getTime() - fenetre), jusqua: maintenant };
}

/** A form-encoded body as an object: a field sent twice becomes a list (and is refused by the schema but for attributes). */
function lireFormulaire(body: string): Record<string, string | string[]> {
  const valeurs = new Map<string, string | string[]>();
  for (const [cle, valeur] of new URLSearchParams(body)) {
    const avant = valeurs.get(cle);
    valeurs.set(cle, avant === undefined ? valeur : Array.isArray(avant) ? [...avant, valeur] : [avant, valeur]);
  }
  return Object.fromEntries(valeurs);
}

export interface DepsOpen311 {
  repository: Open311Repository;
  signalements: SignalementsRepository;
  service: SignalementsService;
  limites: { parIp: RateLimit | false; parCle: RateLimit | false };
}

/**
 * Open311 GeoReport v2 (docs/api.md « Open311 GeoReport v2 », docs/decisions/0017-open311.md), registered at the
 * site's root under OPEN311_CHEMIN, outside the app's API: its own errors (`[{ code, description }]`), its own
 * not-found answer, form-encoded bodies, CORS for reading. Anyone reads (public data only); posting a report
 * needs an `api_key` that admins issue, and goes through the technical reports' service (same perimeter, same
 * mails). No cookie is read: the session plays no part here, so no origin check either.
 */
export function routesOpen311(deps: DepsOpen311) {
  // A multipart body is told apart, to refuse it in Open311's words.
  return avecFichiers((app) => {
    const { repository, signalements, service: signalementsService, limites } = deps;
    const { config, territory, now } = app.deps;

    app.setErrorHandler((error, request, reply) => {
      const { status, corps } = erreursOpen311(error as FastifyError, request);
      if (status === 503) reply.header('Retry-After', '120');
      return reply.status(status).header('Cache-Control', 'no-store').send(corps);
    });
    app.setNotFoundHandler((request, reply) => {
      const chemin = request.url.split('?', 1)[0]!.slice(OPEN311_CHEMIN.length);
      reply.header('Cache-Control', 'no-store');
      // A resource that exists, asked with another method (PUT requests.json, DELETE requests/….json): 405.
      if (/^\/(discovery|services|requests)\.json$|^\/(services|requests)\/[^/]+\.json$/u.test(chemin)) {
        return reply
          .status(405)
          .header('Allow', chemin === '/requests.json' ? 'GET, HEAD, POST' : 'GET, HEAD')
          .send([{ code: 405, description: MESSAGES_OPEN311.methodeNonProposee }]);
      }
      // A known resource in another format (services.xml): only JSON is offered. Anything else does not exist.
      const autreFormat = /^\/(discovery|services|requests)\.[A-Za-z0-9]+$/u.test(chemin);
      const status = autreFormat ? 400 : 404;
      return reply.status(status).send([{ code: status, description: autreFormat ? MESSAGES_OPEN311.formatJsonSeulement : MESSAGES_OPEN311.ressourceIntrouvable }]);
    });

    // Reading is open to pages of any site (public data); writing is not offered to browsers of other sites.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.method === 'GET' || request.method === 'HEAD') reply.header('Access-Control-Allow-Origin', '*');
      done(request.url.includes('%00') ? nulByteError() : undefined);
    });
    app.options('/*', (_request, reply) =>
      reply
        .status(204)
        .headers({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Max-Age': '86400', 'Cache-Control': 'no-store' })
        .send(),
    );

    // GeoReport v2's own body: application/x-www-form-urlencoded (JSON is read by the app's parser).
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      const valeurs = lireFormulaire(body as string);
      done(hasNulByte(valeurs) ? nulByteError() : null, valeurs);
    });

    const publique = (reply: FastifyReply, secondes: number) => reply.header('Cache-Control', `public, max-age=${secondes}`);

    app.get('/discovery.json', { schema: { querystring: jurisdictionQuerySchema, response: reponses(200, discoverySchema) } }, async (_request, reply) => {
      publique(reply, 300);
      return {
        changeset: OPEN311_CHANGESET,
        contact: config.legal.contact,
        key_service: `Les clés d’API (nécessaires pour créer un signalement) sont délivrées par les administrateurs de Quartier Vivant : demandez-en une à ${config.legal.contact}.`,
        endpoints: [{ specification: OPEN311_SPECIFICATION, url: `${config.publicUrl}${OPEN311_CHEMIN}`, changeset: OPEN311_CHANGESET, type: 'production' as const, formats: [...OPEN311_FORMATS] }],
      };
    });

    app.get('/services.json', { schema: { querystring: jurisdictionQuerySchema, response: reponses(200, z.array(serviceSchema)) } }, async (_request, reply) => {
      publique(reply, 300);
      return (await signalements.categories({ actives: true })).map(service);
    });

    app.get(
      '/services/:service_code',
      { schema: { params: z.object({ service_code: z.string() }), querystring: jurisdictionQuerySchema, response: reponses(200, serviceDefinitionSchema) } },
      async (request, reply) => {
        const code = enJson(request.params.service_code);
        const categorie = /^[a-z0-9-]{2,40}$/u.test(code) ? await signalements.categorie(code) : undefined;
        if (!categorie || categorie.active !== 1) throw new ErreurOpen311(404, MESSAGES_OPEN311.serviceInconnu);
        publique(reply, 300);
        return { service_code: categorie.code, attributes: [] };
      },
    );

    /** The public answer of many reports: their details read in a few queries, whatever their number. */
    const requetes = async (rows: SignalementRow[]) => {
      const ids = rows.map((r) => r.id);
      const [categories, photos, misesAJour, originaux] = await Promise.all([
        signalements.categories(),
        repository.premieresPhotos(ids),
        repository.misesAJour(ids),
        repository.numeros(rows.flatMap((r) => (r.doublonDe ? [r.doublonDe] : []))),
      ]);
      const contexte = {
        publicUrl: config.publicUrl,
        agence: config.legal.editeur,
        codePostal: territory.codesPostaux.length === 1 ? territory.codesPostaux[0]! : null,
        libelles: new Map(categories.map((c) => [c.code, c.libelle])),
        photos,
        misesAJour,
        originaux,
      };
      return rows.map((row) => requete(row, contexte));
    };

    app.get('/requests.json', { schema: { querystring: requestsQuerySchema, response: reponses(200, z.array(serviceRequestSchema)) } }, async (request, reply) => {
      const q = request.query;
      let rows: SignalementRow[];
      // A list of ids overrides every other argument (GeoReport v2).
      if (q.service_request_id && q.service_request_id.length > 0) {
        rows = await repository.parNumeros(q.service_request_id);
      } else {
        const { depuis, jusqua } = periode(q, now());
        const statuts = new Set(q.status ?? []);
        rows = await repository.requetes({
          depuis: depuis.toISOString(),
          jusqua: jusqua.toISOString(),
          codes: [...new Set(q.service_code ?? [])],
          ...(statuts.size === 1 ? { ouvert: statuts.has('open') ? (1 as const) : (0 as const) } : {}),
          limite: OPEN311_MAX_REQUESTS,
        });
      }
      reply.header('Cache-Control', 'no-cache');
      return requetes(rows);
    });

    app.get(
      '/requests/:service_request_id',
      { schema: { params: z.object({ service_request_id: z.string() }), querystring: jurisdictionQuerySchema, response: reponses(200, z.array(serviceRequestSchema)) } },
      async (request, reply) => {
        const numero = enJson(request.params.service_request_id);
        if (!NUMERO_SIGNALEMENT.test(numero)) throw new ErreurOpen311(400, MESSAGES_OPEN311.numeroInvalide);
        const row = await signalements.parNumero(numero);
        if (!row) throw new ErreurOpen311(404, MESSAGES_OPEN311.requeteIntrouvable);
        reply.header('Cache-Control', 'no-cache');
        return requetes([row]);
      },
    );

    // --- POST requests.json ---------------------------------------------------------------------------

    /** The key of each request, once checked (for the per-key limit). */
    const clesDesRequetes = new WeakMap<FastifyRequest, string>();
    const limiteParCle = limites.parCle ? app.createRateLimit({ ...limites.parCle, keyGenerator: (request) => `open311-cle:${clesDesRequetes.get(request) ?? ''}` }) : undefined;

    /**
     * Before the arguments are read: the body's kind, then the api_key (403, whatever else the body holds), then
     * the key's own limit. A revoked key is refused like an unknown one.
     */
    const verifierCle = async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.isMultipart()) throw new ErreurOpen311(400, MESSAGES_OPEN311.multipart);
      const body = request.body;
      // A text, a list or nothing (text/plain, a JSON array): no argument can be read, the key included.
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ErreurOpen311(400, MESSAGES_OPEN311.corpsNonObjet);
      const apiKey = (body as Record<string, unknown>).api_key;
      if (apiKey === undefined || apiKey === null || apiKey === '') throw new ErreurOpen311(403, MESSAGES_OPEN311.cleManquante);
      const cle = typeof apiKey === 'string' && apiKey.length <= 200 ? await repository.cleParHash(hashCleApi(apiKey.trim())) : undefined;
      if (!cle || cle.revoqueeLe !== null) throw new ErreurOpen311(403, MESSAGES_OPEN311.cleInvalide);
      clesDesRequetes.set(request, cle.id);
      if (limiteParCle) {
        const verdict = await limiteParCle(request);
        if (!verdict.isAllowed && verdict.isExceeded) {
          // When to try again, as the per-address limit says it (docs/api.md).
          if ('ttlInSeconds' in verdict) reply.header('Retry-After', verdict.ttlInSeconds);
          throw new ErreurOpen311(429, MESSAGES_OPEN311.tropDeRequetesCle);
        }
      }
      await repository.utilisee(cle.id, now().toISOString());
    };

    app.post(
      '/requests.json',
      {
        config: { rateLimit: limites.parIp },
        preValidation: verifierCle,
        schema: { body: nouvelleRequeteSchema, response: reponses(200, z.array(serviceRequestCreeSchema)) },
      },
      async (request) => {
        const b: NouvelleRequete = request.body;
        if (b.lat === undefined || b.long === undefined) {
          throw new ErreurOpen311(400, b.lat === undefined && b.long === undefined ? MESSAGES_OPEN311.positionObligatoire : MESSAGES_OPEN311.positionIncomplete);
        }
        if (!b.email?.trim()) throw new ErreurOpen311(400, MESSAGES_OPEN311.emailObligatoire);
        const categorie = await signalements.categorie(b.service_code);
        if (!categorie || categorie.active !== 1) throw new ErreurOpen311(404, MESSAGES_OPEN311.serviceInconnu);
        const texte = b.description?.trim() ?? '';
        // media_url is kept as a link in the description, never fetched.
        const description = b.media_url ? `${texte}${texte ? '\n\n' : ''}Photo : ${b.media_url}` : texte;
        if (b.media_url && description.length > DESCRIPTION_MAX) {
          throw new ErreurOpen311(
            400,
            `description : La description et le lien media_url, gardé à sa suite, dépassent ensemble ${DESCRIPTION_MAX} caractères : raccourcissez la description de ${description.length - DESCRIPTION_MAX} caractères.`,
          );
        }
        const saisie = nouveauSignalementSchema.safeParse({
          categorie: categorie.code,
          titre: titreDepuis(texte, categorie.libelle),
          description,
          lat: b.lat,
          lon: b.long,
          adresse: b.address_string ?? '',
          email: b.email,
          nom: [b.first_name, b.last_name].filter((p) => p?.trim()).join(' '),
          // The person chose nothing through another tool: the name stays with the town hall.
          nomMasque: true,
        });
        if (!saisie.success) {
          const champs = fieldMessages(saisie.error);
          throw new ApiError(400, 'VALIDATION', Object.values(champs)[0]!, Object.fromEntries(Object.entries(champs).map(([k, m]) => [k, `${CHAMPS_OPEN311[k] ?? k} : ${m}`])));
        }
        const { row } = await signalementsService.creer(saisie.data, null, request.log, { open311CleId: clesDesRequetes.get(request)! });
        return [
          {
            service_request_id: row.numero,
            service_notice: `Signalement enregistré sous le numéro ${row.numero}. Le lien pour le suivre a été envoyé par e-mail à la personne qui le signale ; la mairie annexe va l’examiner.`,
            account_id: null,
          },
        ];
      },
    );
  });
}
