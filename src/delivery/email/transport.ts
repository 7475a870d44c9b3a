// The SMTP side: nodemailer's pool (at most 2 connections, a deadline per message) and what each outcome means.
// Nodemailer never retries a message on its own once it is on the wire; this layer says whether a failure can be
// retried (the server answered no, or never got the whole message) or must be left alone (it may have arrived).
import { PassThrough, pipeline } from 'node:stream';
import nodemailer, { type Transporter as NodemailerTransporter } from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type { Rejection, StopReason } from '../channel.js';
import type { SmtpSettings } from './smtp-url.js';
import { errorMessage } from '../../errors.js';

export interface OutgoingMail {
  /** The RFC 5322 message as composed (composeMime). */
  raw: Buffer;
  envelope: { from: string; to: string[] };
}

export type SendOutcome =
  | { status: 'sent'; accepted: string[]; rejected: Rejection[]; response: string }
  | { status: 'failed'; reason: string; temporary: boolean; rejected: Rejection[]; stop: StopReason | null }
  | { status: 'unknown'; reason: string };

export interface MailTransport {
  /** Connects and logs in once, before any message: a wrong password or an unreachable server fails here. */
  verify(): Promise<{ ok: true } | { ok: false; reason: string; stop: StopReason | null }>;
  send(mail: OutgoingMail): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** How far the message body got: read by the connection at all, and read to its last byte. */
export interface ContentProgress {
  started: boolean;
  handedOver: boolean;
}

const NOT_STARTED: ContentProgress = { started: false, handedOver: false };

export interface SmtpTransportOptions {
  /** Longest one message may take, from its turn in the pool to the server's answer. */
  messageTimeoutMs: number;
  /** @default 2 */
  maxConnections?: number;
  /** @default 30 000 */
  connectionTimeoutMs?: number;
}

/**
 * A pooled nodemailer transport. Each message's body is watched (a pass-through stream added in the
 * "stream" plugin step): the connection reads it only after the server said 354 to DATA, and the server
 * can take the message only after its last byte. So a dropped connection or a timeout before the last
 * byte is a plain failure, after it an unknown outcome.
 */
export function createSmtpTransport(settings: SmtpSettings, options: SmtpTransportOptions): MailTransport {
  const transporter = pooledTransporter(settings, options);
  const watched = watchBodies(transporter);
  return {
    async verify() {
      try {
        await transporter.verify();
        return { ok: true };
      } catch (error) {
        const outcome = classifyFailure(error);
        if (outcome.status === 'failed') return { ok: false, reason: outcome.reason, stop: outcome.stop };
        return { ok: false, reason: messageOf(error), stop: null };
      }
    },
    async send(mail) {
      const envelope = { from: mail.envelope.from, to: [...mail.envelope.to] };
      const progress = watched(envelope);
      try {
        const info = await transporter.sendMail({
          envelope,
          raw: mail.raw,
          signal: AbortSignal.timeout(options.messageTimeoutMs),
        });
        const rejectedErrors = (info as { rejectedErrors?: NodemailerError[] }).rejectedErrors ?? [];
        return {
          status: 'sent',
          accepted: info.accepted.map(String),
          rejected: info.rejected.map((address) => {
            const error = rejectedErrors.find((e) => e.recipient === address);
            return { address, response: oneLine(error?.response ?? 'refused') };
          }),
          response: oneLine(info.response),
        };
      } catch (error) {
        return classifyFailure(error, progress());
      }
    },
    async close() {
      transporter.close();
    },
  };
}

type Transporter = NodemailerTransporter<SMTPPool.SentMessageInfo, SMTPPool.Options>;

function pooledTransporter(settings: SmtpSettings, options: SmtpTransportOptions): Transporter {
  const connectionTimeout = options.connectionTimeoutMs ?? 30_000;
  return nodemailer.createTransport({
    pool: true,
    maxConnections: options.maxConnections ?? 2,
    maxMessages: 100,
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTLS,
    ...(settings.user !== null ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    connectionTimeout,
    greetingTimeout: connectionTimeout,
    socketTimeout: options.messageTimeoutMs,
    // No log output: nothing of the session (and never the login) reaches a log.
    logger: false,
    debug: false,
  });
}

/**
 * Watches the body of each message sent with a given envelope object: returns, for an envelope, how far its body
 * got. The pool may open a new connection and read the body again: every read is watched.
 */
function watchBodies(transporter: Transporter): (envelope: object) => () => ContentProgress {
  const watched = new WeakMap<object, PassThrough[]>();
  transporter.use('stream', (mail, done) => {
    const bodies = watched.get(mail.data.envelope as object);
    if (bodies !== undefined) {
      mail.message.processFunc((input) => {
        const body = new PassThrough();
        pipeline(input, body, () => {});
        bodies.push(body);
        return body;
      });
    }
    done();
  });
  return (envelope) => {
    const bodies: PassThrough[] = [];
    watched.set(envelope, bodies);
    return () => ({ started: bodies.some((b) => b.readableDidRead), handedOver: bodies.some((b) => b.readableEnded) });
  };
}

const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EPROTOCOL', 'EABORT']);

/**
 * What a send error means for the message. A server's answer to MAIL FROM, RCPT TO, DATA or to the end of
 * the message is a refusal: failed, temporary for 4xx. A connection that broke before the body's last byte
 * left: failed (the server cannot have taken it). After that: unknown, never retried without a look.
 */
export function classifyFailure(error: unknown, content: ContentProgress = NOT_STARTED): SendOutcome {
  const e = (error ?? {}) as Partial<NodemailerError> & { rejectedErrors?: Array<Partial<NodemailerError>>; message?: string };
  const code = typeof e.code === 'string' ? e.code : '';
  const rejected: Rejection[] = (e.rejectedErrors ?? []).map((r) => ({
    address: r.recipient ?? '',
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- typed as an Error, but whatever the library put there
    response: oneLine(r.response ?? r.message ?? 'refused'),
  }));
  const answer = typeof e.responseCode === 'number' && (code === 'EENVELOPE' || code === 'EMESSAGE');
  if (answer) {
    const responseCode = e.responseCode as number;
    return {
      status: 'failed',
      reason: describe(e),
      temporary: responseCode >= 400 && responseCode < 500,
      rejected,
      stop: null,
    };
  }
  if (code === 'EAUTH' || code === 'ENOAUTH') {
    return { status: 'failed', reason: `the SMTP server refused the login: ${describe(e)}`, temporary: false, rejected, stop: 'auth' };
  }
  if (code === 'ETLS' || code === 'EREQUIRETLS') {
    return { status: 'failed', reason: `no TLS connection to the SMTP server: ${describe(e)}`, temporary: false, rejected, stop: 'tls' };
  }
  if (content.handedOver) {
    return {
      status: 'unknown',
      reason: `${describe(e)} after the whole message was written to the server, before its answer: it may have arrived`,
    };
  }
  const connection = CONNECTION_CODES.has(code);
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  return {
    status: 'failed',
    reason: content.started ? `${describe(e)} while the message was being transferred (not accepted)` : describe(e),
    // A 421 "closing" at greeting or between commands is a temporary answer too.
    temporary: responseCode !== null && responseCode >= 400 && responseCode < 500,
    rejected,
    // Refused or unreachable before any message went out: every other message would meet the same.
    stop: connection && !content.started && isConnectFailure(e) ? 'connection' : null,
  };
}

function isConnectFailure(e: Partial<NodemailerError>): boolean {
  const original = (e as { originalCode?: string }).originalCode ?? '';
  return ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(original) || e.code === 'EDNS';
}

function describe(e: Partial<NodemailerError> & { message?: string }): string {
  const message = oneLine(e.message ?? 'unknown error');
  const original = (e as { originalCode?: string }).originalCode;
  return original !== undefined && !message.includes(original) ? `${message} (${original})` : message;
}

function messageOf(error: unknown): string {
  return oneLine(errorMessage(error));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
