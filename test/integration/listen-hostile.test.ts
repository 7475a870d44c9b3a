// The receiver under hostile traffic, on real HTTP: bad and missing signatures, stale timestamps, huge and slow
// bodies, invalid JSON, replays, and many deliveries at once. Nothing bad is stored; every good one once.
import { connect } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJournal, type JournalLine } from '../../src/events/journal.js';
import type { Listener } from '../../src/events/listener.js';
import { post, scoreChange, signatureHeaders, startReceiver } from '../support/webhook-sender.js';

const SECRET = 'whsec_hostile0123456789abcdef0123456789abcdef01234';
let root: string;
let listener: Listener;
const logs: string[] = [];

async function journal(): Promise<JournalLine[]> {
  const dir = join(root, 'events');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'));
  const lines: JournalLine[] = [];
  for (const file of files) lines.push(...parseJournal(await readFile(join(dir, file), 'utf8')));
  return lines;
}
const deliveries = async (): Promise<string[]> => (await journal()).filter((l) => l.type === 'delivery').map((l) => l.id);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-hostile-'));
  listener = await startReceiver(join(root, 'events'), ['an-older-secret-being-rotated', SECRET], {
    log: (line) => logs.push(line),
    requestTimeoutMs: 1_500,
    headersTimeoutMs: 1_500,
  });
});

afterAll(async () => {
  await listener.close();
  await rm(root, { recursive: true, force: true });
});

