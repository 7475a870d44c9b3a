// Shared by the email tests: a period of real reports (simulator + Chromium, rendered once per file) and a real
// SMTP server on loopback (smtp-server with AUTH) that records what it receives, parsed with mailparser.
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { Manifest } from '../../src/output/store.js';
import { startSimulator } from '../../src/simulator/server.js';
import { startBatchRig } from './batch.js';
import { toMonth } from '../../src/period.js';

export const PERIOD = toMonth('2026-10');
export const SMTP_USER = 'agency-mailer';
/** Distinctive, with characters that must be percent-encoded in the URL: the tests grep every output for it. */
export const SMTP_PASSWORD = 'pw/Kq7@z:Xe93-smtp-secret';
export const SMTP_PASSWORD_IN_URL = encodeURIComponent(SMTP_PASSWORD);

const TOKEN = 'tok-email-suite-4d2f8a1c6b3e9d70';
const CLOCK = (): Date => new Date('2026-11-04T06:00:00Z');

export interface RenderedPeriod {
  /** Output root holding <PERIOD>/. */
  out: string;
  /** Project ids of the done reports, ascending. */
  ids: number[];
  names: Map<number, string>;
}

/**
 * Renders the period once: 36 simulated projects, 25 of them active, each to HTML + PDF with the given config
 * (its client languages decide the language of each summary).
 */
export async function renderPeriod(out: string, config: Config): Promise<RenderedPeriod> {
  const sim = await startSimulator({ projectCount: 36, tokens: [TOKEN], clock: CLOCK });
  const rig = await startBatchRig();
  try {
    const result = await rig.run({ baseUrl: sim.url, tokens: [TOKEN], period: PERIOD, outDir: out, config, clock: CLOCK });
    const done = result.manifest.projects.filter((p) => p.status === 'done').sort((a, b) => a.id - b.id);
    return { out, ids: done.map((p) => p.id), names: new Map(done.map((p) => [p.id, p.name])) };
  } finally {
    await rig.close();
    await sim.close();
  }
}

/** The project ids of the 25 active projects the simulator makes with 36 projects (seeded, deterministic). */
export async function activeProjectIds(): Promise<number[]> {
  const sim = await startSimulator({ projectCount: 36, tokens: [TOKEN], clock: CLOCK });
  try {
    return sim.state
      .projects()
      .filter((p) => p.status === 'active')
      .map((p) => p.id)
      .sort((a, b) => a - b);
  } finally {
    await sim.close();
  }
}

/** A fresh copy of the rendered period, so each scenario starts from reports never sent. */
export async function copyPeriod(from: string, to: string): Promise<string> {
  await cp(from, to, { recursive: true });
  return to;
}

export async function readManifestOf(out: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
}

export async function writeConfig(path: string, raw: unknown): Promise<Config> {
  await writeFile(path, `${JSON.stringify(raw, null, 2)}\n`);
  return ConfigSchema.parse(raw);
}

export interface ReceivedMail {
  /** SMTP envelope: MAIL FROM and every accepted RCPT TO. */
  envelope: { from: string; to: string[] };
  raw: Buffer;
  parsed: ParsedMail;
  user: string | undefined;
}

export interface SmtpBehaviour {
  /** An SMTP answer refusing this recipient at RCPT TO, e.g. "550 5.1.1 No such user", or null to accept. */
  refuseRecipient?: (address: string) => { code: number; message: string } | null;
  /** What to do once the whole message is in: answer 250 (default), answer with an error, or drop the connection unanswered. */
  afterData?: (mail: ReceivedMail, index: number) => 'accept' | 'drop' | 'hang' | { code: number; message: string };
  /** Drop the connection instead of answering RCPT TO for this recipient. */
  dropAtRecipient?: (address: string) => boolean;
  /** Wait before answering each message: slows the server down (for the kill test), never for correctness. */
  answerDelayMs?: number;
}

