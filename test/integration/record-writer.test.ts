// The serialized writer over the real manifest file: a change that reached the journal is what the next run reads,
// even when the process dies before manifest.json is rewritten.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordWriter } from '../../src/output/record-writer.js';
import { createManifestWriter, readManifest, type Manifest } from '../../src/output/store.js';
import { pendingEntry, periodManifest } from '../support/manifest.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-record-writer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('RecordWriter over the manifest', () => {
  it('a journal line survives when the whole rewrite never comes; close() leaves manifest.json alone, with every change', async () => {
    const manifest = periodManifest([pendingEntry(1), pendingEntry(2)]);
    const manifestWriter = createManifestWriter(dir);
    const writer = new RecordWriter<number>({
      file: {
        whole: () => manifestWriter.whole(manifest),
        append: (ids) =>
          manifestWriter.changes(
            manifest,
            manifest.projects.filter((entry) => ids.includes(entry.id)),
          ),
        close: () => manifestWriter.close(manifest),
      },
      onError: (error) => {
        throw error;
      },
      wholeEveryMs: 60_000,
    });
    await writer.save();
    const entry = manifest.projects[1];
    if (entry === undefined) throw new Error('no entry 2');
    entry.reportId = 42;
    await writer.save(entry.id);

    // The process dies here: manifest.json still holds the first write, the journal the change.
    const onDisk = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    expect(onDisk.projects.find((e) => e.id === 2)?.reportId).toBeNull();
    expect((await readdir(dir)).filter((name) => name.endsWith('.journal'))).toHaveLength(1);
    expect((await readManifest(dir))?.projects.find((e) => e.id === 2)?.reportId).toBe(42);

    await writer.close();
    expect(await readdir(dir)).toEqual(['manifest.json']);
    const last = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    expect(last.journal).toBeUndefined();
    expect(last.projects.find((e) => e.id === 2)?.reportId).toBe(42);
  });
});
