// `npm run verifier-deploiement -- <un-serveur|plusieurs-instances> [--env <fichier>]`: starts the topology of one
// of docs/deploy.md's recipes on loopback, from the recipe's own files (deploy/), and checks that it works as the
// documentation says. French lines on stdout; exit 0 when everything holds, 1 on the first failure (2: usage).
//
// - Both modes first read the recipe's files: every variable of the environment file must be known to
//   src/server/config.ts (envSchema) and named in the README's configuration table, and the file as written must be
//   accepted by loadConfig; the systemd units and the Caddyfile must agree with it (port, DATA_DIR, stop timeout,
//   drain vs health-check interval).
// - Caddy and systemd are not run here: a small Node reverse proxy in this file stands in for Caddy (it forwards as
//   Caddy does: Host kept, X-Forwarded-For replaced by the client's address, X-Forwarded-Proto https, X-Request-Id,
//   text/event-stream passed on unbuffered; round robin and /readyz health checks read from the Caddyfile), and each
//   instance runs as `npm run dev` does (node --import tsx src/server/main.ts), not `node scripts/start.mjs` on dist/.
// - Hosts, ports, secrets and the services' addresses are replaced for loopback; the script says which.
// - Everything it starts (processes, database, bucket folder, Redis keys, temp folders) is removed at the end, on
//   failure too, and on Ctrl-C.
//
// The PostgreSQL server (plusieurs-instances) is the one of DATABASE_URL (a fresh database is made from it and dropped
// afterwards), else postgres://postgres@127.0.0.1:5432/postgres; Redis is REDIS_URL, else redis://127.0.0.1:6379.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, envSchema, loadConfig } from '../src/server/config.js';
import { drapeauxAvant, drapeauxNode } from './drapeaux-node.mjs';
import { portLibre } from './ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'Usage : npm run verifier-deploiement -- <un-serveur|plusieurs-instances> [--env <fichier.env>]';
const debut = Date.now();

// ---------------------------------------------------------------------------------------------------------------
// Output and failures

class Echec extends Error {}

const ecrire = (texte: string) => process.stdout.write(`${texte}\n`);
const ok = (texte: string) => ecrire(`  ✓ ${texte}`);
const note = (texte: string) => ecrire(`  · ${texte}`);
const titre = (texte: string) => ecrire(`\n${texte}`);

function exiger(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Echec(message);
}

const secondes = (ms: number) => `${(ms / 1000).toFixed(1).replace('.', ',')} s`;
const dormir = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until `lire` gives a value `condition` accepts; fails with `quoi` past `delaiMs`. */
async function attendre<T>(lire: () => Promise<T> | T, condition: (v: T) => boolean, quoi: string, delaiMs = 20_000, pasMs = 100): Promise<T> {
  const fin = Date.now() + delaiMs;
  for (;;) {
    let valeur: T | undefined;
    let erreur: unknown;
    try {
      valeur = await lire();
      if (condition(valeur)) return valeur;
    } catch (e) {
      erreur = e;
    }
    if (Date.now() > fin) {
      const detail = erreur instanceof Error ? erreur.message : valeur === undefined ? '' : JSON.stringify(valeur).slice(0, 300);
      throw new Echec(`${quoi} : toujours pas au bout de ${secondes(delaiMs)}${detail ? ` (${detail})` : ''}`);
    }
    await dormir(pasMs);
  }
}

