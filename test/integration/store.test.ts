import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createManifestWriter,
  insideRoot,
  lockFolder,
  projectSlug,
  readManifest,
  removeStaleTempFiles,
  writeFileAtomic,
  writeManifest,
  type Manifest,
  type ProjectEntry,
} from '../../src/output/store.js';
import { pendingEntry, periodManifest } from '../support/manifest.js';

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

  it("the run's writer: whole writes name a journal, changes go to it, readManifest gives the last save, close leaves one file", async () => {
    const periodDir = join(dir, 'writer');
    await mkdir(periodDir, { recursive: true });
    const a = pendingEntry(101, 'Boulangerie "Martin"\nÉtoile ☕ 東京');
    const b = pendingEntry(102, 'Atelier Verdant');
    const manifest = periodManifest([a, b]);
    const files = async (): Promise<string[]> => (await readdir(periodDir)).sort();
    const writer = createManifestWriter(periodDir);
    await writer.whole(manifest);
    const first = JSON.parse(await readFile(join(periodDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(first.journal).toMatch(/^[0-9a-f]{16}$/);
    expect(await readManifest(periodDir)).toEqual(structuredClone(manifest));
    expect(await files()).toEqual(['manifest.json']); // the journal is created by the first change

    // Changed in place, as the run does: a nested field, an array, a key added.
    a.reportId = 9001;
    b.files.pdf = '102-x/report.pdf';
    b.held.push('GEO score dropped by 25 points');
    b.error = 'Printing failed';
    manifest.requests = { total: 3, byToken: { 'token#1 (…e1f0)': 3 } };
    manifest.updatedAt = '2026-11-04T06:01:00.000Z';
    await writer.changes(manifest, [a]);
    await writer.changes(manifest, [b]);
    // manifest.json is left as it was; the journal carries the changes.
    expect(JSON.parse(await readFile(join(periodDir, 'manifest.json'), 'utf8'))).toEqual(first);
    expect(await files()).toEqual([`manifest.${first.journal}.journal`, 'manifest.json']);
    expect(await readManifest(periodDir)).toEqual(structuredClone(manifest));

    // A kill in the middle of a line: the cut line is not counted, the lines before it are.
    const journalPath = join(periodDir, `manifest.${first.journal}.journal`);
    const whole = await readFile(journalPath, 'utf8');
    await writeFile(journalPath, `${whole}{"updatedAt":"2026-11-04T06:02:00.000Z","requests":{"to`);
    expect(await readManifest(periodDir)).toEqual(structuredClone(manifest));
    // A damaged line followed by others is not a cut: the manifest is refused, not half read.
    await writeFile(journalPath, `{"nonsense":true}\n${whole}`);
    await expect(readManifest(periodDir)).rejects.toThrow(/journal .* is damaged/);
    await writeFile(journalPath, whole);

    // A whole write starts a new journal and removes the old one.
    delete b.error;
    b.status = 'done';
    const c = pendingEntry(103, 'Third');
    manifest.projects = [a, b, c];
    await writer.whole(manifest);
    const second = JSON.parse(await readFile(join(periodDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(second.journal).not.toBe(first.journal);
    expect(await files()).toEqual(['manifest.json']);
    c.status = 'failed';
    await writer.changes(manifest, [c]);
    expect(await readManifest(periodDir)).toEqual(structuredClone(manifest));

    // Closing writes exactly what JSON.stringify would, and nothing else is left.
    await writer.close(manifest);
    expect(await readFile(join(periodDir, 'manifest.json'), 'utf8')).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(await files()).toEqual(['manifest.json']);
    expect(await readManifest(periodDir)).toEqual(structuredClone(manifest));
  });

  it('a journal line costs the same with 10 projects or 2000: only the changed entry is written', async () => {
    const sizes: number[] = [];
    for (const count of [10, 2000]) {
      const periodDir = join(dir, `journal-${count}`);
      await mkdir(periodDir, { recursive: true });
      const projects = Array.from({ length: count }, (_, i) => pendingEntry(i + 1));
      const manifest = periodManifest(projects);
      const writer = createManifestWriter(periodDir);
      await writer.whole(manifest);
      const last = projects[count - 1] as ProjectEntry;
      last.status = 'done';
      await writer.changes(manifest, [last]);
      const journal = (await readdir(periodDir)).find((name) => name.endsWith('.journal')) as string;
      sizes.push((await readFile(join(periodDir, journal))).byteLength);
      expect((await readManifest(periodDir))?.projects[count - 1]?.status).toBe('done');
    }
    expect(sizes[1]).toBeLessThanOrEqual((sizes[0] as number) + 8); // only the id's digits differ
  });

  it('writeManifest writes the whole manifest and removes a journal left by a killed run', async () => {
    const periodDir = join(dir, 'after-kill');
    await mkdir(periodDir, { recursive: true });
    const entry = pendingEntry(7, 'Seven');
    const manifest = periodManifest([entry]);
    const writer = createManifestWriter(periodDir);
    await writer.whole(manifest);
    entry.reportId = 77; // saved to the journal only: then the run is killed
    await writer.changes(manifest, [entry]);
    expect((await readdir(periodDir)).filter((name) => name.endsWith('.journal'))).toHaveLength(1);
    const read = (await readManifest(periodDir)) as Manifest;
    expect(read.journal).toBeUndefined();
    expect(read.projects[0]?.reportId).toBe(77);
    await writeManifest(periodDir, read);
    expect(await readdir(periodDir)).toEqual(['manifest.json']);
    expect(await readManifest(periodDir)).toEqual(read);
  });

  it('a writer that has closed refuses any later write: the folder may belong to another run by then', async () => {
    const periodDir = join(dir, 'closed');
    await mkdir(periodDir, { recursive: true });
    const manifest = periodManifest([], 'complete');
    const writer = createManifestWriter(periodDir);
    await writer.whole(manifest);
    await writer.close(manifest);
    const after = await readFile(join(periodDir, 'manifest.json'), 'utf8');
    await expect(writer.changes({ ...manifest, status: 'partial' }, [])).rejects.toThrow(/for the last time/);
    await expect(writer.whole({ ...manifest, status: 'partial' })).rejects.toThrow(/for the last time/);
    expect(await readFile(join(periodDir, 'manifest.json'), 'utf8')).toBe(after);
    expect(await readdir(periodDir)).toEqual(['manifest.json']);
  });
});

describe('period lock', () => {
  it('refuses a second writer while the first is alive, and takes over a lock left by a dead process', async () => {
    const period = join(dir, 'locked');
    await mkdir(period, { recursive: true });
    // Our parent process stands for another live run.
    const release = await lockFolder(period, process.ppid);
    await expect(lockFolder(period)).rejects.toThrow(`Another run (process ${process.ppid})`);
    await release();
    const mine = await lockFolder(period);
    await mine();
    await writeFile(join(period, '.run.lock'), '2147483646');
    const takenOver = await lockFolder(period);
    expect(await readFile(join(period, '.run.lock'), 'utf8')).toBe(String(process.pid));
    await takenOver();
    expect(await readdir(period)).toEqual([]);
  });
});
