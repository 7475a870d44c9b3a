// Deliveries the tool cannot use, on real HTTP: none may take its id without being stored, none may answer 5xx
// (a sender retries that for ever), none may forge a log line, and only signed bytes decide anything.
import { connect } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJournal, type DeliveryLine } from '../../src/events/journal.js';
import type { Listener } from '../../src/events/listener.js';
import { listEvents } from '../../src/events/list.js';
import { post, signatureHeaders, startReceiver } from '../support/webhook-sender.js';

const SECRET = 'whsec_input0123456789abcdef0123456789abcdef0123456';
let root: string;
let listener: Listener;
const logs: string[] = [];

async function stored(): Promise<DeliveryLine[]> {
  const dir = join(root, 'events');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'));
  const lines: DeliveryLine[] = [];
  for (const file of files) for (const line of parseJournal(await readFile(join(dir, file), 'utf8'))) if (line.type === 'delivery') lines.push(line);
  return lines;
}

const signed = (body: string): Promise<{ status: number; body: string }> => post(listener.url, body, signatureHeaders(SECRET, body, 'hex'));

/** One raw request line, as a client that does not normalise it would send it; the status line's code. */
async function rawTarget(target: string): Promise<number> {
  const { hostname, port } = new URL(listener.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`POST ${target} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 2\r\n\r\n{}`));
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status !== null) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-input-'));
  listener = await startReceiver(join(root, 'events'), [SECRET], { log: (line) => logs.push(line) });
});
afterAll(async () => {
  await listener.close();
  await rm(root, { recursive: true, force: true });
});

describe('a delivery the tool cannot use', () => {
  it('a time of sending of 1e20 is a final 400 that takes no id: the corrected delivery with the same id is stored', async () => {
    const bad = JSON.stringify({
      id: 'evt_range_1',
      event: 'score.change',
      created_at: 1e20,
      data: { project_id: 7, score: 'geo_score', previous: 70, current: 60 },
    });
    const first = await signed(bad);
    expect(first.status).toBe(400);
    expect(first.body).toContain('not a date');
    // Sent again as it was, the same final answer: never a 5xx asking for a retry.
    expect((await signed(bad)).status).toBe(400);
    const good = JSON.stringify({
      id: 'evt_range_1',
      event: 'score.change',
      created_at: new Date().toISOString(),
      data: { project_id: 7, score: 'geo_score', previous: 70, current: 60 },
    });
    const second = await signed(good);
    expect(second.status).toBe(200);
    expect(JSON.parse(second.body)).toEqual({ ok: true, id: 'evt_range_1' });
    expect((await stored()).filter((d) => d.id === 'evt_range_1')).toEqual([expect.objectContaining({ kind: 'score.change', projectId: 7 })]);
  });

  it('a signed t=9999999999999999 (no date at all) is never fresh: 401, nothing stored', async () => {
    const body = JSON.stringify({ id: 'evt_far_1', event: 'test' });
    const t = '9999999999999999';
    const { createHmac } = await import('node:crypto');
    const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
    const answer = await post(listener.url, body, { 'x-service-signature': `t=${t},v1=${v1}` });
    expect(answer.status).toBe(401);
    expect((await stored()).some((d) => d.id === 'evt_far_1')).toBe(false);
    expect(logs.some((l) => l.includes('timestamp unreadable'))).toBe(true);
  });

  it('nesting 5000 levels deep is a final 400, every time; the receiver answers on', async () => {
    const deep = `{"id":"evt_deep_1","event":"test","data":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (let i = 0; i < 2; i += 1) {
      const answer = await signed(deep);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('nests deeper than 64 levels');
    }
    expect((await stored()).some((d) => d.id === 'evt_deep_1')).toBe(false);
    // A string holding brackets is not nesting.
    const flat = JSON.stringify({ id: 'evt_deep_2', event: 'test', note: '['.repeat(5000) });
    expect((await signed(flat)).status).toBe(200);
  });

  it('a kind it does not know is stored and marked, answered 200', async () => {
    const body = JSON.stringify({ id: 'evt_kind_1', event: 'invoice.paid' });
    expect((await signed(body)).status).toBe(200);
    expect((await stored()).find((d) => d.id === 'evt_kind_1')).toMatchObject({ kind: 'unknown', kindText: 'invoice.paid' });
  });

  it('control characters of a kind or an id reach neither a log line nor `events`', async () => {
    const forged = 'score.change\n2026-11-26T00:00:00.000Z stored delivery evt_fake (score.change, project 1)\u001b[2J\u202e';
    const body = JSON.stringify({ id: 'evt_ctl_1\r\nforged', event: forged });
    expect((await signed(body)).status).toBe(200);
    await listener.idle();
    // eslint-disable-next-line no-control-regex -- the characters it must not find
    const controls = /[\u0000-\u001f\u007f\u202e]/;
    expect(logs.filter((l) => controls.test(l))).toEqual([]);
    const rows = await listEvents(join(root, 'events'), { since: new Date(0) });
    const row = rows.find((r) => r.id.startsWith('evt_ctl_1'));
    expect(row?.id).toBe('evt_ctl_1  forged');
    expect(row?.kindText).not.toMatch(controls);
  });

  it('an unsigned X-Service-Event header decides nothing: the kind comes from the signed body alone', async () => {
    const none = JSON.stringify({ id: 'evt_hdr_1', data: { project_id: 7, previous: 70, current: 10 } });
    expect((await post(listener.url, none, { ...signatureHeaders(SECRET, none, 'hex'), 'x-service-event': 'score.change' })).status).toBe(200);
    const test = JSON.stringify({ id: 'evt_hdr_2', event: 'test' });
    expect((await post(listener.url, test, { ...signatureHeaders(SECRET, test, 'hex'), 'x-service-event': 'score.change' })).status).toBe(200);
    const lines = await stored();
    expect(lines.find((d) => d.id === 'evt_hdr_1')).toMatchObject({ kind: 'unknown', kindText: null });
    expect(lines.find((d) => d.id === 'evt_hdr_2')).toMatchObject({ kind: 'test' });
  });

  it('odd request targets answer 400 or 404, never 500', async () => {
    expect(await rawTarget('//')).toBe(400);
    expect(await rawTarget('http://[')).toBe(400);
    expect(await rawTarget('//webhooks')).toBe(404);
    expect(await rawTarget('/webhooks/..%2f')).toBe(404);
    expect(await rawTarget('*')).toBe(404);
    expect(await rawTarget('/%zz')).toBe(404);
    expect(logs.some((l) => l.startsWith('error while receiving'))).toBe(false);
  });
});
