// The monthly batch end to end, in process: simulator on loopback, real Chromium, real files in a temp folder.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportOne } from '../support/classic-schemas.js';
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { Manifest } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig, type TestBatch } from '../support/batch.js';
import { toMonth } from '../../src/period.js';

const run = promisify(execFile);
const PERIOD = toMonth('2026-10');
const TOKEN_A = 'tok-batch-aaaaaaaaaaaaaaaa1111';
const TOKEN_B = 'tok-batch-bbbbbbbbbbbbbbbb2222';

let rig: BatchRig;
let root: string;
const simulators: SimulatorHandle[] = [];

beforeAll(async () => {
  rig = await startBatchRig();
  root = await mkdtemp(join(tmpdir(), 'geo-batch-'));
});

afterAll(async () => {
  await rig.close();
  await Promise.all(simulators.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

/** A mutable clock shared by the simulator and the client, so a test can move to the next quota day. */
function mutableClock(iso: string): { now: () => Date; advanceDays(n: number): void } {
  let t = Date.parse(iso);
  return { now: () => new Date(t), advanceDays: (n) => (t += n * 86_400_000) };
}

async function simulator(options: SimulatorOptions): Promise<SimulatorHandle> {
  const sim = await startSimulator(options);
  simulators.push(sim);
  return sim;
}

/** The October batch of `sim` into `out` with `tokens`. */
function batch(sim: SimulatorHandle, out: string, tokens: string[], overrides: Partial<TestBatch> = {}) {
  return rig.run({ baseUrl: sim.url, tokens, period: PERIOD, outDir: out, ...overrides });
}

const reportPosts = (sim: SimulatorHandle) => sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'POST');

async function pdfText(path: string): Promise<string> {
  const { stdout } = await run('pdftotext', ['-layout', path, '-'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

describe('monthly batch against 30 simulated projects', () => {
  let sim: SimulatorHandle;
  let out: string;
  let first: Awaited<ReturnType<typeof batch>>;

  beforeAll(async () => {
    sim = await simulator({ projectCount: 30, tokens: [TOKEN_A], clock: () => new Date('2026-11-04T06:00:00Z') });
    out = join(root, 'clean');
    first = await batch(sim, out, [TOKEN_A]);
  }, 240_000);

  it('reports every active project, with HTML, PDF and raw data', async () => {
    const active = sim.state.projects().filter((p) => p.status === 'active');
    expect(active.length).toBeGreaterThanOrEqual(15);
    expect(first.status).toBe('complete');
    expect(first.summary.done).toBe(active.length);
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    expect(manifest.projects.map((p) => p.id).sort()).toEqual(active.map((p) => p.id).sort());
    for (const entry of manifest.projects) {
      expect(entry.status).toBe('done');
      const files = await readdir(join(out, PERIOD, entry.slug));
      expect(files.sort()).toEqual(['data.json', 'report.html', 'report.pdf']);
    }
    const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
    for (const entry of manifest.projects) expect(index).toContain(`${entry.slug}/report.pdf`);
    // The run's journal is gone with it: manifest.json alone holds the period, and names no journal.
    expect((await readdir(join(out, PERIOD))).filter((name) => name.includes('journal'))).toEqual([]);
    expect(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8'))).not.toHaveProperty('journal');
  });

  it('puts the recommendations, scores, metrics and trust data into each PDF', async () => {
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    for (const entry of manifest.projects.slice(0, 4)) {
      const data = JSON.parse(await readFile(join(out, PERIOD, entry.files.data as string), 'utf8')) as { report: unknown };
      const text = (await pdfText(join(out, PERIOD, entry.files.pdf as string))).replace(/\s+/g, ' ');
      const sections = ReportOne.parse(data.report).sections;
      const recommendations = sections?.recommendations ?? [];
      const platforms = sections?.trust?.review_platforms ?? [];
      expect(recommendations.length).toBeGreaterThan(0);
      expect(platforms.length).toBeGreaterThan(0);
      for (const rec of recommendations) expect(text).toContain(rec.title.slice(0, 30));
      // The GEO score shown is the history's October (the answer of 4 November holds November's scan too).
      const october = (sections?.history ?? []).filter((point) => point.date.startsWith(PERIOD)).at(-1);
      expect(text).toContain(`GEO score of ${String(october?.geo_score ?? Number.NaN)}`);
      for (const platform of platforms) expect(text).toContain(platform.name);
      expect(text).toMatch(/Citations/i);
      expect(text).toMatch(/Page 1 of \d+/);
    }
  });

  it('stays within 1.02 × the request floor, counted at the simulator', () => {
    const received = sim.state.requests.length;
    expect(first.plan.floor).toBeGreaterThan(0);
    expect(received).toBeLessThanOrEqual(Math.floor(first.plan.floor * 1.02));
    expect(reportPosts(sim)).toHaveLength(first.summary.done);
    // The manifest counts what was sent, listing included, per token.
    expect(first.manifest.requests.total).toBe(received);
    expect(first.summary.requests.total).toBe(received);
    expect(Object.values(first.manifest.requests.byToken)).toEqual([received]);
  });

  it('sends no report request when the same period runs again', async () => {
    const before = sim.state.requests.length;
    const again = await batch(sim, out, [TOKEN_A]);
    const added = sim.state.requests.slice(before);
    expect(again.status).toBe('complete');
    expect(added.filter((r) => r.endpoint === 'reports.php')).toHaveLength(0);
    expect(added.every((r) => r.endpoint === 'projects.php')).toBe(true);
  });
});

describe('quota', () => {
  // The report's own requests against the quota; the scan sections' (on by default) are counted in scan-sections.test.ts.
  const REPORTS_ONLY = ConfigSchema.parse({ report: { language: 'en', sections: { keywords: false, pageExperience: false, aiAnswers: false } } });
  it('stops at the first 429, exits quota_exhausted, and finishes the next day without asking a report twice', async () => {
    const clock = mutableClock('2026-11-04T06:00:00Z');
    const sim = await simulator({ projectCount: 14, tokens: [TOKEN_A], dailyLimit: 7, clock: clock.now });
    const out = join(root, 'quota');
    const active = sim.state.projects().filter((p) => p.status === 'active').length;
    expect(active).toBeGreaterThan(5);

    const day1 = await batch(sim, out, [TOKEN_A], { clock: clock.now, config: REPORTS_ONLY });
    expect(day1.status).toBe('quota_exhausted');
    // The ledger stops sending at the limit: the server never served more than the quota, and nothing after a 429.
    const served = sim.state.requests.filter((r) => r.status !== 429);
    expect(served.length).toBeLessThanOrEqual(7);
    // Knowing the usage from every answer, the ledger stops before the server has to refuse anything.
    expect(sim.state.requests.some((r) => r.status === 429)).toBe(false);
    expect(day1.summary.pending).toBeGreaterThan(0);
    const manifest1 = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    expect(manifest1.status).toBe('quota_exhausted');

    clock.advanceDays(1);
    const day2 = await batch(sim, out, [TOKEN_A], { clock: clock.now, config: REPORTS_ONLY });
    // 7 requests a day may not be enough for everything left: keep going day by day, bounded.
    let last = day2;
    for (let day = 0; day < 5 && last.status === 'quota_exhausted'; day += 1) {
      clock.advanceDays(1);
      last = await batch(sim, out, [TOKEN_A], { clock: clock.now, config: REPORTS_ONLY });
    }
    expect(last.status).toBe('complete');
    expect(last.summary.done).toBe(active);
    const servedPosts = reportPosts(sim).filter((r) => r.status === 200);
    const perProject = new Map<unknown, number>();
    for (const r of servedPosts) {
      const id = (r.body as { project_id: number }).project_id;
      perProject.set(id, (perProject.get(id) ?? 0) + 1);
    }
    expect(perProject.size).toBe(active);
    expect([...perProject.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it('after a 429 on one token, sends nothing more to it and the next token takes over', async () => {
    const clock = () => new Date('2026-11-04T06:00:00Z');
    const sim = await simulator({ projectCount: 14, tokens: [TOKEN_A, TOKEN_B], dailyLimit: 40, clock });
    // A colleague's script already spent token B's day: the ledger cannot know before asking.
    const colleague = new ApiClient({ baseUrl: sim.url, tokens: new TokenPool([TOKEN_B], { clock }), clock });
    for (let i = 0; i < 40; i += 1) await colleague.getStats();
    await colleague.close();
    const before = sim.state.requests.length;

    const active = sim.state.projects().filter((p) => p.status === 'active').length;
    const result = await batch(sim, join(root, 'spent-token'), [TOKEN_A, TOKEN_B], { clock, config: REPORTS_ONLY });
    const mine = sim.state.requests.slice(before);
    const refused = mine.findIndex((r) => r.tokenIndex === 1 && r.status === 429);
    expect(refused).toBeGreaterThanOrEqual(0);
    expect(mine.slice(refused + 1).filter((r) => r.tokenIndex === 1)).toHaveLength(0);
    expect(mine.slice(refused + 1).length).toBeGreaterThan(0);
    expect(mine.slice(refused + 1).every((r) => r.tokenIndex === 0 && r.status === 200)).toBe(true);
    expect(result.status).toBe('complete');
    expect(result.summary.done).toBe(active);
  }, 120_000);

  it('with two tokens, the same work finishes in one run and uses both', async () => {
    const clock = () => new Date('2026-11-04T06:00:00Z');
    const sim = await simulator({ projectCount: 14, tokens: [TOKEN_A, TOKEN_B], dailyLimit: 9, clock });
    const active = sim.state.projects().filter((p) => p.status === 'active').length;
    const result = await batch(sim, join(root, 'two-tokens'), [TOKEN_A, TOKEN_B], { clock, config: REPORTS_ONLY });
    expect(result.status).toBe('complete');
    expect(result.summary.done).toBe(active);
    const byToken = new Set(sim.state.requests.map((r) => r.tokenIndex));
    expect(byToken).toEqual(new Set([0, 1]));
    expect(sim.state.requests.some((r) => r.status === 429)).toBe(false);
    expect(Object.keys(result.summary.requests.byToken)).toHaveLength(2);
  }, 120_000);
});

describe('reports that come back as an id, or still processing', () => {
  it('reads them back by id with a bounded wait, one GET per report when ready', async () => {
    const sim = await simulator({ projectCount: 8, tokens: [TOKEN_A], reportMode: 'id-only' });
    const result = await batch(sim, join(root, 'id-only'), [TOKEN_A]);
    expect(result.status).toBe('complete');
    const gets = sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'GET');
    expect(gets).toHaveLength(result.summary.done);
  });

  it('polls a processing report until ready', async () => {
    const sim = await simulator({ projectCount: 8, tokens: [TOKEN_A], reportMode: 'processing', reportProcessingReads: 2 });
    const result = await batch(sim, join(root, 'processing'), [TOKEN_A]);
    expect(result.status).toBe('complete');
    const gets = sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'GET');
    expect(gets).toHaveLength(result.summary.done * 3);
  });
});
