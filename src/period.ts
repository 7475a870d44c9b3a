// A period is the month a report covers, written YYYY-MM ("2026-10"): parsed, named and stepped here only.
import { GeoReportsError } from './errors.js';

/** YYYY-MM with a month from 01 to 12; for schemas that check a period field. */
export const PERIOD_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A text used as a period that is not one. */
export class PeriodError extends GeoReportsError {}

export interface YearMonth {
  year: number;
  /** 1 to 12 */
  month: number;
}

export function isPeriod(text: string): boolean {
  return PERIOD_PATTERN.test(text);
}

/** '2026-10' → { year: 2026, month: 10 }; a PeriodError for anything else. */
export function parsePeriod(period: string): YearMonth {
  const match = PERIOD_PATTERN.exec(period);
  if (match === null) throw new PeriodError(`"${period}" is not a period: expected YYYY-MM, e.g. 2026-10.`);
  return { year: Number(match[1]), month: Number(match[2]) };
}

/** { year: 2026, month: 10 } → '2026-10'; a month out of 1–12 rolls into the year before or after. */
export function formatPeriod({ year, month }: YearMonth): string {
  const index = year * 12 + (month - 1);
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The period `months` months after `period` (before, when negative). */
export function addMonths(period: string, months: number): string {
  const { year, month } = parsePeriod(period);
  return formatPeriod({ year, month: month + months });
}

/** The period before `period`: '2027-01' → '2026-12'. */
export function periodBefore(period: string): string {
  return addMonths(period, -1);
}

/** One formatter per time zone: making one costs about a millisecond, and the webhook journal asks at every line. */
const zoneMonthFormats = new Map<string, Intl.DateTimeFormat>();

/** The month `now` falls in, in the given time zone. */
export function periodOf(now: Date, timeZone = 'UTC'): string {
  if (timeZone === 'UTC') return formatPeriod({ year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 });
  let format = zoneMonthFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' });
    zoneMonthFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(now);
  const year = Number(parts.find((p) => p.type === 'year')?.value);
  const month = Number(parts.find((p) => p.type === 'month')?.value);
  return formatPeriod({ year, month });
}

/**
 * The month before `now`, in the given time zone: what a monthly run reports on (a run at 00:30 on the 1st in
 * Paris is still reporting on the month that just ended there).
 */
export function previousPeriod(now: Date, timeZone = 'UTC'): string {
  return periodBefore(periodOf(now, timeZone));
}

/** Whole months from `from` to `to`: '2026-08' → '2026-10' = 2. */
export function monthsBetween(from: string, to: string): number {
  const a = parsePeriod(from);
  const b = parsePeriod(to);
  return (b.year - a.year) * 12 + (b.month - a.month);
}

/** Midnight UTC on the first day of the period. */
export function periodStart(period: string): Date {
  const { year, month } = parsePeriod(period);
  return new Date(Date.UTC(year, month - 1, 1));
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();

/** '2026-10' → 'October 2026' / 'octobre 2026'. */
export function periodLabel(period: string, language: string): string {
  let format = monthFormats.get(language);
  if (format === undefined) {
    // Built once per language: a formatter costs far more to make than to use.
    format = new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' });
    monthFormats.set(language, format);
  }
  return format.format(periodStart(period));
}

/** 06:00 UTC on the 4th of the month after `period`: when the monthly run reports on it (the demo's and the samples' clock). */
export function monthlyRunDay(period: string): Date {
  const start = periodStart(addMonths(period, 1));
  return new Date(start.getTime() + (3 * 24 + 6) * 3_600_000);
}
