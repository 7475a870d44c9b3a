import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/api/schemas.js';
import { PeriodState } from '../../src/batch/period-state.js';
import { readManifest, type Manifest } from '../../src/output/store.js';
import { periodManifest } from '../support/manifest.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-period-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const project = (id: number): Project => ({ id, name: `Client ${id}`, domain: `client-${id}.example`, status: 'active' });

function stateIn(periodDir: string): PeriodState {
  const manifest = periodManifest();
  let requests = 0;
  return new PeriodState({
    periodDir,
    manifest,
    clock: () => new Date('2026-11-04T06:00:00.000Z'),
    requestsSent: () => ({ 'token#1': (requests += 1) }),
    emit: () => undefined,
  });
}

describe('PeriodState saves', () => {
  it('a project change goes to the journal; settled() writes the whole manifest last, even after a save nobody awaited', async () => {
    const periodDir = join(dir, 'unawaited');
    const state = stateIn(periodDir);
    await mkdir(periodDir, { recursive: true });
    state.select([project(1), project(2)]);
    await state.save();
    const entry = state.entry(2);
    entry.reportId = 42;
    await state.save(entry);
    // The change is on disk before the next whole write, in the journal manifest.json names.
    expect((await readdir(periodDir)).filter((name) => name.endsWith('.journal'))).toHaveLength(1);
    expect((await readManifest(periodDir))?.projects.find((e) => e.id === 2)?.reportId).toBe(42);

    entry.status = 'done';
    void state.save(entry); // asked for, not awaited: settled() must still come after it
    await state.settled();
    expect(await readdir(periodDir)).toEqual(['manifest.json']);
    const written = JSON.parse(await readFile(join(periodDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(written.journal).toBeUndefined();
    expect(written.projects.find((e) => e.id === 2)?.status).toBe('done');
  });
});
