// The receiver's alerts over time, on the real receiver and journal (HTTP on loopback, files in a temp folder), with
// test channels that record what they are given and fail when told: a channel added later owes no old alert; an
// alert a day old is not sent; a failure is tried again while the receiver runs; a completed scan carrying the new
// score does not hide the drop of the score change after it; an id header the signature does not cover cannot make
// a replayed body new.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertAttempt, AlertChannel, AlertMessage } from '../../src/events/alerts.js';
import { startListener, type Listener, type ListenerOptions } from '../../src/events/listener.js';
import { post, scoreChange, signatureHeaders } from '../support/webhook-sender.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'whsec_alerts_suite_0123456789abcdef0123456789abcdef';

interface TestChannel extends AlertChannel {
  sent: AlertMessage[];
  /** Answers to give, in order; then "sent". */
  answers: AlertAttempt[];
}

function channel(name: string): TestChannel {
  const sent: AlertMessage[] = [];
  const answers: AlertAttempt[] = [];
  return {
    name,
    label: `test ${name}`,
    sent,
    answers,
    deliver(message) {
      const answer = answers.shift() ?? { kind: 'sent', response: '250 ok' };
      if (answer.kind === 'sent') sent.push(message);
      return Promise.resolve(answer);
    },
    close: () => Promise.resolve(),
  };
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-alerts-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function start(dir: string, channels: AlertChannel[], overrides: Partial<ListenerOptions> = {}): Promise<Listener & { log: string[] }> {
  const log: string[] = [];
  const listener = await startListener({
    dir,
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: [SECRET],
    toleranceSeconds: 300,
    policy: { minDrop: 5, cooldownMinutes: 60 },
    channels,
    message: (alert) =>
      Promise.resolve({ key: alert.key, projectId: alert.projectId, subject: `${alert.kind} ${alert.projectId}`, text: `${alert.before} → ${alert.after}` }),
    sleep: () => Promise.resolve(),
    log: (line) => log.push(line),
    ...overrides,
  });
  return Object.assign(listener, { log });
}

const deliver = async (url: string, body: string, headers: Record<string, string> = {}) =>
  post(url, body, { ...signatureHeaders(SECRET, body, 'hex'), ...headers });

describe('alerts over time', () => {
  it('a channel added later owes no alert decided before it; an alert a day old is not sent again', async () => {
    const dir = join(root, 'added');
    const now = new Date();
    let clock = now;
    const email = channel('email');
    email.answers.push({ kind: 'failed', reason: '451 try later', temporary: true }, { kind: 'failed', reason: '451 try later', temporary: true });
    const first = await start(dir, [email], { clock: () => clock, retryEveryMs: 3_600_000 });
    expect((await deliver(first.url, scoreChange('evt_drop_1', 41, 10, now))).status).toBe(200);
    await first.idle();
    // Failed twice, sent on the third attempt.
    expect(email.sent.map((m) => m.key)).toEqual(['evt_drop_1#geo_drop']);
    email.answers.push(...Array.from({ length: 3 }, (): AlertAttempt => ({ kind: 'failed', reason: '451 try later', temporary: true })));
    expect((await deliver(first.url, scoreChange('evt_drop_2', 42, 10, now))).status).toBe(200);
    await first.idle();
    await first.close();
    expect(email.sent).toHaveLength(1);

    // The chat room is configured afterwards: it gets neither alert. The mail that failed is tried at the start
    // (and fails again, for good this time).
    const chat = channel('chat');
    const emailAgain = channel('email');
    emailAgain.answers.push({ kind: 'failed', reason: '550 mailbox unavailable', temporary: false });
    const second = await start(dir, [emailAgain, chat], { clock: () => clock });
    await second.idle();
    await second.close();
    expect(chat.sent).toEqual([]);
    expect(emailAgain.answers).toEqual([]);
    expect(emailAgain.sent).toEqual([]);

    // A day later, that failure is old news: not sent.
    clock = new Date(now.getTime() + 25 * 60 * 60 * 1000);
    const late = channel('email');
    const old = await start(dir, [late], { clock: () => clock });
    await old.idle();
    await old.close();
    expect(late.sent).toEqual([]);
    // Within the day, it is.
    clock = new Date(now.getTime() + 60_000);
    const fresh = channel('email');
    const soon = await start(dir, [fresh], { clock: () => clock });
    await soon.idle();
    await soon.close();
    expect(fresh.sent.map((m) => m.key)).toEqual(['evt_drop_2#geo_drop']);
  });

  it('tries a failed alert again while the receiver runs, without a restart', async () => {
    const dir = join(root, 'retry');
    const chat = channel('chat');
    chat.answers.push(...Array.from({ length: 3 }, (): AlertAttempt => ({ kind: 'failed', reason: 'the chat webhook answered 503', temporary: true })));
    const listener = await start(dir, [chat], { retryEveryMs: 100 });
    try {
      expect((await deliver(listener.url, scoreChange('evt_retry', 51, 12))).status).toBe(200);
      await waitFor('the alert sent by the retry', () => chat.sent.length === 1, { timeoutMs: 10_000 });
      expect(chat.sent[0]?.key).toBe('evt_retry#geo_drop');
      expect(listener.log.some((line) => line.includes('owed after a failure'))).toBe(true);
      // Sent once: the next rounds find nothing owed.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(chat.sent).toHaveLength(1);
    } finally {
      await listener.close();
    }
  });

  it('a completed scan that carries the new score does not hide the drop of the score change after it', async () => {
    const dir = join(root, 'scan-first');
    const chat = channel('chat');
    const listener = await start(dir, [chat]);
    try {
      const at = new Date().toISOString();
      // Known: 80. Then the scan carries 62, and the score change says only where the score is now.
      await deliver(
        listener.url,
        JSON.stringify({ id: 'evt_a', event: 'score.change', created_at: at, data: { project_id: 61, score: 'geo_score', previous: 82, current: 80 } }),
      );
      await deliver(listener.url, JSON.stringify({ id: 'evt_b', event: 'scan.completed', created_at: at, data: { project_id: 61, scores: { geo: 62 } } }));
      await deliver(listener.url, JSON.stringify({ id: 'evt_c', event: 'score.change', created_at: at, data: { project_id: 61, geo_score: 62 } }));
      await listener.idle();
      expect(chat.sent.map((m) => [m.key, m.text])).toEqual([['evt_c#geo_drop', '80 → 62']]);
    } finally {
      await listener.close();
    }
  });

  it('with alerts.minDrop 0, alerts on any fall and never on an unchanged score', async () => {
    const dir = join(root, 'zero');
    const chat = channel('chat');
    const listener = await start(dir, [chat], { policy: { minDrop: 0, cooldownMinutes: 0 } });
    try {
      await deliver(listener.url, scoreChange('evt_same', 81, 0));
      await deliver(listener.url, scoreChange('evt_fall', 82, 1));
      await listener.idle();
      expect(chat.sent.map((m) => m.key)).toEqual(['evt_fall#geo_drop']);
    } finally {
      await listener.close();
    }
  });

  it('an id header the signature does not cover cannot make a replayed body new', async () => {
    const dir = join(root, 'replay');
    const chat = channel('chat');
    const listener = await start(dir, [chat], { policy: { minDrop: 5, cooldownMinutes: 0 } });
    try {
      // A body with no id of its own, signed alone: its id is the hash of its bytes, whatever the headers say.
      const body = JSON.stringify({
        event: 'score.change',
        created_at: new Date().toISOString(),
        data: { project_id: 71, score: 'geo_score', previous: 70, current: 50 },
      });
      const first = await deliver(listener.url, body, { 'x-service-delivery': 'attempt-1' });
      const replay = await deliver(listener.url, body, { 'x-service-delivery': 'attempt-2', 'x-service-timestamp': String(Math.floor(Date.now() / 1000)) });
      expect([first.status, replay.status]).toEqual([200, 200]);
      expect(JSON.parse(replay.body)).toMatchObject({ duplicate: true });
      await listener.idle();
      expect(chat.sent).toHaveLength(1);
    } finally {
      await listener.close();
    }
  });
});
