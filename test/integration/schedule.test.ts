// The schedule driven through its scheduler: the test fires the monthly and resume triggers itself and awaits what
// the schedule logs, so nothing waits on the clock. One case checks the real node-cron timers' next run.
import { describe, expect, it } from 'vitest';
import {
  periodNeedsWork,
  startSchedule,
  validateCron,
  validateTimezone,
  type JobReason,
  type ScheduleOptions,
  type Scheduler,
} from '../../src/batch/schedule.js';
import { ConfigError } from '../../src/errors.js';

/** A scheduler whose timers fire when the test says, and that records what it was asked to start. */
function manualScheduler() {
  const timers: Array<{ expression: string; timezone: string; name: string; fire: () => void; destroyed: boolean }> = [];
  const scheduler: Scheduler = (expression, fire, options) => {
    const timer = { expression, timezone: options.timezone, name: options.name, fire, destroyed: false };
    timers.push(timer);
    return {
      getNextRun: () => (timer.destroyed ? null : new Date('2026-12-04T06:00:00Z')),
      destroy: () => {
        timer.destroyed = true;
      },
    };
  };
  /** Fires the timer of `expression`, as its cron would; a destroyed timer never fires. */
  const fire = (name: 'monthly-reports' | 'resume-reports'): void => {
    const timer = timers.find((t) => t.name === name);
    if (timer === undefined) throw new Error(`no timer ${name}`);
    if (!timer.destroyed) timer.fire();
  };
  return { scheduler, timers, fire };
}

/** The log of a schedule, with a way to await a line. */
function recordedLog() {
  const lines: string[] = [];
  const waiting: Array<{ pattern: RegExp; found: () => void }> = [];
  return {
    lines,
    log(line: string): void {
      lines.push(line);
      for (const w of waiting.filter((x) => x.pattern.test(line))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.found();
      }
    },
    /** Resolves when a line matching `pattern` is (or was already) logged. */
    next(pattern: RegExp): Promise<void> {
      if (lines.some((line) => pattern.test(line))) return Promise.resolve();
      return new Promise((found) => waiting.push({ pattern, found }));
    },
  };
}

/** A job the test finishes by hand. */
function controlledJob() {
  const calls: Array<{ reason: JobReason; finish: (code: number) => void; fail: (error: Error) => void }> = [];
  let running = 0;
  let maxRunning = 0;
  const job = (reason: JobReason): Promise<number> =>
    new Promise<number>((finish, fail) => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      const end =
        <T>(settle: (value: T) => void) =>
        (value: T) => {
          running -= 1;
          settle(value);
        };
      calls.push({ reason, finish: end(finish), fail: end(fail) });
    });
  return { job, calls, maxRunning: () => maxRunning };
}

function schedule(overrides: Partial<ScheduleOptions> & Pick<ScheduleOptions, 'job' | 'log' | 'scheduler'>) {
  return startSchedule({ cron: '0 6 4 * *', resumeCron: '0 6 * * *', timezone: 'Europe/Paris', needsResume: async () => false, ...overrides });
}

