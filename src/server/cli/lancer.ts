import { ConfigError, loadConfig, type Config } from '../config.js';

/**
 * Runs a command-line program when its file is the one node started: prints its answer (stdout when it
 * succeeded without anything to point out, stderr otherwise: a failure, or a success with `alerte`, which cron
 * then mails) and exits with its code. `run` answers French text, never a stack trace.
 */
export function lancer(moduleUrl: string, run: (args: string[], env: NodeJS.ProcessEnv) => Promise<{ code: number; out: string; alerte?: boolean }>): void {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
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
