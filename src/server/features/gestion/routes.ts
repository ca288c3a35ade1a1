import { randomUUID } from 'node:crypto';
import { formatJour } from '../../../domain/dates.js';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { isGestionnaire } from '../../../domain/compte.js';
import type { LigneDemande } from '../../../domain/logement.js';
import { foldForSearch, isValidNumeroUnique, normaliseNumeroUnique } from '../../../domain/normalise.js';
import { labelOf, TYPES_DE_LOGEMENT } from '../../../domain/options.js';
import { isStatut, STATUTS, statutRang } from '../../../domain/statut.js';
import { sessionUser, type SessionUser } from '../../auth/index.js';
import type { DbKind } from '../../db/index.js';
import type { Database, HousingRequestRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { StatutChange } from '../../events/index.js';
import { searchTextOf, toComplet } from '../logement/repository.js';

export const PAGE_SIZES = [5, 10, 25, 50, 100] as const;

/** Sortable columns of the list (each backed by an index, see migration 0003). */
const SORTS = ['dateDEnregistrement', 'numeroUnique', 'nom', 'prenom', 'email', 'statutDeLaDemande', 'typeDeLogementSouhaite', 'nombreDEnfants'] as const;

/** The column each sort uses: names by their folded copy. */
const SORT_COLUMN = {
  dateDEnregistrement: 'dateDEnregistrement',
  numeroUnique: 'numeroUnique',
  nom: 'nomTri',
  prenom: 'prenomTri',
  email: 'email',
  statutDeLaDemande: 'statutRang',
  typeDeLogementSouhaite: 'typeDeLogementSouhaite',
  nombreDEnfants: 'nombreDEnfants',
} as const satisfies Record<(typeof SORTS)[number], string>;

const listQuery = z.object({
  q: z.string().trim().max(200, { error: 'La recherche est trop longue.' }).default(''),
  status: z
    .string()
    .default('')
    .refine((s) => s === '' || isStatut(s), { error: 'Statut inconnu.' }),
  sort: z.enum(SORTS, { error: 'Colonne de tri inconnue.' }).default('dateDEnregistrement'),
  order: z.enum(['asc', 'desc'], { error: "L'ordre doit être asc ou desc." }).default('desc'),
  page: z.coerce.number({ error: 'La page doit être un nombre.' }).int({ error: 'La page doit être un nombre entier.' }).min(1, { error: 'Les pages commencent à 1.' }).default(1),
  pageSize: z.coerce
    .number({ error: 'Taille de page invalide.' })
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), { error: `La taille de page doit être ${PAGE_SIZES.join(', ')}.` })
    .default(10),
});
type ListQuery = z.output<typeof listQuery>;

const statusBody = z.object({
  logementId: z.string({ error: 'logementId est obligatoire.' }).min(1, { error: 'logementId est obligatoire.' }).max(64),
  newStatus: z.string({ error: 'newStatus est obligatoire.' }).refine(isStatut, { error: `Statut inconnu : choisissez parmi ${STATUTS.join(', ')}.` }),
});

/** The columns of a LigneDemande (src/domain/logement.ts). */
const LIST_COLUMNS = [
  'id',
  'numeroUnique',
  'prenom',
  'nom',
  'email',
  'numeroDeTelephone',
  'typeDeLogementSouhaite',
  'nombreDEnfants',
  'dateDEnregistrement',
  'statutDeLaDemande',
] as const satisfies readonly (keyof LigneDemande)[];

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/gu, (c) => `\\${c}`);
}

/**
 * Search (every word, anywhere in the folded text) and status filter. On SQLite, words of 3 letters or
 * more go through the trigram index (migration 0003); on PostgreSQL the pg_trgm index serves LIKE itself.
 */
function filtered<O>(
  query: SelectQueryBuilder<Database, 'housingRequests', O>,
  q: ListQuery,
  kind: DbKind,
): SelectQueryBuilder<Database, 'housingRequests', O> {
  let out = query;
  if (q.status) out = out.where('statutDeLaDemande', '=', q.status);
  const words = q.q ? foldWords(q.q) : [];
  for (const word of words) {
    const pattern = `%${escapeLike(word)}%`;
    out =
      kind === 'sqlite' && [...word].length >= 3
        ? // A quoted phrase in a trigram table matches anywhere in the text, like LIKE '%word%', by index.
          out.where(sql<boolean>`id in (select id from housing_search where housing_search match ${`"${word.replace(/"/gu, '""')}"`})`)
        : out.where(sql<boolean>`search_text like ${pattern} escape '\\'`);
  }
  return out;
}

