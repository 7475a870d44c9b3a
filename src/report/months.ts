// Which month a value belongs to. The service has no period parameter: it answers with its data as of the day
// of the run, so a value is the period's only when a date the service sent places it inside the period.
import type { HistoryContent, ReportContent } from '../content/report.js';
import { monthOfDate, monthsBetween, periodBefore, type MonthPeriod } from '../period.js';
import type { HistoryPoint } from './model.js';

export type ScoreKind = 'geo' | 'seo';

/** A value placed against a period: the period's own, an earlier one shown "as of" its date, or one with no date. */
export interface PlacedValue {
  value: number | null;
  /** YYYY-MM-DD of the measurement; null when nothing dates the value. */
  measuredAt: string | null;
  /** True when the value was measured inside the period: it is the period's value. */
  inPeriod: boolean;
}

const NOTHING: PlacedValue = { value: null, measuredAt: null, inPeriod: false };

/** 'YYYY-MM-DD' (or 'YYYY-MM') → 'YYYY-MM': the period module's reading, under the name the report's modules use. */
export const monthOf = monthOfDate;

/** True when `date` (YYYY-MM-DD, as the service wrote it) falls after the last day of `period`. */
export const isAfterPeriod = (date: string, period: MonthPeriod): boolean => monthOf(date) > period;

/**
 * The history as a report of `period` shows it: one point per month (each score the latest of its month), no month
 * after the period. A point dated after the period was measured after it: it belongs to a later report.
 */
export function periodHistory(history: readonly HistoryContent[], period: MonthPeriod): HistoryPoint[] {
  const byMonth = new Map<string, HistoryPoint>();
  const sorted = [...history].filter((point) => !isAfterPeriod(point.date, period)).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const point of sorted) {
    const month = monthOf(point.date);
    const seen = byMonth.get(month);
    byMonth.set(month, {
      date: point.date,
      geo: point.geo ?? seen?.geo ?? null,
      seo: point.seo ?? seen?.seo ?? null,
    });
  }
  return [...byMonth.values()];
}

/** The history's value of `kind` for the month `month` (the latest point of that month); null when it has none. */
export function historyValue(history: readonly HistoryContent[] | null, kind: ScoreKind, month: string): number | null {
  let found: { date: string; value: number } | null = null;
  for (const point of history ?? []) {
    const value = point[kind];
    if (value === null || monthOf(point.date) !== month) continue;
    if (found === null || point.date >= found.date) found = { date: point.date, value };
  }
  return found?.value ?? null;
}

/**
 * The GEO or SEO score a report of `period` shows, by the rule of docs/api-assumptions.md ("Which month a value
 * belongs to"): the history's point of the period; else the scores section when its own date is in the period;
 * else the latest dated value before the period (shown "as of" its date); a value dated only after the period is
 * never the period's (none is shown); with no date anywhere, the scores section's value, "as of" the run.
 */
export function placeScore(content: ReportContent, kind: ScoreKind, period: MonthPeriod): PlacedValue {
  const current = content.scores?.[kind] ?? null;
  const measuredAt = content.scores?.measuredAt ?? null;
  const dated: Array<{ date: string; value: number }> = [];
  for (const point of content.history ?? []) {
    const value = point[kind];
    if (value !== null) dated.push({ date: point.date, value });
  }
  if (current !== null && measuredAt !== null) dated.push({ date: measuredAt, value: current });
  if (dated.length === 0) return current === null ? NOTHING : { value: current, measuredAt: null, inPeriod: false };

  const inPeriod = historyValue(content.history, kind, period);
  if (inPeriod !== null) return { value: inPeriod, measuredAt: latestDate(dated, (date) => monthOf(date) === period), inPeriod: true };
  if (current !== null && measuredAt !== null && monthOf(measuredAt) === period) return { value: current, measuredAt, inPeriod: true };
  const before = dated.filter((v) => monthOf(v.date) < period).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const latest = before.at(-1);
  return latest === undefined ? NOTHING : { value: latest.value, measuredAt: latest.date, inPeriod: false };
}

function latestDate(values: ReadonlyArray<{ date: string }>, keep: (date: string) => boolean): string | null {
  let latest: string | null = null;
  for (const { date } of values) if (keep(date) && (latest === null || date > latest)) latest = date;
  return latest;
}

/**
 * The "last period" value of a score beside a headline placed in `period`, when there was a previous report: the
 * history's point of the month before; else the previous report's own value for its period. Only a headline that
 * is the period's, or one that nothing dates (compared run to run), has a last period.
 */
export function previousScore(
  headline: PlacedValue,
  content: ReportContent,
  kind: ScoreKind,
  period: MonthPeriod,
  previous: { period: MonthPeriod; report: ReportContent } | null,
): { value: number | null; period: MonthPeriod | null } {
  // A first report compares with nothing: its client has never been shown a last period.
  if (previous === null || headline.value === null || (!headline.inPeriod && headline.measuredAt !== null)) return { value: null, period: null };
  const month = periodBefore(period);
  const fromHistory = headline.inPeriod ? historyValue(content.history, kind, month) : null;
  if (fromHistory !== null) return { value: fromHistory, period: month };
  const before = placeScore(previous.report, kind, previous.period);
  // A value of its period is compared with one of its period; an undated one, run to run, with what was shown.
  const comparable = !headline.inPeriod || before.inPeriod;
  return comparable && before.value !== null ? { value: before.value, period: previous.period } : { value: null, period: null };
}

/**
 * The date the answer's values that have no history (AI visibility, metrics, trust) are shown "as of": null when
 * the scores' own date places them in the period; that date when it is before the period; else the day of the run
 * (the service answers as of then), never a month after the period passed off as the period's.
 */
export function currentValuesAsOf(content: ReportContent, period: MonthPeriod, runDate: string): string | null {
  const measuredAt = content.scores?.measuredAt ?? null;
  if (measuredAt === null || isAfterPeriod(measuredAt, period)) return runDate;
  return monthOf(measuredAt) === period ? null : measuredAt;
}

/**
 * True when an undated value read on `runDate` cannot stand for `period`: the service answers as of the run, and a run
 * made after the month that follows the period (40 days late) reads a later month's data. In the month after the
 * period (the monthly run), an undated value is the nearest reading and is shown "as of" the run's day instead.
 */
export function readAfterPeriod(period: MonthPeriod, runDate: string): boolean {
  return monthsBetween(period, monthOf(runDate)) > 1;
}
