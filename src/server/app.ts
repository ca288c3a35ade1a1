import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import helmet from 'helmet';
import { QUARTIER, VILLE } from '../domain/compte.js';
import { MESSAGES } from '../domain/erreurs.js';
import { OPEN311_CHEMIN } from '../domain/open311.js';
import { registerRequestDecorations } from './auth/guards.js';
import { AuthALaDemande } from './auth/a-la-demande.js';
import type { AuthRateLimits, HachageDesMotsDePasse } from './auth/index.js';
import { authSecret } from './auth/secret.js';
import authRoutes from './auth/routes.js';
import { origineDesTuiles, type Config, type TrustProxy } from './config.js';
import { serializerCompiler } from './serializer.js';
import { migrate, openDatabase, optimiseSearch, type Db, type DbKind } from './db/index.js';
import { ApiError, clientErrorHandler, errorBody, frameworkErrors, hasNulByte, installErrorHandlers, nulByteError } from './errors.js';
import { LocalBus, PostgresBus, RedisBus, type EventBus } from './events/index.js';
import type { FluxEnDirect } from './events/flux.js';
import { ToursDeBoucle } from './exploitation/tours.js';
import { grouperLesEnvois } from './exploitation/envois.js';
import { pagesPrerendues, sourcesDesScriptsEnLigne } from './pages-web.js';
import { installerExploitation, verificationsDeBase, type Verification } from './exploitation/index.js';
import adressesRoutes from './features/adresses/routes.js';
import carte from './features/carte/index.js';
import compte from './features/compte/index.js';
import { CompteRepository, placeSlugs } from './features/compte/repository.js';
import demandes from './features/demandes/index.js';
import informationsRoutes from './features/informations/routes.js';
import corrections from './features/corrections/index.js';
import etiquettes from './features/etiquettes/index.js';
import instruction from './features/instruction/index.js';
import lots from './features/lots/index.js';
import messages from './features/messages/index.js';
import open311, { clesOpen311 } from './features/open311/index.js';
import parametresRoutes from './features/parametres/routes.js';
import signalements from './features/signalements/index.js';
import vues from './features/vues/index.js';
import { createMailer, type Mailer } from './mail/index.js';
import { idDeRequete, JournalRequetes, journalDeRequete, optionsJournal } from './securite/journal.js';
import { surveillerDebit } from './securite/lenteur.js';
import { optionsDesLimites } from './partage/limites.js';
import { ConnexionRedis } from './partage/redis.js';
import { origineRefusee, origineRefuseeError } from './securite/origine.js';
import { stockagesDeLApp } from './storage/choix.js';
import type { Storage } from './storage/index.js';
import { loadTerritory, type Territory } from './territory.js';

export interface RateLimit {
  max: number;
  timeWindow: string;
}

export interface RateLimits {
  create: RateLimit | false;
  upload: RateLimit | false;
  adresses: RateLimit | false;
  inscription: RateLimit | false;
  /** "Renvoyer mon lien privé": per IP, and per numéro unique whatever the IP. */
  renvoiLien: RateLimit | false;
  renvoiLienNumero: RateLimit | false;
  /** « Renouveler » and « Réactiver » a request, per IP. */
  cycleDeVie: RateLimit | false;
  /**
   * Technical reports, per IP and per route: new reports; photos; following, « Toujours pas résolu », the
   * unsubscribe and confirmation links (each its own count); alerts asked.
   */
  signalement: RateLimit | false;
  photosSignalement: RateLimit | false;
  suiviSignalement: RateLimit | false;
  alerteSignalement: RateLimit | false;
  /** Open311 POST requests.json: per IP, and per API key whatever the IP. */
  open311: RateLimit | false;
  open311Cle: RateLimit | false;
  /** Sign-in, password reset and change (better-auth's own limiter, in the database). */
  auth: AuthRateLimits['signIn'];
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  create: { max: 20, timeWindow: '10 minutes' },
  upload: { max: 60, timeWindow: '10 minutes' },
  adresses: { max: 120, timeWindow: '1 minute' },
  inscription: { max: 5, timeWindow: '10 minutes' },
  renvoiLien: { max: 10, timeWindow: '1 hour' },
  renvoiLienNumero: { max: 3, timeWindow: '1 hour' },
  cycleDeVie: { max: 20, timeWindow: '10 minutes' },
  signalement: { max: 10, timeWindow: '10 minutes' },
  photosSignalement: { max: 30, timeWindow: '10 minutes' },
  suiviSignalement: { max: 30, timeWindow: '10 minutes' },
  alerteSignalement: { max: 5, timeWindow: '1 hour' },
  open311: { max: 60, timeWindow: '10 minutes' },
  open311Cle: { max: 60, timeWindow: '10 minutes' },
  // Per IP: 30 sign-ins / 5 min, so that residents behind one address (a town-hall counter) are not
  // locked out together; each account has its own progressive lock on top (src/server/auth/throttle.ts).
  auth: { window: 300, max: 30 },
};

