// One once-only rule for a report and an alert, whether the record lives in a period's manifest or in the events
// journal (real files in a temp folder): a second settle of the same message sends nothing; an attempt a process
// left `sending` is unknown and nothing goes out; a channel that throws mid-attempt leaves an unknown outcome, never
// sent again; a temporary failure is tried again after the same growing pauses; a secret in an answer reaches
// neither record.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import type { Deliverable, DeliveryChannel, Receipt } from '../../src/delivery/channel.js';
import { deliverThrough } from '../../src/delivery/ledger.js';
import { sendAlert, type AlertChannel, type AlertMessage } from '../../src/events/alerts.js';
import { EventStore } from '../../src/events/store.js';
import { readManifest, writeManifest, type DeliveryState, type Manifest } from '../../src/output/store.js';
import { doneEntry, periodManifest } from '../support/manifest.js';
import { toMonth } from '../../src/period.js';

const PERIOD = toMonth('2026-10');
const config = ConfigSchema.parse({});
const clock = (): Date => new Date('2026-11-04T08:00:00.000Z');

/** A chat room that takes posts: `answers` scripts the next receipts (then "sent"); `throws` makes the next attempt throw. */
function room() {
  const posted: string[] = [];
  const answers: Receipt[] = [];
  const control = { throws: 0 };
  const post = async (text: string, to: string[]): Promise<Receipt> => {
    if (control.throws > 0) {
      control.throws -= 1;
      posted.push(text);
      throw new Error('the connection dropped after the post was sent');
    }
    const answer = answers.shift() ?? { kind: 'sent', response: 'posted', accepted: to };
    if (answer.kind === 'sent') posted.push(text);
    return answer;
  };
  const reports: DeliveryChannel<'chat', { room: string }, Deliverable & { text: string }> = {
    name: 'chat',
    label: 'chat.example',
    interrupted: 'the poster stopped while posting; the message may be in the room',
    target: () => ({ room: '#reports' }),
    prepare: async (candidate) => ({ messageId: `report-${candidate.entry.id}`, recipients: [candidate.room], text: `report ${candidate.entry.id}` }),
    preview: async () => '',
    verify: async () => undefined,
    deliver: (item, recipients) => post(item.text, recipients),
    close: async () => undefined,
  };
  const alerts: AlertChannel = { name: 'chat', label: 'chat.example', deliver: (message) => post(message.subject, []), close: async () => undefined };
  return { reports, alerts, posted, answers, control };
}

let root: string;
let folders = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-once-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A period with one report done (project 1), holding `record` as its chat record when given. */
async function period(record?: DeliveryState): Promise<string> {
  const out = join(root, `out-${(folders += 1)}`);
  await mkdir(join(out, PERIOD), { recursive: true });
  const entry = { ...doneEntry(1), ...(record === undefined ? {} : { deliveries: { chat: record } }) };
  await writeManifest(join(out, PERIOD), periodManifest([entry], 'complete'));
  return out;
}

