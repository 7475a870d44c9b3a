// The delivery ledger with a channel of the tests' own (a chat room per client, in memory): once only, the record
// before and after each attempt, retries of temporary failures, unknown outcomes left alone, crash recovery, and
// each channel's records kept apart. Then a manifest written before deliveries were kept per channel, migrated.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { planDelivery } from '../../src/delivery/email/index.js';
import {
  deliverThrough,
  deliveryExitCode,
  type Deliverable,
  type DeliveryChannel,
  type DeliveryEvent,
  type LedgerOptions,
  type Receipt,
} from '../../src/delivery/ledger.js';
import { EXIT } from '../../src/exit-codes.js';
import { readManifest, writeManifest, type DeliveryState, type Manifest } from '../../src/output/store.js';
import { doneEntry, periodManifest, pendingEntry } from '../support/manifest.js';
import { toMonth } from '../../src/period.js';

const PERIOD = toMonth('2026-10');
const config = ConfigSchema.parse({ clients: { '4': { displayName: 'Quatre' } } });

interface ChatTarget {
  room: string;
}
interface ChatMessage extends Deliverable {
  text: string;
}
type Answer = 'ok' | 'busy' | 'refused' | 'lost' | 'unreachable';

/** A chat room per client: project 3 has none. `answers` scripts the next answers for a project (then 'ok'). */
function chatChannel(answers: Record<number, Answer[]> = {}) {
  const posted: Array<{ room: string; text: string }> = [];
  const previews: string[] = [];
  let verified = 0;
  let closed = 0;
  const settledOf = (answer: Answer, room: string): Receipt => {
    switch (answer) {
      case 'ok':
        return { kind: 'sent', accepted: [room], response: 'posted' };
      case 'busy':
        return { kind: 'failed', accepted: [], reason: 'rate limited', temporary: true, stop: null };
      case 'refused':
        return { kind: 'failed', accepted: [], reason: 'room archived', temporary: false, stop: null };
      case 'unreachable':
        return { kind: 'failed', accepted: [], reason: 'no route', temporary: false, stop: 'connection' };
      case 'lost':
        return { kind: 'unknown', accepted: [], reason: 'timed out after posting' };
    }
  };
  const channel: DeliveryChannel<'chat', ChatTarget, ChatMessage> = {
    name: 'chat',
    label: 'chat.example',
    interrupted: 'the poster stopped while posting; the message may be in the room',
    target: (_client, entry) => (entry.id === 3 ? { none: 'no chat room for this client' } : { room: `#client-${entry.id}` }),
    async prepare(candidate) {
      return { messageId: `chat-${PERIOD}-${candidate.entry.id}`, recipients: [candidate.room], text: `${candidate.clientName}: your report is ready` };
    },
    async preview(item, candidate, periodDir) {
      previews.push(item.text);
      return join(periodDir, candidate.entry.slug, 'chat.txt');
    },
    async verify() {
      verified += 1;
    },
    async deliver(item, recipients) {
      const id = Number(item.messageId.split('-').at(-1));
      const answer = answers[id]?.shift() ?? 'ok';
      if (answer === 'ok' || answer === 'lost') for (const room of recipients) posted.push({ room, text: item.text });
      return settledOf(answer, recipients[0] ?? '');
    },
    async close() {
      closed += 1;
    },
  };
  return { channel, posted, previews, counts: () => ({ verified, closed }) };
}

let root: string;
let folders = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-ledger-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A period folder holding `manifest`; returns the output root. */
async function periodWith(manifest: Manifest): Promise<string> {
  const out = join(root, `out-${(folders += 1)}`);
  await writeManifest(await ensured(join(out, PERIOD)), manifest);
  return out;
}

async function ensured(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return dir;
}

async function send(out: string, chat: ReturnType<typeof chatChannel>, extra: Partial<LedgerOptions<'chat'>> = {}) {
  const events: Array<DeliveryEvent<'chat'>> = [];
  const sleeps: number[] = [];
  const summary = await deliverThrough(chat.channel, {
    config,
    period: PERIOD,
    outDir: out,
    mode: 'send',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onEvent: (event) => events.push(event),
    ...extra,
  });
  const manifest = (await readManifest(join(out, PERIOD))) as Manifest;
  return { summary, events, sleeps, manifest, chatOf: (id: number) => manifest.projects.find((e) => e.id === id)?.deliveries?.['chat'] };
}