export interface SmtpTestServer {
  port: number;
  /** smtp://user:password@127.0.0.1:port with the password percent-encoded. */
  url: string;
  /** Messages whose body arrived in full, whatever the answer. */
  received: ReceivedMail[];
  /** Messages answered 250. */
  accepted: ReceivedMail[];
  behaviour: SmtpBehaviour;
  logins: number;
  close(): Promise<void>;
}

/** smtp-server on 127.0.0.1, port 0, AUTH PLAIN/LOGIN required (plain text allowed: loopback only), no STARTTLS. */
export async function startSmtpServer(behaviour: SmtpBehaviour = {}): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const accepted: ReceivedMail[] = [];
  let logins = 0;
  const server: SMTPServer = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // No DNS query for the client's name: test traffic stays on loopback.
    disableReverseLookup: true,
    logger: false,
    size: 20 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) {
        logins += 1;
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      }
    },
    onRcptTo(address, session, callback) {
      if (handle.behaviour.dropAtRecipient?.(address.address) === true) {
        socketOf(server, session)?.destroy();
        return;
      }
      const refusal = handle.behaviour.refuseRecipient?.(address.address) ?? null;
      if (refusal === null) callback();
      else callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        void (async () => {
          const raw = Buffer.concat(chunks);
          const mail: ReceivedMail = {
            envelope: {
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            raw,
            parsed: await simpleParser(raw),
            user: session.user as string | undefined,
          };
          const index = received.push(mail) - 1;
          const decision = handle.behaviour.afterData?.(mail, index) ?? 'accept';
          if (handle.behaviour.answerDelayMs !== undefined) await new Promise((r) => setTimeout(r, handle.behaviour.answerDelayMs));
          if (decision === 'drop') {
            socketOf(server, session)?.destroy();
            return;
          }
          if (decision === 'hang') return;
          if (decision === 'accept') {
            accepted.push(mail);
            callback(null, `Queued as ${session.id}-${index}`);
            return;
          }
          callback(Object.assign(new Error(decision.message), { responseCode: decision.code }));
        })();
      });
    },
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const address = (server as unknown as { server: import('node:net').Server }).server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const handle: SmtpTestServer = {
    port,
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD_IN_URL}@127.0.0.1:${port}`,
    received,
    accepted,
    behaviour,
    get logins() {
      return logins;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const connection of (server as unknown as { connections: Set<{ _socket: import('node:net').Socket }> }).connections) {
          connection._socket.destroy();
        }
        server.close(() => done());
      }),
  };
  return handle;
}

function socketOf(server: SMTPServer, session: SMTPServerSession): import('node:net').Socket | undefined {
  const connections = (server as unknown as { connections: Set<{ session: SMTPServerSession; _socket: import('node:net').Socket }> }).connections;
  for (const connection of connections) if (connection.session.id === session.id) return connection._socket;
  return undefined;
}

export const addressesOf = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));

export const messageIdOf = (mail: ReceivedMail): string => mail.parsed.messageId ?? '';

/** The JSON events a CLI run printed. */
export function eventsOf(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
}

export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Fails when the SMTP password (as typed, percent-encoded or base64) is in any file under `dir` or any log. */
export async function expectNoPassword(dirs: string[], logs: string[], expect: (v: unknown, m?: string) => { toBe(v: unknown): void }): Promise<number> {
  const forms = [SMTP_PASSWORD, SMTP_PASSWORD_IN_URL, Buffer.from(SMTP_PASSWORD).toString('base64')];
  for (const log of logs) for (const form of forms) expect(log.includes(form), 'a log holds the SMTP password').toBe(false);
  let checked = 0;
  for (const dir of dirs) {
    for (const file of await filesUnder(dir)) {
      const bytes = await readFile(file);
      for (const form of forms) expect(bytes.includes(Buffer.from(form)), file).toBe(false);
      checked += 1;
    }
  }
  return checked;
}
