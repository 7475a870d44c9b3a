import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createManifestWriter,
  insideRoot,
  lockPeriod,
  projectSlug,
  readManifest,
  removeStaleTempFiles,
  writeFileAtomic,
  type Manifest,
  type ProjectEntry,
} from '../../src/output/store.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('projectSlug', () => {
  it('leads with the id and keeps only ASCII letters, digits and dashes', () => {
    expect(projectSlug(101, 'Boulangerie Martin')).toBe('101-boulangerie-martin');
    expect(projectSlug(7, 'Café Crème & Co.')).toBe('7-cafe-creme-co');
  });

  it('neutralises path tricks, NUL, markup and non-Latin names', () => {
    for (const name of ['../../etc/passwd', 'a/b\\c', 'x\u0000y', '<script>alert(1)</script>', '東京ラーメン', '..', '']) {
      const slug = projectSlug(42, name);
      expect(slug).toMatch(/^42(-[a-z0-9]+)*$/);
      expect(insideRoot(dir, slug).startsWith(dir)).toBe(true);
    }
    expect(projectSlug(42, '東京ラーメン')).toBe('42');
  });

  it('bounds the length', () => {
    expect(projectSlug(1, 'x'.repeat(300)).length).toBeLessThanOrEqual(60);
  });
});

describe('insideRoot', () => {
  it('refuses a path that escapes the root', () => {
    expect(() => insideRoot(dir, '..', 'x')).toThrow(/outside the output folder/);
    expect(() => insideRoot(dir, '/etc/passwd')).toThrow(/outside the output folder/);
    expect(insideRoot(dir, '2026-10', 'a')).toBe(join(dir, '2026-10', 'a'));
  });
});

describe('atomic writes', () => {
  it('replaces the file whole and leaves no temp file', async () => {
    const path = join(dir, 'a.json');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, 'two');
    expect(await readFile(path, 'utf8')).toBe('two');
    expect((await readdir(dir)).filter((f) => f.startsWith('a.json'))).toEqual(['a.json']);
  });

  it('removes temp files a killed run left behind, at any depth', async () => {
    const nested = join(dir, 'period', 'client');
    await mkdir(nested, { recursive: true });
    // The printer's temp file, and writeFileAtomic's.
    await writeFile(join(nested, 'report.pdf.partial'), 'half a pdf');
    await writeFile(join(dir, 'period', `manifest.json.partial-${process.pid}-0a1b2c3d`), '{');
    await writeFile(join(nested, 'report.html'), '<html>');
    expect(await removeStaleTempFiles(join(dir, 'period'))).toBe(2);
    expect(await readdir(nested)).toEqual(['report.html']);
    expect(await removeStaleTempFiles(join(dir, 'absent'))).toBe(0);
  });
});

describe('manifest', () => {
  it('is null when absent and a clear error when damaged', async () => {
    expect(await readManifest(join(dir, 'none'))).toBeNull();
    await mkdir(join(dir, 'damaged'), { recursive: true });
    await writeFile(join(dir, 'damaged', 'manifest.json'), '{"period": "2026-10", "status": "wat"');
    await expect(readManifest(join(dir, 'damaged'))).rejects.toThrow(/damaged/);
  });

  it('the run\'s writer writes exactly what JSON.stringify would, write after write, as entries change', async () => {
    const periodDir = join(dir, 'writer');
    await mkdir(periodDir, { recursive: true });
    const entry = (id: number, name: string): ProjectEntry => ({
      id,
      name,
      slug: `${id}-x`,
      status: 'pending',
      notes: [],
      files: { html: null, pdf: null, data: null },
      held: [],
      released: false,
      reportId: null,
      geo: null,
      geoChange: null,
      percentile: null,
      openCritical: 0,
      updatedAt: '2026-11-04T06:00:00.000Z',
    });
    const manifest: Manifest = {
      period: '2026-10',
      status: 'partial',
      startedAt: '2026-11-04T06:00:00.000Z',
      updatedAt: '2026-11-04T06:00:00.000Z',
      runs: 1,
      projects: [],
      requests: { total: 0, byToken: {} },
    };
    const write = createManifestWriter(periodDir);
    const expectSameAsStringify = async (): Promise<void> => {
      await write(manifest);
      expect(await readFile(join(periodDir, 'manifest.json'), 'utf8')).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
      expect(await readManifest(periodDir)).toEqual(manifest);
    };
    await expectSameAsStringify();
    const a = entry(101, 'Boulangerie "Martin"\nÉtoile ☕ 東京');
    const b = entry(102, 'Atelier Verdant');
    manifest.projects = [a, b];
    await expectSameAsStringify();
    // Changed in place, as the run does: a nested field, an array, a key added then removed.
    a.reportId = 9001;
    b.files.pdf = '102-x/report.pdf';
    b.held.push('GEO score dropped by 25 points');
    b.error = 'Printing failed';
    await expectSameAsStringify();
    delete b.error;
    b.status = 'done';
    manifest.requests = { total: 3, byToken: { 'token#1 (…e1f0)': 3 } };
    await expectSameAsStringify();
    manifest.projects = [b, a, entry(103, 'Third')];
    await expectSameAsStringify();
    manifest.projects = [entry(104, 'Alone')];
    await expectSameAsStringify();
    expect((await readdir(periodDir)).sort()).toEqual(['manifest.json']);
  });
});

describe('period lock', () => {
  it('refuses a second writer while the first is alive, and takes over a lock left by a dead process', async () => {
    const period = join(dir, 'locked');
    await mkdir(period, { recursive: true });
    // Our parent process stands for another live run.
    const release = await lockPeriod(period, process.ppid);
    await expect(lockPeriod(period)).rejects.toThrow(`Another run (process ${process.ppid})`);
    await release();
    const mine = await lockPeriod(period);
    await mine();
    await writeFile(join(period, '.run.lock'), '2147483646');
    const takenOver = await lockPeriod(period);
    expect(await readFile(join(period, '.run.lock'), 'utf8')).toBe(String(process.pid));
    await takenOver();
    expect(await readdir(period)).toEqual([]);
  });
});
