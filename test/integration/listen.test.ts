// `geo-reports listen` as a user runs it: the real CLI, a real SMTP server and a chat webhook double on loopback,
// deliveries from the simulator's own webhook sender and from a test sender. Drops alert once per project, a
// replay alerts nobody, a kill -9 between the answer and the alert loses nothing and doubles nothing, and
// `events` lists every delivery once with what was done.
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJournal, type JournalLine } from '../../src/events/journal.js';
import type { EventRow } from '../../src/events/list.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, startCli, type SpawnedCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { startSmtpServer, SMTP_PASSWORD, type SmtpTestServer } from '../support/email-fixtures.js';
import { freePort, post, scoreChange, signatureHeaders, startChatDouble, type ChatDouble } from '../support/webhook-sender.js';

const SECRET = 'whsec_e2e5f1a9c3b7d20468ace13579bdf02468ace13579bdf02';
let root: string;
let smtp: SmtpTestServer;
let chat: ChatDouble;
const running = new Set<SpawnedCli>();

interface Running {
  url: string;
  child: ChildProcess;
  lines: string[];
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

async function workspace(name: string, config: unknown): Promise<string> {
  const cwd = join(root, name);
  await mkdir(join(cwd, 'config'), { recursive: true });
  await writeFile(join(cwd, 'config', 'geo-reports.json'), JSON.stringify(config));
  return cwd;
}

const CONFIG = {
  agency: { name: 'Northwind Digital' },
  report: { language: 'en' },
  clients: { '301': { displayName: 'Boulangerie Martin' } },
  delivery: { email: { from: 'Northwind Digital <reports@northwind.example>' } },
  alerts: { minDrop: 5, cooldownMinutes: 60, email: { to: ['alerts@northwind.example'] } },
};

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GEO_REPORTS_WEBHOOK_SECRET: `an-old-secret-being-rotated-out,${SECRET}`,
    GEO_REPORTS_SMTP_URL: smtp.url,
    GEO_REPORTS_ALERT_WEBHOOK_URL: chat.url,
    ...extra,
  };
}

async function listen(cwd: string, args: string[] = ['--port', '0'], extraEnv: Record<string, string> = {}): Promise<Running> {
  const cli = startCli(['listen', ...args], { cwd, env: env(extraEnv), timeoutMs: 20_000 });
  running.add(cli);
  const url = await cli.firstLine.catch(() => '');
  expect(url, cli.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
  return {
    url,
    child: cli.child,
    lines: cli.lines,
    async stop(signal) {
      const { code } = await cli.stop(signal);
      running.delete(cli);
      return code;
    },
  };
}

async function journal(cwd: string): Promise<JournalLine[]> {
  const dir = join(cwd, 'output', 'events');
  const lines: JournalLine[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.jsonl'))) lines.push(...parseJournal(await readFile(join(dir, file), 'utf8')));
  return lines;
}

const send = (url: string, body: string, form: Parameters<typeof signatureHeaders>[2] = 'sha256=hex') => post(url, body, signatureHeaders(SECRET, body, form));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-'));
  smtp = await startSmtpServer();
  chat = await startChatDouble();
});

afterEach(() => {
  smtp.received.length = 0;
  smtp.accepted.length = 0;
  chat.received.length = 0;
  chat.hang = () => false;
});

afterAll(async () => {
  for (const cli of running) cli.child.kill('SIGKILL');
  await smtp.close();
  await chat.close();
  await rm(root, { recursive: true, force: true });
});

