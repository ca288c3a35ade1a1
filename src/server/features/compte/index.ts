import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { avatarPublic, avatarRoutes } from './avatar.js';
import { CompteRepository } from './repository.js';
import { routesAdmin, routesCompte, routesHabitants, routesPubliques } from './routes.js';
import { CompteService } from './service.js';

/** Accounts, one feature: sign-up and public profiles, the signed-in account, administration. */
export default async function compte(app: FastifyInstance): Promise<void> {
  const { db, auth, territory } = app.deps;
  const repository = new CompteRepository(db);
  const service = new CompteService({ repository, auth, rues: new Set(territory.rues.map((r) => r.nom)) });
  await app.register(routesPubliques({ repository, service }));
  await app.register(avatarPublic({ repository, service }));
  await app.register(
    reserve('compte', async (scope) => {
      await scope.register(routesCompte({ repository, service }));
      await scope.register(routesHabitants({ repository, service }));
      await scope.register(avatarRoutes(repository));
    }),
  );
  await app.register(reserve('admin', routesAdmin({ repository, service })));
}
