// The background thread's side (see index.ts): each task loads its module when first asked, so the
// thread costs only what it is used for.
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type { VerdictPdf } from '../features/demandes/pdf.js';
import type { Taches } from './index.js';

type Executants = { [K in keyof Taches]: (...args: Taches[K]['args']) => Promise<Taches[K]['result']> };

/**
 * A stored file put in its place (storage/index.ts `commit`), checked first as a PDF when `octets` is given: placed
 * only when it passes. The verdict, null when no check was asked.
 */
async function placerSiSain(octets: (() => Promise<Uint8Array>) | null, placer: () => Promise<void>): Promise<VerdictPdf | null> {
  const verdict = octets ? (await import('../features/demandes/pdf.js')).inspectPdf(await octets()) : null;
  if (verdict?.ok === false) return verdict;
  await placer();
  return verdict;
}

const executants: Executants = {
  attestation: async (row, emiseLe) => {
    const { attestationPdf } = await import('../features/demandes/attestation.js');
    return attestationPdf(row, new Date(emiseLe));
  },
  inspecterPdf: async (bytes) => {
    const { inspectPdf } = await import('../features/demandes/pdf.js');
    return inspectPdf(bytes);
  },
  motDePasseTropFacile: async (password, personne) => {
    const { motDePasseTropFacile } = await import('../auth/motsDePasse.js');
    return motDePasseTropFacile(password, personne);
  },
  composerMail: async (mail, newline) => {
    const { default: nodemailer } = await import('nodemailer');
    // Attachments cross the thread boundary as Uint8Array: nodemailer wants Buffers.
    const { attachments, ...rest } = mail;
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline });
    const info = await transport.sendMail({
      ...rest,
      ...(attachments ? { attachments: attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) })) } : {}),
    });
    return { message: info.message as Buffer, envelope: info.envelope as { from: string; to: string[] } };
  },
  placerFichier: (tmpPath, target, root, verifierPdf) =>
    placerSiSain(verifierPdf ? () => readFile(tmpPath) : null, async () => (await import('../storage/placer.js')).placer(tmpPath, target, root)),
  placerOctets: (octets, tmpPath, target, root, verifierPdf) =>
    placerSiSain(verifierPdf ? async () => octets : null, async () => (await import('../storage/placer.js')).placerOctets(octets, tmpPath, target, root)),
  checkpointSqlite: async (fichier) => {
    const { checkpointPassif } = await import('../db/checkpoint.js');
    return checkpointPassif(fichier);
  },
};

interface Message {
  id: number;
  tache: keyof Taches;
  args: unknown[];
}

parentPort!.on('message', ({ id, tache, args }: Message) => {
  (executants[tache] as (...a: unknown[]) => Promise<unknown>)(...args).then(
    (result) => parentPort!.postMessage({ id, ok: true, result }),
    (error: unknown) => {
      // Only what the other side reads, as strings and numbers (anything else would not cross the thread).
      const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
      const texte = (k: string) => (typeof e[k] === 'string' ? e[k] : undefined);
      parentPort!.postMessage({
        id,
        ok: false,
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
        stack: texte('stack'),
        code: texte('code'),
        syscall: texte('syscall'),
        errno: typeof e.errno === 'number' ? e.errno : undefined,
        path: texte('path'),
        dest: texte('dest'),
      });
    },
  );
});
