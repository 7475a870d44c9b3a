// A review's figures from the months already saved: its last month's figure as that month's report showed it, its
// change against the previous period's last month and against the same period a year before, its missing months named.
import { describe, expect, it } from 'vitest';
import { FactTableBuilder, type Fact } from '../../src/report/facts.js';
import { toMonth, toPeriod, type MonthPeriod, type ReviewPeriod } from '../../src/period.js';
import { reviewFigures, shownFigure } from '../../src/report/review.js';

/** The fact table a month's report saved, with the GEO and SEO it showed (raw values, rounded as the report did). */
function savedMonth(geo: number, seo: number): Fact[] {
  const facts = new FactTableBuilder('en');
  facts.add({ key: 'scores.geo', value: geo, unit: 'score', source: 'report' });
  facts.add({ key: 'scores.seo', value: seo, unit: 'score', source: 'report' });
  return facts.table();
}

const review = (text: string): ReviewPeriod => toPeriod(text) as ReviewPeriod;

describe('a review from the saved months', () => {
  it("takes the last month's shown figure and measures its change from the previous period's last month", () => {
    const saved = new Map<MonthPeriod, Fact[]>([
      [toMonth('2026-06'), savedMonth(50.4, 60)],
      [toMonth('2026-07'), savedMonth(52, 61)],
      [toMonth('2026-08'), savedMonth(55.2, 63)],
      [toMonth('2026-09'), savedMonth(57.6, 62.4)],
    ]);
    const figures = reviewFigures(review('2026-Q3'), saved);
    expect(figures.missing).toEqual([]);
    // 57.6 was shown as 58, 50.4 as 50: the change is of the figures shown, 58 − 50.
    expect(figures.geo.value).toBe(58);
    expect(figures.geo.sincePrevious).toEqual({ value: 8, direction: 'up', previous: 50 });
    expect(figures.seo.sincePrevious).toEqual({ value: 2, direction: 'up', previous: 60 });
    expect(figures.months.map((m) => [m.month, m.geo])).toEqual([
      ['2026-07', 52],
      ['2026-08', 55],
      ['2026-09', 58],
    ]);
    // The history does not reach back a year: no comparison is made up.
    expect(figures.geo.sinceYearBefore).toBeNull();
  });

  it('compares with the same period a year before when the saved months reach back', () => {
    const saved = new Map<MonthPeriod, Fact[]>([
      [toMonth('2025-09'), savedMonth(40, 55)],
      [toMonth('2026-07'), savedMonth(52, 61)],
      [toMonth('2026-08'), savedMonth(55, 63)],
      [toMonth('2026-09'), savedMonth(58, 62)],
    ]);
    const figures = reviewFigures(review('2026-Q3'), saved);
    expect(figures.geo.sinceYearBefore).toEqual({ value: 18, direction: 'up', previous: 40 });
    expect(figures.geo.sincePrevious).toBeNull();
  });

  it('names the months of the period that were never made', () => {
    const saved = new Map<MonthPeriod, Fact[]>([[toMonth('2026-09'), savedMonth(58, 62)]]);
    expect(reviewFigures(review('2026-Q3'), saved).missing).toEqual(['2026-07', '2026-08']);
    const year = reviewFigures(
      review('2026'),
      new Map([
        [toMonth('2026-12'), savedMonth(60, 70)],
        [toMonth('2025-12'), savedMonth(50, 65)],
      ]),
    );
    expect(year.missing).toHaveLength(11);
    expect(year.geo).toEqual({
      value: 60,
      sincePrevious: { value: 10, direction: 'up', previous: 50 },
      sinceYearBefore: { value: 10, direction: 'up', previous: 50 },
    });
  });

  it("reads a month never made as the next month's report showed it: its last month, else its history table", () => {
    const july = new FactTableBuilder('en');
    july.add({ key: 'scores.geo', value: 52, unit: 'score', month: '2026-07', source: 'history' });
    july.add({ key: 'history.geo.2026-06', value: 49.6, unit: 'score', month: '2026-06', source: 'history' });
    july.add({ key: 'history.geo.2025-09', value: 41, unit: 'score', month: '2025-09', source: 'history' });
    const saved = new Map<MonthPeriod, Fact[]>([
      [toMonth('2026-07'), july.table()],
      [toMonth('2026-08'), savedMonth(55, 63)],
      [toMonth('2026-09'), savedMonth(58, 62)],
    ]);
    const figures = reviewFigures(review('2026-Q3'), saved);
    // June as July's history table showed it (50), and September 2025 as well (41).
    expect(figures.geo.sincePrevious).toEqual({ value: 8, direction: 'up', previous: 50 });
    expect(figures.geo.sinceYearBefore).toEqual({ value: 17, direction: 'up', previous: 41 });
    // No report showed June's SEO: no change is made up.
    expect(figures.seo.sincePrevious).toBeNull();
    const told = new FactTableBuilder('en');
    told.add({ key: 'scores.geo.previous', value: 47, unit: 'score', month: '2026-06', source: 'told' });
    told.add({ key: 'history.geo.2026-06', value: 49.6, unit: 'score', month: '2026-06', source: 'history' });
    expect(shownFigure(new Map([[toMonth('2026-07'), told.table()]]), toMonth('2026-06'), 'geo')).toBe(47);
  });
});
