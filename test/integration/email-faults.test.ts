// What goes wrong on the wire, against a real SMTP server on loopback: a refused recipient, a connection dropped
// after DATA or in the middle of the body, a temporary 4xx, a server that never answers, no TLS, no server, and
// kill -9 in the middle of 25 messages. Once only, always: what may have arrived is never sent again on its own.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { deliverPeriod, type DeliveryEvent, type DeliveryOptions } from '../../src/delivery/email/index.js';
import { parseSmtpUrl } from '../../src/delivery/email/smtp-url.js';
import { createSmtpTransport } from '../../src/delivery/email/transport.js';
import { ConfigError, GeoReportsError } from '../../src/errors.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import {
  activeProjectIds,
  copyPeriod,
  eventsOf,
  expectNoPassword,
  messageIdOf,
  PERIOD,
  readManifestOf,
  renderPeriod,
  startSmtpServer,
  writeConfig,
  type ReceivedMail,
  type SmtpBehaviour,
  type SmtpTestServer,
} from '../support/email-fixtures.js';

let root: string;
let ids: number[];
let renderer: HtmlRenderer;
const servers: SmtpTestServer[] = [];

const address = (id: number): string => `client-${id}@client.example`;
const ARCHIVE = 'archive@northwind.example';

function rawConfig(edit: (clients: Record<string, { email: { to: string[]; cc?: string[] } }>) => void = () => {}): Record<string, unknown> {
  const clients = Object.fromEntries(ids.map((id) => [String(id), { email: { to: [address(id)] } }]));
  edit(clients);
  return {
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
    delivery: { email: { from: 'reports@northwind.example', bcc: [ARCHIVE], messageTimeoutMs: 1500 } },
    clients,
  };
}

async function smtp(behaviour: SmtpBehaviour = {}): Promise<SmtpTestServer> {
  const server = await startSmtpServer(behaviour);
  servers.push(server);
  return server;
}

let copies = 0;
const freshPeriod = (): Promise<string> => copyPeriod(join(root, 'rendered'), join(root, `copy-${(copies += 1)}`));

interface Delivered {
  events: DeliveryEvent[];
  sleeps: number[];
  summary: Awaited<ReturnType<typeof deliverPeriod>>;
}

async function deliver(out: string, server: SmtpTestServer, config: Config, extra: Partial<DeliveryOptions> = {}): Promise<Delivered> {
  const events: DeliveryEvent[] = [];
  const sleeps: number[] = [];
  const settings = parseSmtpUrl(server.url, { allowInsecure: false });
  const summary = await deliverPeriod({
    config,
    period: PERIOD,
    outDir: out,
    mode: 'send',
    transport: () => createSmtpTransport(settings, { messageTimeoutMs: config.delivery.email.messageTimeoutMs }),
    serverLabel: settings.display,
    renderer,
    branding: await brandingFrom(config),
    // Backoff delays are recorded, not waited for: the retry itself is what is tested.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onEvent: (event) => events.push(event),
    ...extra,
  });
  return { events, sleeps, summary };
}

const projectOf = (mail: ReceivedMail): number => Number(/^<report-2026-10-(\d+)@/.exec(messageIdOf(mail))?.[1]);
const pairs = (mails: ReceivedMail[]): string[] => mails.flatMap((m) => m.envelope.to.map((to) => `${projectOf(m)} ${to}`));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-email-faults-'));
  ids = await activeProjectIds();
  renderer = await createHtmlRenderer();
  const config = await writeConfig(join(root, 'config.json'), rawConfig());
  const rendered = await renderPeriod(join(root, 'rendered'), config);
  expect(rendered.ids).toEqual(ids);
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

