// The yearly review: after the twelve months of 2026 ran on the simulator (each on its own day), `run --period 2026`
// makes each client's review of the year from them, with no request; its GEO is December's report's, its change
// December 2026's minus December 2025's as the reports showed it, and its table holds the twelve months.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Manifest } from '../../src/output/store.js';
import { addMonths, monthlyRunDay, toMonth } from '../../src/period.js';
import { factFigure, type Fact } from '../../src/report/facts.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';

const exec = promisify(execFile);
const TOKEN = 'tok-review-year-8c2e4a6b1d3f5079';
const MONTHS = Array.from({ length: 12 }, (_, i) => addMonths(toMonth('2026-01'), i));

let sim: SimulatorHandle;
let root: string;
let now = new Date('2026-02-04T06:00:00Z');

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { PATH: process.env['PATH'], HOME: root, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url },
    cwd: root,
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    clock: () => now,
    handleSignals: false,
  });
  return { code, stdout, stderr };
}

const manifestOf = async (period: string): Promise<Manifest> => Manifest.parse(JSON.parse(await readFile(join(root, 'out', period, 'manifest.json'), 'utf8')));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-review-year-'));
  sim = await startSimulator({ projectCount: 2, tokens: [TOKEN], clock: () => now });
  for (const month of MONTHS) {
    now = monthlyRunDay(month);
    const ran = await cli(['run', '--period', month, '--out', 'out', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
  }
}, 600_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('the review of a year', () => {
  it('is made from the twelve saved months with no request', async () => {
    now = new Date('2027-01-05T06:00:00Z');
    const before = sim.state.requests.length;
    const made = await cli(['run', '--period', '2026', '--out', 'out']);
    expect(made.code, made.stderr + made.stdout).toBe(0);
    expect(sim.state.requests.length).toBe(before);
    const review = await manifestOf('2026');
    expect(review.period).toBe('2026');
    expect(review.projects.length).toBeGreaterThan(0);
    for (const entry of review.projects) {
      expect(entry.status).toBe('done');
      const december = (await manifestOf('2026-12')).projects.find((e) => e.id === entry.id);
      const data = parsePeriodData(JSON.parse(await readFile(join(root, 'out', '2026-12', december?.files.data as string), 'utf8')));
      const decGeo = factFigure(data?.facts, 'scores.geo');
      expect(entry.geo).toBe(decGeo);
      const saved = JSON.parse(await readFile(join(root, 'out', '2026', entry.files.data as string), 'utf8')) as { facts: Fact[] };
      // December 2025 was never run: its figure is the one January's report showed for it.
      const january = (await manifestOf('2026-01')).projects.find((e) => e.id === entry.id);
      const jan = parsePeriodData(JSON.parse(await readFile(join(root, 'out', '2026-01', january?.files.data as string), 'utf8')));
      const dec2025 = jan?.facts?.find((f) => (f.key === 'scores.geo.previous' && f.month === '2025-12') || f.key === 'history.geo.2025-12')?.figure ?? null;
      expect(entry.geoChange).toBe(decGeo === null || dec2025 === null ? null : decGeo - dec2025);
      for (const month of MONTHS) expect(factFigure(saved.facts, `history.geo.${month}`)).not.toBeNull();
      const html = await readFile(join(root, 'out', '2026', entry.files.html as string), 'utf8');
      expect(html).toContain('Yearly review');
      expect(html).toContain('This review covers the year 2026, month by month.');
      const { stdout } = await exec('pdfinfo', [join(root, 'out', '2026', entry.files.pdf as string)]);
      expect(stdout).toMatch(/Pages:\s+[1-9]/);
    }
  }, 180_000);
});