/** What the script started, undone in reverse order at the end, whatever happened. */
const aNettoyer: { quoi: string; faire: () => Promise<void> | void }[] = [];
async function nettoyer(): Promise<void> {
  for (const { quoi, faire } of aNettoyer.splice(0).reverse()) {
    try {
      await faire();
    } catch (e) {
      ecrire(`  ! nettoyage « ${quoi} » : ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The recipe's files

/** Parses an environment file as systemd's EnvironmentFile= and `set -a; . fichier` would both read it, or fails. */
export function lireEnv(texte: string, fichier: string): Map<string, string> {
  const variables = new Map<string, string>();
  texte.split('\n').forEach((brute, i) => {
    const l = brute.trim();
    if (l === '' || l.startsWith('#')) return;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/u.exec(l);
    exiger(m, `${fichier}, ligne ${i + 1} : « ${l} » n’est pas une affectation NOM=valeur`);
    const [, nom, brut] = m as unknown as [string, string, string];
    let valeur = brut;
    if (/^"[^"\\$`]*"$/u.test(brut) || /^'[^']*'$/u.test(brut)) valeur = brut.slice(1, -1);
    else exiger(!/[\s"'\\$`#;<>|&()]/u.test(brut), `${fichier}, ligne ${i + 1} : la valeur de ${nom} contient une espace, un guillemet ou un signe que systemd et sh ne lisent pas de la même façon ; mettez-la entre guillemets`);
    exiger(!variables.has(nom), `${fichier}, ligne ${i + 1} : ${nom} est déjà défini plus haut`);
    variables.set(nom, valeur);
  });
  return variables;
}

/** The variables config.ts reads (its zod schema's keys): the only list of them. */
const VARIABLES_CONNUES = new Set(Object.keys(envSchema.shape));

function verifierEnv(variables: Map<string, string>, fichier: string): void {
  const inconnues = [...variables.keys()].filter((n) => !VARIABLES_CONNUES.has(n));
  exiger(
    inconnues.length === 0,
    `${fichier} : ${inconnues.join(', ')} ${inconnues.length > 1 ? 'sont inconnues' : 'est inconnue'} de la configuration (src/server/config.ts, envSchema) : le serveur ${inconnues.length > 1 ? 'les' : 'l’'}ignorerait`,
  );
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const tableau = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
  const absentes = [...variables.keys()].filter((n) => !tableau.includes(`\`${n}\``));
  exiger(absentes.length === 0, `${fichier} : ${absentes.join(', ')} absente(s) du tableau « Configuration » du README`);
  ok(`${fichier} : ${variables.size} variables, toutes connues de src/server/config.ts et décrites dans le README`);
  // As written, its example secrets are refused (a server must not start with them)…
  let refus = '';
  try {
    loadConfig(Object.fromEntries(variables));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    refus = e.message;
  }
  exiger(refus.includes('AUTH_SECRET') && refus.includes('valeur d’exemple'), `${fichier} tel qu’il est écrit devrait être refusé pour son AUTH_SECRET d’exemple${refus ? ` ; refusé pour : ${refus}` : ''}`);
  ok(`${fichier} tel qu’il est écrit est refusé tant que ses secrets sont ceux de l’exemple`);
  // …and once the secrets are drawn, accepted as it is.
  const rempli = Object.fromEntries([...variables].map(([n, v]) => [n, ['AUTH_SECRET', 'METRICS_TOKEN'].includes(n) && /change-me/iu.test(v) ? randomBytes(32).toString('hex') : v]));
  try {
    loadConfig(rempli);
  } catch (e) {
    if (e instanceof ConfigError) throw new Echec(`${fichier}, ses secrets tirés : ${e.message}`);
    throw e;
  }
  ok(`${fichier}, ses secrets tirés (AUTH_SECRET, METRICS_TOKEN), est accepté par la configuration`);
}

/** A systemd unit's `Clé=valeur` lines (the last one wins, as systemd reads most keys; ReadWritePaths= accumulate). */
function lireUnite(fichier: string): Map<string, string[]> {
  const cles = new Map<string, string[]>();
  for (const brute of fs.readFileSync(path.join(ROOT, fichier), 'utf8').split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/u.exec(brute.trim());
    if (m) cles.set(m[1]!, [...(cles.get(m[1]!) ?? []), m[2]!]);
  }
  return cles;
}
const derniere = (unite: Map<string, string[]>, cle: string) => unite.get(cle)?.at(-1);

/** The settings of the first `reverse_proxy <amonts…> { … }` block of a Caddyfile. */
interface BlocCaddy {
  amonts: string[];
  reglages: Map<string, string[]>;
  /** `respond <path> <status>` lines of the site: paths Caddy answers itself, never passed on. */
  reponsesDirectes: Map<string, number>;
}
function lireCaddyfile(fichier: string): BlocCaddy {
  const lignes = fs.readFileSync(path.join(ROOT, fichier), 'utf8').split('\n').map((l) => l.trim());
  const i = lignes.findIndex((l) => l.startsWith('reverse_proxy '));
  exiger(i >= 0 && lignes[i]!.endsWith('{'), `${fichier} : pas de bloc « reverse_proxy … { » trouvé`);
  const amonts = lignes[i]!.slice('reverse_proxy '.length, -1).trim().split(/\s+/u);
  const reglages = new Map<string, string[]>();
  for (const l of lignes.slice(i + 1)) {
    if (l === '}') break;
    if (l === '' || l.startsWith('#')) continue;
    const [cle, ...args] = l.split(/\s+/u);
    reglages.set(cle!, args);
  }
  const reponsesDirectes = new Map<string, number>();
  for (const l of lignes) {
    const m = /^respond (\/\S*) (\d{3})$/u.exec(l);
    if (m) reponsesDirectes.set(m[1]!, Number(m[2]));
  }
  return { amonts, reglages, reponsesDirectes };
}

/** A Caddy duration (`250ms`, `2s`, `1m`) in milliseconds. */
function duree(valeur: string | undefined, defaut: number, quoi: string): number {
  if (valeur === undefined) return defaut;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/u.exec(valeur);
  exiger(m, `${quoi} : durée « ${valeur} » non comprise (ms, s ou m)`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
}

interface ReglagesRepartiteur {
  healthUri: string;
  intervalleMs: number;
  delaiMs: number;
  echecs: number;
  reussites: number;
  failDurationMs: number;
  maxFails: number;
  /** lb_try_duration, lb_try_interval: how long, and how often, Caddy looks again for an instance when none is available. */
  essaisMs: number;
  entreEssaisMs: number;
  reponsesDirectes: Map<string, number>;
}

function reglagesDuRepartiteur(bloc: BlocCaddy, fichier: string): ReglagesRepartiteur {
  const r = bloc.reglages;
  const un = (cle: string) => r.get(cle)?.[0];
  exiger(un('health_uri') === '/readyz', `${fichier} : health_uri doit être /readyz (la sonde de disponibilité), pas « ${un('health_uri') ?? 'absent'} »`);
  exiger(un('flush_interval') === '-1', `${fichier} : flush_interval -1 attendu (suivis en direct sans tampon)`);
  return {
    healthUri: un('health_uri')!,
    // Caddy's defaults (reverse_proxy docs): 30 s, 5 s, 1, 1; passive checks off without fail_duration.
    intervalleMs: duree(un('health_interval'), 30_000, `${fichier} health_interval`),
    delaiMs: duree(un('health_timeout'), 5000, `${fichier} health_timeout`),
    echecs: Number(un('health_fails') ?? 1),
    reussites: Number(un('health_passes') ?? 1),
    failDurationMs: duree(un('fail_duration'), 0, `${fichier} fail_duration`),
    maxFails: Number(un('max_fails') ?? 1),
    essaisMs: duree(un('lb_try_duration'), 0, `${fichier} lb_try_duration`),
    entreEssaisMs: duree(un('lb_try_interval'), 250, `${fichier} lb_try_interval`),
    reponsesDirectes: bloc.reponsesDirectes,
  };
}

/** docs/deploy.md shows each of these files whole, as it is: the recipe people read is the one checked here. */
function verifierDocumentation(fichiers: string[]): void {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const absents = fichiers.filter((f) => !doc.includes(`\n${fs.readFileSync(path.join(ROOT, f), 'utf8').trim()}\n\`\`\``));
  exiger(absents.length === 0, `docs/deploy.md ne reprend pas tel quel (dans un bloc de code) : ${absents.join(', ')}`);
  ok(`docs/deploy.md reprend tels quels ${fichiers.join(', ')}`);
}

/** The checks both recipes share on the systemd units (one-server recipe; the several-instances one reuses the unit). */
function verifierUnites(env: Map<string, string>, fichierEnv: string): void {
  const service = lireUnite('deploy/quartier-vivant.service');
  const sauvegarde = lireUnite('deploy/quartier-vivant-sauvegarde.service');
  const minuteur = lireUnite('deploy/quartier-vivant-sauvegarde.timer');
  const cheminEnv = /\/etc\/quartier-vivant\/[\w.-]+\.env/u.exec(fs.readFileSync(path.resolve(ROOT, fichierEnv), 'utf8'))?.[0];
  exiger(cheminEnv, `${fichierEnv} : son chemin /etc/quartier-vivant/….env n’est pas indiqué en tête`);
  for (const [nom, unite] of [
    ['quartier-vivant.service', service],
    ['quartier-vivant-sauvegarde.service', sauvegarde],
  ] as const) {
    exiger(derniere(unite, 'EnvironmentFile') === cheminEnv, `deploy/${nom} : EnvironmentFile=${derniere(unite, 'EnvironmentFile')} au lieu de ${cheminEnv}`);
    exiger(derniere(unite, 'WorkingDirectory') === '/opt/quartier-vivant', `deploy/${nom} : WorkingDirectory=/opt/quartier-vivant attendu`);
    exiger(derniere(unite, 'NoNewPrivileges') === 'true' && derniere(unite, 'ProtectSystem') === 'strict', `deploy/${nom} : NoNewPrivileges=true et ProtectSystem=strict attendus`);
    const ecriture = (unite.get('ReadWritePaths') ?? []).flatMap((v) => v.split(/\s+/u));
    exiger(ecriture.includes(env.get('DATA_DIR')!), `deploy/${nom} : ReadWritePaths= ne contient pas DATA_DIR (${env.get('DATA_DIR')}) : ProtectSystem=strict l’empêcherait d’écrire`);
  }
  exiger(derniere(service, 'KillSignal') === 'SIGTERM', 'deploy/quartier-vivant.service : KillSignal=SIGTERM attendu');
  exiger(derniere(service, 'Restart') === 'on-failure', 'deploy/quartier-vivant.service : Restart=on-failure attendu');
  const arretS = Number(derniere(service, 'TimeoutStopSec'));
  const arretMs = Number(env.get('SHUTDOWN_TIMEOUT_MS') ?? 25_000);
  exiger(arretS * 1000 > arretMs, `deploy/quartier-vivant.service : TimeoutStopSec=${derniere(service, 'TimeoutStopSec')} n’est pas au-dessus de SHUTDOWN_TIMEOUT_MS (${arretMs} ms) : systemd tuerait le serveur avant la fin de son arrêt`);
  const execStart = derniere(service, 'ExecStart') ?? '';
  exiger(execStart.includes('scripts/start.mjs') && fs.existsSync(path.join(ROOT, 'scripts/start.mjs')), 'deploy/quartier-vivant.service : ExecStart= doit lancer scripts/start.mjs (ce que lance npm start)');
  const attendus = drapeauxNode(ROOT).join(' ');
  const donnes = drapeauxAvant(execStart);
  exiger(donnes !== null, `deploy/quartier-vivant.service : ExecStart=${execStart} n’est pas de la forme « /usr/bin/node … scripts/start.mjs »`);
  exiger(donnes.join(' ') === attendus, `deploy/quartier-vivant.service : ExecStart= doit donner à Node les options de npm start (package.json : « ${attendus} »), pas « ${donnes.join(' ')} »`);
  exiger((derniere(sauvegarde, 'ExecStart') ?? '').includes('dist/server/cli/backup.js') && fs.existsSync(path.join(ROOT, 'src/server/cli/backup.ts')), 'deploy/quartier-vivant-sauvegarde.service : ExecStart= doit lancer dist/server/cli/backup.js');
  exiger(derniere(minuteur, 'OnCalendar') && derniere(minuteur, 'Persistent') === 'true', 'deploy/quartier-vivant-sauvegarde.timer : OnCalendar= et Persistent=true attendus');
  ok(`unités systemd : ${cheminEnv}, ReadWritePaths= couvre DATA_DIR, TimeoutStopSec=${arretS} s > SHUTDOWN_TIMEOUT_MS (${secondes(arretMs)}), sauvegarde quotidienne`);
}

// ---------------------------------------------------------------------------------------------------------------
// The stand-in for Caddy

interface Amont {
  nom: string;
  port: number;
  sain: boolean;
  suiteOk: number;
  suiteKo: number;
  /** When requests to it failed (passive health checks). */
  echecsPassifs: number[];
  agent: http.Agent;
}

interface EvenementAmont {
  at: number;
  amont: string;
  etat: 'retirée' | 'réintégrée';
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];

/**
 * What Caddy's reverse_proxy does in deploy/Caddyfile.*, as far as these checks need: round robin over the
 * instances that pass their active health check (GET health_uri every health_interval, health_fails failures in a row
 * to take one out, health_passes successes to bring it back) and are not left aside by a passive check (a request
 * that could not reach it, within fail_duration); when none is available it looks again every lb_try_interval within
 * lb_try_duration. Headers as Caddy sets them by default. Unlike Caddy with lb_try_duration, it never retries on another
 * instance a request whose connection failed: an error here is an error the client would have seen without that
 * safety net. (Caddy's round_robin advances its shared counter at each attempt, so under concurrent requests it can
 * skip the one healthy instance of two and find none: lb_try_duration covers that too. A single-threaded loop here
 * cannot race like that.)
 */
class Repartiteur {
  readonly amonts: Amont[];
  readonly evenements: EvenementAmont[] = [];
  /** Requests that could not reach an instance (refused, reset), and requests no instance could take. */
  erreursAmont: string[] = [];
  sansAmont = 0;
  /** The X-Request-Id given to the last request passed on. */
  dernierId = '';
  private tour = 0;
  private sondes: NodeJS.Timeout | undefined;
  private serveur: http.Server | undefined;
  port = 0;

  constructor(
    amonts: { nom: string; port: number }[],
    private readonly reglages: ReglagesRepartiteur,
  ) {
    this.amonts = amonts.map((a) => ({ ...a, sain: true, suiteOk: 0, suiteKo: 0, echecsPassifs: [], agent: new http.Agent({ keepAlive: true }) }));
  }

  private disponible(a: Amont): boolean {
    if (!a.sain) return false;
    if (this.reglages.failDurationMs <= 0) return true;
    const depuis = Date.now() - this.reglages.failDurationMs;
    a.echecsPassifs = a.echecsPassifs.filter((t) => t > depuis);
    return a.echecsPassifs.length < this.reglages.maxFails;
  }

  private choisir(): Amont | undefined {
    const n = this.amonts.length;
    const depart = this.tour++;
    for (let i = 0; i < n; i++) {
      const a = this.amonts[(depart + i) % n]!;
      if (this.disponible(a)) return a;
    }
    return undefined;
  }

  /** An instance, looked for again every lb_try_interval within lb_try_duration when none is available (as Caddy does). */
  private async choisirAvecEssais(): Promise<Amont | undefined> {
    const fin = Date.now() + this.reglages.essaisMs;
    for (;;) {
      const amont = this.choisir();
      if (amont || Date.now() + this.reglages.entreEssaisMs > fin) return amont;
      await dormir(this.reglages.entreEssaisMs);
    }
  }

  private async transmettre(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const direct = this.reglages.reponsesDirectes.get((req.url ?? '').split('?')[0]!);
    if (direct !== undefined) {
      res.writeHead(direct, { 'content-length': '0' });
      res.end();
      return;
    }
    const amont = await this.choisirAvecEssais();
    if (!amont) {
      this.sansAmont += 1;
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '30' });
      res.end('Quartier Vivant redémarre ou est en maintenance. Réessayez dans une minute.');
      return;
    }
    const entetes: http.OutgoingHttpHeaders = { ...req.headers };
    for (const h of HOP_BY_HOP) delete entetes[h];
    // Caddy ignores the incoming X-Forwarded-* (no trusted_proxies) and writes its own.
    entetes['x-forwarded-for'] = (req.socket.remoteAddress ?? '').replace(/^::ffff:/u, '');
    entetes['x-forwarded-proto'] = 'https';
    entetes['x-forwarded-host'] = req.headers.host ?? '';
    entetes['x-request-id'] = this.dernierId = randomUUID();
    const versAmont = http.request({ host: '127.0.0.1', port: amont.port, method: req.method, path: req.url, headers: entetes, agent: amont.agent });
    versAmont.on('response', (r) => {
      const retour: http.OutgoingHttpHeaders = { ...r.headers };
      for (const h of HOP_BY_HOP) delete retour[h];
      res.writeHead(r.statusCode ?? 502, retour);
      // Headers at once, then each chunk as it comes: a live-event stream is never held back.
      res.flushHeaders();
      r.pipe(res);
      r.on('error', () => res.destroy());
    });
    versAmont.on('error', (e: NodeJS.ErrnoException) => {
      if (res.destroyed && !res.writableFinished && e.code === 'ECONNRESET') return;
      amont.echecsPassifs.push(Date.now());
      this.erreursAmont.push(`${req.method} ${req.url} → ${amont.nom} : ${e.code ?? e.message}`);
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end();
      } else res.destroy();
    });
    // The client went away (a closed live-event stream): so does the request to the instance.
    res.on('close', () => {
      if (!res.writableFinished) versAmont.destroy();
    });
    req.pipe(versAmont);
  }

  private sonder(a: Amont): void {
    const fin = (reussie: boolean) => {
      if (reussie) {
        a.suiteKo = 0;
        a.suiteOk += 1;
        if (!a.sain && a.suiteOk >= this.reglages.reussites) {
          a.sain = true;
          this.evenements.push({ at: Date.now(), amont: a.nom, etat: 'réintégrée' });
        }
      } else {
        a.suiteOk = 0;
        a.suiteKo += 1;
        if (a.sain && a.suiteKo >= this.reglages.echecs) {
          a.sain = false;
          this.evenements.push({ at: Date.now(), amont: a.nom, etat: 'retirée' });
        }
      }
    };
    let fait = false;
    const une = (reussie: boolean) => {
      if (!fait) {
        fait = true;
        fin(reussie);
      }
    };
    const req = http.get({ host: '127.0.0.1', port: a.port, path: this.reglages.healthUri, agent: false, timeout: this.reglages.delaiMs }, (res) => {
      res.resume();
      une(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on('timeout', () => req.destroy(new Error('délai dépassé')));
    req.on('error', () => une(false));
  }

  async ecouter(): Promise<number> {
    const serveur = http.createServer((req, res) => void this.transmettre(req, res));
    this.serveur = serveur;
    await new Promise<void>((resolve) => serveur.listen(0, '127.0.0.1', resolve));
    this.port = (serveur.address() as net.AddressInfo).port;
    this.sondes = setInterval(() => {
      for (const a of this.amonts) this.sonder(a);
    }, this.reglages.intervalleMs);
    for (const a of this.amonts) this.sonder(a);
    return this.port;
  }

  async fermer(): Promise<void> {
    clearInterval(this.sondes);
    for (const a of this.amonts) a.agent.destroy();
    const serveur = this.serveur;
    if (!serveur) return;
    serveur.closeAllConnections();
    await new Promise<void>((resolve) => serveur.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP as a client of the site: to the proxy on loopback, with the site's own Host and Origin

interface Reponse {
  status: number;
  entetes: http.IncomingHttpHeaders;
  corps: Buffer;
  json<T = Record<string, unknown>>(): T;
}

class Client {
  /** The cookies the site set, sent back as a browser would. */
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly port: () => number,
    readonly publicUrl: URL,
  ) {}

  private garderCookies(entetes: http.IncomingHttpHeaders): void {
    for (const c of entetes['set-cookie'] ?? []) {
      const [paire] = c.split(';');
      const egal = paire!.indexOf('=');
      const nom = paire!.slice(0, egal).trim();
      const valeur = paire!.slice(egal + 1).trim();
      if (valeur === '') this.cookies.delete(nom);
      else this.cookies.set(nom, valeur);
    }
  }

  entetesDuNavigateur(entetes: Record<string, string> = {}, avecCookies = true): Record<string, string> {
    const cookie = [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    return { host: this.publicUrl.host, origin: this.publicUrl.origin, ...(avecCookies && cookie ? { cookie } : {}), ...entetes };
  }

  requete(chemin: string, options: { methode?: string; entetes?: Record<string, string>; corps?: Buffer | string; json?: unknown; sansCookies?: boolean } = {}): Promise<Reponse> {
    const corps = options.json !== undefined ? Buffer.from(JSON.stringify(options.json)) : typeof options.corps === 'string' ? Buffer.from(options.corps) : options.corps;
    const entetes = this.entetesDuNavigateur(
      { ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(corps ? { 'content-length': String(corps.length) } : {}), ...options.entetes },
      !options.sansCookies,
    );
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: this.port(), path: chemin, method: options.methode ?? (corps ? 'POST' : 'GET'), headers: entetes, agent: false }, (res) => {
        const morceaux: Buffer[] = [];
        res.on('data', (m: Buffer) => morceaux.push(m));
        res.on('error', reject);
        res.on('end', () => {
          if (!options.sansCookies) this.garderCookies(res.headers);
          const tout = Buffer.concat(morceaux);
          resolve({ status: res.statusCode ?? 0, entetes: res.headers, corps: tout, json: <T>() => JSON.parse(tout.toString('utf8')) as T });
        });
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`pas de réponse en 30 s à ${chemin}`)));
      req.on('error', reject);
      req.end(corps);
    });
  }

  /** A live-event stream (SSE), read as it comes. */
  flux(chemin: string): Promise<Flux> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: this.port(), path: chemin, headers: this.entetesDuNavigateur({ accept: 'text/event-stream' }), agent: false }, (res) => {
        const flux: Flux = { status: res.statusCode ?? 0, texte: '', fini: false, fermer: () => req.destroy() };
        res.setEncoding('utf8');
        res.on('data', (m: string) => (flux.texte += m));
        res.on('close', () => (flux.fini = true));
        res.on('error', () => (flux.fini = true));
        resolve(flux);
      });
      req.on('error', reject);
    });
  }
}

