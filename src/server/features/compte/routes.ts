import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  adresseNonConfirmee,
  echeancesSessionSchema,
  inscriptionSchema,
  modificationProfilSchema,
  moiSchema,
  PAGE_UTILISATEURS,
  profilPersonnelSchema,
  profilPublicSchema,
  ROLES,
  roleSchema,
  uidSchema,
  utilisateursQuerySchema,
} from '../../../domain/compte.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { foldForSearch } from '../../../domain/normalise.js';
import { labelOf } from '../../../domain/options.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ACTIVITY_WRITE_EVERY_MS, sessionEnds } from '../../auth/sessions.js';
import type { UserRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { origineRefuseeError } from '../../securite/origine.js';
import { reponses } from '../../http.js';
import type { CompteRepository } from './repository.js';
import type { CompteService } from './service.js';
import { toPersonnel, toPublic } from './vues.js';

const uidParams = z.object({ uid: uidSchema });
const slugParams = z.object({ slug: z.string().min(1, { error: 'Le lieu est obligatoire.' }).max(100, { error: 'Le nom du lieu est trop long.' }) });
const habitantsReponse = reponses(200, z.object({ data: z.object({ slug: z.string(), habitants: z.array(z.string()) }) }));

interface Deps {
  repository: CompteRepository;
  service: CompteService;
}

async function found(repository: CompteRepository, uid: string): Promise<UserRow> {
  const user = await repository.findById(uid);
  if (!user) throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
  return user;
}

/**
 * Whether a sign-up was sent by a page of another site (login CSRF: that site would sign the visitor's browser
 * in to an account of its making). It carries no session cookie, so the hook of securite/origine.ts lets it
 * by; this is the rule better-auth applies to its own sign-in (src/server/auth/index.ts): an Origin must be
 * the site's (`null` is not), else a Referer, when sent, must be of the site. Neither (a client that is not
 * a browser): allowed, as there.
 */
function inscriptionDAilleurs(headers: IncomingHttpHeaders, publicOrigin: string): boolean {
  const { origin, referer } = headers;
  if (origin !== undefined) return origin !== publicOrigin;
  return typeof referer === 'string' && !referer.startsWith(`${publicOrigin}/`);
}

/** Routes anyone may call: sign-up, public profiles (what the viewer may see of them). */
export function routesPubliques({ repository, service }: Deps) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { rateLimits, config } = app.deps;
    const publicOrigin = new URL(config.publicUrl).origin;

    app.post(
      '/user/inscription',
      {
        config: { rateLimit: rateLimits.inscription },
        // Before the body is read: a sign-up from another site is refused whatever it holds.
        onRequest: (request, _reply, done) => done(inscriptionDAilleurs(request.headers, publicOrigin) ? origineRefuseeError() : undefined),
        schema: { body: inscriptionSchema, response: reponses(201, z.object({ data: profilPersonnelSchema })) },
      },
      async (request, reply) => {
        const { user, cookies } = await service.inscrire(request.body, request.headers);
        if (cookies.length > 0) reply.header('set-cookie', cookies);
        return reply.status(201).send({ data: toPersonnel(user) });
      },
    );

    app.get('/user/public/:uid', { schema: { params: uidParams, response: reponses(200, z.object({ data: profilPublicSchema })) } }, async (request) => {
      const user = await found(repository, request.params.uid);
      return { data: toPublic(user, await service.regard((await compteDe(request))?.id ?? null, user)) };
    });
  };
}

/**
 * Inhabitants of a place (registered in a scope that answers 401 to anyone signed out): only to the
 * residents of that place, and only the people who chose to be seen by them (VISIBILITES_LISTEES).
 */
export function routesHabitants({ repository }: Deps) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const places = [
      { path: '/quartiers/:slug/habitants', column: 'quartierSlug', refus: 'Cette liste est réservée aux habitants de ce quartier.' },
      { path: '/villes/:slug/habitants', column: 'villeSlug', refus: 'Cette liste est réservée aux habitants de cette ville.' },
    ] as const;
    for (const { path, column, refus } of places) {
      app.get(path, { schema: { params: slugParams, response: habitantsReponse } }, async (request) => {
        const { slug } = request.params;
        const me = await found(repository, (await compteDe(request))!.id);
        if (me[column] === '' || me[column] !== slug) throw new ApiError(403, 'FORBIDDEN', refus);
        return { data: { slug, habitants: await repository.inhabitants(column, slug) } };
      });
    }
  };
}