describe('geo-reports listen', () => {
  it('refuses to start without a secret, and refuses a secret or a chat URL in the config file, exit 2', async () => {
    const cwd = await workspace('refusals', CONFIG);
    const { GEO_REPORTS_WEBHOOK_SECRET: _secret, ...withoutSecret } = env();
    const none = await runCli(['listen', '--port', '0'], { cwd, env: withoutSecret });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('GEO_REPORTS_WEBHOOK_SECRET is not set');
    const inFile = await workspace('secret-in-file', { ...CONFIG, listen: { secret: SECRET } });
    const refused = await runCli(['listen', '--port', '0'], { cwd: inFile, env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('set GEO_REPORTS_WEBHOOK_SECRET in the environment');
    expect(refused.stderr).not.toContain(SECRET);
    const chatInFile = await workspace('chat-in-file', { ...CONFIG, alerts: { ...CONFIG.alerts, chat: 'https://hooks.slack.com/services/T0/B0/xyz' } });
    const chatRefused = await runCli(['listen', '--port', '0'], { cwd: chatInFile, env: env() });
    expect(chatRefused.code).toBe(2);
    expect(chatRefused.stderr).toContain('GEO_REPORTS_ALERT_WEBHOOK_URL');
  });

  it('five drops of 10 points: five mails and five chat posts; the same five again: none; a drop of 2: none', async () => {
    const cwd = await workspace('drops', CONFIG);
    const listener = await listen(cwd);
    const projects = [301, 302, 303, 304, 305];
    for (const [i, id] of projects.entries()) {
      const answer = await send(listener.url, scoreChange(`evt_drop_${id}`, id, 10), i % 2 === 0 ? 'sha256=hex' : 'v1=base64');
      expect(answer.status).toBe(200);
    }
    await waitFor('five alert mails and five chat posts', () => smtp.accepted.length >= 5 && chat.received.length >= 5, {
      timeoutMs: 15_000,
      state: () => ({ mails: smtp.accepted.length, posts: chat.received.length }),
    });
    const subjects = smtp.accepted.map((m) => m.parsed.subject).sort();
    expect(subjects).toContain('Boulangerie Martin: GEO score down 10 points');
    expect(smtp.accepted.every((m) => m.envelope.to.join() === 'alerts@northwind.example')).toBe(true);
    expect(chat.received.find((p) => p.text.includes('Boulangerie Martin'))?.text).toContain('fell from 70 to 60 (10 points)');

    for (const id of projects) expect((await send(listener.url, scoreChange(`evt_drop_${id}`, id, 10))).status).toBe(200);
    expect((await send(listener.url, scoreChange('evt_small_301', 301, 2))).status).toBe(200);
    // Every delivery acted on before counting: the replays and the small drop changed nothing.
    await waitFor('the small drop to be acted on', () => listener.lines.some((l) => l.includes('evt_small_301: below threshold')), { timeoutMs: 10_000 });
    expect(smtp.accepted).toHaveLength(5);
    expect(chat.received).toHaveLength(5);

    expect(await listener.stop('SIGTERM')).toBe(143);
    const lines = await journal(cwd);
    expect(lines.filter((l) => l.type === 'delivery')).toHaveLength(6);
    const events = await runCli(['events', '--json'], { cwd, env: env() });
    expect(events.code).toBe(0);
    const rows = JSON.parse(events.stdout) as EventRow[];
    expect(rows.map((r) => r.id).sort()).toEqual([...projects.map((id) => `evt_drop_${id}`), 'evt_small_301'].sort());
    for (const row of rows.filter((r) => r.id.startsWith('evt_drop_'))) {
      expect(row).toMatchObject({ kind: 'score.change', outcome: 'alerted', alerts: [{ kind: 'geo_drop', channels: { email: 'sent', chat: 'sent' } }] });
    }
    expect(rows.find((r) => r.id === 'evt_small_301')).toMatchObject({ outcome: 'below_threshold', alerts: [] });
    // The SMTP password, the webhook secret and the chat URL's token appear in no output and no file.
    const everything = [
      events.stdout,
      listener.lines.join('\n'),
      ...(await Promise.all((await readdir(join(cwd, 'output', 'events'))).map((f) => readFile(join(cwd, 'output', 'events', f), 'utf8')))),
    ].join('\n');
    for (const secret of [SECRET, SMTP_PASSWORD, 'sEcReTtOkEn']) expect(everything).not.toContain(secret);
  }, 60_000);

  it('a second drop of the same project within the cooldown is recorded, not alerted', async () => {
    const cwd = await workspace('cooldown', CONFIG);
    const listener = await listen(cwd);
    expect((await send(listener.url, scoreChange('evt_cool_1', 311, 8))).status).toBe(200);
    expect((await send(listener.url, scoreChange('evt_cool_2', 311, 9))).status).toBe(200);
    await waitFor('both acted on', () => listener.lines.some((l) => l.includes('evt_cool_2:')), { timeoutMs: 10_000 });
    expect(listener.lines.find((l) => l.includes('evt_cool_2:'))).toContain('cooldown');
    await waitFor('the one alert', () => smtp.accepted.length === 1 && chat.received.length === 1, { timeoutMs: 10_000 });
    expect(await listener.stop('SIGINT')).toBe(130);
    expect(smtp.accepted).toHaveLength(1);
  }, 30_000);

  it('kill -9 between the answer and the alert: one alert after the restart, not two', async () => {
    const cwd = await workspace('kill', CONFIG);
    const first = await listen(cwd);
    // The chat never answers the first post: the first alert hangs there, and the second delivery waits its turn.
    chat.hang = (index) => index === 0;
    expect((await send(first.url, scoreChange('evt_kill_1', 321, 10))).status).toBe(200);
    await waitFor('the first chat post to hang', () => chat.received.length === 1, { timeoutMs: 10_000 });
    expect((await send(first.url, scoreChange('evt_kill_2', 322, 10))).status).toBe(200);
    await first.stop('SIGKILL');
    const before = await journal(cwd);
    // The second delivery was stored before its answer, and not acted on.
    expect(before.some((l) => l.type === 'delivery' && l.id === 'evt_kill_2')).toBe(true);
    expect(before.some((l) => l.type === 'outcome' && l.id === 'evt_kill_2')).toBe(false);
    expect(smtp.accepted.map((m) => m.parsed.subject)).toEqual(['Project 321: GEO score down 10 points']);

    chat.hang = () => false;
    const second = await listen(cwd, ['--port', '0']);
    await waitFor('the second delivery alerted after the restart', () => smtp.accepted.length === 2 && chat.received.length === 2, {
      timeoutMs: 15_000,
      state: () => ({ mails: smtp.accepted.map((m) => m.parsed.subject), posts: chat.received.length }),
    });
    await second.stop('SIGTERM');
    expect(smtp.accepted.map((m) => m.parsed.subject).sort()).toEqual(['Project 321: GEO score down 10 points', 'Project 322: GEO score down 10 points']);
    // The post that hung may have reached the room: it is unknown, never posted again.
    expect(chat.received.filter((p) => p.text.includes('Project 321'))).toHaveLength(1);
    const rows = JSON.parse((await runCli(['events', '--json'], { cwd, env: env() })).stdout) as EventRow[];
    expect(rows.find((r) => r.id === 'evt_kill_1')?.alerts).toEqual([{ kind: 'geo_drop', channels: { email: 'sent', chat: 'unknown' } }]);
    expect(rows.find((r) => r.id === 'evt_kill_2')?.alerts).toEqual([{ kind: 'geo_drop', channels: { email: 'sent', chat: 'sent' } }]);
  }, 60_000);

  it('runs inside the scheduler with schedule --listen, and stops with it', async () => {
    const sim = await startSimulator({ projectCount: 4 });
    try {
      const cwd = await workspace('schedule', CONFIG);
      const schedule = startCli(['schedule', '--listen', '0', '--base-url', sim.url], { cwd, env: env({ AGENCY_API_TOKEN: DEMO_TOKEN }), timeoutMs: 20_000 });
      running.add(schedule);
      const url = (await schedule.output(/Receiving webhooks on (http:\/\/127\.0\.0\.1:\d+\/webhooks)\./))[1] as string;
      expect((await send(url, scoreChange('evt_sched_1', 331, 10))).status).toBe(200);
      await waitFor('the alert', () => smtp.accepted.length === 1 && chat.received.length === 1, { timeoutMs: 10_000 });
      expect((await schedule.stop('SIGTERM')).code).toBe(0);
      running.delete(schedule);
      const { stdout } = await schedule.done;
      expect(stdout).toContain('"schedule":"Stopped."');
    } finally {
      await sim.close();
    }
  }, 40_000);

  it("takes the simulator's own deliveries: a test delivery, completed and failed scans, score changes", async () => {
    const port = await freePort();
    let offset = 0;
    const sim: SimulatorHandle = await startSimulator({ projectCount: 12, clock: () => new Date(Date.now() + offset) });
    try {
      const api = async (path: string, body?: unknown): Promise<{ data: Record<string, unknown> }> => {
        const { request } = await import('undici');
        const response = await request(`${sim.url}/api/v1/${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${DEMO_TOKEN}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return (await response.body.json()) as { data: Record<string, unknown> };
      };
      const created = await api('webhooks.php', {
        action: 'create',
        name: 'listener',
        url: `http://127.0.0.1:${port}/webhooks`,
        events: ['scan.completed', 'scan.failed', 'score.change'],
      });
      const webhook = (created.data['webhook'] ?? created.data) as { id: number; secret: string };
      const cwd = await workspace('simulator', { ...CONFIG, alerts: { ...CONFIG.alerts, minDrop: 0.1 } });
      const listener = await listen(cwd, ['--port', String(port)], { GEO_REPORTS_WEBHOOK_SECRET: webhook.secret });
      await api('webhooks.php', { action: 'test', webhook_id: webhook.id });
      const active = sim.state.projects().filter((p) => p.status === 'active');
      for (const project of active) await api('analyze.php', { project_id: project.id, question_type: 'local' });
      offset = 11_000;
      await api('stats.php');
      // Every delivery the simulator made (the test, one per analysis, a score change per changed score) is acted on.
      await waitFor('the simulator deliveries to be sent', () => sim.state.deliveries.length >= 1 + active.length, { timeoutMs: 20_000 });
      await waitFor(
        'every delivery to be acted on',
        () => listener.lines.filter((l) => /^\S+ delivery evt_\d+: /.test(l)).length >= sim.state.deliveries.length,
        {
          timeoutMs: 20_000,
          state: () => ({ sent: sim.state.deliveries.map((d) => [d.event, d.status]), lines: listener.lines.slice(-5) }),
        },
      );
      expect(sim.state.deliveries.every((d) => d.status === 200)).toBe(true);
      await listener.stop('SIGTERM');
      const rows = JSON.parse((await runCli(['events', '--json'], { cwd, env: env() })).stdout) as EventRow[];
      expect(rows.find((r) => r.kind === 'test')?.outcome).toBe('test');
      expect(rows.filter((r) => r.kind === 'scan.completed').every((r) => r.outcome === 'recorded')).toBe(true);
      const failed = rows.filter((r) => r.kind === 'scan.failed');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((r) => r.outcome === 'alerted')).toBe(true);
      const changes = rows.filter((r) => r.kind === 'score.change');
      expect(changes.length).toBeGreaterThan(0);
      // The simulator's score.change carries previous and current: every drop alerts, every rise is below the threshold.
      for (const row of changes) expect(['alerted', 'below_threshold']).toContain(row.outcome);
      expect(rows.every((r) => r.projectId !== null || r.kind === 'test')).toBe(true);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
