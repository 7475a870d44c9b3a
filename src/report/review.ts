// A review (a quarter, a year) as a table of facts over its months: each month's GEO and SEO are the figures that
// month's own report showed (its saved fact table), never asked again. The review's figure is its last month's; its
// change is against the previous period's last month (September − June for the third quarter) and against the same
// period a year before when the saved months reach back that far.
import { figureChange, factFigure, type Fact, type FigureChange } from './facts.js';
import { lastMonth, monthsOf, periodBefore, yearBefore, type MonthPeriod, type ReviewPeriod } from '../period.js';
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
  const shown = (month: MonthPeriod, kind: ScoreKind): number | null => (saved.has(month) ? factFigure(saved.get(month), `scores.${kind}`) : null);
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
