// Accounts from the command line: `npm run user -- role <email> <role>` (how the first admin is made).
import { adresseNonConfirmee, isRole, ROLE_VALUES } from '../../domain/compte.js';
import { normaliseEmail } from '../../domain/normalise.js';
import { migrate, openDatabase } from '../db/index.js';
import { CompteRepository } from '../features/compte/repository.js';
import { configDuProgramme, lancer } from './lancer.js';

const USAGE = `Usage : npm run user -- role <e-mail> <${ROLE_VALUES.join('|')}>`;

export async function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const [command, rawEmail, role] = args;
  if (command !== 'role' || !rawEmail || !role) return { code: 2, out: USAGE };
  if (!isRole(role)) return { code: 2, out: `Rôle inconnu « ${role} ». ${USAGE}` };
  const lu = configDuProgramme(env);
  if (!('config' in lu)) return lu;
  const { config } = lu;
  const { db } = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db);
    const email = normaliseEmail(rawEmail);
    const result = await new CompteRepository(db).setRole({ email }, role);
    if (!result.ok && result.raison === 'introuvable') return { code: 1, out: `Aucun compte n’a l’adresse ${email} : créez d’abord le compte sur le site.` };
    // Manager and admin read every request: only for an address its owner has confirmed.
    if (!result.ok && result.raison === 'adresse-non-confirmee') return { code: 1, out: `Rôle non modifié. ${adresseNonConfirmee(result.email)}` };
    return { code: 0, out: `${email} a maintenant le rôle ${role}.` };
  } finally {
    await db.destroy();
  }
}

lancer(import.meta.url, run);
