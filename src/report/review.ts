// A review (a quarter, a year) as a table of facts over its months: each month's GEO and SEO are the figures that
// month's own report showed (its saved fact table), never asked again. The review's figure is its last month's; its
// change is against the previous period's last month (September − June for the third quarter) and against the same
// period a year before when the saved months reach back that far.
import { figureChange, factFigure, type Fact, type FigureChange } from './facts.js';
import { addMonths, lastMonth, monthsOf, periodBefore, yearBefore, type MonthPeriod, type ReviewPeriod } from '../period.js';
import type { ScoreKind } from './months.js';

/** The fact tables of the months already made, by month (data.json's `facts`, from the output folder or the history). */
export type SavedMonths = ReadonlyMap<MonthPeriod, readonly Fact[] | undefined>;

export interface ReviewScore {
  /** The period's figure: its last month's, as that month's report showed it; null when that report had none. */
  value: number | null;
  /** Against the previous period's last month; null when that month was not made or had no figure. */
  sincePrevious: FigureChange | null;
  /** Against the same period a year before (its last month); null when the saved months do not reach back. */
  sinceYearBefore: FigureChange | null;
}

export interface ReviewFigures {
  period: ReviewPeriod;
  /** Each month of the period, first to last, with the figures its report showed (null: not made, or no figure). */
  months: Array<{ month: MonthPeriod; geo: number | null; seo: number | null }>;
  /** The period's months with no saved report: each must be made (or named as missing) before the review. */
  missing: MonthPeriod[];
  geo: ReviewScore;
  seo: ReviewScore;
}

/** The figures of a review from the months already saved: no request is needed when none is missing. */
export function reviewFigures(period: ReviewPeriod, saved: SavedMonths): ReviewFigures {
  const shown = (month: MonthPeriod, kind: ScoreKind): number | null => shownFigure(saved, month, kind);
  const last = lastMonth(period);
  const previous = lastMonth(periodBefore(period));
  const yearAgo = lastMonth(yearBefore(period));
  const score = (kind: ScoreKind): ReviewScore => {
    const value = shown(last, kind);
    return {
      value,
      sincePrevious: figureChange(value, shown(previous, kind), 'score'),
      sinceYearBefore: figureChange(value, shown(yearAgo, kind), 'score'),
    };
  };
  const months = monthsOf(period);
  return {
    period,
    months: months.map((month) => ({ month, geo: shown(month, 'geo'), seo: shown(month, 'seo') })),
    missing: months.filter((month) => !saved.has(month)),
    geo: score('geo'),
    seo: score('seo'),
  };
}

/**
 * A month's score as the reports showed it: that month's own report's figure; else, for a month never made, the
 * figure the next month's report showed as its "last month", or the one the first later report showed in its
 * history table (a review of July to September made without June's report still measures its change from June as
 * July's report told it); else null.
 */
export function shownFigure(saved: SavedMonths, month: MonthPeriod, kind: ScoreKind): number | null {
  if (saved.has(month)) return factFigure(saved.get(month), `scores.${kind}`);
  const told = saved.get(addMonths(month, 1))?.find((fact) => fact.key === `scores.${kind}.previous` && fact.month === month);
  if (told !== undefined) return told.figure;
  // Else the month as the history table of the first later report that showed it.
  const later = [...saved.keys()].filter((m) => m > month).sort();
  for (const m of later) {
    const shown = saved.get(m)?.find((fact) => fact.key === `history.${kind}.${month}`);
    if (shown !== undefined) return shown.figure;
  }
  return null;
}