describe('a recipient refused with 550', () => {
  it('marks that message failed with the refusal, the other messages go on, and the retry goes to the refused recipient only', async () => {
    const out = await freshPeriod();
    const target = ids[2] as number;
    const refused = `gone-${target}@client.example`;
    const config = ConfigSchema.parse(rawConfig((clients) => (clients[String(target)] = { email: { to: [address(target)], cc: [refused] } })));
    let refusing = true;
    const server = await smtp({ refuseRecipient: (a) => (refusing && a === refused ? { code: 550, message: '5.1.1 Mailbox unavailable' } : null) });

    const first = await deliver(out, server, config);
    expect(first.summary.sent).toBe(24);
    expect(first.summary.failed).toEqual([{ id: target, name: expect.any(String), reason: `${refused} refused: 550 5.1.1 Mailbox unavailable` }]);
    const state = (await readManifestOf(out)).projects.find((e) => e.id === target)?.deliveries?.email;
    expect(state).toMatchObject({
      status: 'failed',
      accepted: [address(target), ARCHIVE],
      rejected: [{ address: refused, response: '550 5.1.1 Mailbox unavailable' }],
    });
    expect(server.accepted).toHaveLength(25);

    // Still refused: only the refused address is tried again.
    const second = await deliver(out, server, config);
    expect(second.summary.failed.map((f) => f.id)).toEqual([target]);
    expect(server.received).toHaveLength(25);

    refusing = false;
    const third = await deliver(out, server, config);
    expect(third.summary.sent).toBe(1);
    expect(server.accepted.at(-1)?.envelope.to).toEqual([refused]);
    const all = pairs(server.accepted);
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((p) => p.startsWith(`${target} `)).sort()).toEqual(
      [`${target} ${ARCHIVE}`, `${target} ${address(target)}`, `${target} ${refused}`].sort(),
    );
    expect((await readManifestOf(out)).projects.find((e) => e.id === target)?.deliveries?.email).toMatchObject({ status: 'sent', attempts: 3 });
  }, 60_000);
});

describe('a connection dropped after DATA', () => {
  it('is unknown: named, never sent again by the next send, sent again with --resend --project', async () => {
    const out = await freshPeriod();
    const target = ids[4] as number;
    const config = ConfigSchema.parse(rawConfig());
    let dropping = true;
    const server = await smtp({ afterData: (mail) => (dropping && projectOf(mail) === target ? 'drop' : 'accept') });

    const first = await deliver(out, server, config);
    expect(first.summary.sent).toBe(24);
    expect(first.summary.failed).toEqual([]);
    expect(first.summary.unknown).toEqual([{ id: target, name: expect.any(String), reason: expect.stringContaining('may have arrived') }]);
    expect((await readManifestOf(out)).projects.find((e) => e.id === target)?.deliveries?.email).toMatchObject({ status: 'unknown', attempts: 1 });
    // The server did get the whole message: a resend now would be the client's second copy.
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(1);

    dropping = false;
    const second = await deliver(out, server, config);
    expect(second.summary.sent).toBe(0);
    expect(second.summary.leftUnknown.map((u) => u.id)).toEqual([target]);
    expect(second.events).toContainEqual(expect.objectContaining({ type: 'email-skipped', id: target, reason: 'unknown' }));
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(1);
    const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
    expect(index).toContain('mail--unknown">Unknown: check before resending</span>');

    const resend = await deliver(out, server, config, { projectIds: [target], resend: true });
    expect(resend.summary.sent).toBe(1);
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(2);
    expect(server.received).toHaveLength(26);
  }, 60_000);

  it('before DATA is a plain failure (the server cannot have the message), retried by the next send', async () => {
    const out = await freshPeriod();
    const target = ids[6] as number;
    const config = ConfigSchema.parse(rawConfig());
    let dropping = true;
    const server = await smtp({ dropAtRecipient: (a) => dropping && a === address(target) });
    const first = await deliver(out, server, config);
    expect(first.summary.sent).toBe(24);
    expect(first.summary.unknown).toEqual([]);
    expect(first.summary.failed).toEqual([{ id: target, name: expect.any(String), reason: expect.stringMatching(/connection/i) }]);
    expect((await readManifestOf(out)).projects.find((e) => e.id === target)?.deliveries?.email).toMatchObject({ status: 'failed' });
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(0);
    dropping = false;
    const second = await deliver(out, server, config);
    expect(second.summary.sent).toBe(1);
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(1);
    expect(server.received).toHaveLength(25);
  }, 60_000);
});