function scaleRateLimits(limits: RateLimits, factor: number): RateLimits {
  const scale = <T extends { max: number }>(l: T | false): T | false => (l ? { ...l, max: Math.max(1, Math.round(l.max * factor)) } : false);
  return {
    create: scale(limits.create),
    upload: scale(limits.upload),
    adresses: scale(limits.adresses),
    inscription: scale(limits.inscription),
    renvoiLien: scale(limits.renvoiLien),
    renvoiLienNumero: scale(limits.renvoiLienNumero),
    cycleDeVie: scale(limits.cycleDeVie),
    signalement: scale(limits.signalement),
    photosSignalement: scale(limits.photosSignalement),
    suiviSignalement: scale(limits.suiviSignalement),
    alerteSignalement: scale(limits.alerteSignalement),
    open311: scale(limits.open311),
    open311Cle: scale(limits.open311Cle),
    auth: scale(limits.auth),
  };
}

export interface AppDeps {
  config: Config;
  db: Db;
  dbKind: DbKind;
  /** The housing requests' documents and the profile pictures (storage/choix.ts « uploads »). */
  storage: Storage;
  /** The technical reports' photos, kept apart (storage/choix.ts « photos-signalements »). */
  photosSignalements: Storage;
  mailer: Mailer;
  territory: Territory;
  rateLimits: RateLimits;
  auth: AuthALaDemande;
  bus: EventBus;
  /** Redis (REDIS_URL, partage/redis.ts): the rate-limit counters and the live events of every instance; undefined without it. */
  redis: ConnexionRedis | undefined;
  /** The clock of services and scheduled jobs (AppOptions.now; tests move it). */
  now: () => Date;
  /** What GET /readyz checks (exploitation/sondes.ts): the database and the storages; a service added later appends its own. */
  verifications: Verification[];
  /** The live-event budgets by name (events/flux.ts), registered by their features: counted in /metrics, ended at close. */
  flux: Map<string, Pick<FluxEnDirect, 'ouverts' | 'fermer'>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    /** Every route of the app as declared (method, URL, schema, access), for the route-table tests. */
    routeTable: RouteOptions[];
  }
}

export interface AppOptions {
  rateLimits?: Partial<RateLimits>;
  /** Pino logger options (level, stream…), or false for none (tests); the redaction is always added. */
  logger?: boolean | object;
  /** The clock of services and scheduled jobs (default: the system's); tests drive time with it. */
  now?: () => Date;
  /**
   * How passwords are hashed (default: better-auth's scrypt, ~0.2 s of CPU per sign-up or sign-in on a CI machine);
   * the tests pass a cheaper one (test/helpers.ts, docs/decisions/0022).
   */
  motsDePasse?: HachageDesMotsDePasse;
}

/**
 * Fastify's `trustProxy` from TRUST_PROXY. A hop count becomes a function: Fastify 5 ignores plain
 * numbers, and `true` would take the client's own left-most X-Forwarded-For value. With N proxies in
 * front, the client is the address the N-th proxy saw: the N-th value from the right.
 */
export function fastifyTrustProxy(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return trust > 0 ? (_address, hop) => hop < trust : false;
  return trust;
}

/**
 * The headers a middleware sets when it depends on no request (helmet with fixed directives): run once on
 * a stand-in answer. It must finish at once and without error, else the app does not start.
 */
