// The disk under the output folder: which errors mean it takes no more writes, how it is named, what a report
// weighs, the reserve; and a period's state when the disk refuses the manifest itself.
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/api/schemas.js';
import { PeriodState, type BatchEvent } from '../../src/batch/period-state.js';
import {
  DEFAULT_REPORT_BYTES,
  describeVolume,
  diskFullCode,
  DiskFullError,
  formatBytes,
  outputFolderError,
  reportSize,
  reserveSpace,
  RESERVE_FILE,
  statfsFreeSpace,
} from '../../src/output/disk.js';
import { FileSystemError } from '../../src/errors.js';
import { createManifestWriter, ensureDir, readManifest, type ManifestWriter, type ProjectEntry } from '../../src/output/store.js';
import { pendingEntry, periodManifest } from '../support/manifest.js';
import { toMonth } from '../../src/period.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-disk-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: refused`), { code });

describe('errors that mean the disk takes no more writes', () => {
  it('are ENOSPC, EDQUOT and EROFS, found through the chain of causes', () => {
    expect(diskFullCode(errno('ENOSPC'))).toBe('ENOSPC');
    expect(diskFullCode(errno('EDQUOT'))).toBe('EDQUOT');
    expect(diskFullCode(new Error('printing failed', { cause: new Error('write', { cause: errno('EROFS') }) }))).toBe('EROFS');
    expect(diskFullCode(errno('EACCES'))).toBeNull();
    expect(diskFullCode(errno('ENOENT'))).toBeNull();
    expect(diskFullCode('ENOSPC')).toBeNull();
    expect(diskFullCode(null)).toBeNull();
  });
});

describe('errors of the output folder', () => {
  it('name the folder and the fix: full or read-only disk, no permission, a file in the way', async () => {
    const blocked = join(dir, 'a-file');
    await writeFile(blocked, 'x');
    const notDir = await ensureDir(join(blocked, '2026-10')).catch((error: unknown) => outputFolderError(error, join(blocked, '2026-10')));
    expect(notDir).toBeInstanceOf(FileSystemError);
    expect((notDir as FileSystemError).message).toBe(
      `Cannot make the output folder ${join(blocked, '2026-10')}: a file is in the way (ENOTDIR). No report was asked for.`,
    );
    const readOnly = outputFolderError(errno('EROFS'), '/srv/out/2026-10') as DiskFullError;
    expect(readOnly).toBeInstanceOf(DiskFullError);
    expect(readOnly.message).toBe('Cannot write /srv/out/2026-10: its disk is read-only (EROFS). No report was asked for.');
    expect(readOnly.hint).toContain('Remount /srv/out/2026-10 read-write');
    expect((outputFolderError(errno('EACCES'), '/srv/out') as FileSystemError).hint).toContain('--out');
    const other = new Error('boom');
    expect(outputFolderError(other, '/srv/out')).toBe(other);
  });
});

describe('sizes and names', () => {
  it('writes sizes as a user reads them', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(600 * 1024)).toBe('600 KB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(formatBytes(11.4 * 1024 * 1024)).toBe('11 MB');
    expect(formatBytes(-3)).toBe('0 bytes');
  });

  it('names the mounted file system under a folder, the deepest mount point, escapes decoded', async () => {
    const out = join(dir, 'named out', 'reports');
    await mkdir(out, { recursive: true });
    const escaped = join(dir, 'named out').replace(/ /g, '\\040');
    const table = [
      '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
      `95 22 0:50 / ${dir} rw - tmpfs tmpfs rw,size=1024k`,
      `96 95 7:3 / ${escaped} rw,relatime - ext4 /dev/loop3 rw`,
      '',
    ].join('\n');
    expect(await describeVolume(join(out, '2026-10'), async () => table)).toBe(`/dev/loop3 (ext4) mounted at ${join(dir, 'named out')}`);
    expect(await describeVolume(dir, async () => table)).toBe(`tmpfs mounted at ${dir}`);
    expect(await describeVolume('/etc', async () => table)).toBe('/dev/sda1 (ext4) mounted at /');
    // No mount table (macOS, Windows): the caller names the folder.
    expect(await describeVolume(out, () => Promise.reject(new Error('ENOENT')))).toBeNull();
  });

  it('reads the free space of the nearest existing folder', async () => {
    const space = await statfsFreeSpace(join(dir, 'not', 'made', 'yet'));
    expect(space.free).toBeGreaterThan(0);
    expect(space.total).toBeGreaterThanOrEqual(space.free);
  });
});

