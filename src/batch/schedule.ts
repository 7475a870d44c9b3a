// The long-running schedule: a cron wrapper that validates expressions, never overlaps runs, and logs failures
// instead of throwing (the job itself is a plain function: the same one `run` uses).
import nodeCron from 'node-cron';
import type { ReviewKind } from '../config/schema.js';
import { ConfigError, errorMessage } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Manifest } from '../output/store.js';
import { parsePeriod, periodBefore, periodOf, quarterOfMonth, yearPeriod, type MonthPeriod, type QuarterPeriod, type YearPeriod } from '../period.js';

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

/** One run the schedule starts: the month's report, or the review of a quarter or a year that month ended. */
export type ScheduledRun = { kind: 'month'; period: MonthPeriod } | { kind: 'quarter'; period: QuarterPeriod } | { kind: 'year'; period: YearPeriod };

/** When the monthly report runs and which reviews follow it (report.day, report.reviews, schedule.timezone). */
export interface RunDays {
  /** Day of the month, 1 to 28. */
  day: number;
  reviews: readonly ReviewKind[];
  /** @default 'UTC' */
  timezone?: string;
}

/** The runs due on a date: those of the latest run day on or before it, in the order they run. */
export interface RunPlan {
  /** YYYY-MM-DD of that run day: report.day of this month, or of last month while this month's has not come. */
  runDay: string;
  /** Whether the date is the run day itself (the day the monthly timer fires). */
  today: boolean;
  /** The month before the run day's month first, then its quarter's review, then its year's, when asked and ended. */
  runs: ScheduledRun[];
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The day of the month `date` falls on in the time zone. */
function dayOfMonth(date: Date, timeZone: string): number {
  if (timeZone === 'UTC') return date.getUTCDate();
  let format = dayFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, day: 'numeric' });
    dayFormats.set(timeZone, format);
  }
  return Number(format.formatToParts(date).find((part) => part.type === 'day')?.value);
}

/**
 * The runs the schedule owes on `date`. On report.day a month's report runs for the month before; after a quarter's
 * last month (March, June, September, December) the quarter's review follows it when report.reviews asks, and after
 * December the year's. Before report.day, what is owed is still the previous run day's, so a daily resume finishes
 * that one and never starts a month early.
 */
export function plannedRuns(date: Date, days: RunDays): RunPlan {
  const timeZone = days.timezone ?? 'UTC';
  const today = dayOfMonth(date, timeZone);
  const current = periodOf(date, timeZone);
  const runMonth = today >= days.day ? current : periodBefore(current);
  const month = periodBefore(runMonth);
  const { year, month: number } = parsePeriod(month);
  const runs: ScheduledRun[] = [{ kind: 'month', period: month }];
  if (number % 3 === 0 && days.reviews.includes('quarter')) runs.push({ kind: 'quarter', period: quarterOfMonth(month) });
  if (number === 12 && days.reviews.includes('year')) runs.push({ kind: 'year', period: yearPeriod(year) });
  return { runDay: `${runMonth}-${String(days.day).padStart(2, '0')}`, today: today === days.day, runs };
}

/** The monthly timer when schedule.cron names none: 06:00 on report.day. */
export function monthlyCron(day: number): string {
  return `0 6 ${day} * *`;
}

/**
 * The monthly timer of the config: schedule.cron, else 06:00 on report.day. A cron set to fire on a fixed day before
 * report.day is refused: on that day nothing new is due, and the month's report would wait for the daily resume.
 */
export function scheduleCron(schedule: { cron?: string | undefined }, day: number): string {
  if (schedule.cron === undefined) return monthlyCron(day);
  validateCron(schedule.cron, 'schedule.cron');
  const field = schedule.cron.trim().split(/\s+/)[2] ?? '*';
  if (/^\d+$/.test(field) && Number(field) < day) {
    throw new ConfigError(`schedule.cron: "${schedule.cron}" fires on day ${field}, before report.day (${day}), when no month's report is due yet.`, {
      hint: `Leave schedule.cron out (the report then runs at 06:00 on report.day), set its day to ${day} or later, or set report.day to ${field}.`,
    });
  }
  return schedule.cron;
}

/** Whether a run's end lets the next run of the plan go: a review reads the month's reports, made (or held) first. */
function letsNextRun(code: number): boolean {
  return code === EXIT.ok || code === EXIT.held;
}

/**
 * Starts the runs of a plan one after the other, each once the one before ended with its reports made; the first that
 * did not (the quota, a failure) stops the plan, and the next run of the schedule (the daily resume) goes on from it.
 * Resolves to the exit code of the last run started.
 */
export async function runPlan(plan: RunPlan, start: (run: ScheduledRun) => Promise<number>, log: (line: string) => void): Promise<number> {
  let code: number = EXIT.ok;
  for (const [index, run] of plan.runs.entries()) {
    if (index > 0) log(`Then the ${run.kind === 'month' ? 'monthly report' : `${run.kind}ly review`} of ${run.period}.`);
    code = await start(run);
    if (!letsNextRun(code)) {
      const left = plan.runs.slice(index + 1).map((r) => r.period);
      if (left.length > 0) log(`${run.period} ended with exit code ${code}: ${left.join(', ')} waits for it to finish.`);
      break;
    }
  }
  return code;
}