async function sendReports(
  out: string,
  channel: DeliveryChannel<'chat', { room: string }, Deliverable & { text: string }>,
  sleeps: number[] = [],
  redact?: (text: string) => string,
) {
  const summary = await deliverThrough(channel, {
    ...(redact === undefined ? {} : { redact }),
    config,
    period: PERIOD,
    outDir: out,
    mode: 'send',
    clock,
    retryDelayMs: 100,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const manifest = (await readManifest(join(out, PERIOD))) as Manifest;
  return { summary, record: manifest.projects[0]?.deliveries?.['chat'] };
}

const ALERT: AlertMessage = { key: 'evt_1#geo_drop', projectId: 1, subject: 'alert 1', text: 'GEO 41 → 30' };

/** One go of the alert on the channel, with a store opened afresh on `dir` (as a receiver that starts). */
async function sendAlertOnce(dir: string, channel: AlertChannel, sleeps: number[] = [], redact?: (text: string) => string) {
  const store = await EventStore.open({ dir, clock });
  const log: string[] = [];
  try {
    await sendAlert(ALERT, [channel], {
      ...(redact === undefined ? {} : { redact }),
      store,
      clock,
      retryDelayMs: 100,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      log: (line) => log.push(line),
    });
    return { record: store.alertRecord(ALERT.key, channel.name), log };
  } finally {
    await store.close();
  }
}

describe('one once-only rule for reports and alerts', () => {
  it('a second settle of the same message sends nothing, its record in the manifest or in the journal', async () => {
    const chat = room();
    const out = await period();
    const first = await sendReports(out, chat.reports);
    const second = await sendReports(out, chat.reports);
    expect(first.summary.sent).toBe(1);
    expect(second.summary).toMatchObject({ sent: 0, alreadySent: 1 });
    expect(second.record).toMatchObject({ status: 'sent', attempts: 1 });

    const events = join(root, `events-${(folders += 1)}`);
    const alert = await sendAlertOnce(events, chat.alerts);
    const again = await sendAlertOnce(events, chat.alerts);
    expect(alert.log).toEqual(['alert evt_1#geo_drop sent on chat.example']);
    expect(again.log).toEqual([]);
    expect(again.record).toMatchObject({ status: 'sent', attempts: 1 });
    expect(chat.posted).toEqual(['report 1', 'alert 1']);
  });

  it('reads an attempt a process left `sending` as unknown, in words of its own, and sends nothing', async () => {
    const chat = room();
    const sending: DeliveryState = { status: 'sending', messageId: 'report-1', at: '2026-11-04T07:00:00.000Z', accepted: [], rejected: [], attempts: 1 };
    const report = await sendReports(await period(sending), chat.reports);
    expect(report.record).toMatchObject({ status: 'unknown', error: 'the poster stopped while posting; the message may be in the room', attempts: 1 });
    expect(report.summary.leftUnknown.map((u) => u.id)).toEqual([1]);

    const events = join(root, `events-${(folders += 1)}`);
    const store = await EventStore.open({ dir: events, clock });
    await store.append([{ type: 'alert', key: ALERT.key, channel: 'chat', status: 'sending', at: '2026-11-04T07:00:00.000Z', attempts: 1 }]);
    await store.close();
    const alert = await sendAlertOnce(events, chat.alerts);
    expect(alert.record).toMatchObject({ status: 'unknown', error: 'the receiver stopped while this alert was being sent; it may have arrived', attempts: 1 });
    expect((await sendAlertOnce(events, chat.alerts)).log).toEqual([]);
    expect(chat.posted).toEqual([]);
  });

  it('takes a channel that throws mid-attempt for an unknown outcome, recorded and never sent again', async () => {
    const chat = room();
    chat.control.throws = 2;
    const out = await period();
    const first = await sendReports(out, chat.reports);
    expect(first.summary.unknown).toEqual([{ id: 1, name: 'Client 1', reason: 'the connection dropped after the post was sent' }]);
    expect(first.record).toMatchObject({ status: 'unknown', error: 'the connection dropped after the post was sent', attempts: 1 });
    expect((await sendReports(out, chat.reports)).summary).toMatchObject({ sent: 0, leftUnknown: [expect.objectContaining({ id: 1 })] });

    const events = join(root, `events-${(folders += 1)}`);
    const alert = await sendAlertOnce(events, chat.alerts);
    expect(alert.record).toMatchObject({ status: 'unknown', error: 'the connection dropped after the post was sent', attempts: 1 });
    expect((await sendAlertOnce(events, chat.alerts)).log).toEqual([]);
    expect(chat.posted).toEqual(['report 1', 'alert 1']);
  });

  it('tries a temporary failure again after the same growing pauses, and records every attempt', async () => {
    const chat = room();
    const busy: Receipt = { kind: 'failed', reason: 'rate limited', temporary: true };
    chat.answers.push(busy, busy);
    const reportSleeps: number[] = [];
    const report = await sendReports(await period(), chat.reports, reportSleeps);
    expect(report.record).toMatchObject({ status: 'sent', attempts: 3 });

    chat.answers.push(busy, busy);
    const alertSleeps: number[] = [];
    const alert = await sendAlertOnce(join(root, `events-${(folders += 1)}`), chat.alerts, alertSleeps);
    expect(alert.record).toMatchObject({ status: 'sent', attempts: 3 });
    expect(alert.log.filter((line) => line.includes('failed (rate limited)'))).toHaveLength(2);
    expect(reportSleeps).toEqual([100, 200]);
    expect(alertSleeps).toEqual(reportSleeps);
  });

  it('keeps a secret in a channel’s answer out of both records', async () => {
    const chat = room();
    const secret = 'hooks.example/T000/B000/s3cr3t-token';
    const redact = (text: string): string => text.replaceAll('s3cr3t-token', '***');
    const refused: Receipt = { kind: 'failed', reason: `${secret} answered 404`, temporary: false };
    chat.answers.push(refused);
    const report = await sendReports(await period(), chat.reports, [], redact);
    expect(report.record).toMatchObject({ status: 'failed', error: 'hooks.example/T000/B000/*** answered 404' });
    expect(report.summary.failed[0]?.reason).toBe('hooks.example/T000/B000/*** answered 404');

    chat.answers.push(refused);
    const alert = await sendAlertOnce(join(root, `events-${(folders += 1)}`), chat.alerts, [], redact);
    expect(alert.record).toMatchObject({ status: 'failed', error: 'hooks.example/T000/B000/*** answered 404' });
    expect(alert.log.join('\n')).not.toContain('s3cr3t-token');
  });
});