function foldWords(q: string): string[] {
  return foldForSearch(q)
    .split(/\s+/u)
    .filter(Boolean)
    .slice(0, 8);
}

export async function requireGestionnaire(app: FastifyInstance, request: FastifyRequest): Promise<SessionUser> {
  const user = await sessionUser(app.deps.auth, request);
  if (!user) throw new ApiError(401, 'UNAUTHENTICATED', 'Connectez-vous avec un compte de gestionnaire.');
  if (!isGestionnaire(user.userType)) throw new ApiError(403, 'FORBIDDEN', 'Accès réservé aux gestionnaires de la mairie annexe.');
  return user;
}

export default async function gestionRoutes(app: FastifyInstance): Promise<void> {
  const { db, mailer, config, bus, dbKind } = app.deps;

  async function count(q: ListQuery): Promise<number> {
    const { total } = await filtered(db.selectFrom('housingRequests').select((eb) => eb.fn.countAll<number | string>().as('total')), q, dbKind).executeTakeFirstOrThrow();
    return Number(total);
  }

  function parseList(request: FastifyRequest): ListQuery {
    const parsed = listQuery.safeParse(request.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiError(400, 'VALIDATION', issue.message, { [String(issue.path[0])]: issue.message });
    }
    return parsed.data;
  }

  app.get('/logement', async (request) => {
    await requireGestionnaire(app, request);
    const q = parseList(request);
    const base = db.selectFrom('housingRequests');
    const column = SORT_COLUMN[q.sort];
    const offset = (q.page - 1) * q.pageSize;

    if (q.q && dbKind === 'sqlite') {
      // SQLite: the matches come from the trigram index; one pass gives the page and the total (window
      // count). PostgreSQL plans better with the two queries below (bitmap count, index-ordered page).
      const rows = await filtered(base.select([...LIST_COLUMNS, sql<number | string>`count(*) over ()`.as('total')]), q, dbKind)
        .orderBy(column, q.order)
        .orderBy('id', q.order)
        .limit(q.pageSize)
        .offset(offset)
        .execute();
      const total = rows.length > 0 ? Number(rows[0]!.total) : await count(q);
      return { data: rows.map(({ total: _total, ...row }) => row), total };
    }

    const total = await count(q);
    if (offset >= total) return { data: [], total };
    // Deep pages are read from the other end: OFFSET 99,990 would walk the whole index.
    const fromEnd = offset > total / 2;
    const order = fromEnd ? (q.order === 'asc' ? 'desc' : 'asc') : q.order;
    const limit = fromEnd ? Math.min(q.pageSize, total - offset) : q.pageSize;
    const rows = await filtered(base.select([...LIST_COLUMNS]), q, dbKind)
      .orderBy(column, order)
      .orderBy('id', order)
      .limit(limit)
      .offset(fromEnd ? total - offset - limit : offset)
      .execute();
    return { data: fromEnd ? rows.reverse() : rows, total };
  });

  app.get('/logement/all', async (request) => {
    await requireGestionnaire(app, request);
    const rows = await db.selectFrom('housingRequests').selectAll().orderBy('dateDEnregistrement', 'desc').execute();
    return { data: Object.fromEntries(rows.map((r) => [r.numeroUnique, toComplet(r, [])])) };
  });

  app.post('/logement/update/status', async (request) => {
    const actor = await requireGestionnaire(app, request);
    const parsed = statusBody.safeParse(request.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiError(400, 'VALIDATION', issue.message, { [String(issue.path[0])]: issue.message });
    }
    const { logementId, newStatus } = parsed.data;
    const numero = normaliseNumeroUnique(logementId);
    const at = new Date().toISOString();
    const result = await db.transaction().execute(async (trx) => {
      // SPEC: logementId is the numéro unique; the request's id is accepted too.
      let query = trx
        .selectFrom('housingRequests')
        .selectAll()
        .where((eb) => eb.or([eb('numeroUnique', '=', isValidNumeroUnique(numero) ? numero : ''), eb('id', '=', logementId)]));
      // Two managers at the same instant: the second waits, then sees the first's status as "from".
      // (SQLite runs one write transaction at a time already.)
      if (dbKind === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      if (!row) return null;
      if (row.statutDeLaDemande === newStatus) return { row, changed: false };
      const updated: HousingRequestRow = { ...row, statutDeLaDemande: newStatus, updatedAt: at };
      const full = toComplet(updated, []);
      await trx
        .updateTable('housingRequests')
        .set({ statutDeLaDemande: newStatus, statutRang: statutRang(newStatus), updatedAt: at, searchText: searchTextOf(full) })
        .where('id', '=', row.id)
        .execute();
      await trx
        .insertInto('statusEvents')
        .values({ id: randomUUID(), housingRequestId: row.id, fromStatus: row.statutDeLaDemande, toStatus: newStatus, actorUserId: actor.id, at })
        .execute();
      return { row: updated, changed: true, from: row.statutDeLaDemande };
    });
    if (!result) throw new ApiError(404, 'NOT_FOUND', "Il n'existe pas de demande de logement pour ce numéro unique");
    const { row } = result;
    if (result.changed) {
      const change: StatutChange = { numeroUnique: row.numeroUnique, statutDeLaDemande: newStatus, de: result.from ?? null, date: at };
      await bus.publish(change).catch((error: unknown) => request.log.error({ err: error }, 'publication du changement de statut impossible'));
      mailer.send({
        to: row.email,
        subject: `Votre demande de logement n° ${row.numeroUnique} : ${newStatus}`,
        text: [
          `Bonjour ${row.prenom},`,
          '',
          `Le statut de votre demande de logement social (numéro unique ${row.numeroUnique}) a changé.`,
          `Nouveau statut : ${newStatus}.`,
          '',
          'Suivez votre demande ici (ouvrez votre lien privé pour voir son détail et envoyer des documents) :',
          `${config.publicUrl}/logement/${encodeURIComponent(row.numeroUnique)}`,
          '',
          'Quartier Vivant — mairie annexe du Jas de Bouffan, Aix-en-Provence',
        ].join('\n'),
      });
    }
    return { data: { numeroUnique: row.numeroUnique, statutDeLaDemande: row.statutDeLaDemande, updatedAt: row.updatedAt } };
  });

  app.get('/logement/export.csv', async (request, reply) => {
    await requireGestionnaire(app, request);
    const q = parseList(request);
    const query = filtered(db.selectFrom('housingRequests').selectAll(), q, dbKind).orderBy(SORT_COLUMN[q.sort], q.order).orderBy('id', q.order);
    // French Excel: UTF-8 with BOM, semicolons, dd/mm/yyyy. Rows stream from the database.
    const csv = stringify({
      bom: true,
      delimiter: ';',
      record_delimiter: 'windows',
      // A line break or a comma inside a field is quoted too (Excel reads bare \n as a new row).
      quoted_match: /[\r\n,]/u,
      // CSV injection: a cell starting with = + - @ would be read as a formula; a leading ' keeps it text.
      cast: { string: (value) => (/^[=+\-@\t\r]/u.test(value) ? `'${value}` : value) },
      header: true,
      columns: [
        'Numéro unique',
        'Date d’enregistrement',
        'Statut',
        'Prénom',
        'Nom',
        'E-mail',
        'Téléphone',
        'Adresse',
        'Code postal',
        'Ville',
        'Enfants',
        'Logement souhaité',
        'Motivations',
        'Commentaires',
      ],
    });
    const day = new Date().toISOString().slice(0, 10);
    reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="demandes-logement-${day}.csv"`)
      .header('Cache-Control', 'no-store');
    void (async () => {
      try {
        for await (const r of query.stream(500)) {
          const ok = csv.write([
            r.numeroUnique,
            formatJour(r.dateDEnregistrement),
            r.statutDeLaDemande,
            r.prenom,
            r.nom,
            r.email,
            r.numeroDeTelephone,
            [r.adresse, r.adresseComplement].filter(Boolean).join(', '),
            r.codePostal,
            r.ville,
            r.nombreDEnfants,
            labelOf(TYPES_DE_LOGEMENT, r.typeDeLogementSouhaite as never),
            r.motivations,
            r.commentaires,
          ]);
          if (!ok) await new Promise((resolve) => csv.once('drain', resolve));
        }
        csv.end();
      } catch (error) {
        request.log.error({ err: error }, "l'export CSV a échoué en cours de route");
        csv.destroy(error as Error);
      }
    })();
    return reply.send(csv);
  });

  // Live updates (Server-Sent Events): managers hear every change; anyone may follow one request's status.
  const streams = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of streams) end();
  });
  app.get('/evenements', async (request, reply) => {
    const { numero } = z.object({ numero: z.string().max(64).optional() }).parse(request.query);
    const only = numero ? normaliseNumeroUnique(numero) : undefined;
    if (!only) await requireGestionnaire(app, request);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const unsubscribe = bus.subscribe((event) => {
      if (only && event.numeroUnique !== only) return;
      res.write(`event: statut\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const keepAlive = setInterval(() => res.write(': ok\n\n'), 25_000);
    const end = () => {
      clearInterval(keepAlive);
      unsubscribe();
      streams.delete(end);
      res.end();
    };
    streams.add(end);
    request.raw.on('close', end);
  });
}