interface Flux {
  status: number;
  texte: string;
  fini: boolean;
  fermer(): void;
}

/** The `event: statut` messages a stream received, parsed. */
function evenementsStatut(flux: Flux): { numeroUnique: string; statutDeLaDemande: string }[] {
  return flux.texte
    .split('\n\n')
    .filter((bloc) => bloc.includes('event: statut'))
    .map((bloc) => JSON.parse(/^data: (.*)$/mu.exec(bloc)?.[1] ?? '{}') as { numeroUnique: string; statutDeLaDemande: string });
}

/** A multipart body as a browser's FormData sends it. */
async function multipart(fichiers: { champ: string; nom: string; contenu: Buffer; type: string }[]): Promise<{ corps: Buffer; type: string }> {
  const form = new FormData();
  for (const f of fichiers) form.append(f.champ, new Blob([new Uint8Array(f.contenu)], { type: f.type }), f.nom);
  const requete = new Request('http://localhost/', { method: 'POST', body: form });
  return { corps: Buffer.from(await requete.arrayBuffer()), type: requete.headers.get('content-type')! };
}

/** A valid PDF of about `taille` bytes (comment lines of random text make it that big). */
function pdf(taille: number): Buffer {
  const lignes: string[] = ['%PDF-1.4'];
  let n = 9;
  while (n < taille) {
    const l = `% ${randomBytes(48).toString('hex')}`;
    lignes.push(l);
    n += l.length + 1;
  }
  lignes.push('1 0 obj <<>> endobj', 'trailer <<>>', '%%EOF', '');
  return Buffer.from(lignes.join('\n'));
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------------------------------------------------------
// Instances

async function dossierTemporaire(prefixe: string): Promise<string> {
  const dossier = await fsp.mkdtemp(path.join(os.tmpdir(), prefixe));
  aNettoyer.push({ quoi: dossier, faire: () => fsp.rm(dossier, { recursive: true, force: true }) });
  return dossier;
}

interface Instance {
  nom: string;
  port: number;
  env: Record<string, string>;
  enfant: ChildProcess;
  journal: string[];
  sortie: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Only what the recipe's file and the loopback overrides say: nothing of this shell's environment leaks in. */
function environnement(variables: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG ?? 'C.UTF-8', ...variables };
}

/** A Node program of the project run as `npm run dev` runs the server: tsx, no build. */
function lancerNode(fichier: string, args: string[], variables: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, fichier), ...args], { cwd: ROOT, env: environnement(variables), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a command-line program of the project (backup, restore, user) to its end. */
async function executer(fichier: string, args: string[], variables: Record<string, string>): Promise<{ code: number | null; sortie: string }> {
  const enfant = lancerNode(fichier, args, variables);
  let sortie = '';
  enfant.stdout!.on('data', (m: Buffer) => (sortie += m.toString()));
  enfant.stderr!.on('data', (m: Buffer) => (sortie += m.toString()));
  const code = await new Promise<number | null>((resolve) => enfant.once('exit', (c) => resolve(c)));
  return { code, sortie: sortie.trim() };
}

async function demarrerInstance(nom: string, variables: Record<string, string>): Promise<Instance> {
  const enfant = lancerNode('src/server/main.ts', [], variables);
  const journal: string[] = [];
  let reste = '';
  const lire = (m: Buffer) => {
    const lignes = (reste + m.toString()).split('\n');
    reste = lignes.pop()!;
    journal.push(...lignes);
  };
  enfant.stdout!.on('data', lire);
  enfant.stderr!.on('data', lire);
  const sortie = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    enfant.once('exit', (code, signal) => {
      if (reste) journal.push(reste);
      resolve({ code, signal, at: Date.now() });
    }),
  );
  const instance: Instance = { nom, port: Number(variables.PORT), env: variables, enfant, journal, sortie };
  aNettoyer.push({
    quoi: `instance ${nom}`,
    faire: async () => {
      if (enfant.exitCode === null && enfant.signalCode === null) {
        enfant.kill('SIGKILL');
        await sortie;
      }
    },
  });
  const depart = Date.now();
  await attendre(
    async () => {
      if (enfant.exitCode !== null) throw new Echec(`l’instance ${nom} s’est arrêtée au démarrage (code ${enfant.exitCode}) :\n${journal.slice(-15).join('\n')}`);
      return (await statutDirect(instance, '/readyz')) === 200;
    },
    (pret) => pret,
    `l’instance ${nom} n’est pas prête (/readyz)`,
    90_000,
    200,
  ).catch((e: unknown) => {
    if (e instanceof Echec && enfant.exitCode !== null) throw e;
    throw new Echec(`${(e as Error).message}\n${journal.slice(-15).join('\n')}`);
  });
  ok(`instance ${nom} prête sur 127.0.0.1:${instance.port} en ${secondes(Date.now() - depart)}`);
  return instance;
}

