// A done report whose files are gone (a fresh runner that restored the period's manifest and data.json from the
// history branch) is made again from its data.json: the same HTML, the same PDF text with the scan sections (on
// by default) as first printed, and no request.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, type Manifest } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';

const exec = promisify(execFile);
const PERIOD = '2026-10';
const TOKEN = 'tok-remake-9a3c5e7b1d2f4a60';

let root: string;
let sim: SimulatorHandle;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-remake-'));
  sim = await startSimulator({ tokens: [TOKEN], projectCount: 6, clock: () => new Date('2026-11-04T06:00:00Z') });
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const run = () =>
  runCli(['run', '--period', PERIOD, '--out', 'out', '--json'], {
    env: { PATH: process.env['PATH'], HOME: root, AGENCY_API_BASE_URL: sim.url, AGENCY_API_TOKEN: TOKEN },
    cwd: root,
  });

describe('a done report whose files are gone', () => {
  it('is made again from its data.json: the same HTML, a PDF that opens, no report request', async () => {
    expect((await run()).code).toBe(0);
    const periodDir = join(root, 'out', PERIOD);
    const manifest = (await readManifest(periodDir)) as Manifest;
    const [first, second] = manifest.projects;
    const html = await readFile(join(periodDir, first?.files.html as string));
    const pdfText = async (file: string | null | undefined) => (await exec('pdftotext', [join(periodDir, file as string), '-'])).stdout;
    const printed = await pdfText(first?.files.pdf);
    // The scan sections are on without any config, and the first printing shows them.
    for (const title of ['Keyword rankings', 'Page experience', 'What AI assistants answer']) expect(printed).toContain(title);
    await rm(join(periodDir, first?.files.html as string));
    await rm(join(periodDir, first?.files.pdf as string));
    await rm(join(periodDir, second?.files.pdf as string));
    const from = sim.state.requests.length;
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(sim.state.requests.slice(from).filter((r) => r.endpoint === 'reports.php' || r.endpoint === 'scans.php')).toEqual([]);
    expect(again.stdout).toContain('2 of 2 done report(s) made again from their data.json');
    expect(await readFile(join(periodDir, first?.files.html as string))).toEqual(html);
    // The same sections and the same words, page for page, as when it was first printed.
    expect(await pdfText(first?.files.pdf)).toBe(printed);
    for (const entry of [first, second]) {
      const { stdout } = await exec('pdfinfo', [join(periodDir, entry?.files.pdf as string)]);
      expect(stdout).toMatch(/Pages:\s+[1-9]/);
    }
    const after = (await readManifest(periodDir)) as Manifest;
    expect(after.status).toBe('complete');
    expect(after.projects.map((p) => p.files)).toEqual(manifest.projects.map((p) => p.files));
  });
});