/** Routes of the signed-in account (registered in a scope that answers 401 to anyone else). */
export function routesCompte({ repository, service }: Deps) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { config } = app.deps;

    app.get('/user/data/:uid', { schema: { params: uidParams, response: reponses(200, z.object({ data: profilPersonnelSchema })) } }, async (request) => {
      const me = (await compteDe(request))!;
      if (me.id !== request.params.uid && me.userType !== 'admin') throw new ApiError(403, 'FORBIDDEN', 'Ces informations sont privées.');
      return { data: toPersonnel(await found(repository, request.params.uid)) };
    });

    app.get('/user/me', { schema: { response: reponses(200, z.object({ data: moiSchema })) } }, async (request) => {
      const user = await found(repository, (await compteDe(request))!.id);
      const [followers, following] = await Promise.all([repository.related(user.id, 'followers'), repository.related(user.id, 'following')]);
      return {
        data: {
          ...toPersonnel(user),
          invitationLink: `${config.publicUrl}/invitation/${encodeURIComponent(user.id)}`,
          // Followers and followees are neighbours: they see each other's name and picture.
          followers: followers.map((u) => toPublic(u, 'complet')),
          following: following.map((u) => toPublic(u, 'complet')),
        },
      };
    });

    /*
     * When the session ends (the warning of src/web/features/compte/FinDeSession.tsx). Its guard read the session
     * and applied the limits, writing the activity time when due: calling it is « Rester connecté ». No
     * other query: the cheapest request that counts as activity.
     */
    app.get('/user/session', { schema: { response: reponses(200, z.object({ data: echeancesSessionSchema })) } }, async (request) => {
      const me = (await compteDe(request))!;
      const ends = sessionEnds(me.session, me.userType);
      const iso = (ms: number) => new Date(ms).toISOString();
      return {
        data: {
          maintenant: iso(Date.now()),
          derniereActivite: iso(ends.lastActiveAt),
          finInactivite: iso(ends.idleEnd),
          finAbsolue: iso(ends.absoluteEnd),
          inactiviteMs: ends.idleMs,
          activiteEcriteToutesLesMs: ACTIVITY_WRITE_EVERY_MS,
        },
      };
    });

    app.patch('/user/me', { schema: { body: modificationProfilSchema, response: reponses(200, z.object({ data: profilPersonnelSchema })) } }, async (request) => {
      const me = (await compteDe(request))!;
      return { data: toPersonnel(await service.modifierProfil(me.id, request.body)) };
    });
  };
}

/** Administration of accounts (registered in a scope reserved to admins). */
export function routesAdmin({ repository }: Deps) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/users',
      { schema: { querystring: utilisateursQuerySchema, response: reponses(200, z.object({ data: z.array(profilPersonnelSchema), total: z.number() })) } },
      async (request) => {
        const { q, page } = request.query;
        const rows = await repository.listAll();
        const folded = foldForSearch(q);
        // The role as the page shows it too (« gestionnaire », « administrateur »).
        const matching = folded ? rows.filter((u) => foldForSearch(`${u.prenom} ${u.nom} ${u.email} ${u.userType} ${labelOf(ROLES, u.userType)}`).includes(folded)) : rows;
        return { data: matching.slice((page - 1) * PAGE_UTILISATEURS, page * PAGE_UTILISATEURS).map(toPersonnel), total: matching.length };
      },
    );

    app.post(
      '/admin/users/:uid/role',
      { schema: { params: uidParams, body: roleSchema, response: reponses(200, z.object({ data: profilPersonnelSchema })) } },
      async (request) => {
        const admin = (await compteDe(request))!;
        const { uid } = request.params;
        const { role } = request.body;
        if (uid === admin.id && role !== 'admin') throw new ApiError(409, 'LAST_ADMIN', 'Vous ne pouvez pas retirer vos propres droits d’administrateur.');
        const result = await repository.setRole({ id: uid }, role, { garderUnAdmin: true });
        if (!result.ok && result.raison === 'introuvable') throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
        // Another admin took this one's role at the same moment: one admin stays.
        if (!result.ok && result.raison === 'dernier-admin') throw new ApiError(409, 'LAST_ADMIN', 'Il doit rester au moins un administrateur : ce compte est le dernier.');
        if (!result.ok) throw new ApiError(409, 'EMAIL_NON_CONFIRME', adresseNonConfirmee(result.email));
        request.log.info({ by: admin.id, uid, role }, 'role changed');
        return { data: toPersonnel(await found(repository, uid)) };
      },
    );
  };
}
