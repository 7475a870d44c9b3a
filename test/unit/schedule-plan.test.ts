// Which runs the schedule starts on a given day: the month's report on report.day for the month before, the reviews
// asked for after a quarter or a year ends, in that order; the monthly timer's cron; the config's refusals, fix named.
import nodeCron from 'node-cron';
import { describe, expect, it } from 'vitest';
import { monthlyCron, plannedRuns, runPlan, scheduleCron, type RunPlan, type ScheduledRun } from '../../src/batch/schedule.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';
import { EXIT } from '../../src/exit-codes.js';

const at = (iso: string): Date => new Date(iso);
const periods = (plan: RunPlan): string[] => plan.runs.map((run) => `${run.kind} ${run.period}`);

describe('plannedRuns: the runs a day owes', () => {
  const both = { day: 2, reviews: ['quarter', 'year'] as const };

  it("runs last month's report from report.day, and the month before's until then", () => {
    expect(plannedRuns(at('2026-11-02T06:00:00Z'), { day: 2, reviews: [] })).toEqual({
      runDay: '2026-11-02',
      today: true,
      runs: [{ kind: 'month', period: '2026-10' }],
    });
    // The 1st owes what the run day of October owed: September, finished by then, never October early.
    expect(plannedRuns(at('2026-11-01T23:00:00Z'), { day: 2, reviews: [] })).toEqual({
      runDay: '2026-10-02',
      today: false,
      runs: [{ kind: 'month', period: '2026-09' }],
    });
    expect(periods(plannedRuns(at('2026-11-20T06:00:00Z'), { day: 4, reviews: [] }))).toEqual(['month 2026-10']);
    expect(plannedRuns(at('2026-11-03T06:00:00Z'), { day: 4, reviews: [] }).runDay).toBe('2026-10-04');
  });

  it("adds the quarter's review after its last month's report, when asked", () => {
    expect(periods(plannedRuns(at('2026-10-02T06:00:00Z'), both))).toEqual(['month 2026-09', 'quarter 2026-Q3']);
    expect(periods(plannedRuns(at('2026-07-05T06:00:00Z'), both))).toEqual(['month 2026-06', 'quarter 2026-Q2']);
    // Not asked: the month alone.
    expect(periods(plannedRuns(at('2026-10-02T06:00:00Z'), { day: 2, reviews: [] }))).toEqual(['month 2026-09']);
    // A month inside a quarter: no review.
    expect(periods(plannedRuns(at('2026-09-02T06:00:00Z'), both))).toEqual(['month 2026-08']);
    // Before the run day of October, the quarter is not due yet.
    expect(periods(plannedRuns(at('2026-10-01T06:00:00Z'), both))).toEqual(['month 2026-08']);
  });

  it("adds the fourth quarter's and the year's reviews after December, each only when asked", () => {
    expect(periods(plannedRuns(at('2027-01-02T06:00:00Z'), both))).toEqual(['month 2026-12', 'quarter 2026-Q4', 'year 2026']);
    expect(periods(plannedRuns(at('2027-01-02T06:00:00Z'), { day: 2, reviews: ['year'] }))).toEqual(['month 2026-12', 'year 2026']);
    expect(periods(plannedRuns(at('2027-01-02T06:00:00Z'), { day: 2, reviews: ['quarter'] }))).toEqual(['month 2026-12', 'quarter 2026-Q4']);
  });

  it('reads the day in the time zone of the schedule', () => {
    // 23:30 UTC on 1 October is already the 2nd in Paris.
    const date = at('2026-10-01T23:30:00Z');
    expect(periods(plannedRuns(date, { ...both, timezone: 'Europe/Paris' }))).toEqual(['month 2026-09', 'quarter 2026-Q3']);
    expect(periods(plannedRuns(date, { ...both, timezone: 'UTC' }))).toEqual(['month 2026-08']);
  });
});

