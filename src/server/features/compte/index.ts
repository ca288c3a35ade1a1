import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { authSecret } from '../../auth/secret.js';
import { AccountThrottle, ThrottleRepository } from '../../auth/throttle.js';
import { avatarPublic, avatarRoutes } from './avatar.js';
import { CompteRepository } from './repository.js';
import { routesAdmin, routesCompte, routesHabitants, routesPubliques } from './routes.js';
import { CompteService } from './service.js';
import { suppressionRoutes } from './suppression.js';

/** Accounts, one feature: sign-up and public profiles, the signed-in account, administration. */
export default async function compte(app: FastifyInstance): Promise<void> {
  const { db, auth, territory, mailer, storage, config } = app.deps;
  const repository = new CompteRepository(db);
  const throttle = new AccountThrottle({ repository: new ThrottleRepository(db), secret: authSecret(config) });
  const service = new CompteService({ repository, auth, rues: new Set(territory.rues.map((r) => r.nom)), mailer, storage, throttle });
  await app.register(routesPubliques({ repository, service }));
  await app.register(avatarPublic({ repository, service }));
  await app.register(
    reserve('compte', async (scope) => {
      await scope.register(routesCompte({ repository, service }));
      await scope.register(routesHabitants({ repository, service }));
      await scope.register(avatarRoutes(repository));
      await scope.register(suppressionRoutes({ service }));
    }),
  );
  await app.register(reserve('admin', routesAdmin({ repository, service })));
}
