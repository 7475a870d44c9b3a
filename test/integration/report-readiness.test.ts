// Reports that say they are done are used at once; one done but empty fails with what it carried; a malformed
// element is left out with a note for the agency, and the rest of the report is kept.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchResult } from '../../src/batch/run.js';
import { Manifest } from '../../src/output/store.js';
import type { ClassicAnswer } from '../../src/simulator/dialects.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { toMonth } from '../../src/period.js';

const PERIOD = toMonth('2026-10');
const clock = (): Date => new Date('2026-11-04T06:00:00Z');

let rig: BatchRig;
let root: string;

beforeAll(async () => {
  rig = await startBatchRig();
  root = await mkdtemp(join(tmpdir(), 'geo-readiness-'));
});
afterAll(async () => {
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

type Rewrite = (report: Record<string, unknown>) => Record<string, unknown>;

/** The classic report answer (`{ report }`) rewritten; every other answer as it is. */
const reportDialect =
  (rewrite: Rewrite, competitors?: unknown) =>
  (answer: ClassicAnswer): unknown => {
    if (answer.endpoint === 'competitors.php' && competitors !== undefined) return competitors;
    if (answer.endpoint !== 'reports.php' || answer.query['list'] !== undefined) return answer.data;
    const data = answer.data as { report: Record<string, unknown> };
    return { report: rewrite(structuredClone(data.report)) };
  };

async function run(
  rewrite: Rewrite,
  name: string,
  competitors?: unknown,
): Promise<{ result: BatchResult; sim: SimulatorHandle; waits: number[]; out: string }> {
  const sim = await startSimulator({ seed: 5, projectCount: 4, clock, dialect: reportDialect(rewrite, competitors) });
  const out = join(root, name);
  const waits: number[] = [];
  try {
    const result = await rig.run({
      baseUrl: sim.url,
      tokens: [DEMO_TOKEN],
      period: PERIOD,
      outDir: out,
      clock,
      concurrency: 2,
      printConcurrency: 2,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    return { result, sim, waits, out };
  } finally {
    await sim.close();
  }
}

const reportRequests = (sim: SimulatorHandle) => sim.state.requests.filter((r) => r.endpoint === 'reports.php');

describe('report readiness', () => {
  it('uses at once a report with content and a status word it does not know', async () => {
    const { result, sim, waits } = await run((report) => ({ ...report, status: 'finished_ok' }), 'unknown-word');
    expect(result.summary.failed).toBe(0);
    expect(result.summary.pending).toBe(0);
    expect(result.summary.done).toBeGreaterThan(0);
    expect(waits).toEqual([]);
    // One POST per project, no read back.
    expect(reportRequests(sim)).toHaveLength(result.summary.done);
  });

  it('reads back once a report that says it is completed but carries none of the asked sections, then fails it naming its keys', async () => {
    const { result, sim, waits } = await run(
      (report) => ({ id: report['id'], status: 'completed', project_id: report['project_id'], summary: 'Nothing to show.' }),
      'completed-empty',
    );
    expect(result.summary.done).toBe(0);
    expect(result.summary.pending).toBe(0);
    expect(result.summary.failed).toBe(result.plan.selected.length);
    // Never a two-minute wait: no sleep at all, and exactly one read back per project.
    expect(waits).toEqual([]);
    expect(reportRequests(sim)).toHaveLength(2 * result.summary.failed);
    for (const entry of result.manifest.projects) {
      expect(entry.error).toMatch(/says it is completed but carries none of the asked sections/);
      expect(entry.error).toContain('it sent: id, status, project_id, summary');
    }
  });
});

describe('degrade, never die', () => {
  it('leaves out one malformed platform and one recommendation, keeps the rest, and tells the agency, not the client', async () => {
    const { result, out } = await run((report) => {
      const sections = report['sections'] as { trust: { review_platforms: Array<Record<string, unknown>> }; recommendations: Array<Record<string, unknown>> };
      const platform = sections.trust.review_platforms[0];
      if (platform !== undefined) delete platform['name'];
      const rec = sections.recommendations[0];
      if (rec !== undefined) rec['priority'] = 'urgent';
      return report;
    }, 'degrade');
    expect(result.summary.failed).toBe(0);
    expect(result.summary.done).toBeGreaterThan(0);
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
    for (const entry of manifest.projects) {
      expect(entry.notes).toContain('Review platform at report.sections.trust.review_platforms.0 has no name: left out.');
      expect(
        entry.notes.some((n) =>
          /^Recommendation at report\.sections\.recommendations\.0 \(".+"\) has priority "urgent", not one of critical, high, medium, low: left out\.$/.test(n),
        ),
      ).toBe(true);
      const html = await readFile(join(out, PERIOD, entry.files.html as string), 'utf8');
      expect(html).not.toContain('left out');
      expect(html).toContain('Review platforms');
    }
    expect(index).toContain('review_platforms.0 has no name: left out.');
    expect(index).toMatch(/2 data notes/);
  });

  it('says when the comparison figures are missing: a competitors answer with no benchmark and no rows', async () => {
    const { result, out } = await run((report) => report, 'no-comparison', { note: 'comparison paused' });
    expect(result.summary.failed).toBe(0);
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    for (const entry of manifest.projects) {
      expect(entry.notes).toEqual([
        'This project has no row in the competitors answer: percentile and gap to the benchmark not available.',
        'Benchmark average (GEO) not found in the competitors answer.',
      ]);
      expect(entry.percentile).toBeNull();
    }
  });
});
