import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  insideRoot,
  lockPeriod,
  projectSlug,
  readManifest,
  removeStaleTempFiles,
  writeFileAtomic,
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
