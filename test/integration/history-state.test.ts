// The period's state in the history branch, as the workflows read it: who made it and its counts (`status
// --json`), and a restore onto a folder a cache filled first, where the newer manifest is kept with every record
// of a mail either copy holds. A bare git repository stands for the repository.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { historyPeriod, restoreHistory, saveHistory, type HistoryStorage } from '../../src/history/branch.js';
import { Manifest, readManifest, writeManifest } from '../../src/output/store.js';
import { runCli } from '../support/cli.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const PERIOD = toMonth('2026-10');

let root: string;
let storage: HistoryStorage;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-history-state-'));
});
// Each test starts from a repository of its own, with no history branch yet.
beforeEach(async () => {
  const remote = await mkdtemp(join(root, 'origin-'));
  await exec('git', ['init', '-q', '--bare', remote]);
  storage = { remote, branch: 'reports-history', env: { PATH: process.env['PATH'] }, log: () => undefined };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const sent = (id: number) => ({ email: { status: 'sent' as const, messageId: `<${id}@reports.example>`, at: '2026-11-04T07:00:00Z' } });

function manifest(
  updatedAt: string,
  entries: Array<{ id: number; status?: 'done' | 'pending'; deliveries?: ReturnType<typeof sent> }>,
  extra: Partial<Manifest> = {},
): Manifest {
  return Manifest.parse({
    period: PERIOD,
    status: entries.every((e) => (e.status ?? 'done') === 'done') ? 'complete' : 'partial',
    startedAt: '2026-11-04T06:00:00Z',
    updatedAt,
    runs: 1,
    requests: { total: 0, byToken: {} },
    projects: entries.map(({ id, status = 'done', deliveries }) => ({
      id,
      name: `Client ${id}`,
      slug: `${id}-client`,
      status,
      files: { html: null, pdf: null, data: null },
      updatedAt,
      ...(deliveries === undefined ? {} : { deliveries }),
    })),
    ...extra,
  });
}

async function saveToBranch(m: Manifest): Promise<void> {
  const out = await mkdtemp(join(root, 'save-'));
  await mkdir(join(out, PERIOD));
  await writeManifest(join(out, PERIOD), m);
  await saveHistory(storage, out, 13);
}

describe('the history branch as the workflows read it', () => {
  it('status --json: who made the period, and its projects counted, no client named', async () => {
    expect(await historyPeriod(storage, PERIOD)).toMatchObject({ status: 'none', madeBy: 'none', projects: 0 });
    await saveToBranch(manifest('2026-11-04T08:00:00Z', [{ id: 1, deliveries: sent(1) }, { id: 2 }, { id: 3, status: 'pending' }], { shards: ['1/2', '2/2'] }));
    const result = await runCli(['history', 'status', '--storage', storage.remote, '--period', PERIOD, '--json'], {
      env: { PATH: process.env['PATH'] },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const saved = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(saved).toEqual({
      period: PERIOD,
      status: 'partial',
      madeBy: 'shards',
      shards: ['1/2', '2/2'],
      projects: 3,
      done: 2,
      pending: 1,
      failed: 0,
      held: 0,
      unsent: 1,
    });
    expect(result.stdout).not.toContain('Client');
  });

  it('restore onto a folder a cache filled: the newer manifest kept, with the reports and mails only the older one recorded', async () => {
    // The branch: saved later, knows of the mail to 1. The cache: older, knows of the mail to 2 (its push failed).
    await saveToBranch(manifest('2026-11-05T08:00:00Z', [{ id: 1, deliveries: sent(1) }, { id: 2 }]));
    const out = await mkdtemp(join(root, 'runner-'));
    await mkdir(join(out, PERIOD));
    await writeManifest(join(out, PERIOD), manifest('2026-11-04T09:00:00Z', [{ id: 1 }, { id: 2, deliveries: sent(2) }, { id: 9 }]));
    await restoreHistory(storage, out);
    const kept = (await readManifest(join(out, PERIOD))) as Manifest;
    expect(kept.updatedAt).toBe('2026-11-05T08:00:00Z');
    expect(kept.projects.map((p) => [p.id, p.deliveries?.email?.messageId ?? null])).toEqual([
      [1, '<1@reports.example>'],
      [2, '<2@reports.example>'],
      // A report only the cache knows stays: the period's state only grows.
      [9, null],
    ]);
  });

  it('restore keeps a newer folder as it is, and adds the mails only the branch recorded', async () => {
    await saveToBranch(manifest('2026-11-05T08:00:00Z', [{ id: 1, deliveries: sent(1) }, { id: 2 }]));
    const out = await mkdtemp(join(root, 'runner-'));
    await mkdir(join(out, PERIOD));
    await writeManifest(join(out, PERIOD), manifest('2026-11-06T08:00:00Z', [{ id: 1 }, { id: 2, deliveries: sent(2) }, { id: 3 }]));
    await restoreHistory(storage, out);
    const kept = (await readManifest(join(out, PERIOD))) as Manifest;
    expect(kept.updatedAt).toBe('2026-11-06T08:00:00Z');
    expect(kept.projects.map((p) => [p.id, p.deliveries?.email?.messageId ?? null])).toEqual([
      [1, '<1@reports.example>'],
      [2, '<2@reports.example>'],
      [3, null],
    ]);
  });
});
