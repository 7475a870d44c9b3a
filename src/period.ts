// A period is what a report covers: a month ("2026-10"), a quarter ("2026-Q3") or a year ("2026"). It is parsed,
// named, stepped and compared here only; everywhere else it is a `Period` value the compiler follows, and a
// `MonthPeriod` where only a month makes sense, so a quarter reaching a month's code is a type error, not a bug.
import { GeoReportsError } from './errors.js';

declare const periodKind: unique symbol;

export type PeriodKind = 'month' | 'quarter' | 'year';
export const PERIOD_KINDS: readonly PeriodKind[] = ['month', 'quarter', 'year'];

/** A period's text, known to be well formed: only this module makes one (from a text it checked, or by stepping). */
export type Period<K extends PeriodKind = PeriodKind> = string & { readonly [periodKind]: K };
export type MonthPeriod = Period<'month'>;
export type QuarterPeriod = Period<'quarter'>;
export type YearPeriod = Period<'year'>;
/** What a review covers: more than a month. */
export type ReviewPeriod = QuarterPeriod | YearPeriod;

/** YYYY-MM with a month from 01 to 12; for schemas that check a month field. */
export const PERIOD_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** YYYY-Qn with n from 1 to 4. */
export const QUARTER_PATTERN = /^(\d{4})-Q([1-4])$/;
/** YYYY. */
export const YEAR_PATTERN = /^(\d{4})$/;
/** Any period's text: a month, a quarter or a year (a folder name in the output folder and the history branch). */
export const ANY_PERIOD_PATTERN = /^\d{4}(?:-(?:0[1-9]|1[0-2])|-Q[1-4])?$/;

/** A text used as a period that is not one. */
export class PeriodError extends GeoReportsError {}

export interface YearMonth {
  year: number;
  /** 1 to 12 */
  month: number;
}

/** Whether `text` is a month, YYYY-MM. */
export function isPeriod(text: string): text is MonthPeriod {
  return PERIOD_PATTERN.test(text);
}

/** Whether `text` is any period: a month, a quarter or a year. */
export function isAnyPeriod(text: string): text is Period {
  return ANY_PERIOD_PATTERN.test(text);
}

/** '2026-10' as a month; a PeriodError naming the form for anything else. */
export function toMonth(text: string): MonthPeriod {
  if (!isPeriod(text)) throw new PeriodError(`"${text}" is not a month: expected YYYY-MM, e.g. 2026-10.`);
  return text;
}

/** '2026-10', '2026-Q3' or '2026' as a period; a PeriodError naming the three forms for anything else. */
export function toPeriod(text: string): Period {
  if (!isAnyPeriod(text)) {
    throw new PeriodError(`"${text}" is not a period: expected a month (2026-10), a quarter (2026-Q3) or a year (2026).`);
  }
  return text;
}

/** The month of an ISO 8601 date or date-time ("2026-10-05T06:00:00Z" → '2026-10'); a PeriodError when it has none. */
export function monthOfDate(date: string): MonthPeriod {
  const month = date.slice(0, 7);
  if (!isPeriod(month) || (date.length > 7 && date[7] !== '-')) {
    throw new PeriodError(`"${date}" is not a date: expected YYYY-MM-DD, e.g. 2026-10-05.`);
  }
  return month;
}

/** The month of an ISO 8601 date, or null when the text is not one (for values the service sends). */
export function monthOfDateOrNull(date: string): MonthPeriod | null {
  const month = date.slice(0, 7);
  return isPeriod(month) && (date.length === 7 || date[7] === '-') ? month : null;
}

export function kindOf(period: Period): PeriodKind {
  if (PERIOD_PATTERN.test(period)) return 'month';
  return QUARTER_PATTERN.test(period) ? 'quarter' : 'year';
}

export function isMonth(period: Period): period is MonthPeriod {
  return kindOf(period) === 'month';
}

/** '2026-10' → { year: 2026, month: 10 }. */
export function parsePeriod(period: MonthPeriod): YearMonth {
  return { year: Number(period.slice(0, 4)), month: Number(period.slice(5, 7)) };
}