describe('what a report weighs', () => {
  const entry = (id: number, slug: string, status: 'done' | 'pending'): ProjectEntry => ({
    ...pendingEntry(id, slug),
    slug,
    status,
    files: status === 'done' ? { html: `${slug}/report.html`, pdf: `${slug}/report.pdf`, data: `${slug}/data.json` } : { html: null, pdf: null, data: null },
  });

  async function reports(periodDir: string, sizes: Record<string, number>): Promise<void> {
    for (const [slug, bytes] of Object.entries(sizes)) {
      await mkdir(join(periodDir, slug), { recursive: true });
      await writeFile(join(periodDir, slug, 'report.html'), Buffer.alloc(bytes / 2));
      await writeFile(join(periodDir, slug, 'report.pdf'), Buffer.alloc(bytes / 4));
      await writeFile(join(periodDir, slug, 'data.json'), Buffer.alloc(bytes / 4));
    }
  }

  it("averages this period's done reports, else the latest other period's, else the default", async () => {
    const out = join(dir, 'sizes');
    await reports(join(out, '2026-10'), { '1-a': 400_000, '2-b': 600_000 });
    const october = { ...periodManifest(), projects: [entry(1, '1-a', 'done'), entry(2, '2-b', 'done'), entry(3, '3-c', 'pending')] };
    expect(await reportSize(out, toMonth('2026-10'), october)).toEqual({ bytes: 500_000, source: 'measured' });

    // November has nothing written yet: October's reports tell.
    await writeFile(join(out, '2026-10', 'manifest.json'), JSON.stringify(october));
    expect(await reportSize(out, toMonth('2026-11'), null)).toEqual({ bytes: 500_000, source: 'measured' });
    // A first run anywhere: the default.
    expect(await reportSize(join(dir, 'empty'), toMonth('2026-10'), null)).toEqual({ bytes: DEFAULT_REPORT_BYTES, source: 'default' });
  });
});

describe('the reserve', () => {
  it('sets room aside as a temp file a later run sweeps, and frees it', async () => {
    const periodDir = join(dir, 'reserve');
    await mkdir(periodDir);
    const release = await reserveSpace(periodDir, 64 * 1024);
    expect((await stat(join(periodDir, RESERVE_FILE))).size).toBe(64 * 1024);
    expect(RESERVE_FILE).toContain('.partial');
    await release();
    expect(await readdir(periodDir)).toEqual([]);
  });
});

describe('a period whose disk refuses the manifest', () => {
  const project = (id: number): Project => ({ id, name: `Client ${id}`, domain: `client-${id}.example`, status: 'active' });

  /** The real writer until `full.now` is set; then every write fails as on a full disk, touching nothing. */
  function fillingWriter(periodDir: string, full: { now: boolean }): ManifestWriter {
    const real = createManifestWriter(periodDir);
    const guard =
      <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
      async (...args: A): Promise<void> => {
        if (full.now) throw errno('ENOSPC');
        await write(...args);
      };
    return { whole: guard(real.whole.bind(real)), changes: guard(real.changes.bind(real)), close: guard(real.close.bind(real)) };
  }

  it('stops sending at the first refused save, and the journal on disk still tells the truth when the last write fails', async () => {
    const periodDir = join(dir, 'refused');
    await mkdir(periodDir);
    const full = { now: false };
    const events: BatchEvent[] = [];
    const state = new PeriodState({
      periodDir,
      manifest: periodManifest(),
      clock: () => new Date('2026-11-04T06:00:00.000Z'),
      requestsSent: () => ({}),
      emit: (event) => events.push(event),
      writer: fillingWriter(periodDir, full),
    });
    state.stops.describeDisk({ volume: 'tmpfs mounted at /srv', reportBytes: 500 * 1024 });
    state.select([project(1), project(2), project(3)]);
    await state.save();
    const asked = state.entry(2);
    asked.reportId = 42;
    await state.save(asked);
    expect(state.stops.stopSending()).toBe(false);

    full.now = true;
    const done = state.entry(1);
    done.status = 'done';
    await state.save(done);
    expect(state.stops.stopSending()).toBe(true);
    expect(state.stops.stopRendering()).toBe(true);
    expect(events.filter((e) => e.type === 'disk-full')).toHaveLength(1);
    expect(state.stops.stopReason()).toBe(`the disk of ${periodDir} (tmpfs mounted at /srv) is full (ENOSPC: no space left on the device)`);
    expect(state.stops.statusOf([...state.entries.values()])).toBe('disk_full');

    const settled = state.settled();
    await expect(settled).rejects.toThrow(DiskFullError);
    await expect(settled).rejects.toThrow(`Could not write ${join(periodDir, 'manifest.json')}`);
    await expect(settled).rejects.toThrow(/Its journal keeps the state of the last change that reached the disk/);
    // What the next run reads: project 2's report known by id, project 1 not done (its change never reached the disk).
    const recovered = await readManifest(periodDir);
    expect(recovered?.projects.map((e) => [e.id, e.status, e.reportId])).toEqual([
      [1, 'pending', null],
      [2, 'pending', 42],
      [3, 'pending', null],
    ]);
  });

  it('a save refused earlier is made good by the last write, which holds every entry', async () => {
    const periodDir = join(dir, 'made-good');
    await mkdir(periodDir);
    const full = { now: false };
    const state = new PeriodState({
      periodDir,
      manifest: periodManifest(),
      clock: () => new Date('2026-11-04T06:00:00.000Z'),
      requestsSent: () => ({}),
      emit: () => undefined,
      writer: fillingWriter(periodDir, full),
    });
    state.select([project(1)]);
    await state.save();
    full.now = true;
    state.entry(1).reportId = 7;
    await state.save(state.entry(1));
    full.now = false; // the reserve was freed
    await state.settled();
    expect((await readManifest(periodDir))?.projects[0]?.reportId).toBe(7);
  });
});
