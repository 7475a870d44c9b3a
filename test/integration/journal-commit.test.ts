// The events journal's group commit, on a real file: lines asked for while a flush is under way share the next
// one, and no append resolves (no delivery is answered 200) before the flush that carries its line has ended.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter, journalFile, parseJournal, type DeliveryLine } from '../../src/events/journal.js';
import { startListener } from '../../src/events/listener.js';
import { post, signatureHeaders } from '../support/webhook-sender.js';

const AT = new Date('2026-11-12T09:00:00Z');

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-journal-commit-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function delivery(id: string): DeliveryLine {
  return {
    type: 'delivery',
    id,
    receivedAt: AT.toISOString(),
    kind: 'scan.completed',
    kindText: 'scan.completed',
    projectId: 7,
    timestamp: null,
    scores: { geo: { before: null, after: null }, seo: { before: null, after: null } },
    known: { geo: null, seo: null },
    payload: { id },
  };
}

/** A flush the test holds until it lets it go: what the disk did before each one ended, and how many there were. */
function heldFlushes(file: string): {
  sync: (handle: FileHandle) => Promise<void>;
  started: Array<{ linesOnDisk: number }>;
  release(): void;
  whenStarted(count: number): Promise<void>;
} {
  const started: Array<{ linesOnDisk: number }> = [];
  const waiting: Array<() => void> = [];
  const watchers: Array<{ count: number; wake: () => void }> = [];
  return {
    started,
    async sync(handle) {
      const text = await readFile(file, 'utf8');
      started.push({ linesOnDisk: text.split('\n').length - 1 });
      for (const watcher of watchers.filter((w) => started.length >= w.count)) watcher.wake();
      await new Promise<void>((go) => waiting.push(go));
      await handle.datasync();
    },
    release() {
      for (const go of waiting.splice(0)) go();
    },
    whenStarted(count) {
      if (started.length >= count) return Promise.resolve();
      return new Promise((wake) => watchers.push({ count, wake }));
    },
  };
}

describe('the events journal', () => {
  it('flushes the lines that arrived during a flush together, and resolves none before its flush has ended', async () => {
    const dir = join(root, 'grouped');
    const flushes = heldFlushes(journalFile(dir, AT));
    const writer = new JournalWriter(dir, { sync: flushes.sync });
    const resolved: string[] = [];
    const append = (id: string): Promise<void> => writer.append([delivery(id)], AT).then(() => void resolved.push(id));

    const first = append('evt_0');
    await flushes.whenStarted(1);
    // 49 more arrive while the first one's flush is held: none of them is answered, nor the first.
    const rest = Array.from({ length: 49 }, (_, i) => append(`evt_${i + 1}`));
    await new Promise((wait) => setTimeout(wait, 50));
    expect(resolved).toEqual([]);
    flushes.release();
    await first;
    expect(resolved).toEqual(['evt_0']);
    // The 49 share the next flush: it starts with all of them written, and they wait until it ends.
    await flushes.whenStarted(2);
    expect(flushes.started).toEqual([{ linesOnDisk: 1 }, { linesOnDisk: 50 }]);
    await new Promise((wait) => setTimeout(wait, 50));
    expect(resolved).toEqual(['evt_0']);
    flushes.release();
    await Promise.all(rest);
    expect(resolved).toHaveLength(50);
    expect(flushes.started).toHaveLength(2);
    await writer.close();

    const lines = parseJournal(await readFile(journalFile(dir, AT), 'utf8'));
    expect(lines.map((line) => (line.type === 'delivery' ? line.id : line.type))).toEqual(Array.from({ length: 50 }, (_, i) => `evt_${i}`));
  });

  it('flushes an append asked for as the one before it resolves, without waiting for another append', async () => {
    const writer = new JournalWriter(join(root, 'one-after-another'));
    // One after the other, as a caller that appends the next line once the last is on disk: each must be flushed.
    for (let i = 0; i < 5; i += 1) await writer.append([delivery(`evt_${i}`)], AT);
    await writer.close();
    expect(parseJournal(await readFile(journalFile(join(root, 'one-after-another'), AT), 'utf8'))).toHaveLength(5);
  }, 10_000);

  it('rejects the appends of a flush that failed, and cuts their lines off the file', async () => {
    const dir = join(root, 'failed');
    let calls = 0;
    const writer = new JournalWriter(dir, {
      sync: async (handle) => {
        calls += 1;
        if (calls === 2) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        await handle.datasync();
      },
    });
    await writer.append([delivery('kept')], AT);
    await expect(writer.append([delivery('lost')], AT)).rejects.toThrow(/EIO/);
    await writer.append([delivery('after')], AT);
    await writer.close();
    const lines = parseJournal(await readFile(journalFile(dir, AT), 'utf8'));
    expect(lines.map((line) => (line.type === 'delivery' ? line.id : line.type))).toEqual(['kept', 'after']);
  }, 10_000);

  it('writes the outcomes that raise no alert together, while the next deliveries are decided, in the order received', async () => {
    const dir = join(root, 'outcomes');
    const secret = 'whsec_commit5f1a9c3b7d20468ace13579bdf02468ace13579bd';
    let flushes = 0;
    const listener = await startListener({
      dir,
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      secrets: [secret],
      toleranceSeconds: 300,
      policy: { minDrop: 5, cooldownMinutes: 60 },
      channels: [],
      message: () => Promise.reject(new Error('no alert is raised here')),
      log: () => undefined,
      // A disk whose flush takes 20 ms: what arrives meanwhile can share the next one.
      journalSync: async (handle) => {
        flushes += 1;
        await new Promise((wait) => setTimeout(wait, 20));
        await handle.datasync();
      },
    });
    const ids = Array.from({ length: 30 }, (_, i) => `evt_scan_${i}`);
    try {
      // All at once, as a service sends when a scan of many projects ends.
      const answers = await Promise.all(
        ids.map((id) => {
          const body = JSON.stringify({ id, event: 'scan.completed', created_at: new Date().toISOString(), data: { project_id: 7 } });
          return post(listener.url, body, signatureHeaders(secret, body, 'sha256=hex'));
        }),
      );
      expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
      await listener.idle();
    } finally {
      await listener.close();
    }
    // The 30 deliveries share a few flushes. An outcome written (and waited for) before the next delivery is
    // decided takes one flush of its own, 30 more; decided while the last is written, they share a few too.
    expect(flushes).toBeLessThan(20);
    const lines = parseJournal(await readFile(journalFile(dir, new Date()), 'utf8'));
    const received = lines.flatMap((line) => (line.type === 'delivery' ? [line.id] : []));
    expect([...received].sort()).toEqual([...ids].sort());
    // Acted on in the order they were stored.
    expect(lines.flatMap((line) => (line.type === 'outcome' ? [line.id] : []))).toEqual(received);
    expect(new Set(lines.flatMap((line) => (line.type === 'outcome' ? [line.outcome] : [])))).toEqual(new Set(['recorded']));
  }, 20_000);
});
