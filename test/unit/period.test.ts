// The period module: YYYY-MM parsed, stepped across years and time zones, and named in each language.
import { describe, expect, it } from 'vitest';
import {
  addMonths,
  formatPeriod,
  isPeriod,
  monthsBetween,
  parsePeriod,
  PeriodError,
  periodBefore,
  periodLabel,
  periodOf,
  previousPeriod,
  toMonth,
} from '../../src/period.js';

describe('period', () => {
  it('parses YYYY-MM and refuses anything else with the expected form', () => {
    expect(parsePeriod(toMonth('2026-10'))).toEqual({ year: 2026, month: 10 });
    for (const bad of ['2026-13', '2026-00', '2026-1', 'Oct 2026', '2026-10-01', '']) {
      expect(isPeriod(bad), bad).toBe(false);
      expect(() => toMonth(bad), bad).toThrow(PeriodError);
    }
    expect(() => toMonth('2026-13')).toThrow(/expected YYYY-MM, e\.g\. 2026-10/);
  });

  it('formats and steps across year boundaries', () => {
    expect(formatPeriod({ year: 2026, month: 3 })).toBe('2026-03');
    expect(formatPeriod({ year: 2026, month: 0 })).toBe('2025-12');
    expect(formatPeriod({ year: 2026, month: 13 })).toBe('2027-01');
    expect(periodBefore(toMonth('2026-10'))).toBe('2026-09');
    expect(periodBefore(toMonth('2027-01'))).toBe('2026-12');
    expect(addMonths(toMonth('2026-11'), 14)).toBe('2028-01');
    expect(monthsBetween(toMonth('2026-08'), toMonth('2026-10'))).toBe(2);
    expect(monthsBetween(toMonth('2026-11'), toMonth('2027-02'))).toBe(3);
    expect(monthsBetween(toMonth('2026-10'), toMonth('2026-09'))).toBe(-1);
  });

  it('reports on the month before the run, in the schedule time zone', () => {
    expect(previousPeriod(new Date('2026-11-04T06:00:00Z'))).toBe('2026-10');
    expect(previousPeriod(new Date('2027-01-04T06:00:00Z'))).toBe('2026-12');
    // 23:30 UTC on 31 October is already 1 November in Paris: October has ended there.
    const now = new Date('2026-10-31T23:30:00Z');
    expect(periodOf(now, 'UTC')).toBe('2026-10');
    expect(previousPeriod(now, 'UTC')).toBe('2026-09');
    expect(previousPeriod(now, 'Europe/Paris')).toBe('2026-10');
    // The zone's formatter is made once and kept: a second date in the same zone is read with it.
    expect(periodOf(new Date('2026-12-31T23:30:00Z'), 'Europe/Paris')).toBe('2027-01');
    expect(periodOf(new Date('2026-12-31T23:30:00Z'), 'America/New_York')).toBe('2026-12');
    expect(periodOf(new Date('2027-01-01T00:00:00Z'))).toBe('2027-01');
  });

  it('names a period in each language', () => {
    expect(periodLabel(toMonth('2026-10'), 'en')).toBe('October 2026');
    expect(periodLabel(toMonth('2026-10'), 'fr')).toBe('octobre 2026');
    expect(periodLabel(toMonth('2027-01'), 'fr')).toBe('janvier 2027');
    expect(() => periodLabel(toMonth('Oct 2026'), 'en')).toThrow(PeriodError);
  });
});