describe('runPlan: one run after the other', () => {
  const plan = plannedRuns(at('2027-01-02T06:00:00Z'), { day: 2, reviews: ['quarter', 'year'] });

  it('starts the month, then each review, in order', async () => {
    const started: ScheduledRun[] = [];
    const code = await runPlan(
      plan,
      async (run) => (started.push(run), EXIT.ok),
      () => {},
    );
    expect(started.map((run) => run.period)).toEqual(['2026-12', '2026-Q4', '2026']);
    expect(code).toBe(EXIT.ok);
  });

  it('goes on after held reports, and stops at a month the quota stopped: its reviews wait for the resume', async () => {
    const held: string[] = [];
    await runPlan(
      plan,
      async (run) => (held.push(run.period), run.kind === 'month' ? EXIT.held : EXIT.ok),
      () => {},
    );
    expect(held).toEqual(['2026-12', '2026-Q4', '2026']);
    const started: string[] = [];
    const log: string[] = [];
    const code = await runPlan(
      plan,
      async (run) => (started.push(run.period), EXIT.quota),
      (line) => log.push(line),
    );
    expect(started).toEqual(['2026-12']);
    expect(code).toBe(EXIT.quota);
    expect(log).toEqual(['2026-12 ended with exit code 75: 2026-Q4, 2026 waits for it to finish.']);
  });
});

describe('the monthly timer', () => {
  it('fires at 06:00 on report.day, a cron node-cron accepts, whose next run is that day', () => {
    for (const day of [1, 2, 4, 28]) {
      expect(monthlyCron(day)).toBe(`0 6 ${day} * *`);
      expect(nodeCron.validate(monthlyCron(day))).toBe(true);
    }
    const task = nodeCron.schedule(monthlyCron(2), () => {}, { timezone: 'UTC' });
    try {
      const next = task.getNextRun();
      expect(next?.getUTCDate()).toBe(2);
      expect(next?.getUTCHours()).toBe(6);
    } finally {
      void task.destroy();
    }
  });

  it('keeps a schedule.cron that fires on or after report.day, and refuses one before it with the fix', () => {
    expect(scheduleCron({}, 2)).toBe('0 6 2 * *');
    expect(scheduleCron({ cron: '30 7 4 * *' }, 2)).toBe('30 7 4 * *');
    expect(scheduleCron({ cron: '0 6 * * 1' }, 2)).toBe('0 6 * * 1');
    const refused = (() => {
      try {
        scheduleCron({ cron: '0 6 1 * *' }, 2);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toMatch(/schedule\.cron: "0 6 1 \* \*" fires on day 1, before report\.day \(2\)/);
    expect((refused as ConfigError).hint).toMatch(/Leave schedule\.cron out/);
    expect(() => scheduleCron({ cron: '0 25 2 * *' }, 2)).toThrow(/schedule\.cron: "0 25 2 \* \*" is not a valid cron expression/);
  });
});

describe('report.day and report.reviews in the config', () => {
  /** The key and the message of each issue the schema raises: what the config's error lists, key first. */
  function refusal(report: unknown): string[] {
    const parsed = ConfigSchema.safeParse({ report });
    expect(parsed.success).toBe(false);
    return (parsed.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }

  it('defaults to the 2nd and no review, and takes a day from 1 to 28 and each review kind', () => {
    const defaults = ConfigSchema.parse({});
    expect(defaults.report.day).toBe(2);
    expect(defaults.report.reviews).toEqual([]);
    const set = ConfigSchema.parse({ report: { day: 28, reviews: ['quarter', 'year'] } });
    expect(set.report.day).toBe(28);
    expect(set.report.reviews).toEqual(['quarter', 'year']);
  });

  it.each([0, 29, 31, 2.5, '4'])('refuses report.day %j, naming the key and the days it takes', (day) => {
    const [issue] = refusal({ day });
    expect(issue).toBe('report.day: expected a day of the month from 1 to 28 (every month has it), e.g. 2 (the default) or 4 when the data lags more');
  });

  it('refuses a review kind it does not know, a kind given twice, and a text for the list', () => {
    expect(refusal({ reviews: ['month'] })[0]).toMatch(/^report\.reviews\.0: expected a list of "quarter" and "year"/);
    expect(refusal({ reviews: ['quarter', 'quarter'] })[0]).toMatch(/^report\.reviews: each kind once: expected a list of "quarter" and "year"/);
    expect(refusal({ reviews: 'quarter' })[0]).toMatch(/^report\.reviews: expected a list of "quarter" and "year", e\.g\. \["quarter"\]/);
  });
});
