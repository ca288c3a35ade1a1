import { APIError } from 'better-auth/api';
import { fromNodeHeaders } from 'better-auth/node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { inscriptionSchema, isRole, MOT_DE_PASSE_COURANT, profilSchema, ROLE_VALUES, type ProfilPersonnel, type ProfilPublic, type Role } from '../../../domain/compte.js';
import { fieldMessages } from '../../../domain/logement.js';
import { foldForSearch } from '../../../domain/normalise.js';
import { isCommonPassword, sessionUser, type SessionUser } from '../../auth/index.js';
import type { UserRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { followEachOther, placeSlugs } from './relations.js';

/** The stored default picture of new users (served by the web app). */
export const DEFAULT_PIC = '/avatar-defaut.svg';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

export function toPublic(u: UserRow): ProfilPublic {
  return {
    uid: u.id,
    pic: u.image ?? DEFAULT_PIC,
    nom: u.nom,
    prenom: u.prenom,
    gender: u.gender,
    quartier: u.quartier,
    ville: u.ville,
    pays: u.pays,
    emailVerified: Boolean(u.emailVerified),
  };
}

export function toPersonnel(u: UserRow): ProfilPersonnel {
  return {
    ...toPublic(u),
    email: u.email,
    birthday: u.birthday,
    residence: u.residence,
    rue: u.rue,
    userType: (isRole(u.userType) ? u.userType : 'habitant') as Role,
    dateDEnregistrement: iso(u.createdAt),
  };
}

export async function requireUser(app: FastifyInstance, request: FastifyRequest): Promise<SessionUser> {
  const user = await sessionUser(app.deps.auth, request);
  if (!user) throw new ApiError(401, 'UNAUTHENTICATED', 'Connectez-vous pour continuer.');
  return user;
}

export async function requireAdmin(app: FastifyInstance, request: FastifyRequest): Promise<SessionUser> {
  const user = await requireUser(app, request);
  if (user.userType !== 'admin') throw new ApiError(403, 'FORBIDDEN', 'Accès réservé aux administrateurs.');
  return user;
}

const uidParams = z.object({ uid: z.string().min(1).max(64) });
const listQuery = z.object({
  q: z.string().trim().max(200).default(''),
  page: z.coerce.number().int().min(1).default(1),
});
const roleBody = z.object({ role: z.enum(ROLE_VALUES, { error: `Rôle inconnu : choisissez ${ROLE_VALUES.join(', ')}.` }) });

export default async function comptesRoutes(app: FastifyInstance): Promise<void> {
  const { db, auth, territory, config, rateLimits } = app.deps;
  const rues = new Set(territory.rues.map((r) => r.nom));

  async function findUser(uid: string): Promise<UserRow | undefined> {
    return db.selectFrom('user').selectAll().where('id', '=', uid).executeTakeFirst();
  }

  /** The other side of the user's follows: who follows them (`followers`), whom they follow (`following`). */
  async function related(uid: string, side: 'followers' | 'following'): Promise<ProfilPublic[]> {
    const [me, other] = side === 'followers' ? (['followeeId', 'followerId'] as const) : (['followerId', 'followeeId'] as const);
    const rows = await db
      .selectFrom('follows')
      .innerJoin('user', 'user.id', `follows.${other}`)
      .selectAll('user')
      .where(`follows.${me}`, '=', uid)
      .orderBy('follows.createdAt')
      .execute();
    return rows.map(toPublic);
  }

  async function neighbours(uid: string): Promise<{ followers: ProfilPublic[]; following: ProfilPublic[] }> {
    return { followers: await related(uid, 'followers'), following: await related(uid, 'following') };
  }

  app.post('/user/inscription', { config: { rateLimit: rateLimits.inscription } }, async (request, reply) => {
    const parsed = inscriptionSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      throw new ApiError(400, 'VALIDATION', 'Le formulaire contient des erreurs : corrigez les champs signalés.', fieldMessages(parsed.error));
    }
    const input = parsed.data;
    if (!rues.has(input.rue)) {
      throw new ApiError(400, 'VALIDATION', 'Choisissez votre rue dans la liste.', { rue: 'Choisissez votre rue dans la liste.' });
    }
    if (isCommonPassword(input.password)) {
      throw new ApiError(400, 'PASSWORD_TOO_COMMON', MOT_DE_PASSE_COURANT, { password: MOT_DE_PASSE_COURANT });
    }

    let created: { headers: Headers; userId: string };
    try {
      const { headers, response } = await auth.api.signUpEmail({
        body: { name: `${input.prenom} ${input.nom}`, email: input.email, password: input.password, nom: input.nom, prenom: input.prenom },
        headers: fromNodeHeaders(request.headers),
        returnHeaders: true,
      });
      created = { headers, userId: response.user.id };
    } catch (error) {
      if (error instanceof APIError && String(error.body?.code ?? '').startsWith('USER_ALREADY_EXISTS')) {
        const message = 'Un compte existe déjà avec cette adresse e-mail. Connectez-vous, ou choisissez « Mot de passe oublié ».';
        throw new ApiError(409, 'EMAIL_TAKEN', message, { email: message });
      }
      throw error;
    }

    await db
      .updateTable('user')
      .set({
        gender: input.gender,
        birthday: input.birthday,
        pays: input.pays,
        ville: input.ville,
        quartier: input.quartier,
        ...placeSlugs(input.ville, input.quartier),
        residence: input.residence,
        rue: input.rue,
        image: DEFAULT_PIC,
      })
      .where('id', '=', created.userId)
      .execute();
    if (input.inviterUid) await followEachOther(db, created.userId, input.inviterUid);

    const cookies = created.headers.getSetCookie();
    if (cookies.length > 0) reply.header('set-cookie', cookies);
    const user = (await findUser(created.userId))!;
    return reply.status(201).send({ data: toPersonnel(user) });
  });

  app.get('/user/public/:uid', async (request) => {
    const { uid } = uidParams.parse(request.params);
    const user = await findUser(uid);
    if (!user) throw new ApiError(404, 'NOT_FOUND', "Cet habitant n'existe pas.");
    return { data: toPublic(user) };
  });

  app.get('/user/data/:uid', async (request) => {
    const me = await requireUser(app, request);
    const { uid } = uidParams.parse(request.params);
    if (me.id !== uid && me.userType !== 'admin') throw new ApiError(403, 'FORBIDDEN', 'Ces informations sont privées.');
    const user = await findUser(uid);
    if (!user) throw new ApiError(404, 'NOT_FOUND', "Cet habitant n'existe pas.");
    return { data: toPersonnel(user) };
  });

  app.get('/user/me', async (request) => {
    const me = await requireUser(app, request);
    const user = (await findUser(me.id))!;
    return {
      data: {
        ...toPersonnel(user),
        invitationLink: `${config.publicUrl}/invitation/${encodeURIComponent(user.id)}`,
        ...(await neighbours(user.id)),
      },
    };
  });

  app.patch('/user/me', async (request) => {
    const me = await requireUser(app, request);
    const parsed = profilSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      throw new ApiError(400, 'VALIDATION', 'Le formulaire contient des erreurs : corrigez les champs signalés.', fieldMessages(parsed.error));
    }
    await db
      .updateTable('user')
      .set({ nom: parsed.data.nom, prenom: parsed.data.prenom, name: `${parsed.data.prenom} ${parsed.data.nom}`, updatedAt: new Date().toISOString() })
      .where('id', '=', me.id)
      .execute();
    return { data: toPersonnel((await findUser(me.id))!) };
  });

  app.get('/quartiers/:slug/habitants', async (request) => {
    const { slug } = z.object({ slug: z.string().max(100) }).parse(request.params);
    const rows = await db.selectFrom('user').select('id').where('quartierSlug', '=', slug).orderBy('createdAt').execute();
    return { data: { slug, habitants: rows.map((r) => r.id) } };
  });

  app.get('/villes/:slug/habitants', async (request) => {
    const { slug } = z.object({ slug: z.string().max(100) }).parse(request.params);
    const rows = await db.selectFrom('user').select('id').where('villeSlug', '=', slug).orderBy('createdAt').execute();
    return { data: { slug, habitants: rows.map((r) => r.id) } };
  });

  // Administration of accounts (admins only).
  app.get('/admin/users', async (request) => {
    await requireAdmin(app, request);
    const { q, page } = listQuery.parse(request.query);
    const pageSize = 50;
    const rows = await db.selectFrom('user').selectAll().orderBy('createdAt', 'desc').execute();
    const folded = foldForSearch(q);
    const matching = folded
      ? rows.filter((u) => foldForSearch(`${u.prenom} ${u.nom} ${u.email} ${u.userType}`).includes(folded))
      : rows;
    return { data: matching.slice((page - 1) * pageSize, page * pageSize).map(toPersonnel), total: matching.length };
  });

  app.post('/admin/users/:uid/role', async (request) => {
    const admin = await requireAdmin(app, request);
    const { uid } = uidParams.parse(request.params);
    const parsed = roleBody.safeParse(request.body ?? {});
    if (!parsed.success) throw new ApiError(400, 'VALIDATION', parsed.error.issues[0]!.message, { role: parsed.error.issues[0]!.message });
    if (uid === admin.id && parsed.data.role !== 'admin') {
      throw new ApiError(409, 'LAST_ADMIN', 'Vous ne pouvez pas retirer vos propres droits d’administrateur.');
    }
    const result = await db.updateTable('user').set({ userType: parsed.data.role }).where('id', '=', uid).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ApiError(404, 'NOT_FOUND', "Cet habitant n'existe pas.");
    request.log.info({ by: admin.id, uid, role: parsed.data.role }, 'role changed');
    return { data: toPersonnel((await findUser(uid))!) };
  });
}
