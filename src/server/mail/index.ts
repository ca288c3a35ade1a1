import { randomBytes, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbKind } from '../db/index.js';
import { inserer } from '../db/insertion.js';
import type { Database, MailOutboxTable } from '../db/schema.js';
import { syncDir } from '../storage/index.js';
import { enArrierePlan } from '../worker/index.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Attachments named only (stored as JSON in the outbox), composed at send time by the resolver of their type. */
  piecesJointes?: PieceJointeRef[];
}

/**
 * The first line of a mail to a person: « Bonjour Élodie, » when their first name is known, else « Bonjour, »
 * (a blank name, or one made only of spaces or control characters, is no name).
 */
export function salutation(prenom?: string | null): string {
  const nom = (prenom ?? '').replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return nom ? `Bonjour ${nom},` : 'Bonjour,';
}

/** An attachment by reference, e.g. `{ type: 'attestation', demandeId }` (migration 0009). */
export interface PieceJointeRef {
  type: string;
  demandeId: string;
  /** The line of the text that announces it, left out of the mail when the attachment is (its request closed or gone meanwhile). */
  annonce?: string;
}

/** A composed attachment, as nodemailer sends it. */
export interface PieceJointe {
  filename: string;
  content: Buffer;
  contentType: string;
}

/** Composes an attachment at send time; null when what it shows is gone (the mail then leaves without it). */
export type ResolveurPieceJointe = (ref: PieceJointeRef) => Promise<PieceJointe | null>;

export interface EnqueueOptions {
  /** The mail leaves no sooner than this many milliseconds from now (a status change's undo window). */
  delayMs?: number;
  /** Names the mail so that `cancel(key)` can withdraw it before it leaves. */
  key?: string;
  /** Written in this transaction: the mail exists if and only if what it tells is committed. */
  trx?: Db;
  /** The housing request the mail is about: erasing the request withdraws the mail if still queued. */
  demandeId?: string;
}

/**
 * The app's e-mails: every mail is first a row of `mail_outbox` (migration 0005), and a delivery loop
 * sends the due rows, retrying failures: a mail is never lost, not even across a restart.
 */
export interface Mailer {
  /** Queues a mail, with a delay, a key and a transaction (see EnqueueOptions). */
  enqueue(mail: Mail, options?: EnqueueOptions): Promise<void>;
  /** Withdraws a queued mail whose delivery has not started; false when it is gone, leaving or left. */
  cancel(key: string, trx?: Db): Promise<boolean>;
  /** Waits until the mails queued so far that are due have been delivered, or have failed once (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops the delivery loop; the rows not yet sent stay for the next start. */
  close(): Promise<void>;
  /** Registers how attachments of one type are composed (a feature does, at start). */
  resoudrePiecesJointes(type: string, resolveur: ResolveurPieceJointe): void;
}

export interface OutboxOptions {
  db: Db;
  kind: DbKind;
  /** How often the loop looks for due mails (default 1 s). */
  pollMs?: number;
  /** How long a claim holds without being renewed (default CLAIM_TIMEOUT_MS; tests shorten it). */
  claimTimeoutMs?: number;
}

type Deliver = ((mail: Omit<Mail, 'piecesJointes'> & { from: string; attachments?: PieceJointe[] }) => Promise<void>) & {
  /** Lets go of what the delivery keeps open (SMTP connections). */
  close?: () => Promise<void>;
};

/**
 * The message is composed (MIME, attachments encoded) on the background thread (src/server/worker), the
 * event loop only sends the bytes; nodemailer's SMTP client loads at the first delivery.
 */
function smtpDeliver(smtpUrl: string): Deliver {
  let transport: Promise<{ sendMail(mail: object): Promise<unknown>; close(): void }> | undefined;
  const deliver: Deliver = async (mail) => {
    // Bounded waits: a mail server that stops answering fails the delivery, tried again later (the pass renews its
    // claim meanwhile, so no other instance sends the mail too). A pool of
    // connections kept open (as many as mails sent at once): a mail does not pay for a connection, its TLS and
    // its login each time.
    transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: EN_PARALLELE, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 }),
    );
    const sender = await transport;
    const { message, envelope } = await enArrierePlan('composerMail', mail, 'windows');
    await sender.sendMail({ envelope, raw: Buffer.from(message.buffer, message.byteOffset, message.byteLength) });
  };
  deliver.close = async () => {
    const open = transport;
    transport = undefined;
    (await open?.catch(() => undefined))?.close();
  };
  return deliver;
}

