import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from '../config.js';

/**
 * Whether the module of `moduleUrl` is the file node started: compared as real paths, since node's `import.meta.url`
 * has its links resolved and its spaces escaped, and the command line's path has neither (a release folder reached
 * through a link, /opt/quartier-vivant → releases/…, made every program end at once with code 0: no backup).
 */
export function estLeProgramme(moduleUrl: string, demarre = process.argv[1]): boolean {
  if (!demarre) return false;
  try {
    return fs.realpathSync(fileURLToPath(moduleUrl)) === fs.realpathSync(path.resolve(demarre));
  } catch {
    return false;
  }
}

/**
 * Runs a command-line program when its file is the one node started: prints its answer (stdout when it
 * succeeded without anything to point out, stderr otherwise: a failure, or a success with `alerte`, which cron
 * then mails) and exits with its code. `run` answers French text, never a stack trace.
 */
export function lancer(moduleUrl: string, run: (args: string[], env: NodeJS.ProcessEnv) => Promise<{ code: number; out: string; alerte?: boolean }>): void {
  if (!estLeProgramme(moduleUrl)) return;
  run(process.argv.slice(2), process.env).then(
    ({ code, out, alerte }) => {
      (code === 0 && !alerte ? process.stdout : process.stderr).write(`${out}\n`);
      process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

/** The server's configuration from this environment, or the program's answer naming the wrong variable (exit 1). */
export function configDuProgramme(env: Record<string, string | undefined>): { config: Config } | { code: number; out: string } {
  try {
    return { config: loadConfig(env) };
  } catch (error) {
    if (error instanceof ConfigError) return { code: 1, out: error.message };
    throw error;
  }
}
