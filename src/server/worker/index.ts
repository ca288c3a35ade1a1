// Work kept off the event loop (issue 11 point 4): the attestation PDF, the inspection of uploaded PDFs, the
// composition of e-mails, the weak-password check (with its word lists), the steps that put a stored file in its
// place (writing a small one held in memory, its folders, its rename, their fsyncs: each would wait for a turn of the
// busy loop) and SQLite's checkpoints (db/checkpoint.ts) run on one background thread, started when first needed and
// stopped after a quiet minute (its memory is given back). A failure there rejects with the same error kind, message
// and stack as the same work done in place, a file system error with its code, call, number and paths too (its class
// and other fields do not cross); a thread that dies rejects what was sent to it, and the next task starts a new one.
import { Worker } from 'node:worker_threads';
import type { Personne } from '../auth/motsDePasse.js';
import type { DemandeRow } from '../db/schema.js';
import type { VerdictPdf } from '../features/demandes/pdf.js';

export type LigneAttestation = Pick<DemandeRow, 'numeroUnique' | 'prenom' | 'nom' | 'dateDEnregistrement' | 'valideJusqua'>;

export interface MailACompose {
  from: string;
  to: string;
  subject: string;
  text: string;
  attachments?: { filename: string; content: Uint8Array; contentType: string }[];
}

/** The tasks, their arguments (what structured clone carries) and their results. */
export interface Taches {
  attestation: { args: [row: LigneAttestation, emiseLe: string]; result: Uint8Array };
  inspecterPdf: { args: [bytes: Uint8Array]; result: VerdictPdf };
  motDePasseTropFacile: { args: [password: string, personne: Personne]; result: boolean };
  composerMail: { args: [mail: MailACompose, newline: 'unix' | 'windows']; result: { message: Uint8Array; envelope: { from: string; to: string[] } } };
  /** With `verifierPdf`, the file checked as a PDF first and placed only when it passes: the verdict (else null). */
  placerFichier: { args: [tmpPath: string, target: string, root: string, verifierPdf: boolean]; result: VerdictPdf | null };
  placerOctets: { args: [octets: Uint8Array, tmpPath: string, target: string, root: string, verifierPdf: boolean]; result: VerdictPdf | null };
  checkpointSqlite: { args: [fichier: string]; result: void };
}

const ARRET_APRES_MS = 60_000;

interface EnCours {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** The thread it was sent to: a thread that ends rejects its own tasks only (one stopped after a quiet minute may
   * end after the next task started another). */
  fil: Worker;
}

/** What a failure there says: its kind and message, and a file system error's code, call, number and paths. */
interface Echec {
  name?: string;
  message?: string;
  stack?: string;
  code?: string;
  syscall?: string;
  errno?: number;
  path?: string;
  dest?: string;
}

let worker: Worker | null = null;
let suivant = 0;
const enCours = new Map<number, EnCours>();
let arret: NodeJS.Timeout | null = null;

function demarrer(): Worker {
  const ici = import.meta.url;
  // Under tsx or vitest (sources, not dist/), the thread loads the TypeScript through tsx.
  const w = ici.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(new URL('./thread.ts', ici).href)}); })`, { eval: true })
    : new Worker(new URL('./thread.js', ici));
  w.on('message', (m: { id: number; ok: boolean; result?: unknown } & Echec) => {
    const attente = enCours.get(m.id);
    if (!attente) return;
    enCours.delete(m.id);
    if (m.ok) attente.resolve(m.result);
    else {
      const error: NodeJS.ErrnoException & { dest?: string } = new Error(m.message);
      error.name = m.name ?? 'Error';
      if (m.stack !== undefined) error.stack = m.stack;
      // A file system's error keeps what the error handler answers by (errors.ts: ENOSPC → 507, EACCES on a call → 503…).
      if (m.code !== undefined) error.code = m.code;
      if (m.syscall !== undefined) error.syscall = m.syscall;
      if (m.errno !== undefined) error.errno = m.errno;
      if (m.path !== undefined) error.path = m.path;
      if (m.dest !== undefined) error.dest = m.dest;
      attente.reject(error);
    }
    auRepos(w);
  });
  const fin = (error: Error) => {
    if (worker === w) worker = null;
    for (const [id, attente] of enCours) {
      if (attente.fil !== w) continue;
      enCours.delete(id);
      attente.reject(error);
    }
  };
  w.on('error', fin);
  w.on('exit', (code) => fin(new Error(`Le traitement en arrière-plan s’est arrêté (code ${code}).`)));
  return w;
}

/** With nothing to do, the thread keeps no process alive, and stops after a quiet minute. */
function auRepos(w: Worker): void {
  if (enCours.size > 0) return;
  w.unref();
  if (arret) clearTimeout(arret);
  arret = setTimeout(() => {
    arret = null;
    if (enCours.size === 0 && worker === w) arreterArrierePlan();
  }, ARRET_APRES_MS);
  arret.unref();
}

/** Stops the thread now, as a quiet minute does (tests use it); the next task starts another. */
export function arreterArrierePlan(): void {
  const w = worker;
  worker = null;
  if (w) void w.terminate();
}

/**
 * Chunks (of a file) copied into one ArrayBuffer of their own, which `enArrierePlanCedant` can hand over: never Buffer's
 * shared pool, which a small Buffer may sit in.
 */
export function aCeder(morceaux: readonly Uint8Array[], taille: number): Uint8Array<ArrayBuffer> {
  const octets = new Uint8Array(taille);
  let offset = 0;
  for (const morceau of morceaux) {
    octets.set(morceau, offset);
    offset += morceau.length;
  }
  return octets;
}

/** Runs a task on the background thread. */
export function enArrierePlan<K extends keyof Taches>(tache: K, ...args: Taches[K]['args']): Promise<Taches[K]['result']> {
  return enArrierePlanCedant(tache, [], ...args);
}

/**
 * The same, handing `cedes` over to the thread rather than copying them (a 10 MB PDF is not held twice): they
 * are unusable here afterwards. Each must be an ArrayBuffer of its own (never Buffer's shared pool).
 */
export function enArrierePlanCedant<K extends keyof Taches>(tache: K, cedes: readonly ArrayBuffer[], ...args: Taches[K]['args']): Promise<Taches[K]['result']> {
  worker ??= demarrer();
  const w = worker;
  w.ref();
  if (arret) {
    clearTimeout(arret);
    arret = null;
  }
  const id = (suivant += 1);
  return new Promise((resolve, reject) => {
    enCours.set(id, { resolve: resolve as (value: unknown) => void, reject, fil: w });
    w.postMessage({ id, tache, args }, [...cedes]);
  });
}