describe('temporary answers and silent servers', () => {
  it('retries a 4xx within the run with a growing backoff', async () => {
    const out = await freshPeriod();
    const [greylisted, busy] = [ids[1] as number, ids[8] as number];
    const config = ConfigSchema.parse(rawConfig());
    const rcptAnswers = new Map<string, number>();
    const dataAnswers = new Map<number, number>();
    const server = await smtp({
      refuseRecipient: (a) => {
        if (a !== address(greylisted)) return null;
        rcptAnswers.set(a, (rcptAnswers.get(a) ?? 0) + 1);
        return (rcptAnswers.get(a) ?? 0) <= 2 ? { code: 450, message: '4.2.0 Greylisted, try again later' } : null;
      },
      afterData: (mail) => {
        if (projectOf(mail) !== busy) return 'accept';
        dataAnswers.set(busy, (dataAnswers.get(busy) ?? 0) + 1);
        return (dataAnswers.get(busy) ?? 0) === 1 ? { code: 451, message: '4.3.0 Temporary failure, queue full' } : 'accept';
      },
    });
    const run = await deliver(out, server, config);
    expect(run.summary).toMatchObject({ sent: 25, failed: [], unknown: [] });
    const retries = run.events.filter((e) => e.type === 'email-retry');
    expect(retries.map((e) => [e.id, e.attempt, e.delayMs])).toEqual(
      expect.arrayContaining([
        [greylisted, 1, 2000],
        [greylisted, 2, 4000],
        [busy, 1, 2000],
      ]),
    );
    expect(run.sleeps.sort((a, b) => a - b)).toEqual([2000, 2000, 4000]);
    // The greylisted client's agency copy went with the first try: the retries go to the client alone.
    const toGreylisted = pairs(server.accepted).filter((p) => p.startsWith(`${greylisted} `));
    expect(toGreylisted.sort()).toEqual([`${greylisted} ${ARCHIVE}`, `${greylisted} ${address(greylisted)}`]);
    expect(server.accepted.filter((m) => projectOf(m) === busy)).toHaveLength(1);
    const manifest = await readManifestOf(out);
    expect(manifest.projects.find((e) => e.id === greylisted)?.deliveries?.email).toMatchObject({ status: 'sent', attempts: 3 });
    expect(manifest.projects.find((e) => e.id === busy)?.deliveries?.email).toMatchObject({ status: 'sent', attempts: 2 });
  }, 60_000);

  it('gives up on a server that never answers the end of a message: unknown after the message deadline', async () => {
    const out = await freshPeriod();
    const target = ids[9] as number;
    const config = ConfigSchema.parse(rawConfig());
    const server = await smtp({ afterData: (mail) => (projectOf(mail) === target ? 'hang' : 'accept') });
    const run = await deliver(out, server, config);
    expect(run.summary.sent).toBe(24);
    expect(run.summary.unknown.map((u) => u.id)).toEqual([target]);
    expect(run.summary.unknown[0]?.reason).toContain('aborted');
    expect(server.received.filter((m) => projectOf(m) === target)).toHaveLength(1);
  }, 60_000);
});

