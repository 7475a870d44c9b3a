// Delivery ids as the service writes them, through the real `geo-reports listen` and a chat double on loopback: a
// numeric id beyond 2^53 is kept as its text, so 9007199254740993 and 9007199254740992 are two deliveries, each
// with its alert, where a JavaScript number made them one (the second answered "duplicate", its alert never raised).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { post, signatureHeaders, startChatDouble, type ChatDouble } from '../support/webhook-sender.js';

const SECRET = 'whsec_ids5f1a9c3b7d20468ace13579bdf02468ace13579bdf02';
let root: string;
let chat: ChatDouble;
let cli: RunningCli | null = null;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-ids-'));
  chat = await startChatDouble();
});
afterAll(async () => {
  cli?.child.kill('SIGKILL');
  await chat.close();
  await rm(root, { recursive: true, force: true });
});

/** A score change of `project` from 70 to 60, its id written as the bare JSON number `id` (never through JSON.stringify). */
const scoreChangeWithId = (id: string, project: number): string =>
  `{"id":${id},"event":"score.change","created_at":"${new Date().toISOString()}","data":{"project_id":${project},"score":"geo_score","previous":70,"current":60,"change":-10}}`;

describe('delivery ids beyond 2^53', () => {
  it('9007199254740993 then 9007199254740992: both stored under their own id, both alerts raised; a replay of either alerts nobody', async () => {
    const cwd = join(root, 'big-ids');
    await mkdir(join(cwd, 'config'), { recursive: true });
    const config = { agency: { name: 'Northwind Digital' }, alerts: { minDrop: 5, cooldownMinutes: 60 } };
    await writeFile(join(cwd, 'config', 'geo-reports.json'), JSON.stringify(config));
    const env = { ...process.env, GEO_REPORTS_WEBHOOK_SECRET: SECRET, GEO_REPORTS_ALERT_WEBHOOK_URL: chat.url };
    cli = startCli(['listen', '--port', '0'], { cwd, env, timeoutMs: 30_000 });
    const url = await cli.firstLine;
    expect(url, cli.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);

    const first = scoreChangeWithId('9007199254740993', 301);
    const second = scoreChangeWithId('9007199254740992', 302);
    const answers = [];
    for (const body of [first, second]) answers.push(await post(url, body, signatureHeaders(SECRET, body, 'sha256=hex')));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => JSON.parse(a.body) as unknown)).toEqual([
      { ok: true, id: '9007199254740993' },
      { ok: true, id: '9007199254740992' },
    ]);
    await waitFor('two chat alerts', () => chat.received.length >= 2, { timeoutMs: 10_000, state: () => chat.received });
    // The same bytes again are replays: answered, nothing stored, nobody alerted.
    for (const body of [first, second]) {
      const again = await post(url, body, signatureHeaders(SECRET, body, 'sha256=hex'));
      expect(JSON.parse(again.body)).toMatchObject({ ok: true, duplicate: true });
    }
    await cli.stop('SIGTERM');
    cli = null;
    expect(chat.received).toHaveLength(2);
    expect(chat.received.map((m) => m.text).join('\n')).toMatch(/301[\s\S]*302/);

    const events = await runCli(['events', '--json'], { cwd, env });
    expect(events.code, events.stderr).toBe(0);
    const rows = JSON.parse(events.stdout) as Array<{ id: string }>;
    expect(rows.map((row) => row.id).sort()).toEqual(['9007199254740992', '9007199254740993']);
  });
});
