// The long-running schedule: a cron wrapper that validates expressions, never overlaps runs, and logs failures
// instead of throwing (the job itself is a plain function: the same one `run` uses).
import nodeCron from 'node-cron';
import { ConfigError, errorMessage } from '../errors.js';
import type { Manifest } from '../output/store.js';

export type JobReason = 'monthly' | 'resume';

/** One timer of the schedule, as the scheduler started it. */
export interface ScheduledJob {
  getNextRun(): Date | null;
  /** Stops the timer; a run it started is not waited for here. */
  destroy(): void | Promise<void>;
}

/** Calls `fire` each time the cron expression comes due in the time zone. */
export type Scheduler = (expression: string, fire: () => void, options: { timezone: string; name: string }) => ScheduledJob;

/** node-cron's timers. */
export const cronScheduler: Scheduler = (expression, fire, options) => nodeCron.schedule(expression, fire, options);

export interface ScheduleOptions {
  /** Monthly run, e.g. '0 6 4 * *' (06:00 on the 4th). */
  cron: string;
  /** Daily check that resumes a period stopped by the quota, e.g. '0 6 * * *'. */
  resumeCron: string;
  timezone: string;
  /** The monthly job; resolves to the batch exit code. */
  job: (reason: JobReason) => Promise<number>;
  /** Whether the last period still has work (stopped by the quota or interrupted). */
  needsResume: () => Promise<boolean>;
  log: (line: string) => void;
  /** Starts the timers. @default cronScheduler (node-cron) */
  scheduler?: Scheduler;
}

export interface ScheduleHandle {
  /** Next run of the monthly job. */
  nextRun(): Date | null;
  /** Stops the timers and waits for a run in progress to end. */
  stop(): Promise<void>;
}

/**
 * Whether a period still has work for the daily resume: anything short of complete (or held for review),
 * a period never started included, so a resume firing in the same minute as the monthly run cannot make
 * the month be skipped.
 */
export function periodNeedsWork(manifest: Pick<Manifest, 'status'> | null): boolean {
  return manifest === null || (manifest.status !== 'complete' && manifest.status !== 'held');
}

export function validateCron(expression: string, key: string): void {
  const result = nodeCron.validateDetailed(expression);
  if (!result.valid) {
    const why = result.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new ConfigError(`${key}: "${expression}" is not a valid cron expression (${why}).`, {
      hint: 'Use five fields "minute hour day-of-month month day-of-week", e.g. "0 6 4 * *" for 06:00 on the 4th.',
    });
  }
}

export function validateTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new ConfigError(`schedule.timezone: "${timezone}" is not a known time zone.`, {
      hint: 'Use an IANA name such as "UTC" or "Europe/Paris".',
    });
  }
}

export function startSchedule(options: ScheduleOptions): ScheduleHandle {
  validateCron(options.cron, 'schedule.cron');
  validateCron(options.resumeCron, 'schedule.resumeCron');
  validateTimezone(options.timezone);
  const schedule = options.scheduler ?? cronScheduler;
  let running: Promise<void> | null = null;

  const trigger = (reason: JobReason): void => {
    if (running !== null) {
      options.log(`Skipping the ${reason} run: the previous run is still going.`);
      return;
    }
    running = (async () => {
      try {
        if (reason === 'resume' && !(await options.needsResume())) {
          options.log('Nothing to resume: the last period is finished.');
          return;
        }
        options.log(`Starting the ${reason} run.`);
        const code = await options.job(reason);
        options.log(`The ${reason} run ended with exit code ${code}.`);
      } catch (error) {
        // A failed run is logged, not fatal: the schedule keeps going.
        options.log(`The ${reason} run failed: ${errorMessage(error)}`);
      } finally {
        running = null;
      }
    })();
  };

  const tasks: ScheduledJob[] = [
    schedule(options.cron, () => trigger('monthly'), { timezone: options.timezone, name: 'monthly-reports' }),
    schedule(options.resumeCron, () => trigger('resume'), { timezone: options.timezone, name: 'resume-reports' }),
  ];
  return {
    nextRun: () => tasks[0]?.getNextRun() ?? null,
    async stop() {
      for (const task of tasks) await task.destroy();
      await running;
    },
  };
}
