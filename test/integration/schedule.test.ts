// The schedule on real node-cron timers (seconds field), bounded to a few seconds.
import { describe, expect, it } from 'vitest';
import { periodNeedsWork, startSchedule, validateCron, validateTimezone } from '../../src/batch/schedule.js';
import { previousPeriod } from '../../src/period.js';
import { ConfigError } from '../../src/errors.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('schedule', () => {
  it('refuses a bad cron expression or time zone with the key named', () => {
    expect(() => validateCron('61 6 4 * *', 'schedule.cron')).toThrow(ConfigError);
    expect(() => validateCron('61 6 4 * *', 'schedule.cron')).toThrow(/schedule\.cron/);
    expect(() => validateCron('0 6 4 * *', 'schedule.cron')).not.toThrow();
    expect(() => validateTimezone('Mars/Olympus')).toThrow(/schedule\.timezone/);
    expect(() => validateTimezone('Europe/Paris')).not.toThrow();
  });

  it('never overlaps runs, and logs a failed run without stopping', async () => {
    const log: string[] = [];
    let started = 0;
    let running = 0;
    let maxRunning = 0;
    const handle = startSchedule({
      cron: '* * * * * *',
      resumeCron: '0 0 1 1 *',
      timezone: 'UTC',
      log: (l) => log.push(l),
      needsResume: async () => false,
      job: async () => {
        started += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        try {
          await wait(1_600);
          if (started === 1) throw new Error('API unreachable');
          return 0;
        } finally {
          running -= 1;
        }
      },
    });
    expect(handle.nextRun()).toBeInstanceOf(Date);
    await wait(4_200);
    await handle.stop();
    expect(maxRunning).toBe(1);
    expect(started).toBeGreaterThanOrEqual(2);
    expect(log.some((l) => l.includes('Skipping the monthly run'))).toBe(true);
    expect(log.some((l) => l.includes('failed: API unreachable'))).toBe(true);
    expect(log.some((l) => l.includes('ended with exit code 0'))).toBe(true);
    const after = started;
    await wait(1_200);
    expect(started).toBe(after);
  }, 15_000);

  it('resumes only when the last period still has work', async () => {
    const reasons: string[] = [];
    let needs = false;
    const handle = startSchedule({
      cron: '0 0 1 1 *',
      resumeCron: '* * * * * *',
      timezone: 'UTC',
      log: () => {},
      needsResume: async () => needs,
      job: async (reason) => {
        reasons.push(reason);
        needs = false;
        return 0;
      },
    });
    await wait(1_300);
    expect(reasons).toEqual([]);
    needs = true;
    await wait(2_200);
    await handle.stop();
    expect(reasons).toEqual(['resume']);
  }, 10_000);
});

describe('what the daily resume picks up', () => {
  it('treats a period never started, stopped or partial as work left; complete and held as done', () => {
    expect(periodNeedsWork(null)).toBe(true);
    for (const status of ['quota_exhausted', 'interrupted', 'partial'] as const) expect(periodNeedsWork({ status })).toBe(true);
    for (const status of ['complete', 'held'] as const) expect(periodNeedsWork({ status })).toBe(false);
  });

  it('reports the month that just ended in the schedule time zone', () => {
    // 23:30 UTC on 31 October is already 1 November in Paris: October has ended there.
    const now = new Date('2026-10-31T23:30:00Z');
    expect(previousPeriod(now, 'UTC')).toBe('2026-09');
    expect(previousPeriod(now, 'Europe/Paris')).toBe('2026-10');
  });

  it('runs the period when the monthly and the resume triggers fire in the same second', async () => {
    const reasons: string[] = [];
    let manifest: { status: 'complete' } | null = null;
    const handle = startSchedule({
      cron: '* * * * * *',
      resumeCron: '* * * * * *',
      timezone: 'UTC',
      log: () => {},
      needsResume: async () => periodNeedsWork(manifest),
      job: async (reason) => {
        reasons.push(reason);
        manifest = { status: 'complete' };
        return 0;
      },
    });
    await wait(2_300);
    await handle.stop();
    expect(reasons.length).toBeGreaterThanOrEqual(1);
    expect(reasons.filter((r) => r === 'resume').length).toBeLessThanOrEqual(1);
  }, 10_000);
});