describe('the ledger with a second channel', () => {
  it('delivers each ready report once, records it under the channel, names its events after it, and a rerun sends nothing', async () => {
    const out = await periodWith(periodManifest([doneEntry(1), doneEntry(2), doneEntry(3), doneEntry(4), pendingEntry(5)], 'partial'));
    const chat = chatChannel();
    const first = await send(out, chat);
    expect(first.summary).toMatchObject({ sent: 3, failed: [], unknown: [], notReady: 1, noAddress: [{ id: 3, reason: 'no chat room for this client' }] });
    expect(chat.posted.map((p) => p.room)).toEqual(['#client-1', '#client-2', '#client-4']);
    expect(chat.posted.find((p) => p.room === '#client-4')?.text).toBe('Quatre: your report is ready');
    expect(first.chatOf(1)).toMatchObject({ status: 'sent', messageId: 'chat-2026-10-1', accepted: ['#client-1'], response: 'posted', attempts: 1 });
    expect(first.chatOf(3)).toBeUndefined();
    expect(first.events.map((e) => e.type)).toEqual(['chat-plan', 'chat-skipped', 'chat-sent', 'chat-sent', 'chat-sent', 'chat-summary']);
    expect(first.events[0]).toMatchObject({ toSend: 3, server: 'chat.example' });
    expect(chat.counts()).toEqual({ verified: 1, closed: 1 });
    expect(deliveryExitCode(first.summary)).toBe(EXIT.ok);

    const again = await send(out, chat);
    expect(again.summary).toMatchObject({ sent: 0, alreadySent: 3 });
    expect(chat.posted).toHaveLength(3);
  });

  it('hands each record on before its message goes; a record it cannot hand on keeps the message back, its record as it was', async () => {
    const out = await periodWith(periodManifest([doneEntry(1), doneEntry(2)], 'complete'));
    const chat = chatChannel();
    // What the hook sees on disk each time: the record of every message, as the next run would restore it.
    const seen: string[] = [];
    let refuse = false;
    const onRecorded = async () => {
      const manifest = (await readManifest(join(out, PERIOD))) as Manifest;
      seen.push(manifest.projects.map((e) => `${e.id}:${e.deliveries?.['chat']?.status ?? '-'}`).join(' '));
      if (refuse) throw new Error('push refused');
    };
    refuse = true;
    const held = await send(out, chat, { onRecorded, concurrency: 1 });
    expect(chat.posted).toEqual([]);
    expect(held.summary).toMatchObject({ sent: 0, notAttempted: 2 });
    expect(held.events.filter((e) => e.type === 'warning')).toHaveLength(2);
    // Not `sending`: nothing says these messages may have gone, so the next send sends them.
    expect([held.chatOf(1), held.chatOf(2)]).toEqual([undefined, undefined]);
    refuse = false;
    seen.length = 0;
    const sent = await send(out, chat, { onRecorded, concurrency: 1 });
    expect(sent.summary).toMatchObject({ sent: 2 });
    expect(seen).toEqual(['1:sending 2:-', '1:sent 2:-', '1:sent 2:sending', '1:sent 2:sent']);
  });

  it('keeps each channel to its own record: a report emailed already still goes to the chat, its email record untouched', async () => {
    const emailed: DeliveryState = {
      status: 'sent',
      messageId: 'report-2026-10-1@northwind.example',
      at: '2026-11-04T07:00:00.000Z',
      accepted: ['anne@client.example'],
      rejected: [],
      response: '250 OK',
      attempts: 1,
    };
    const out = await periodWith(periodManifest([{ ...doneEntry(1), deliveries: { email: emailed } }], 'complete'));
    const chat = chatChannel();
    const run = await send(out, chat);
    expect(run.summary.sent).toBe(1);
    const entry = run.manifest.projects[0];
    expect(entry?.deliveries?.email).toEqual(emailed);
    expect(entry?.deliveries?.['chat']).toMatchObject({ status: 'sent' });
    expect(
      planDelivery(run.manifest, ConfigSchema.parse({ clients: { '1': { email: { to: ['anne@client.example'] } } } }), {
        mode: 'send',
        projectIds: [],
        resend: false,
        acceptHeld: false,
      }).skipped,
    ).toEqual([expect.objectContaining({ id: 1, reason: 'sent' })]);
  });

  it('retries a temporary failure with a growing pause, fails a refusal (tried again by the next send), and leaves an unknown outcome alone', async () => {
    const out = await periodWith(periodManifest([doneEntry(1), doneEntry(2), doneEntry(4)], 'complete'));
    const chat = chatChannel({ 1: ['busy', 'busy'], 2: ['refused'], 4: ['lost'] });
    const first = await send(out, chat, { retryDelayMs: 100 });
    expect(first.sleeps).toEqual([100, 200]);
    expect(first.events.filter((e) => e.type === 'chat-retry').map((e) => [e.id, e.attempt, e.delayMs])).toEqual([
      [1, 1, 100],
      [1, 2, 200],
    ]);
    expect(first.chatOf(1)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(first.summary.failed).toEqual([{ id: 2, name: 'Client 2', reason: 'room archived' }]);
    expect(first.chatOf(2)).toMatchObject({ status: 'failed', error: 'room archived', attempts: 1 });
    expect(first.summary.unknown).toEqual([{ id: 4, name: 'Quatre', reason: 'timed out after posting' }]);
    expect(deliveryExitCode(first.summary)).toBe(EXIT.failure);

    const second = await send(out, chat);
    expect(second.summary).toMatchObject({ sent: 1, alreadySent: 1, failed: [] });
    expect(second.summary.leftUnknown.map((u) => u.id)).toEqual([4]);
    expect(second.events).toContainEqual(expect.objectContaining({ type: 'chat-skipped', id: 4, reason: 'unknown' }));
    expect(second.chatOf(2)).toMatchObject({ status: 'sent', attempts: 2 });
    // Posted once each: the lost one is not posted again without --resend.
    expect(chat.posted.map((p) => p.room).sort()).toEqual(['#client-1', '#client-2', '#client-4']);

    const resend = await send(out, chat, { projectIds: [4], resend: true });
    expect(resend.summary.sent).toBe(1);
    expect(resend.chatOf(4)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('reads a record left `sending` by a process that ended as unknown, with the channel’s words, and does not deliver it', async () => {
    const sending: DeliveryState = { status: 'sending', messageId: 'chat-2026-10-1', at: '2026-11-04T07:00:00.000Z', accepted: [], rejected: [], attempts: 1 };
    const out = await periodWith(periodManifest([{ ...doneEntry(1), deliveries: { chat: sending } }, doneEntry(2)], 'complete'));
    const chat = chatChannel();
    const run = await send(out, chat);
    expect(run.chatOf(1)).toMatchObject({ status: 'unknown', error: 'the poster stopped while posting; the message may be in the room' });
    expect(run.summary.leftUnknown).toEqual([{ id: 1, name: 'Client 1', reason: expect.stringContaining('--resend --project 1') }]);
    expect(chat.posted.map((p) => p.room)).toEqual(['#client-2']);
  });

  it('stops at a destination every message would fail on: the rest are left for the next send', async () => {
    const out = await periodWith(periodManifest([doneEntry(1), doneEntry(2), doneEntry(4)], 'complete'));
    const chat = chatChannel({ 1: ['unreachable'] });
    const run = await send(out, chat, { concurrency: 1 });
    expect(run.summary).toMatchObject({ sent: 0, stopped: 'connection', notAttempted: 2 });
    expect(run.chatOf(2)).toBeUndefined();
    expect(deliveryExitCode(run.summary)).toBe(EXIT.failure);
  });

  it('previews in a dry run and records nothing; a test send delivers without a record', async () => {
    const manifest = periodManifest([doneEntry(1), doneEntry(2)], 'complete');
    const out = await periodWith(manifest);
    const before = await readFile(join(out, PERIOD, 'manifest.json'), 'utf8');
    const chat = chatChannel();
    const dry = await send(out, chat, { mode: 'dry-run' });
    expect(dry.summary).toMatchObject({ written: 2, sent: 0 });
    expect(dry.events.filter((e) => e.type === 'chat-written').map((e) => e.path)).toEqual([
      join(out, PERIOD, '1-x', 'chat.txt'),
      join(out, PERIOD, '2-x', 'chat.txt'),
    ]);
    expect(chat.counts().verified).toBe(0);
    const test = await send(out, chat, { mode: 'test' });
    expect(test.summary.sent).toBe(2);
    expect(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')).toBe(before);
  });

  it('rewrites the index after a recorded send, and only then', async () => {
    const out = await periodWith(periodManifest([doneEntry(1)], 'complete'));
    const written: string[] = [];
    const writeIndex = async (manifest: Manifest): Promise<void> => {
      written.push(manifest.projects.map((e) => e.deliveries?.['chat']?.status ?? 'none').join());
    };
    await send(out, chatChannel(), { mode: 'dry-run', writeIndex });
    await send(out, chatChannel(), { writeIndex });
    expect(written).toEqual(['sent']);
  });
});

describe('a manifest written before deliveries were kept per channel', () => {
  const fixture = new URL('../fixtures/manifest-email-before-deliveries.json', import.meta.url);

  it('is read with each email record under deliveries.email, and written back that way', async () => {
    const text = await readFile(fixture, 'utf8');
    const old = JSON.parse(text) as { projects: Array<Record<string, unknown>> };
    const dir = await ensured(join(root, 'migrated', PERIOD));
    await writeFile(join(dir, 'manifest.json'), text);

    const manifest = (await readManifest(dir)) as Manifest;
    expect(manifest.projects.map((e) => e.deliveries?.email?.status)).toEqual(['sent', 'failed', undefined]);
    expect(manifest.projects[1]?.deliveries?.email).toEqual(old.projects[1]?.['email']);
    expect(manifest.projects.every((e) => !('email' in e))).toBe(true);

    await writeManifest(dir, manifest);
    const written = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { projects: Array<Record<string, unknown>> };
    expect(written.projects.map((e) => 'email' in e)).toEqual([false, false, false]);
    expect(written.projects[0]?.['deliveries']).toEqual({ email: old.projects[0]?.['email'] });
    expect((await readManifest(dir))?.projects).toEqual(manifest.projects);
  });

  it('applies a journal of that version too, and `send` goes on where it stopped: sent stays sent, failed is tried again', async () => {
    const old = JSON.parse(await readFile(fixture, 'utf8')) as Manifest & { journal?: string };
    const dir = await ensured(join(root, 'migrated-journal', PERIOD));
    const journal = '0123456789abcdef';
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...old, journal }));
    const line = {
      updatedAt: '2026-11-04T07:13:00.000Z',
      requests: old.requests,
      projects: [
        {
          ...old.projects[2],
          email: {
            status: 'sending',
            messageId: 'report-2026-10-103@northwind.example',
            at: '2026-11-04T07:12:59.000Z',
            accepted: [],
            rejected: [],
            attempts: 1,
          },
        },
      ],
    };
    await writeFile(join(dir, `manifest.${journal}.journal`), `${JSON.stringify(line)}\n`);

    const manifest = (await readManifest(dir)) as Manifest;
    expect(manifest.projects.map((e) => e.deliveries?.email?.status)).toEqual(['sent', 'failed', 'sending']);
    const clients = Object.fromEntries([101, 102, 103].map((id) => [String(id), { email: { to: [`client-${id}@client.example`] } }]));
    const plan = planDelivery(manifest, ConfigSchema.parse({ clients }), { mode: 'send', projectIds: [], resend: false, acceptHeld: false });
    expect(plan.candidates.map((c) => [c.entry.id, c.alreadyAccepted])).toEqual([[102, ['archive@northwind.example']]]);
    expect(plan.skipped.map((s) => [s.id, s.reason])).toEqual([
      [101, 'sent'],
      [103, 'unknown'],
    ]);
  });
});