/** The status of a GET to the instance itself, bypassing the proxy (as the proxy's health check does). */
function statutDirect(instance: Instance, chemin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: instance.port, path: chemin, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('délai dépassé')));
    req.on('error', reject);
  });
}

/** The JSON log lines of an instance (pino). */
function lignesDuJournal(instance: Instance): { level: number; msg?: string; err?: { message?: string } }[] {
  return instance.journal.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg?: string });
}

function verifierJournalSansErreur(instance: Instance): void {
  const erreurs = lignesDuJournal(instance).filter((l) => l.level >= 50);
  exiger(erreurs.length === 0, `le journal de l’instance ${instance.nom} contient ${erreurs.length} ligne(s) d’erreur : ${erreurs.map((e) => e.msg).join(' ; ')}`);
}

async function arreter(instance: Instance): Promise<{ code: number | null; ms: number }> {
  const signal = Date.now();
  instance.enfant.kill('SIGTERM');
  const fin = await Promise.race([instance.sortie, dormir(Number(instance.env.SHUTDOWN_TIMEOUT_MS ?? 25_000) + 10_000).then(() => undefined)]);
  exiger(fin, `l’instance ${instance.nom} ne s’est pas arrêtée après SIGTERM`);
  exiger(fin.code === 0, `l’instance ${instance.nom} est sortie avec le code ${fin.code ?? fin.signal} après SIGTERM, pas 0 :\n${instance.journal.slice(-10).join('\n')}`);
  exiger(
    lignesDuJournal(instance).some((l) => l.msg === 'arrêt terminé'),
    `l’instance ${instance.nom} n’a pas écrit « arrêt terminé » dans son journal`,
  );
  return { code: fin.code, ms: fin.at - signal };
}

