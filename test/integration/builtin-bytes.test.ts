// The batch without an agency template folder writes the same report.html and index.html bytes as before
// template folders existed (same simulated data, same date, same config): hashes taken on the code before.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const EXPECTED = JSON.parse(await readFile(new URL('../fixtures/builtin-html.sha256.json', import.meta.url), 'utf8')) as {
  batch: Record<string, Record<string, string>>;
};
const REPOSITORY = new URL('../../', import.meta.url).pathname;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

let rig: BatchRig;
beforeAll(async () => {
  rig = await startBatchRig();
});
afterAll(async () => {
  await rig.close();
});

/** September then October of a 12-project simulator, as the monthly runs on the 4th would make them. */
async function octoberHashes(config: Config): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'geo-bytes-'));
  let now = new Date('2026-10-04T06:00:00Z');
  const sim = await startSimulator({ tokens: [DEMO_TOKEN], projectCount: 12, clock: () => now });
  try {
    const results = await rig.runSeptemberThenOctober(
      { baseUrl: sim.url, tokens: [DEMO_TOKEN], outDir: dir, config, selection: { statuses: config.report.statuses, projectIds: [] } },
      (at) => (now = at),
    );
    for (const result of results) expect(result.summary.failed).toBe(0);
    const periodDir = join(dir, '2026-10');
    const hashes: Record<string, string> = { 'index.html': sha256(await readFile(join(periodDir, 'index.html'))) };
    const folders = (await readdir(periodDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    for (const folder of folders.sort()) hashes[`${folder}/report.html`] = sha256(await readFile(join(periodDir, folder, 'report.html')));
    return hashes;
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('batch without a template folder', () => {
  it('writes the same report.html and index.html bytes as before, with the example config', async () => {
    const { config } = await loadConfig({ path: 'config/geo-reports.json', cwd: REPOSITORY });
    expect(await octoberHashes(config)).toEqual(EXPECTED.batch['example config']);
  });

  it('writes the same bytes as before with no config at all', async () => {
    expect(await octoberHashes(ConfigSchema.parse({}))).toEqual(EXPECTED.batch['no config']);
  });
});