export function entetesFixes(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let fini = false;
  middleware({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, (error) => {
    if (error) throw error;
    fini = true;
  });
  if (!fini) throw new Error("les en-têtes de sécurité n’ont pas pu être calculés au démarrage");
  return headers;
}

/** URLs of the spec that are another name of one route: rewritten before routing (one handler, one rate limit). */
const ALIASES: Record<string, string> = {
  '/app/api/logement/add': '/app/api/logement',
};

/** Builds the whole app from a config; `main.ts` only listens. Tests build it and use `inject`. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? true;
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs } = config.http;
  const app = Fastify({
    logger: logger === false ? false : { level: config.logLevel, ...(typeof logger === 'object' ? logger : {}), ...optionsJournal() },
    // One line per request, at its end, and none for a success at the default level (securite/journal.ts).
    logController: new JournalRequetes(),
    childLoggerFactory: journalDeRequete,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 256 * 1024,
    // Timeouts (docs/security.md « Limites »): headers must all arrive within headersTimeout; a request
    // (headers and body) within requestTimeout; a connection with no byte either way for idleTimeout is
    // closed (live-event streams write a comment every 25 s, so they stay open); keep-alive connections
    // wait 72 s for the next request (longer than the usual proxies' 60 s, so a proxy never reuses a
    // connection the server is closing). Slow bodies: securite/lenteur.ts.
    http: {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5000, Math.max(250, Math.floor(headersTimeoutMs / 4))),
    },
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    keepAliveTimeout: 72_000,
    // While closing, a request arriving on a kept-alive connection is still served (with `Connection: close`)
    // rather than refused with Fastify's own 503 body, which is not the documented error shape (exploitation/arret.ts).
    return503OnClosing: false,
    // X-Request-Id when the caller (a proxy) sends a sane one, else a random UUID; echoed on every answer.
    genReqId: idDeRequete,
    // Router and socket-level errors answer in the documented JSON shape too (docs/api.md).
    frameworkErrors,
    clientErrorHandler,
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const alias = ALIASES[q === -1 ? url : url.slice(0, q)];
      return alias ? alias + (q === -1 ? '' : url.slice(q)) : url;
    },
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('routeTable', [] as RouteOptions[]);
  app.addHook('onRoute', (route) => {
    app.routeTable.push(route);
  });
  // The answers of a loop turn are written together at its end (exploitation/envois.ts).
  grouperLesEnvois(app);
  registerRequestDecorations(app);

  const { db, kind } = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onIdleError: (error) => app.log.warn({ err: error }, 'connexion inactive à la base perdue'),
    onCheckpointError: (error) => app.log.warn({ err: error }, 'checkpoint SQLite en arrière-plan échoué (le suivant le reprend)'),
  });
  app.addHook('onClose', async () => {
    await app.deps.mailer.idle();
    // The delivery loop stops before the database closes; mails not yet due stay queued for the next start.
    await app.deps.mailer.close();
    await app.deps.bus.close();
    await app.deps.redis?.fermer();
    await db.destroy();
  });
  await migrate(db);
  const searchIndexProblem = await optimiseSearch(db, kind);
  if (searchIndexProblem) app.log.warn({ reason: searchIndexProblem }, "index trigramme de recherche non créé : la recherche lira toute la table");

  // DATA_DIR's folders or an S3 bucket's prefixes (STORAGE); an unreachable one stops the start.
  const stockages = await stockagesDeLApp(config);
  app.addHook('onClose', async () => {
    stockages.fermer();
  });
  const { uploads: storage, photosSignalements } = stockages;
  await storage.init();
  await photosSignalements.init();

  // State shared by several instances (docs/operations.md « Plusieurs instances »): live events through Redis when
  // REDIS_URL is set, else PostgreSQL's NOTIFY, else (SQLite, one instance) this process's memory.
  const redis = config.redis ? new ConnexionRedis(config.redis.url, config.redis.prefixe, app.log) : undefined;
  if (redis) await redis.ouvrir();
  let bus: EventBus;
  if (redis) {
    const redisBus = new RedisBus(redis, app.log);
    await redisBus.start();
    bus = redisBus;
  } else if (kind === 'postgres') {
    const pgBus = new PostgresBus(config.databaseUrl!, app.log);
    await pgBus.start();
    bus = pgBus;
  } else {
    bus = new LocalBus();
  }
  const mailer = createMailer({ smtpUrl: config.smtpUrl, mailDir: path.join(config.dataDir, 'mail'), from: config.mailFrom, log: app.log, outbox: { db, kind } });
  const rateLimits = { ...scaleRateLimits(DEFAULT_RATE_LIMITS, config.rateLimitMultiplier), ...options.rateLimits };
  const comptes = new CompteRepository(db);
  app.decorate('deps', {
    config,
    db,
    dbKind: kind,
    storage,
    photosSignalements,
    mailer,
    territory: loadTerritory(),
    rateLimits,
    bus,
    redis,
    now: options.now ?? (() => new Date()),
    verifications: [...verificationsDeBase({ db, storage, photosSignalements }), ...(redis ? [redis.verification()] : [])],
    flux: new Map(),
    auth: new AuthALaDemande({
      config,
      db,
      kind,
      mailer,
      rateLimit: { signIn: rateLimits.auth },
      log: app.log,
      ...(options.motsDePasse ? { motsDePasse: options.motsDePasse } : {}),
      onOAuthSignUp: async (userId, inviterUid) => {
        // Google accounts live in the district too (the only city and quartier of the sign-up lists).
        await comptes.update(userId, { ville: VILLE, quartier: QUARTIER, ...placeSlugs(VILLE, QUARTIER) });
        if (inviterUid) await comptes.followEachOther(userId, inviterUid);
      },
    }),
  });

  const https = config.publicUrl.startsWith('https:');
  // helmet's headers depend on no request: computed once, then copied onto each answer (its middleware
  // cost the status lookup 17 µs a request, its Fastify wrapper twice that).
  const securityHeaders = entetesFixes(
    helmet({
      // Served over plain HTTP (a LAN, localhost), HSTS and upgrade-insecure-requests would break the site.
      strictTransportSecurity: https,
      contentSecurityPolicy: {
        directives: {
          upgradeInsecureRequests: https ? [] : null,
          defaultSrc: ["'self'"],
          // The prerendered pages' one inline script (it loads the app once the page has painted), by its hash.
          scriptSrc: ["'self'", ...sourcesDesScriptsEnLigne(config.webDir)],
          // The map's tiles (CARTE_TUILES_URL): their origin only.
          imgSrc: ["'self'", 'data:', 'blob:', origineDesTuiles(config.carte.tuilesUrl)!],
          styleSrc: ["'self'", "'unsafe-inline'"],
          frameSrc: ["'self'", 'blob:'],
          objectSrc: ["'self'", 'blob:'],
          connectSrc: ["'self'"],
        },
      },
    }),
  );
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(securityHeaders);
    // The id of this request in the log (the caller's X-Request-Id when sane: securite/journal.ts idDeRequete).
    reply.header('X-Request-Id', request.id);
    done();
  });
  surveillerDebit(app, { minRate: config.http.bodyMinRate, windowMs: config.http.bodyRateWindowMs });
  const publicOrigin = new URL(config.publicUrl).origin;
  // PostgreSQL refuses NUL characters in text: they are refused before any route reads them
  // (400 NUL_BYTE), in the path and query (the API's onRequest hook below), in JSON bodies here and in
  // better-auth's bodies.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error);
      if ((body as string).includes('\\u0000') && hasNulByte(value)) return done(nulByteError());
      done(null, value);
    });
  });
  // Counters in Redis, else in PostgreSQL, else (SQLite) in memory; a counter that fails lets the request through (partage/limites.ts).
  await app.register(rateLimit, { global: false, ...optionsDesLimites({ redis, db, postgres: kind === 'postgres', secret: authSecret(config), log: app.log }) });
  installErrorHandlers(app);
  // /healthz, /readyz, /metrics and the graceful close (exploitation/), before the features register their live streams.
  await installerExploitation(app);

  // The API's requests share each turn of the event loop within this budget (exploitation/tours.ts). By default only
  // on SQLite, whose queries run on the loop; PostgreSQL's wait on the network, which splits the turns already, and
  // the budget only cost it throughput there (docs/decisions/0023).
  const budgetDuTour = config.http.turnBudgetMs ?? (kind === 'sqlite' ? 10 : 0);
  const tours = budgetDuTour > 0 ? new ToursDeBoucle(budgetDuTour, (error) => app.log.error({ err: error }, 'démarrage d’une requête en attente échoué')) : undefined;
  await app.register(
    async (api) => {
      // One cheap hook before every API route (a callback: an async hook costs the status lookup 5 %):
      // - answers carry personal data unless a route says otherwise (/parametres, /territoire, pictures
      //   replace this header): no cache keeps them, neither the browser's nor a proxy's;
      // - a NUL character in the path or the query is refused;
      // - a state-changing request with the session cookie from another site is refused (securite/origine.ts).
      api.addHook('onRequest', (request, reply, done) => {
        reply.header('Cache-Control', 'private, no-store');
        if (request.url.includes('%00')) return done(nulByteError());
        if (origineRefusee(request.method, request.headers, publicOrigin)) return done(origineRefuseeError());
        if (!tours) return done();
        // A request whose client left while it waited is not run (a POST's effects included).
        tours.admettre(() => (request.raw.socket?.destroyed ? done(new ApiError(408, 'TIMEOUT', MESSAGES.connexionCoupee)) : done()));
      });
      await api.register(demandes);
      await api.register(instruction);
      await api.register(corrections);
      await api.register(lots);
      await api.register(etiquettes);
      await api.register(messages);
      await api.register(vues);
      await api.register(signalements);
      await api.register(clesOpen311);
      await api.register(compte);
      await api.register(adressesRoutes);
      await api.register(carte);
      await api.register(parametresRoutes);
      await api.register(informationsRoutes);
      await api.register(authRoutes);
      api.setNotFoundHandler((_request, reply) => reply.status(404).send(errorBody('NOT_FOUND', MESSAGES.apiIntrouvable)));
    },
    { prefix: '/app/api' },
  );
  // Open311 GeoReport v2 at the site's root, with its own errors and CORS (features/open311).
  await app.register(open311, { prefix: OPEN311_CHEMIN });

  const webDir = config.webDir;
  if (webDir && fs.existsSync(path.join(webDir, 'index.html'))) {
    await app.register(fastifyStatic, {
      root: webDir,
      wildcard: false,
      index: false,
      // dist/web holds .br and .gz of each text file (scripts/compress-web.ts).
      preCompressed: true,
      setHeaders: (res, filePath) => {
        // Hashed file names never change content: cache them for good.
        if (filePath.includes(`${path.sep}assets${path.sep}`)) res.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    });
    // Pages prerendered at build (scripts/prerender.ts): `/` → pages/index.html, `/logement` → pages/logement.html…
    const prerendered = pagesPrerendues(webDir);
    // Client-side routes: a prerendered page gets its own HTML (content at first byte); every other GET gets
    // the app shell (header and footer, the page drawn by the script), which shows its own 404 page.
    app.setNotFoundHandler((request, reply) => {
      const chemin = request.url.split('?', 1)[0]!;
      // A page's form sent before the app's script ran (a slow link, scripts off): back to the page (303), whose form
      // is sent by the script; never the JSON of an API error. Nothing of it is read or kept.
      if (request.method === 'POST' && prerendered.has(chemin)) return reply.redirect(chemin, 303);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return reply.status(404).send(errorBody('NOT_FOUND', MESSAGES.pageIntrouvable));
      }
      const page = prerendered.get(chemin);
      // `cacheControl: false`: @fastify/static's own `public, max-age=0` would replace `no-cache`.
      return reply.header('Cache-Control', 'no-cache').sendFile(page ?? 'index.html', { cacheControl: false });
    });
  } else {
    // Without the web app (API only), other paths answer in the documented shape too.
    app.setNotFoundHandler((_request, reply) => reply.status(404).send(errorBody('NOT_FOUND', MESSAGES.pageIntrouvable)));
  }
  return app;
}