describe('the receiver refuses', () => {
  it('any method but POST, and any other path', async () => {
    const { request } = await import('undici');
    const get = await request(listener.url, { method: 'GET' });
    expect(get.statusCode).toBe(405);
    expect(get.headers['allow']).toBe('POST');
    await get.body.dump();
    expect((await post(listener.url.replace('/webhooks', '/other'), '{}')).status).toBe(404);
    expect((await post(`${listener.url}/../etc/passwd`, '{}')).status).toBe(404);
  });

  it('a missing, wrong or malformed signature, and a stale or future timestamp, with 401 and nothing stored', async () => {
    const before = await deliveries();
    const body = scoreChange('evt_bad_1', 7, 10);
    expect((await post(listener.url, body)).status).toBe(401);
    expect((await post(listener.url, body, signatureHeaders('not the secret', body, 'hex'))).status).toBe(401);
    expect((await post(listener.url, body, { 'x-service-signature': 'sha256=nothex' })).status).toBe(401);
    const old = new Date(Date.now() - 600_000);
    expect((await post(listener.url, body, signatureHeaders(SECRET, body, 't=,v1=hex', old))).status).toBe(401);
    const ahead = new Date(Date.now() + 600_000);
    expect((await post(listener.url, body, signatureHeaders(SECRET, body, 't=,v1=hex', ahead))).status).toBe(401);
    // Signed correctly but the payload's own time is a day old: refused too.
    const stale = scoreChange('evt_bad_2', 7, 10, new Date(Date.now() - 86_400_000));
    expect((await post(listener.url, stale, signatureHeaders(SECRET, stale, 'hex'))).status).toBe(401);
    expect(await deliveries()).toEqual(before);
    const reasons = logs.filter((l) => l.startsWith('refused'));
    for (const reason of ['no signature header', 'signature does not match', 'no signature in the header', 'timestamp too old', 'timestamp in the future']) {
      expect(
        reasons.some((l) => l.includes(reason)),
        reason,
      ).toBe(true);
    }
    // Neither a secret nor the signature a sender should have used ever reaches the log.
    const expected = signatureHeaders(SECRET, body, 'hex')['x-service-signature'] as string;
    for (const line of logs) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(expected);
    }
  });

  it('a body over 1 MiB: by its Content-Length at once, or as it grows, and stops reading it', async () => {
    /** Sends the headers, then up to 4 MiB of body; what the receiver answered before it closed. */
    const offer = (head: string, chunked: boolean): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(new URL(listener.url).port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(text) : reject(error)));
        socket.write(head);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let sent = 0;
        const pump = (): void => {
          while (sent < 64 && !socket.destroyed) {
            sent += 1;
            const ok = socket.write(chunked ? `${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n` : chunk);
            if (!ok) {
              socket.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
    const base = 'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Service-Signature: sha256=' + 'a'.repeat(64) + '\r\n';
    expect(await offer(`${base}Content-Length: ${4 * 1024 * 1024}\r\n\r\n`, false)).toMatch(/^HTTP\/1\.1 413/);
    expect(await offer(`${base}Transfer-Encoding: chunked\r\n\r\n`, true)).toMatch(/^HTTP\/1\.1 413/);
    expect(logs.filter((l) => l.includes('over 1048576')).length).toBeGreaterThanOrEqual(2);
  });

  it('a body trickled byte by byte, when the time to send it runs out, and keeps answering others meanwhile', async () => {
    const body = scoreChange('evt_slow_1', 7, 10);
    const headers = signatureHeaders(SECRET, body, 'hex');
    const started = Date.now();
    const slow = new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(listener.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nX-Service-Signature: ${headers['x-service-signature']}\r\n\r\n`,
      );
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || i >= body.length) return clearInterval(timer);
        socket.write(body[i++] as string);
      }, 200);
    });
    // Meanwhile a good delivery is answered at once.
    const quick = scoreChange('evt_quick_1', 8, 1);
    expect((await post(listener.url, quick, signatureHeaders(SECRET, quick, 'hex'))).status).toBe(200);
    const answer = await slow;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(answer === '' || /^HTTP\/1\.1 408/.test(answer)).toBe(true);
    expect(await deliveries()).not.toContain('evt_slow_1');
  });

  it('a signed body that is not JSON, with 400 and nothing stored', async () => {
    const body = '{"id": "evt_broken", "event": ';
    expect((await post(listener.url, body, signatureHeaders(SECRET, body, 'hex'))).status).toBe(400);
    expect(await deliveries()).not.toContain('evt_broken');
  });
});

describe('the receiver accepts', () => {
  it('signatures in hex and in base64 with a prefix, each stored once; a replay answers 2xx and stores nothing', async () => {
    for (const [i, form] of (['hex', 'sha256=hex', 'v1=base64', 'base64', 't=,v1=hex'] as const).entries()) {
      const body = scoreChange(`evt_form_${i}`, 9, 1);
      const answer = await post(listener.url, body, signatureHeaders(SECRET, body, form));
      expect(answer.status, form).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ ok: true, id: `evt_form_${i}` });
    }
    const body = scoreChange('evt_form_0', 9, 1);
    const replay = await post(listener.url, body, signatureHeaders(SECRET, body, 'v1=base64'));
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.body)).toMatchObject({ duplicate: true });
    const ids = await deliveries();
    for (let i = 0; i < 5; i += 1) expect(ids.filter((id) => id === `evt_form_${i}`)).toHaveLength(1);
  });

  it('200 valid deliveries interleaved with 200 bad ones at 50 in flight: the valid stored once each, the bad none', async () => {
    const before = new Set(await deliveries());
    const limit = pLimit(50);
    const jobs: Array<Promise<{ good: boolean; status: number }>> = [];
    for (let i = 0; i < 200; i += 1) {
      const good = scoreChange(`evt_load_${i}`, 100 + (i % 20), 1);
      const bad = scoreChange(`evt_forged_${i}`, 100 + (i % 20), 50);
      jobs.push(
        limit(async () => ({ good: true, status: (await post(listener.url, good, signatureHeaders(SECRET, good, i % 2 === 0 ? 'hex' : 'v1=base64'))).status })),
      );
      jobs.push(limit(async () => ({ good: false, status: (await post(listener.url, bad, signatureHeaders('forged', bad, 'hex'))).status })));
    }
    const results = await Promise.all(jobs);
    expect(results.filter((r) => r.good).every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => !r.good).every((r) => r.status === 401)).toBe(true);
    const added = (await deliveries()).filter((id) => !before.has(id));
    expect(added.filter((id) => id.startsWith('evt_load_')).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `evt_load_${i}`).sort());
    expect(added.filter((id) => id.startsWith('evt_forged_'))).toEqual([]);
    // Still answering, and every stored delivery gets its outcome.
    const last = scoreChange('evt_after_load', 7, 1);
    expect((await post(listener.url, last, signatureHeaders(SECRET, last, 'hex'))).status).toBe(200);
    await listener.idle();
    const outcomes = new Set((await journal()).filter((l) => l.type === 'outcome').map((l) => l.id));
    for (const id of await deliveries()) expect(outcomes.has(id), id).toBe(true);
  });
});