describe('schedule', () => {
  it('refuses a bad cron expression or time zone with the key named', () => {
    expect(() => validateCron('61 6 4 * *', 'schedule.cron')).toThrow(ConfigError);
    expect(() => validateCron('61 6 4 * *', 'schedule.cron')).toThrow(/schedule\.cron/);
    expect(() => validateCron('0 6 4 * *', 'schedule.cron')).not.toThrow();
    expect(() => validateTimezone('Mars/Olympus')).toThrow(/schedule\.timezone/);
    expect(() => validateTimezone('Europe/Paris')).not.toThrow();
  });

  it('starts one timer per cron, in the configured time zone, and stops them', async () => {
    const { scheduler, timers } = manualScheduler();
    const handle = schedule({ scheduler, log: () => {}, job: async () => 0 });
    expect(timers.map(({ expression, timezone, name }) => ({ expression, timezone, name }))).toEqual([
      { expression: '0 6 4 * *', timezone: 'Europe/Paris', name: 'monthly-reports' },
      { expression: '0 6 * * *', timezone: 'Europe/Paris', name: 'resume-reports' },
    ]);
    expect(handle.nextRun()).toEqual(new Date('2026-12-04T06:00:00Z'));
    await handle.stop();
    expect(timers.every((t) => t.destroyed)).toBe(true);
  });

  it('never overlaps runs, and logs a failed run without stopping', async () => {
    const { scheduler, fire } = manualScheduler();
    const log = recordedLog();
    const { job, calls, maxRunning } = controlledJob();
    const handle = schedule({ scheduler, log: (line) => log.log(line), job });

    fire('monthly-reports');
    fire('monthly-reports');
    expect(calls).toHaveLength(1);
    await log.next(/Skipping the monthly run: the previous run is still going/);
    calls[0]?.fail(new Error('API unreachable'));
    await log.next(/The monthly run failed: API unreachable/);

    fire('monthly-reports');
    await log.next(/Starting the monthly run/);
    expect(calls).toHaveLength(2);
    calls[1]?.finish(0);
    await log.next(/The monthly run ended with exit code 0/);
    expect(maxRunning()).toBe(1);

    await handle.stop();
    fire('monthly-reports');
    expect(calls).toHaveLength(2);
  });

  it('waits for a run in progress when stopped', async () => {
    const { scheduler, fire } = manualScheduler();
    const log = recordedLog();
    const { job, calls } = controlledJob();
    const handle = schedule({ scheduler, log: (line) => log.log(line), job });
    fire('monthly-reports');
    await log.next(/Starting the monthly run/);
    let stopped = false;
    const stopping = handle.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    calls[0]?.finish(75);
    await stopping;
    expect(log.lines.at(-1)).toBe('The monthly run ended with exit code 75.');
  });

  it('resumes only when the last period still has work', async () => {
    const { scheduler, fire } = manualScheduler();
    const log = recordedLog();
    let needs = false;
    const reasons: JobReason[] = [];
    const handle = schedule({
      scheduler,
      log: (line) => log.log(line),
      needsResume: async () => needs,
      job: async (reason) => {
        reasons.push(reason);
        needs = false;
        return 0;
      },
    });
    fire('resume-reports');
    await log.next(/Nothing to resume/);
    expect(reasons).toEqual([]);

    needs = true;
    fire('resume-reports');
    await log.next(/The resume run ended with exit code 0/);
    expect(reasons).toEqual(['resume']);

    const quiet = log.lines.length;
    fire('resume-reports');
    await handle.stop();
    expect(log.lines.slice(quiet)).toEqual(['Nothing to resume: the last period is finished.']);
    expect(reasons).toEqual(['resume']);
  });
});

describe('what the daily resume picks up', () => {
  it('treats a period never started, stopped or partial as work left; complete and held as done', () => {
    expect(periodNeedsWork(null)).toBe(true);
    for (const status of ['quota_exhausted', 'interrupted', 'partial'] as const) expect(periodNeedsWork({ status })).toBe(true);
    for (const status of ['complete', 'held'] as const) expect(periodNeedsWork({ status })).toBe(false);
  });

  it.each([
    [['monthly-reports', 'resume-reports'] as const, 'monthly'],
    [['resume-reports', 'monthly-reports'] as const, 'resume'],
  ])('runs the period once when both triggers fire together (%j)', async (order, expected) => {
    const { scheduler, fire } = manualScheduler();
    const log = recordedLog();
    const reasons: JobReason[] = [];
    let manifest: { status: 'complete' } | null = null;
    const handle = schedule({
      scheduler,
      log: (line) => log.log(line),
      needsResume: async () => periodNeedsWork(manifest),
      job: async (reason) => {
        reasons.push(reason);
        manifest = { status: 'complete' };
        return 0;
      },
    });
    for (const name of order) fire(name);
    await log.next(/run ended with exit code 0/);
    await handle.stop();
    expect(reasons).toEqual([expected]);
    expect(log.lines.filter((line) => line.startsWith('Skipping'))).toHaveLength(1);
  });
});

describe('the default scheduler', () => {
  it('plans the monthly run on node-cron in the configured time zone', async () => {
    const handle = startSchedule({
      cron: '0 6 4 * *',
      resumeCron: '0 6 * * *',
      timezone: 'Europe/Paris',
      log: () => {},
      needsResume: async () => false,
      job: async () => 0,
    });
    try {
      const next = handle.nextRun();
      expect(next).toBeInstanceOf(Date);
      const paris = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).format(
        next ?? new Date(0),
      );
      expect(paris).toBe('4, 06:00');
      expect((next?.getTime() ?? 0) > Date.now()).toBe(true);
    } finally {
      await handle.stop();
    }
  });
});