/** The Prometheus text of one instance's GET /metrics (METRICS_TOKEN), read directly. */
function metriques(instance: Instance): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: instance.port, path: '/metrics', headers: { authorization: `Bearer ${instance.env.METRICS_TOKEN}` }, agent: false }, (res) => {
      let texte = '';
      res.setEncoding('utf8');
      res.on('data', (m: string) => (texte += m));
      res.on('end', () => (res.statusCode === 200 ? resolve(texte) : reject(new Error(`/metrics de ${instance.nom} : ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

/** `http_requests_total` of one instance for a method and route pattern (all status classes). */
async function compteur(instance: Instance, methode: string, route: string): Promise<number> {
  let total = 0;
  for (const l of (await metriques(instance)).split('\n')) {
    if (!l.startsWith('http_requests_total{')) continue;
    if (l.includes(`method="${methode}"`) && l.includes(`route="${route}"`)) total += Number(l.slice(l.lastIndexOf(' ') + 1));
  }
  return total;
}

/** How many of the requests made by `faire` each instance served, from their metrics. */
async function parInstance(instances: Instance[], methode: string, route: string, faire: () => Promise<void>): Promise<number[]> {
  const avant = await Promise.all(instances.map((i) => compteur(i, methode, route)));
  await faire();
  const apres = await Promise.all(instances.map((i) => compteur(i, methode, route)));
  return apres.map((n, k) => n - avant[k]!);
}

/** The last link e-mailed to `email` whose path contains `morceau`, among the .eml files of these DATA_DIRs. */
async function lienRecu(dossiers: string[], email: string, morceau: string): Promise<URL> {
  const lien = await attendre(
    async () => {
      const liens: string[] = [];
      for (const dossier of dossiers) {
        const mail = path.join(dossier, 'mail');
        for (const f of (await fsp.readdir(mail).catch(() => [] as string[])).filter((n) => n.endsWith('.eml') && !n.startsWith('.')).sort()) {
          const texte = (await fsp.readFile(path.join(mail, f), 'utf8')).replace(/=\r?\n/gu, '').replace(/=3D/gu, '=');
          if (texte.includes(`To: ${email}`)) liens.push(...(texte.match(/https?:\/\/\S+/gu) ?? []).filter((l) => l.includes(morceau)));
        }
      }
      return liens.at(-1);
    },
    (l) => l !== undefined,
    `l’e-mail de confirmation envoyé à ${email} (DATA_DIR/mail)`,
    15_000,
    200,
  );
  return new URL(lien!);
}

// ---------------------------------------------------------------------------------------------------------------
// What both modes do through the proxy

const MOT_DE_PASSE = 'une phrase de passe pour la vérification';

/** A manager as the README makes the first one: sign-up, the e-mailed confirmation link, `npm run user -- role`. */
async function gestionnaire(client: Client, instance: Instance, dossiersMail: string[]): Promise<string> {
  const email = `gestion.${randomBytes(4).toString('hex')}@example.org`;
  const inscription = await client.requete('/app/api/user/inscription', {
    json: { nom: 'Verif', prenom: 'Gestion', birthday: '1980-01-01', residence: 'Mairie annexe', rue: 'Avenue Marcel-Pagnol', email, password: MOT_DE_PASSE },
  });
  exiger(inscription.status === 201, `inscription : ${inscription.status} ${inscription.corps.toString().slice(0, 300)}`);
  const lien = await lienRecu(dossiersMail, email, '/verify-email');
  exiger(lien.origin === client.publicUrl.origin, `le lien de confirmation ne part pas de PUBLIC_URL : ${lien.origin}`);
  const confirmation = await client.requete(lien.pathname + lien.search);
  exiger([200, 302].includes(confirmation.status), `lien de confirmation : ${confirmation.status}`);
  const role = await executer('src/server/cli/user.ts', ['role', email, 'manager'], instance.env);
  exiger(role.code === 0, `npm run user -- role … manager : code ${role.code} : ${role.sortie}`);
  client.cookies.clear();
  const connexion = await client.requete('/app/api/auth/sign-in/email', { json: { email, password: MOT_DE_PASSE } });
  exiger(connexion.status === 200, `connexion du gestionnaire : ${connexion.status} ${connexion.corps.toString().slice(0, 300)}`);
  const secure = client.publicUrl.protocol === 'https:';
  exiger([...client.cookies.keys()].some((n) => n === (secure ? '__Host-qv.session_token' : 'qv.session_token')), `cookie de session absent ou mal nommé : ${[...client.cookies.keys()].join(', ')}`);
  return email;
}

async function nouvelleDemande(client: Client): Promise<{ numero: string; cle: string }> {
  const numero = `013${randomBytes(5).toString('hex')}`;
  const r = await client.requete('/app/api/logement', {
    sansCookies: true,
    json: { numeroUnique: numero, prenom: 'Hélène', nom: 'Martin', email: `helene.${randomBytes(3).toString('hex')}@example.org`, motivations: 'Logement trop petit pour ma famille.' },
  });
  exiger(r.status === 201, `dépôt d’une demande : ${r.status} ${r.corps.toString().slice(0, 300)}`);
  const { data } = r.json<{ data: { numeroUnique: string; accessKey: string } }>();
  return { numero: data.numeroUnique, cle: data.accessKey };
}

async function envoyerDocument(client: Client, numero: string, cle: string, contenu: Buffer): Promise<string> {
  const form = await multipart([{ champ: 'tax', nom: 'avis-imposition.pdf', contenu, type: 'application/pdf' }]);
  const envoi = await client.requete(`/app/api/logement/upload-files/${numero}`, { sansCookies: true, corps: form.corps, entetes: { 'content-type': form.type, 'x-access-key': cle } });
  exiger(envoi.status === 201, `envoi d’un document : ${envoi.status} ${envoi.corps.toString().slice(0, 300)}`);
  const vue = await client.requete(`/app/api/logement/${numero}`, { sansCookies: true, entetes: { 'x-access-key': cle } });
  exiger(vue.status === 200, `lecture de la demande : ${vue.status}`);
  const documents = vue.json<{ data: { documents: Record<string, { fileUrl: string }[]> } }>().data.documents;
  const url = documents.tax?.[0]?.fileUrl;
  exiger(url, 'le document envoyé n’apparaît pas dans la demande');
  return url;
}

async function telecharger(client: Client, url: string, cle: string, attendu: Buffer): Promise<void> {
  const r = await client.requete(url, { sansCookies: true, entetes: { 'x-access-key': cle } });
  exiger(r.status === 200, `téléchargement du document : ${r.status}`);
  exiger(r.corps.equals(attendu), `le document téléchargé diffère de l’envoi (${r.corps.length} octets au lieu de ${attendu.length})`);
}

async function changerStatut(client: Client, numero: string, statut: string): Promise<void> {
  const r = await client.requete('/app/api/logement/update/status', { json: { logementId: numero, newStatus: statut } });
  exiger(r.status === 200, `changement de statut : ${r.status} ${r.corps.toString().slice(0, 300)}`);
}

async function verifierSondes(client: Client, attendues: string[], relais: string): Promise<void> {
  const vie = await client.requete('/healthz', { sansCookies: true });
  exiger(vie.status === 200, `/healthz à travers le ${relais} : ${vie.status}`);
  const pret = await client.requete('/readyz', { sansCookies: true });
  exiger(pret.status === 200, `/readyz à travers le ${relais} : ${pret.status} ${pret.corps.toString()}`);
  const verifs = pret.json<{ verifications: Record<string, string> }>().verifications;
  for (const v of attendues) exiger(verifs[v] === 'ok', `/readyz : « ${v} » vaut ${verifs[v] ?? 'absent'} (${JSON.stringify(verifs)})`);
  ok(`/healthz 200 et /readyz 200 à travers le ${relais} (${Object.entries(verifs).map(([k, v]) => `${k} ${v}`).join(', ')})`);
}

/** GET /metrics: answered 404 by the proxy (`respond /metrics 404`), served to Prometheus on each instance's own address. */
async function verifierMetriques(client: Client, instances: Instance[], relais: string): Promise<void> {
  const parLeRelais = await client.requete('/metrics', { sansCookies: true, entetes: { authorization: `Bearer ${instances[0]!.env.METRICS_TOKEN}` } });
  exiger(parLeRelais.status === 404, `/metrics par le ${relais} : ${parLeRelais.status} au lieu de 404 (respond /metrics 404 dans le Caddyfile)`);
  for (const i of instances) exiger((await metriques(i)).includes('http_requests_total'), `/metrics de l’instance ${i.nom} sans http_requests_total`);
  ok(`/metrics : 404 par le ${relais}, servi avec METRICS_TOKEN à l’adresse de ${instances.length > 1 ? 'chaque instance' : 'l’instance'}`);
}

function dire(remplacees: Record<string, string>, pourquoi: string): void {
  note(`variables remplacées pour la boucle locale (${pourquoi}) : ${Object.keys(remplacees).join(', ')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// One server

async function unServeur(fichierEnv: string): Promise<void> {
  titre(`Recette « un serveur » (docs/deploy.md) : ${fichierEnv}, deploy/quartier-vivant.service, deploy/Caddyfile.un-serveur`);
  const env = lireEnv(fs.readFileSync(path.resolve(ROOT, fichierEnv), 'utf8'), fichierEnv);
  verifierEnv(env, fichierEnv);
  exiger(!env.has('DATABASE_URL') && env.get('STORAGE') !== 's3', `${fichierEnv} : la recette « un serveur » est SQLite et le disque (ni DATABASE_URL ni STORAGE=s3)`);
  verifierUnites(env, fichierEnv);
  const caddy = lireCaddyfile('deploy/Caddyfile.un-serveur');
  const attenduAmont = `${env.get('HOST') ?? '127.0.0.1'}:${env.get('PORT') ?? '3000'}`;
  exiger(caddy.amonts.length === 1 && caddy.amonts[0] === attenduAmont, `deploy/Caddyfile.un-serveur : reverse_proxy vers ${caddy.amonts.join(' ')} au lieu de HOST:PORT (${attenduAmont})`);
  exiger(['loopback', '127.0.0.1', '1'].includes(env.get('TRUST_PROXY') ?? ''), `${fichierEnv} : TRUST_PROXY doit désigner Caddy sur la même machine (loopback), pas « ${env.get('TRUST_PROXY')} »`);
  const reglages = reglagesDuRepartiteur(caddy, 'deploy/Caddyfile.un-serveur');
  ok(`Caddyfile : reverse_proxy ${attenduAmont}, health_uri ${reglages.healthUri}, flush_interval -1 ; TRUST_PROXY=${env.get('TRUST_PROXY')}`);
  verifierDocumentation([fichierEnv === 'deploy/un-serveur.env' ? fichierEnv : 'deploy/un-serveur.env', 'deploy/quartier-vivant.service', 'deploy/Caddyfile.un-serveur', 'deploy/quartier-vivant-sauvegarde.service', 'deploy/quartier-vivant-sauvegarde.timer']);

  titre('Démarrage sur 127.0.0.1');
  note('systemd et Caddy ne sont pas lancés ici : l’instance tourne comme `npm run dev` (node --import tsx src/server/main.ts) ;');
  note('un relais HTTP en Node tient la place de Caddy : Host transmis, X-Forwarded-For remplacé par l’adresse du client,');
  note('X-Forwarded-Proto https (TLS est déchiffré par Caddy en vrai ; ici la boucle locale parle HTTP), X-Request-Id, flux sans tampon.');
  const dataDir = await dossierTemporaire('qv-verif-un-');
  const remplacees = {
    PORT: String(await portLibre()),
    DATA_DIR: dataDir,
    AUTH_SECRET: randomBytes(36).toString('base64'),
    // No mail relay here: the e-mails are written to DATA_DIR/mail, where the confirmation link is read.
    SMTP_URL: '',
    ...(env.has('METRICS_TOKEN') ? { METRICS_TOKEN: randomBytes(24).toString('hex') } : {}),
  };
  dire(remplacees, 'port libre, dossier temporaire, secrets tirés au hasard, e-mails en fichiers');
  const variables = { ...Object.fromEntries(env), ...remplacees };
  const instance = await demarrerInstance('unique', variables);
  const relais = new Repartiteur([{ nom: 'unique', port: instance.port }], reglages);
  aNettoyer.push({ quoi: 'relais', faire: () => relais.fermer() });
  await relais.ecouter();
  const publicUrl = new URL(env.get('PUBLIC_URL') ?? `http://localhost:${variables.PORT}`);
  const client = new Client(() => relais.port, publicUrl);
  note(`relais sur 127.0.0.1:${relais.port} ; les requêtes portent Host ${publicUrl.host} et Origin ${publicUrl.origin}, comme si ce nom menait ici`);

  titre('Vérifications à travers le relais');
  await verifierSondes(client, ['base', 'stockage', 'photos'], 'relais');
  const accueil = await client.requete('/app/api/parametres', { sansCookies: true });
  exiger(accueil.status === 200, `/app/api/parametres : ${accueil.status}`);
  exiger(accueil.entetes['x-request-id'] === relais.dernierId, `X-Request-Id du relais (${relais.dernierId}) non repris par l’application (${String(accueil.entetes['x-request-id'])})`);
  if (publicUrl.protocol === 'https:') exiger(String(accueil.entetes['strict-transport-security'] ?? '').includes('max-age='), 'PUBLIC_URL en https, mais pas d’en-tête Strict-Transport-Security');
  ok(`réponses de l’application par le relais : X-Request-Id du relais repris${publicUrl.protocol === 'https:' ? ', HSTS envoyé (PUBLIC_URL en https)' : ''}`);
  await verifierMetriques(client, [instance], 'relais');

  const contenu = pdf(1024 * 1024);
  const { numero, cle } = await nouvelleDemande(client);
  const url = await envoyerDocument(client, numero, cle, contenu);
  await telecharger(client, url, cle, contenu);
  ok(`demande ${numero} déposée, document de ${(contenu.length / 1024 / 1024).toFixed(1).replace('.', ',')} Mo envoyé puis téléchargé à l’identique`);

  const email = await gestionnaire(client, instance, [dataDir]);
  ok(`gestionnaire ${email} : inscription, lien de confirmation lu dans DATA_DIR/mail et ouvert, npm run user -- role, connexion (cookie __Host-)`);

  const flux = await client.flux(`/app/api/evenements?numero=${numero}`);
  aNettoyer.push({ quoi: 'flux', faire: () => flux.fermer() });
  exiger(flux.status === 200, `suivi en direct : ${flux.status}`);
  await attendre(() => flux.texte, (t) => t.includes('retry:'), 'le début du suivi en direct à travers le relais', 5000);
  await changerStatut(client, numero, 'Passage CAL');
  await attendre(() => evenementsStatut(flux), (e) => e.some((x) => x.numeroUnique === numero && x.statutDeLaDemande === 'Passage CAL'), 'le changement de statut dans le suivi en direct', 5000, 50);
  flux.fermer();
  ok('suivi en direct (SSE) à travers le relais : le changement de statut arrive');

  titre('Sauvegarde et restauration (npm run backup, npm run restore)');
  const archives = await dossierTemporaire('qv-verif-sauvegardes-');
  const archive = path.join(archives, 'qv-verif.tar.gz');
  const sauvegarde = await executer('src/server/cli/backup.ts', [archive], variables);
  exiger(sauvegarde.code === 0, `sauvegarde : code ${sauvegarde.code} : ${sauvegarde.sortie}`);
  const manifeste = spawnSync('tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8' });
  exiger(manifeste.status === 0, `manifest.json illisible dans l’archive : ${manifeste.stderr}`);
  const { files } = JSON.parse(manifeste.stdout) as { files: { sha256: string }[] };
  exiger(files.some((f) => f.sha256 === sha256(contenu)), 'le document envoyé n’est pas dans l’archive (SHA-256)');
  ok(`sauvegarde pendant que le serveur tourne : ${path.basename(archive)} (${(fs.statSync(archive).size / 1024 / 1024).toFixed(1).replace('.', ',')} Mo), le document y est`);
  const cible = await dossierTemporaire('qv-verif-restauration-');
  const restauration = await executer('src/server/cli/restore.ts', [archive], { ...variables, DATA_DIR: cible, PORT: String(await portLibre()) });
  exiger(restauration.code === 0, `restauration : code ${restauration.code} : ${restauration.sortie}`);
  const restaures = (fs.readdirSync(path.join(cible, 'uploads'), { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile() && !e.parentPath.includes('.tmp'));
  exiger(
    restaures.some((e) => sha256(fs.readFileSync(path.join(e.parentPath, e.name))) === sha256(contenu)),
    'le document n’est pas dans le dossier restauré',
  );
  ok('restauration dans un DATA_DIR neuf : la base et le document reviennent');

  titre('Arrêt');
  const arret = await arreter(instance);
  verifierJournalSansErreur(instance);
  ok(`SIGTERM : sortie 0 en ${secondes(arret.ms)}, « arrêt terminé » au journal, aucune ligne d’erreur`);
}

// ---------------------------------------------------------------------------------------------------------------
// Several instances

async function plusieursInstances(fichierEnv: string): Promise<void> {
  titre(`Recette « plusieurs instances » (docs/deploy.md) : ${fichierEnv}, deploy/Caddyfile.plusieurs-instances`);
  const env = lireEnv(fs.readFileSync(path.resolve(ROOT, fichierEnv), 'utf8'), fichierEnv);
  verifierEnv(env, fichierEnv);
  for (const nom of ['DATABASE_URL', 'REDIS_URL', 'AUTH_SECRET', 'PUBLIC_URL', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'METRICS_TOKEN']) {
    exiger(env.get(nom), `${fichierEnv} : ${nom} doit être défini pour plusieurs instances`);
  }
  exiger(env.get('STORAGE') === 's3', `${fichierEnv} : STORAGE=s3 attendu (les instances partagent les fichiers)`);
  const drainMs = Number(env.get('SHUTDOWN_DRAIN_MS') ?? 0);
  const caddy = lireCaddyfile('deploy/Caddyfile.plusieurs-instances');
  const reglages = reglagesDuRepartiteur(caddy, 'deploy/Caddyfile.plusieurs-instances');
  exiger(caddy.amonts.length >= 2, 'deploy/Caddyfile.plusieurs-instances : au moins deux instances attendues dans reverse_proxy');
  exiger(caddy.amonts.includes(`${env.get('HOST')}:${env.get('PORT') ?? '3000'}`), `deploy/Caddyfile.plusieurs-instances : l’instance HOST:PORT du fichier (${env.get('HOST')}:${env.get('PORT')}) n’est pas parmi ${caddy.amonts.join(' ')}`);
  exiger(caddy.reglages.get('lb_policy')?.[0] === 'round_robin', 'deploy/Caddyfile.plusieurs-instances : lb_policy round_robin attendu (le relais de vérification ne simule que celle-là)');
  exiger(
    reglages.essaisMs >= 1000,
    'deploy/Caddyfile.plusieurs-instances : lb_try_duration d’au moins 1 s attendu : sans lui, le round_robin de Caddy répond parfois 503 « no upstreams available » sous des requêtes simultanées quand une instance est retirée',
  );
  const retraitMs = reglages.intervalleMs * reglages.echecs;
  exiger(
    drainMs >= retraitMs + 1000,
    `SHUTDOWN_DRAIN_MS (${drainMs} ms) doit dépasser d’au moins 1 s health_interval × health_fails (${retraitMs} ms) : sinon l’instance cesse d’écouter avant que Caddy l’ait retirée`,
  );
  exiger(Number(env.get('SHUTDOWN_TIMEOUT_MS') ?? 25_000) > drainMs, 'SHUTDOWN_TIMEOUT_MS doit dépasser SHUTDOWN_DRAIN_MS');
  verifierUnites(env, fichierEnv);
  ok(
    `Caddyfile : ${caddy.amonts.length} instances en round_robin, /readyz toutes les ${secondes(reglages.intervalleMs)} (retrait après ${reglages.echecs} échec, retour après ${reglages.reussites} réussites) ; SHUTDOWN_DRAIN_MS ${secondes(drainMs)} ≥ ${secondes(retraitMs)} + 1 s`,
  );
  verifierDocumentation(['deploy/plusieurs-instances.env', 'deploy/Caddyfile.plusieurs-instances']);

  titre('Services sur 127.0.0.1');
  const { default: pg } = await import('pg');
  const admin = (process.env.DATABASE_URL ?? '').startsWith('postgres') ? process.env.DATABASE_URL! : 'postgres://postgres@127.0.0.1:5432/postgres';
  const base = `qv_verif_${randomBytes(5).toString('hex')}`;
  const client0 = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
  try {
    await client0.connect();
    await client0.query(`CREATE DATABASE ${base}`);
  } catch (e) {
    throw new Echec(`PostgreSQL ne répond pas à ${new URL(admin).host} (DATABASE_URL) : ${(e as Error).message}`);
  } finally {
    await client0.end().catch(() => undefined);
  }
  aNettoyer.push({
    quoi: `base ${base}`,
    faire: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${base} WITH (FORCE)`);
      await c.end();
    },
  });
  const urlBase = new URL(admin);
  urlBase.pathname = `/${base}`;
  ok(`PostgreSQL : base neuve ${base} sur ${urlBase.host}`);

  const { Redis } = await import('ioredis');
  const urlRedis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefixe = `qv-verif-${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(urlRedis, { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    exiger((await redis.ping()) === 'PONG', 'Redis ne répond pas PONG');
  } catch (e) {
    redis.disconnect();
    throw new Echec(`Redis ne répond pas à ${urlRedis.replace(/\/\/[^@]*@/u, '//')} (REDIS_URL) : ${(e as Error).message}`);
  }
  aNettoyer.push({
    quoi: `clés Redis ${prefixe}*`,
    faire: async () => {
      await effacerCles(redis, prefixe);
      redis.disconnect();
    },
  });
  ok(`Redis : ${urlRedis.replace(/\/\/[^@]*@/u, '//')}, préfixe propre à cette vérification ${prefixe}`);

  const { demarrerS3 } = await import('../test/s3.js');
  const s3 = await demarrerS3(env.get('S3_BUCKET')!);
  aNettoyer.push({ quoi: 'serveur S3', faire: () => s3.close() });
  ok(`stockage S3 : s3rver (compatible S3, objets dans un dossier temporaire) sur ${s3.endpoint}, bucket ${s3.bucket}`);

  titre('Deux instances et le répartiteur');
  note('Caddy n’est pas lancé ici : un répartiteur HTTP en Node tient sa place, réglé d’après le Caddyfile (tourniquet, sonde /readyz,');
  note('contrôle passif) ; à la différence de Caddy avec lb_try_duration, il ne réessaie jamais une requête sur une autre instance :');
  note('0 erreur veut dire que le retrait par la sonde a suffi. Instances lancées comme `npm run dev` (node --import tsx src/server/main.ts).');
  const secret = randomBytes(36).toString('base64');
  const jeton = randomBytes(24).toString('hex');
  const communes = {
    DATABASE_URL: urlBase.toString(),
    REDIS_URL: urlRedis,
    REDIS_PREFIX: prefixe,
    S3_ENDPOINT: s3.env.S3_ENDPOINT!,
    S3_REGION: s3.env.S3_REGION!,
    S3_ACCESS_KEY_ID: s3.env.S3_ACCESS_KEY_ID!,
    S3_SECRET_ACCESS_KEY: s3.env.S3_SECRET_ACCESS_KEY!,
    S3_FORCE_PATH_STYLE: 'true',
    // The proxy is on loopback here, at 10.0.0.10 in the recipe.
    TRUST_PROXY: 'loopback',
    AUTH_SECRET: secret,
    METRICS_TOKEN: jeton,
    SMTP_URL: '',
  };
  const propres = async () => ({ HOST: '127.0.0.1', PORT: String(await portLibre()), DATA_DIR: await dossierTemporaire('qv-verif-instance-') });
  const [propresA, propresB] = [await propres(), await propres()];
  dire({ ...communes, ...propresA }, 'services locaux, secrets tirés au hasard mais communs aux deux instances, e-mails en fichiers ; HOST, PORT et DATA_DIR propres à chaque instance');
  const envA = { ...Object.fromEntries(env), ...communes, ...propresA };
  const envB = { ...Object.fromEntries(env), ...communes, ...propresB };
  const demarrees = await Promise.all([demarrerInstance('A', envA), demarrerInstance('B', envB)]);
  // A is started again during the rolling restart.
  let A = demarrees[0];
  const B = demarrees[1];
  const lb = new Repartiteur(
    [
      { nom: 'A', port: A.port },
      { nom: 'B', port: B.port },
    ],
    reglages,
  );
  aNettoyer.push({ quoi: 'répartiteur', faire: () => lb.fermer() });
  await lb.ecouter();
  const publicUrl = new URL(env.get('PUBLIC_URL')!);
  const client = new Client(() => lb.port, publicUrl);
  note(`répartiteur sur 127.0.0.1:${lb.port} ; les requêtes portent Host ${publicUrl.host} et Origin ${publicUrl.origin}`);

  titre('Vérifications à travers le répartiteur');
  await verifierSondes(client, ['base', 'stockage', 'photos', 'redis'], 'répartiteur');
  await verifierMetriques(client, [A, B], 'répartiteur');
  const instances = () => [A, B];
  const alternance = await parInstance(instances(), 'GET', '/app/api/parametres', async () => {
    for (let i = 0; i < 10; i++) exiger((await client.requete('/app/api/parametres', { sansCookies: true })).status === 200, '/app/api/parametres');
  });
  exiger(alternance[0] === 5 && alternance[1] === 5, `10 requêtes réparties ${alternance.join(' / ')} au lieu de 5 / 5 (compteurs /metrics des instances)`);
  ok('les requêtes alternent : 10 requêtes, 5 servies par A et 5 par B (lu dans le /metrics de chaque instance, METRICS_TOKEN)');

  const email = await gestionnaire(client, A, [propresA.DATA_DIR, propresB.DATA_DIR]);
  const moi = await parInstance(instances(), 'GET', '/app/api/user/me', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await client.requete('/app/api/user/me');
      exiger(r.status === 200 && r.json<{ data: { email: string } }>().data.email === email, `session ouverte sur une instance, refusée sur l’autre : ${r.status}`);
    }
  });
  exiger(moi[0] === 1 && moi[1] === 1, `GET /user/me réparti ${moi.join(' / ')}`);
  ok(`gestionnaire ${email} connecté par le répartiteur : sa session vaut sur A et sur B (sessions en base, même AUTH_SECRET, pas d’affinité)`);

  const contenu = pdf(6 * 1024 * 1024);
  const { numero, cle } = await nouvelleDemande(client);
  const url = await envoyerDocument(client, numero, cle, contenu);
  const lectures = await parInstance(instances(), 'GET', '/app/api/logement/:numeroUnique/documents/:id', async () => {
    for (let i = 0; i < 2; i++) await telecharger(client, url, cle, contenu);
  });
  exiger(lectures[0] === 1 && lectures[1] === 1, `téléchargements répartis ${lectures.join(' / ')}`);
  const objets = await s3.objets('uploads/');
  exiger(objets.some((o) => o.startsWith(`uploads/`) && !o.includes('.tmp/')), `aucun objet sous uploads/ dans le bucket : ${objets.join(', ')}`);
  ok(`document de ${(contenu.length / 1024 / 1024).toFixed(0)} Mo envoyé par l’une, téléchargé à l’identique sur A et sur B (objet dans le bucket S3)`);

  const flux = await client.flux(`/app/api/evenements?numero=${numero}`);
  aNettoyer.push({ quoi: 'flux', faire: () => flux.fermer() });
  exiger(flux.status === 200, `suivi en direct : ${flux.status}`);
  await attendre(() => flux.texte, (t) => t.includes('retry:'), 'le début du suivi en direct à travers le répartiteur', 5000);
  const ouverts = await Promise.all(instances().map(async (i) => (await metriques(i)).match(/^qv_sse_clients\{flux="logement"\} (\d+)/mu)?.[1]));
  const porteur = ouverts[0] === '1' ? 'A' : ouverts[1] === '1' ? 'B' : undefined;
  exiger(porteur, `le suivi ouvert n’est compté sur aucune instance (qv_sse_clients : ${ouverts.join(' / ')})`);
  const changements = await parInstance(instances(), 'POST', '/app/api/logement/update/status', async () => {
    await changerStatut(client, numero, 'En cours de traitement');
    await changerStatut(client, numero, 'Passage CAL');
  });
  exiger(changements[0] === 1 && changements[1] === 1, `changements de statut répartis ${changements.join(' / ')}`);
  await attendre(
    () => evenementsStatut(flux).map((e) => e.statutDeLaDemande),
    (s) => s.includes('En cours de traitement') && s.includes('Passage CAL'),
    'les deux changements de statut dans le suivi en direct',
    5000,
    50,
  );
  flux.fermer();
  ok(`suivi en direct ouvert sur ${porteur} : il reçoit les deux changements de statut, l’un fait sur A, l’autre sur B (Redis)`);

  const codes: number[] = [];
  const renvois = await parInstance(instances(), 'POST', '/app/api/logement/:numeroUnique/renvoyer-lien', async () => {
    for (let i = 0; i < 4; i++) codes.push((await client.requete(`/app/api/logement/${numero}/renvoyer-lien`, { sansCookies: true, json: { email: 'helene.martin@example.org' } })).status);
  });
  exiger(codes.join() === '202,202,202,429', `« Renvoyer mon lien » (3 par heure et par numéro) : ${codes.join(', ')} au lieu de 202, 202, 202, 429`);
  exiger(renvois[0]! >= 1 && renvois[1]! >= 1, `renvois répartis ${renvois.join(' / ')}`);
  exiger((await redis.keys(`${prefixe}limites:*`)).length > 0, `aucun compteur sous ${prefixe}limites: dans Redis`);
  ok(`limite partagée : « Renvoyer mon lien » 202, 202, 202 puis 429 alors que A et B en ont reçu ${renvois.join(' et ')} (compteurs dans Redis)`);

  titre(`Redémarrage de A sous charge (SIGTERM, SHUTDOWN_DRAIN_MS ${secondes(drainMs)})`);
  // Two live-event streams, one on each instance (round robin): the one on A must end when A stops, and the browser's
  // reconnection (EventSource, 3 s later) go to B through the proxy.
  const suivis = [await client.flux(`/app/api/evenements?numero=${numero}`), await client.flux(`/app/api/evenements?numero=${numero}`)];
  for (const f of suivis) {
    aNettoyer.push({ quoi: 'flux', faire: () => f.fermer() });
    await attendre(() => f.texte, (t) => t.includes('retry:'), 'un suivi en direct ouvert avant le redémarrage', 5000);
  }
  const resultats: { at: number; ok: boolean; detail: string }[] = [];
  let enCharge = true;
  const charge = Array.from({ length: 3 }, async (_, k) => {
    while (enCharge) {
      const chemin = k % 2 === 0 ? `/app/api/logement/${numero}` : '/app/api/parametres';
      try {
        const r = await client.requete(chemin, { sansCookies: true });
        resultats.push({ at: Date.now(), ok: r.status === 200, detail: `${chemin} ${r.status}` });
      } catch (e) {
        resultats.push({ at: Date.now(), ok: false, detail: `${chemin} ${(e as Error).message}` });
      }
      await dormir(20);
    }
  });
  await dormir(500);
  const servisAvant = await compteur(A, 'GET', '/app/api/parametres');
  exiger(servisAvant > 0, 'A ne sert rien sous charge');
  const signal = Date.now();
  A.enfant.kill('SIGTERM');
  let lecture503: number | undefined;
  let fermeture: number | undefined;
  // A's own view of it, bypassing the proxy: /readyz at 503 during the drain, then no more connections.
  const observation = (async () => {
    while (fermeture === undefined && Date.now() - signal < drainMs + 15_000) {
      try {
        if ((await statutDirect(A, '/readyz')) === 503) lecture503 ??= Date.now();
      } catch {
        fermeture = Date.now();
      }
      await dormir(50);
    }
  })();
  const retrait = await attendre(() => lb.evenements.find((e) => e.amont === 'A' && e.etat === 'retirée' && e.at >= signal), (e) => e !== undefined, 'le retrait de A par la sonde du répartiteur', drainMs + 5000, 50);
  const sortieA = await A.sortie;
  await observation;
  exiger(sortieA.code === 0, `A est sortie avec le code ${sortieA.code ?? sortieA.signal} après SIGTERM`);
  exiger(lignesDuJournal(A).some((l) => l.msg === 'arrêt terminé'), 'A n’a pas écrit « arrêt terminé »');
  exiger(lecture503 !== undefined, '/readyz de A n’a jamais répondu 503 pendant le drain');
  exiger(
    fermeture !== undefined && retrait!.at < fermeture,
    `A a cessé d’écouter ${fermeture === undefined ? '' : `${secondes(fermeture - signal)} après le signal, `}avant d’être retirée par le répartiteur (${secondes(retrait!.at - signal)}) : ${resultats.filter((r) => !r.ok).length} requête(s) en erreur jusque-là (${lb.erreursAmont.slice(0, 2).join(' ; ')})`,
  );
  verifierJournalSansErreur(A);
  ok(
    `A : /readyz 503 après ${secondes(lecture503 - signal)}, retirée par la sonde après ${secondes(retrait!.at - signal)}, plus de connexions après ${secondes(fermeture - signal)}, sortie 0 après ${secondes(sortieA.at - signal)}`,
  );
  const finis = await attendre(() => suivis.map((f) => f.fini), (f) => f.some(Boolean), 'la fin du suivi en direct ouvert sur A', 5000, 50);
  exiger(finis.filter(Boolean).length === 1, 'les deux suivis en direct se sont terminés, pas seulement celui de A');
  const survivant = suivis[finis.indexOf(false)]!;
  const reconnexion = await client.flux(`/app/api/evenements?numero=${numero}`);
  aNettoyer.push({ quoi: 'flux', faire: () => reconnexion.fermer() });
  exiger(reconnexion.status === 200, `reconnexion du suivi en direct : ${reconnexion.status}`);
  await attendre(() => reconnexion.texte, (t) => t.includes('retry:'), 'la reconnexion du suivi en direct', 5000);
  await changerStatut(client, numero, 'En attente');
  for (const f of [survivant, reconnexion]) {
    await attendre(() => evenementsStatut(f), (e) => e.some((x) => x.statutDeLaDemande === 'En attente'), 'un changement de statut fait pendant le redémarrage, dans les suivis restants', 5000, 50);
    f.fermer();
  }
  ok('le suivi en direct ouvert sur A s’est terminé, celui de B continue ; une reconnexion par le répartiteur aboutit sur B, et tous deux reçoivent le changement suivant');
  A = await demarrerInstance('A', envA);
  const redemarrage = Date.now();
  lb.amonts[0]!.port = A.port;
  const retour = await attendre(() => lb.evenements.find((e) => e.amont === 'A' && e.etat === 'réintégrée' && e.at >= redemarrage - 50), (e) => e !== undefined, 'le retour de A dans le répartiteur', 20_000, 50);
  await attendre(() => compteur(A, 'GET', '/app/api/parametres'), (n) => n > 0, 'des requêtes servies par A après son retour', 10_000);
  enCharge = false;
  await Promise.all(charge);
  const erreurs = resultats.filter((r) => !r.ok);
  exiger(erreurs.length === 0 && lb.erreursAmont.length === 0 && lb.sansAmont === 0, `${erreurs.length} erreur(s) pendant le redémarrage : ${[...erreurs.map((e) => e.detail), ...lb.erreursAmont].slice(0, 5).join(' ; ')}`);
  ok(`A réintégrée par la sonde ${secondes(Math.max(0, retour!.at - redemarrage))} après être prête, et de nouveau servie ; ${resultats.length} requêtes pendant tout le redémarrage, 0 erreur`);

  titre('Arrêt');
  const arrets = await Promise.all([arreter(A), arreter(B)]);
  verifierJournalSansErreur(A);
  verifierJournalSansErreur(B);
  ok(`SIGTERM aux deux instances : sortie 0 (${arrets.map((a) => secondes(a.ms)).join(' et ')}, drain compris), aucune ligne d’erreur au journal`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const mode = args[0];
  const iEnv = args.indexOf('--env');
  const fichierEnv = iEnv >= 0 ? args[iEnv + 1] : undefined;
  if ((mode !== 'un-serveur' && mode !== 'plusieurs-instances') || (iEnv >= 0 && !fichierEnv) || args.length !== (iEnv >= 0 ? 3 : 1)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const arreterSurSignal = (signal: NodeJS.Signals) => {
    ecrire(`\nInterrompu (${signal}) : nettoyage…`);
    void nettoyer().finally(() => process.exit(130));
  };
  process.once('SIGINT', arreterSurSignal);
  process.once('SIGTERM', arreterSurSignal);
  try {
    if (mode === 'un-serveur') await unServeur(fichierEnv ?? 'deploy/un-serveur.env');
    else await plusieursInstances(fichierEnv ?? 'deploy/plusieurs-instances.env');
    ecrire(`\nVérification réussie (${mode}) en ${secondes(Date.now() - debut)}.`);
    return 0;
  } catch (e) {
    ecrire(`  ✗ ${e instanceof Error ? e.message : String(e)}`);
    if (!(e instanceof Echec) && e instanceof Error && e.stack) ecrire(e.stack);
    ecrire(`\nVérification échouée (${mode}) après ${secondes(Date.now() - debut)}.`);
    return 1;
  } finally {
    await nettoyer();
  }
}

process.exitCode = await main();
// Nothing left to wait for (every child, server and connection was closed); a stray handle must not hold the exit.
setTimeout(() => process.exit(), 500).unref();
