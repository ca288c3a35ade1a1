import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail in the background; `idle()` waits for what is under way (shutdown, tests). */
export interface Mailer {
  send(mail: Mail): void;
  idle(): Promise<void>;
}

type Deliver = (mail: Mail & { from: string }) => Promise<void>;

function smtpDeliver(smtpUrl: string): Deliver {
  const transport = nodemailer.createTransport(smtpUrl);
  return async (mail) => {
    await transport.sendMail(mail);
  };
}

/** Without SMTP, each message is written as an .eml file (temp file then rename). */
function fileDeliver(dir: string): Deliver {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return async (mail) => {
    const info = await transport.sendMail(mail);
    await fsp.mkdir(dir, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/gu, '-')}-${randomUUID().slice(0, 8)}.eml`;
    const tmp = path.join(dir, `.${name}.tmp`);
    await fsp.writeFile(tmp, info.message as Buffer, { flush: true });
    await fsp.rename(tmp, path.join(dir, name));
  };
}

export function createMailer(options: { smtpUrl: string | undefined; mailDir: string; from: string; log: FastifyBaseLogger }): Mailer {
  const deliver = options.smtpUrl ? smtpDeliver(options.smtpUrl) : fileDeliver(options.mailDir);
  const pending = new Set<Promise<void>>();
  return {
    send(mail) {
      const p = deliver({ ...mail, from: options.from })
        .catch((error: unknown) => {
          // The action that triggered the mail already succeeded: log, never fail it.
          options.log.error({ err: error, to: mail.to, subject: mail.subject }, "L'envoi d'un e-mail a échoué");
        })
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