/** { year: 2026, month: 10 } → '2026-10'; a month out of 1–12 rolls into the year before or after. */
export function formatPeriod({ year, month }: YearMonth): MonthPeriod {
  const index = year * 12 + (month - 1);
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}` as MonthPeriod;
}

export function quarterPeriod(year: number, quarter: number): QuarterPeriod {
  return `${year}-Q${quarter}` as QuarterPeriod;
}

export function yearPeriod(year: number): YearPeriod {
  return String(year) as YearPeriod;
}

/** The year a period falls in. */
export function yearOf(period: Period): number {
  return Number(period.slice(0, 4));
}

/** A quarter's number, 1 to 4. */
export function quarterOf(period: QuarterPeriod): number {
  return Number(period.slice(6));
}

/** The quarter a month falls in: '2026-08' → '2026-Q3'. */
export function quarterOfMonth(month: MonthPeriod): QuarterPeriod {
  const { year, month: m } = parsePeriod(month);
  return quarterPeriod(year, Math.ceil(m / 3));
}

/** The period `months` months after `period` (before, when negative). */
export function addMonths(period: MonthPeriod, months: number): MonthPeriod {
  const { year, month } = parsePeriod(period);
  return formatPeriod({ year, month: month + months });
}

/** The months a period holds, first to last: a month holds itself, a quarter three, a year twelve. */
export function monthsOf(period: Period): MonthPeriod[] {
  const first = firstMonth(period);
  const count = { month: 1, quarter: 3, year: 12 }[kindOf(period)];
  return Array.from({ length: count }, (_, i) => addMonths(first, i));
}

export function firstMonth(period: Period): MonthPeriod {
  const year = yearOf(period);
  switch (kindOf(period)) {
    case 'month':
      return period as MonthPeriod;
    case 'quarter':
      return formatPeriod({ year, month: (quarterOf(period as QuarterPeriod) - 1) * 3 + 1 });
    case 'year':
      return formatPeriod({ year, month: 1 });
  }
}

/** The last month of a period: its figure is that month's, as that month's report showed it. */
export function lastMonth(period: Period): MonthPeriod {
  const months = monthsOf(period);
  return months[months.length - 1] as MonthPeriod;
}

/** The period of the same kind before `period`: '2027-01' → '2026-12', '2026-Q1' → '2025-Q4', '2026' → '2025'. */
export function periodBefore<K extends PeriodKind>(period: Period<K>): Period<K> {
  return shiftPeriod(period, -1);
}

/** The same period a year before: '2026-10' → '2025-10', '2026-Q3' → '2025-Q3', '2026' → '2025'. */
export function yearBefore<K extends PeriodKind>(period: Period<K>): Period<K> {
  switch (kindOf(period)) {
    case 'month':
      return addMonths(period as MonthPeriod, -12) as Period<K>;
    case 'quarter':
      return quarterPeriod(yearOf(period) - 1, quarterOf(period as QuarterPeriod)) as Period<K>;
    case 'year':
      return yearPeriod(yearOf(period) - 1) as Period<K>;
  }
}

function shiftPeriod<K extends PeriodKind>(period: Period<K>, steps: number): Period<K> {
  switch (kindOf(period)) {
    case 'month':
      return addMonths(period as MonthPeriod, steps) as Period<K>;
    case 'quarter':
      return quarterOfMonth(addMonths(firstMonth(period), steps * 3)) as Period<K>;
    case 'year':
      return yearPeriod(yearOf(period) + steps) as Period<K>;
  }
}

/** One formatter per time zone: making one costs about a millisecond, and the webhook journal asks at every line. */
const zoneMonthFormats = new Map<string, Intl.DateTimeFormat>();

/** The month `now` falls in, in the given time zone. */
export function periodOf(now: Date, timeZone = 'UTC'): MonthPeriod {
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
export function previousPeriod(now: Date, timeZone = 'UTC'): MonthPeriod {
  return periodBefore(periodOf(now, timeZone));
}

/** Whole months from `from` to `to`: '2026-08' → '2026-10' = 2. */
export function monthsBetween(from: MonthPeriod, to: MonthPeriod): number {
  const a = parsePeriod(from);
  const b = parsePeriod(to);
  return (b.year - a.year) * 12 + (b.month - a.month);
}

/** Midnight UTC on the first day of the period. */
export function periodStart(period: Period): Date {
  const { year, month } = parsePeriod(firstMonth(period));
  return new Date(Date.UTC(year, month - 1, 1));
}

/** Midnight UTC on the first day after the period: the moment it has ended. */
export function periodEnd(period: Period): Date {
  return periodStart(addMonths(lastMonth(period), 1));
}

/** Whether the period has ended by `now` (UTC): its last month is over. */
export function hasEnded(period: Period, now: Date): boolean {
  return now.getTime() >= periodEnd(period).getTime();
}

/** Whether an ISO 8601 date falls within the period. */
export function holdsDate(period: Period, date: string): boolean {
  const month = monthOfDateOrNull(date);
  return month !== null && month >= firstMonth(period) && month <= lastMonth(period);
}

/** The folder a period's reports are written in, under the output folder and the history branch: its own text. */
export function folderName(period: Period): string {
  return period;
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();

/** '2026-10' → 'October 2026' / 'octobre 2026'. */
export function periodLabel(period: MonthPeriod, language: string): string {
  let format = monthFormats.get(language);
  if (format === undefined) {
    // Built once per language: a formatter costs far more to make than to use.
    format = new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' });
    monthFormats.set(language, format);
  }
  return format.format(periodStart(period));
}

/** The locale phrases a period's name is made of; `{year}` and `{quarter}` are filled in here. */
export interface PeriodPhrases {
  /** "third quarter {year}" by quarter number, from the keys `period.quarter.1` … `period.quarter.4`. */
  quarter: (quarter: number) => string | undefined;
  /** "Q{quarter} {year}" / "T{quarter} {year}" (key `period.quarterShort`). */
  quarterShort: string | undefined;
}

/**
 * Any period as the report's language names it: 'October 2026', 'Q3 2026' ('3. Quartal 2026' in German; the locale's
 * `quarterShort` when `short`), '2026'. Months and years through Intl; a quarter through the locale's phrases, which
 * Intl has no word for, written with its number so that it reads the same in a heading and after a preposition ("bis
 * 3. Quartal 2026", "depuis T3 2026"), as a month's name does: no ordinal word whose case or article the sentence
 * around it would have to change.
 */
export function periodName(period: Period, language: string, phrases: PeriodPhrases, short = false): string {
  const year = new Intl.NumberFormat(language, { useGrouping: false }).format(yearOf(period));
  switch (kindOf(period)) {
    case 'month':
      return periodLabel(period as MonthPeriod, language);
    case 'year':
      return year;
    case 'quarter': {
      const quarter = quarterOf(period as QuarterPeriod);
      const template = (short ? phrases.quarterShort : phrases.quarter(quarter)) ?? phrases.quarterShort ?? 'Q{quarter} {year}';
      return template.replace('{year}', year).replace('{quarter}', String(quarter));
    }
  }
}

/** 06:00 UTC on the 4th of the month after `period`: when the monthly run reports on it (the demo's and the samples' clock). */
export function monthlyRunDay(period: MonthPeriod): Date {
  const start = periodStart(addMonths(period, 1));
  return new Date(start.getTime() + (3 * 24 + 6) * 3_600_000);
}
