// The monthly workflows' first job on given days, run as a runner runs it (test/support/workflow-runner.ts: bash, the
// real CLI through `npx`, the runner's `date` on the test's clock, an empty history repository): which month it
// reports and which reviews it hands to the reviews job, from the repository's config (report.day, report.reviews).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '../../src/render/print/browser.js';
import { loadWorkflow, Runner, type RunTrigger, type Workflow } from '../support/workflow-runner.js';

let root: string;
let oneMachine: Workflow;
let sharded: Workflow;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-workflow-plan-'));
  oneMachine = await loadWorkflow('monthly-reports.yml');
  sharded = await loadWorkflow('monthly-reports-sharded.yml');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function runner(name: string, report: Record<string, unknown>): Promise<Runner> {
  const made = new Runner(join(root, name), { report });
  await made.start();
  return made;
}

function trigger(now: string, extra: Partial<RunTrigger> = {}): RunTrigger {
  return { event: 'schedule', now: new Date(now), chromePath: findBrowser().executablePath, vars: { GEO_REPORTS_SHARDED: 'false' }, ...extra };
}

/** The `period` job's outputs on that day. */
async function periodJob(on: Runner, workflow: Workflow, when: RunTrigger): Promise<Record<string, string>> {
  const [result] = await on.run(workflow, when).runJob('period');
  expect(result?.result, result?.steps.map((s) => `${s.name}: ${s.outcome}\n${s.log}`).join('\n')).toBe('success');
  return result?.outputs ?? {};
}

describe('the day a monthly workflow reports', () => {
  it('reports last month from report.day, the month before until then, with the quarter after its last month', async () => {
    const quarterly = await runner('quarterly', { reviews: ['quarter'] });
    expect(await periodJob(quarterly, oneMachine, trigger('2026-10-02T06:00:00Z'))).toMatchObject({ value: '2026-09', reviews: '["2026-Q3"]' });
    // The 1st owes the run day of September's: August, and no review.
    expect(await periodJob(quarterly, oneMachine, trigger('2026-10-01T06:00:00Z'))).toMatchObject({ value: '2026-08', reviews: '[]' });
    expect(await periodJob(quarterly, oneMachine, trigger('2026-11-02T06:00:00Z'))).toMatchObject({ value: '2026-10', reviews: '[]' });
  }, 120_000);

  it('waits for a later report.day, and hands over the quarter and the year after December', async () => {
    const yearly = await runner('yearly', { day: 5, reviews: ['quarter', 'year'] });
    expect(await periodJob(yearly, oneMachine, trigger('2027-01-04T06:00:00Z'))).toMatchObject({ value: '2026-11', reviews: '[]' });
    expect(await periodJob(yearly, oneMachine, trigger('2027-01-05T06:00:00Z'))).toMatchObject({ value: '2026-12', reviews: '["2026-Q4","2026"]' });
    // The sharded workflow decides the same way.
    const shards = await runner('yearly-shards', { day: 5, reviews: ['quarter', 'year'] });
    expect(await periodJob(shards, sharded, trigger('2027-01-05T06:00:00Z', { vars: { GEO_REPORTS_SHARDED: 'true' } }))).toMatchObject({
      value: '2026-12',
      reviews: '["2026-Q4","2026"]',
    });
  }, 120_000);

  it('hands over the reviews of a month asked for by hand', async () => {
    const quarterly = await runner('by-hand', { reviews: ['quarter'] });
    const asked = trigger('2026-11-20T10:00:00Z', { event: 'workflow_dispatch', inputs: { period: '2026-09' } });
    expect(await periodJob(quarterly, oneMachine, asked)).toMatchObject({ value: '2026-09', reviews: '["2026-Q3"]' });
  }, 120_000);
});