describe('a server that cannot be used', () => {
  it('refuses to log in without TLS when TLS is required, and sends nothing', async () => {
    const out = await freshPeriod();
    const config = ConfigSchema.parse(rawConfig());
    const server = await smtp();
    const settings = { ...parseSmtpUrl(server.url, { allowInsecure: false }), requireTLS: true };
    const error = await deliver(out, server, config, {
      transport: () => createSmtpTransport(settings, { messageTimeoutMs: 5000 }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('no TLS connection');
    expect(server.logins).toBe(0);
    expect(server.received).toHaveLength(0);
    expect((await readManifestOf(out)).projects.every((e) => e.deliveries?.email === undefined)).toBe(true);
  });

  it('reports a server that refuses connections without touching any message', async () => {
    const out = await freshPeriod();
    const config = ConfigSchema.parse(rawConfig());
    const gone = await startSmtpServer();
    await gone.close();
    const error = await deliver(out, gone, config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeoReportsError);
    expect(error).not.toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/ECONNREFUSED|Nothing was sent/);
    expect((await readManifestOf(out)).projects.every((e) => e.deliveries?.email === undefined)).toBe(true);
  });
});

describe('kill -9 during a send of 25 (CLI)', () => {
  it('the rerun mails every client not yet sent, none twice, and names the unknown ones', async () => {
    const out = await freshPeriod();
    const configPath = join(root, 'kill-config.json');
    await writeConfig(configPath, rawConfig());
    // A slow server, so the kill lands in the middle of the run.
    const server = await smtp({ answerDelayMs: 150 });
    const args = ['send', '--period', PERIOD, '--out', out, '--config', configPath, '--json'];
    const env = { ...process.env, GEO_REPORTS_SMTP_URL: server.url };
    const killed = spawnCli(args, { cwd: root, env });
    const sent = (): number => killed.lines.filter((l) => l.includes('"type":"email-sent"')).length;
    await waitFor('6 messages sent before the kill', () => sent() >= 6, { timeoutMs: 30_000, everyMs: 20, state: () => `${sent()} sent` });
    killed.child.kill('SIGKILL');
    const dead = await killed.done;
    expect(dead.signal).toBe('SIGKILL');

    const atKill = await readManifestOf(out);
    const sentAtKill = atKill.projects.filter((e) => e.deliveries?.email?.status === 'sent').map((e) => e.id);
    const sendingAtKill = atKill.projects.filter((e) => e.deliveries?.email?.status === 'sending').map((e) => e.id);
    expect(sentAtKill.length).toBeGreaterThanOrEqual(6);
    expect(sentAtKill.length).toBeLessThan(25);
    expect(sendingAtKill.length).toBeLessThanOrEqual(2);
    const receivedAtKill = server.received.length;

    delete server.behaviour.answerDelayMs;
    const rerun = await spawnCli(args, { cwd: root, env }).done;
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    const events = eventsOf(rerun.stdout);
    // What was on the wire at the kill may have arrived: named, left alone.
    const named = events.filter((e) => e.type === 'email-skipped' && e['reason'] === 'unknown').map((e) => e['id']);
    expect(named.sort()).toEqual([...sendingAtKill].sort());
    const after = await readManifestOf(out);
    const byId = new Map(after.projects.map((e) => [e.id, e]));
    const received = server.received.map(projectOf);
    expect(new Set(received).size).toBe(received.length);
    for (const id of ids) {
      const copies = received.filter((r) => r === id).length;
      if (sendingAtKill.includes(id)) {
        expect(byId.get(id)?.deliveries?.email?.status).toBe('unknown');
        expect(copies).toBeLessThanOrEqual(1);
      } else {
        expect(byId.get(id)?.deliveries?.email?.status, String(id)).toBe('sent');
        expect(copies, String(id)).toBe(1);
      }
    }
    const sentByRerun = events.filter((e) => e.type === 'email-sent').length;
    expect(sentByRerun).toBe(25 - sentAtKill.length - sendingAtKill.length);
    console.log(
      `kill -9 test: ${sentAtKill.length} sent and ${sendingAtKill.length} sending at the kill (${receivedAtKill} messages at the server), ` +
        `${sentByRerun} sent by the rerun, ${named.length} named unknown, ${server.received.length} messages in all`,
    );
    await expectNoPassword([out], [dead.stdout, dead.stderr, rerun.stdout, rerun.stderr], expect);
  }, 90_000);
});