/** Without SMTP, each message is written as an .eml file (temp file then rename), composed on the background thread. */
function fileDeliver(dir: string): Deliver {
  return async (mail) => {
    const info = await enArrierePlan('composerMail', mail, 'unix');
    await fsp.mkdir(dir, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/gu, '-')}-${randomUUID().slice(0, 8)}.eml`;
    const tmp = path.join(dir, `.${name}.tmp`);
    await fsp.writeFile(tmp, info.message, { flush: true });
    await fsp.rename(tmp, path.join(dir, name));
    // The rename durable too before the row is marked sent (a stub left by a crash is swept at start).
    await syncDir(dir);
  };
}

export function createMailer(options: { smtpUrl: string | undefined; mailDir: string; from: string; log: FastifyBaseLogger; outbox: OutboxOptions }): Mailer {
  const deliver = options.smtpUrl ? smtpDeliver(options.smtpUrl) : fileDeliver(options.mailDir);
  return new OutboxMailer(deliver, options.from, options.log, options.outbox);
}

/** Rows claimed at once by one pass of the loop. */
const BATCH = 10;

/**
 * `e`, an unsent mail of the same recipient as the row `exterieur` (its table's name or alias in the enclosing query)
 * and before it in the order one person's mails leave: `send_after`, then `id`.
 */
function avantDuMemeDestinataire(exterieur: 'mail_outbox' | 'o'): RawBuilder<boolean> {
  const x = sql.raw(exterieur);
  return sql<boolean>`e.recipient = ${x}.recipient and e.sent_at is null
    and (e.send_after < ${x}.send_after or (e.send_after = ${x}.send_after and e.id < ${x}.id))`;
}
/** Mails of one pass sent at the same time (to different recipients), and the SMTP connections kept for them. */
const EN_PARALLELE = 4;
/**
 * A claim older than this is taken to be an instance that died while sending: the row is claimed again. A pass renews
 * its claims every fifth of it while it sends, so that a slow exchange with the mail server (each of its steps may wait
 * up to a minute) never lets another instance take a mail on its way and send it a second time.
 */
export const CLAIM_TIMEOUT_MS = 5 * 60_000;
/** Sent rows (their text already emptied) are kept this long as a trace, then deleted. */
export const KEEP_SENT_MS = 30 * 24 * 3600_000;
const PURGE_EVERY_MS = 10 * 60_000;

/** The wait before the next try after `attempts` failed ones: 10 s, 20 s, 40 s… at most one hour. Never given up. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 3600_000);
}

type OutboxRow = MailOutboxTable;

/** A sent mail is marked sent in up to this many tries, this long apart (then longer): a database's blip. */
const MARQUAGE_ESSAIS = 5;
const MARQUAGE_ATTENTE_MS = 200;

class OutboxMailer implements Mailer {
  private readonly db: Db;
  /** Passes run one after another. */
  private chain: Promise<number> = Promise.resolve(0);
  /** Passes queued or running: the loop and `enqueue` start one only when none is. */
  private passes = 0;
  private closed = false;
  private lastPurge = 0;
  /** The millisecond of the last mail's id, and how many ids it gave before (idSuivant). */
  private msIds = 0;
  private compteurIds = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly resolveurs = new Map<string, ResolveurPieceJointe>();
  private readonly claimTimeoutMs: number;

  constructor(
    private readonly deliver: Deliver,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
    private readonly outbox: OutboxOptions,
  ) {
    this.db = outbox.db;
    this.claimTimeoutMs = outbox.claimTimeoutMs ?? CLAIM_TIMEOUT_MS;
    if (outbox.kind === 'sqlite') {
      // SQLite has one server process: a claim standing at start is that of a process that died while
      // sending (a crash, a kill); its mails go back to the queue now, not CLAIM_TIMEOUT_MS later.
      this.chain = this.db
        .updateTable('mailOutbox')
        .set({ claimedAt: null, claimToken: null })
        .where('sentAt', 'is', null)
        .where('claimedAt', 'is not', null)
        .execute()
        .then(
          () => 0,
          (error: unknown) => {
            this.log.error({ err: error }, "Les e-mails en cours d’envoi au dernier arrêt n’ont pas pu être remis dans la file");
            return 0;
          },
        );
    }
    this.timer = setInterval(() => {
      if (this.passes === 0) void this.pass();
    }, outbox.pollMs ?? 1000);
    this.timer.unref();
  }

  async enqueue(mail: Mail, options: EnqueueOptions = {}): Promise<void> {
    const now = Date.now();
    await inserer(options.trx ?? this.db, 'mailOutbox', {
      id: this.idSuivant(now),
      key: options.key ?? null,
      recipient: mail.to,
      subject: mail.subject,
      body: mail.text,
      createdAt: new Date(now).toISOString(),
      sendAfter: new Date(now + Math.max(0, options.delayMs ?? 0)).toISOString(),
      attempts: 0,
      housingRequestId: options.demandeId ?? null,
      piecesJointes: mail.piecesJointes?.length ? JSON.stringify(mail.piecesJointes) : null,
    });
    // Outside a transaction the row is there now: a mail due at once leaves without waiting for the loop.
    if (!options.trx && !(options.delayMs! > 0) && this.passes === 0 && !this.closed) void this.pass();
  }

  /**
   * A mail's id: its queue's order among mails of one millisecond (a person's mails leave by `send_after`, then `id`).
   * The time and a counter of this process first, then random bits, in lowercase hex only, so that text comparison
   * follows it under any collation: mails asked in one millisecond (one transaction) keep the order they were asked in.
   */
  private idSuivant(now: number): string {
    this.compteurIds = now === this.msIds ? this.compteurIds + 1 : 0;
    this.msIds = now;
    return `${now.toString(16).padStart(12, '0')}${this.compteurIds.toString(16).padStart(6, '0')}${randomBytes(8).toString('hex')}`;
  }

  resoudrePiecesJointes(type: string, resolveur: ResolveurPieceJointe): void {
    this.resolveurs.set(type, resolveur);
  }

  /**
   * The row's attachments, composed now, and its text: an attachment whose resolver is missing or answers null is left
   * out, and so is the line of the text that announces it.
   */
  private async contenu(row: OutboxRow): Promise<{ text: string; attachments: PieceJointe[] }> {
    if (!row.piecesJointes) return { text: row.body, attachments: [] };
    const refs = JSON.parse(row.piecesJointes) as PieceJointeRef[];
    const pieces = await Promise.all(refs.map(async (ref) => (await this.resolveurs.get(ref.type)?.(ref)) ?? null));
    const sansPiece = new Set(refs.flatMap((ref, i) => (pieces[i] === null && ref.annonce ? [ref.annonce] : [])));
    const text = sansPiece.size === 0 ? row.body : row.body.split('\n').filter((ligne) => !sansPiece.has(ligne)).join('\n');
    return { text, attachments: pieces.filter((p): p is PieceJointe => p !== null) };
  }

  async cancel(key: string, trx?: Db): Promise<boolean> {
    // Only a row no pass has touched: once claimed (or tried), the mail may be on its way.
    const result = await (trx ?? this.db)
      .deleteFrom('mailOutbox')
      .where('key', '=', key)
      .where('sentAt', 'is', null)
      .where('claimedAt', 'is', null)
      .where('attempts', '=', 0)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async idle(): Promise<void> {
    if (this.closed) {
      await this.chain;
      return;
    }
    // A failed row moves to a later time, so this ends once every due row was sent or tried.
    for (let i = 0; i < 1000; i++) if ((await this.pass()) === 0) break;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    this.closed = true;
    await this.chain;
    await this.deliver.close?.();
  }

  /** One pass: claims due rows and delivers them; answers how many were claimed. */
  private pass(): Promise<number> {
    this.passes += 1;
    const next = this.chain.then(async () => {
      try {
        return this.closed ? 0 : await this.deliverDue();
      } catch (error) {
        this.log.error({ err: error }, "La file d’envoi des e-mails n’a pas pu être lue");
        return 0;
      } finally {
        this.passes -= 1;
      }
    });
    this.chain = next;
    // A full batch says more are due: the next pass follows at once rather than a poll later (else the
    // queue would leave at BATCH mails a second, behind a burst of creations or a bulk status change).
    void next.then((claimed) => {
      if (claimed === BATCH && this.passes === 0 && !this.closed) void this.pass();
    });
    return next;
  }

  /**
   * Claims due rows with one UPDATE whose WHERE repeats the conditions, so that of two instances racing for a
   * row only one wins (PostgreSQL re-checks them on the row it waited for; `SKIP LOCKED` spares the wait;
   * SQLite writes one statement at a time). A claim is a time and a token: the token says the row is still ours.
   */
  private async claim(): Promise<{ rows: OutboxRow[]; token: string; at: number }> {
    const at = Date.now();
    const now = new Date(at).toISOString();
    const stale = new Date(at - this.claimTimeoutMs).toISOString();
    const token = randomUUID();
    // Due, unsent and unclaimed (or claimed by a pass that never finished): in the choice and in the claim.
    const libre = (eb: ExpressionBuilder<Database, 'mailOutbox'>) => eb.or([eb('claimedAt', 'is', null), eb('claimedAt', '<', stale)]);
    const claimable = (eb: ExpressionBuilder<Database, 'mailOutbox'>) => eb.and([eb('sentAt', 'is', null), eb('sendAfter', '<=', now), libre(eb)]);
    // Not behind an earlier unsent mail of the same person that another instance's pass is sending: those wait for it
    // (their order), and must not fill the batch while other people's mails are due (migration 0035's index).
    const pasDerriere = sql<boolean>`not exists (select 1 from mail_outbox as e where ${avantDuMemeDestinataire('mail_outbox')} and e.claimed_at >= ${stale})`;
    // The rows chosen, then claimed by their keys, in one transaction (PostgreSQL: the chosen rows locked until the
    // claim commits; a subquery in the UPDATE itself may be run again for each row it meets, and claim more or other
    // rows than it chose).
    const choisir = (trx: Db) => {
      const due = trx.selectFrom('mailOutbox').select('id').where(claimable).where(pasDerriere).orderBy('sendAfter').orderBy('id').limit(BATCH);
      return this.outbox.kind === 'postgres' ? due.forUpdate().skipLocked() : due;
    };
    // SQLite: the repeated conditions with unary `+`, so that the claimed rows are found by their primary key; plain,
    // they made SQLite walk the due index through the whole backlog (0.6 ms at 6,000 mails waiting, 5 ms under the
    // load bench's, against 0.06 ms by key).
    const claimableParCle =
      this.outbox.kind === 'postgres'
        ? claimable
        : (eb: ExpressionBuilder<Database, 'mailOutbox'>) =>
            eb.and([sql<boolean>`+${sql.ref('sentAt')} is null`, sql<boolean>`+${sql.ref('sendAfter')} <= ${now}`, libre(eb)]);
    const rows = await this.db.transaction().execute(async (trx) => {
      const ids = (await choisir(trx).execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      const reserves = await trx.updateTable('mailOutbox').set({ claimedAt: now, claimToken: token }).where('id', 'in', ids).where(claimableParCle).returningAll().execute();
      // In the order chosen: send_after, then id (the order they were asked in, idSuivant), as the database compares them.
      const rang = new Map(ids.map((id, i) => [id, i]));
      return reserves.sort((a, b) => rang.get(a.id)! - rang.get(b.id)!);
    });
    return { rows, token, at };
  }

  /**
   * Sends the claimed rows: one recipient's mails one after the other, in their order (a status, then the
   * next), different recipients side by side (EN_PARALLELE at once: a bulk action's thousand e-mails do not
   * wait for each other's SMTP exchange). A failing delivery (the mail server is likely down) stops the pass:
   * the rows not yet tried go back to the queue, as do those left past half the claim's life.
   */
  private async deliverDue(): Promise<number> {
    const { rows: reserves, token, at } = await this.claim();
    // A person's mail behind an earlier one of theirs that is not this pass's (claimed by another instance at the same
    // moment as this claim): given back, for a pass after that one is sent. If that check fails, the whole claim is
    // given back rather than held for the claim's life.
    let derriere: OutboxRow[];
    try {
      derriere = await this.derriereUnAutre(reserves, token);
    } catch (error) {
      await this.release(reserves, token);
      throw error;
    }
    await this.release(derriere, token);
    const rows = reserves.filter((row) => !derriere.includes(row));
    if (rows.length === 0) {
      await this.purge();
      return 0;
    }
    const parDestinataire = new Map<string, OutboxRow[]>();
    for (const row of rows) parDestinataire.set(row.recipient, [...(parDestinataire.get(row.recipient) ?? []), row]);
    const files = [...parDestinataire.values()];
    const rendus: OutboxRow[] = [];
    let enPanne = false;
    // The claim renewed while the pass runs (rows sent or given back meanwhile are no longer under its token).
    const renouvellement = setInterval(() => {
      this.renouveler(rows, token).catch((error: unknown) => this.log.warn({ err: error }, 'la réservation des e-mails en cours d’envoi n’a pas pu être renouvelée'));
    }, this.claimTimeoutMs / 5);
    renouvellement.unref();
    const envoyer = async () => {
      for (let file = files.shift(); file; file = files.shift()) {
        for (const [index, row] of file.entries()) {
          if (enPanne || Date.now() - at > this.claimTimeoutMs / 2) {
            rendus.push(...file.slice(index));
            break;
          }
          const echec = await this.deliverRow(row, token);
          if (echec) {
            enPanne = true;
            // The recipient's next mails wait for this one's next try: a status must not arrive before the one it follows.
            // Those of this pass, then those not claimed (due after the pass began, or left out of a full batch): these
            // first, while the pass's own are still claimed and so told apart.
            const debut = Date.parse(echec.retryAt);
            const suivants = file.slice(index + 1);
            await this.apres(await this.suivantsLibres(row), debut + suivants.length, null);
            await this.apres(suivants, debut, token);
            // Only then the failed one back to the queue, for its next try. (If the moves failed, it stays claimed until
            // the claim is stale: late, but never after a follower.)
            await this.db
              .updateTable('mailOutbox')
              .set({ sendAfter: echec.retryAt, claimedAt: null, claimToken: null })
              .where('id', '=', row.id)
              .where('claimToken', '=', token)
              .execute();
            break;
          }
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(EN_PARALLELE, files.length) }, envoyer));
    } finally {
      clearInterval(renouvellement);
      // Also when a delivery's bookkeeping failed: the rows not tried go back now, not after the claim's 5 minutes.
      await this.release(rendus, token);
    }
    await this.purge();
    return rows.length;
  }

  /**
   * The claimed rows that have an unsent mail of the same recipient before them (by `sendAfter`, then `id`) that this
   * pass does not hold: claimed by another instance's pass, or being claimed by it (PostgreSQL's `SKIP LOCKED` left
   * it out of this claim). Read after this claim committed, so a claim made alongside is seen or still locked.
   */
  private async derriereUnAutre(rows: OutboxRow[], token: string): Promise<OutboxRow[]> {
    if (rows.length === 0) return [];
    const bloques = await this.db
      .selectFrom('mailOutbox as o')
      .select('o.id')
      .where(
        'o.id',
        'in',
        rows.map((r) => r.id),
      )
      .where(sql<boolean>`exists (select 1 from mail_outbox as e where ${avantDuMemeDestinataire('o')} and (e.claim_token is null or e.claim_token <> ${token}))`)
      .execute();
    const ids = new Set(bloques.map((b) => b.id));
    return rows.filter((row) => ids.has(row.id));
  }

  /**
   * Puts `rows` (one recipient's, in their order) back in the queue after `debut`, in the same order: the pass's own
   * (`token`: their claim let go), or rows no pass holds (`token` null: one a pass has claimed meanwhile is left alone).
   */
  private async apres(rows: Pick<OutboxRow, 'id' | 'sendAfter'>[], debut: number, token: string | null): Promise<void> {
    for (const [k, row] of rows.entries()) {
      const sendAfter = new Date(Math.max(debut + k + 1, Date.parse(row.sendAfter))).toISOString();
      const update = this.db.updateTable('mailOutbox').where('id', '=', row.id);
      await (token === null
        ? update.set({ sendAfter }).where('claimedAt', 'is', null).where('sentAt', 'is', null)
        : update.set({ sendAfter, claimedAt: null, claimToken: null }).where('claimToken', '=', token)
      ).execute();
    }
  }

  /** The recipient's unsent mails that no pass holds and that come after `row`, in their order. */
  private suivantsLibres(row: OutboxRow): Promise<Pick<OutboxRow, 'id' | 'sendAfter'>[]> {
    return this.db
      .selectFrom('mailOutbox')
      .select(['id', 'sendAfter'])
      .where('sentAt', 'is', null)
      .where('sendAfter', '>=', row.sendAfter)
      .where('recipient', '=', row.recipient)
      .where('claimedAt', 'is', null)
      .where('id', '!=', row.id)
      .orderBy('sendAfter')
      .orderBy('id')
      .execute();
  }

  /** Sends one claimed row; null when sent, else when it will be tried again. */
  private async deliverRow(row: OutboxRow, token: string): Promise<{ retryAt: string } | null> {
    try {
      const { text, attachments } = await this.contenu(row);
      await this.deliver({ to: row.recipient, subject: row.subject, text, from: this.from, ...(attachments.length > 0 ? { attachments } : {}) });
    } catch (error) {
      const attempts = row.attempts + 1;
      const retryAt = new Date(Date.now() + retryDelayMs(attempts)).toISOString();
      // The row's id, not its recipient or subject: the log holds no personal data (docs/security.md « Logs »).
      this.log.error({ err: error, mail: row.id, attempts, retryAt }, "L’envoi d’un e-mail a échoué");
      const message = error instanceof Error ? error.message : String(error);
      // Still claimed and still first of its recipient's: the caller moves the followers behind its next try, then lets
      // it go, so that no instance's claim meanwhile finds a follower due ahead of it.
      await this.db
        .updateTable('mailOutbox')
        .set({ attempts, lastError: message.slice(0, 1000) })
        .where('id', '=', row.id)
        .where('claimToken', '=', token)
        .execute();
      return { retryAt };
    }
    // The text may hold a link with a token (password reset): it is not kept once sent. Sent, it must be marked so:
    // left claimed and unsent, it would go out again once the claim is 5 minutes old. A database that fails for a
    // moment is tried again.
    const sentAt = new Date().toISOString();
    for (let essai = 1; ; essai += 1) {
      try {
        await this.db.updateTable('mailOutbox').set({ attempts: row.attempts + 1, sentAt, body: '', claimToken: null }).where('id', '=', row.id).execute();
        return null;
      } catch (error) {
        if (essai >= MARQUAGE_ESSAIS) throw error;
        this.log.warn({ err: error, mail: row.id, essai }, 'e-mail envoyé, mais pas encore marqué comme tel : nouvel essai');
        await new Promise((r) => setTimeout(r, MARQUAGE_ATTENTE_MS * essai));
      }
    }
  }

  /** The pass's rows still under its claim are claimed as of now. */
  private async renouveler(rows: OutboxRow[], token: string): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .updateTable('mailOutbox')
      .set({ claimedAt: new Date().toISOString() })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('claimToken', '=', token)
      .where('sentAt', 'is', null)
      .execute();
  }

  private async release(rows: OutboxRow[], token: string): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .updateTable('mailOutbox')
      .set({ claimedAt: null, claimToken: null })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('claimToken', '=', token)
      .execute();
  }

  private async purge(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await this.db
      .deleteFrom('mailOutbox')
      .where('sentAt', 'is not', null)
      .where('sentAt', '<', new Date(now - KEEP_SENT_MS).toISOString())
      .execute();
  }
}
