// The same month last year: the figure (the saved report's when it showed that month, else the history's), its
// change from the two figures shown, the card's line, and the one summary sentence told only when the year says
// what the month does not.
import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/report/assemble.js';
import type { Fact } from '../../src/report/facts.js';
import { buildSummary, LARGE_MOVE, VERDICT_NOISE, yearNews } from '../../src/report/summary.js';
import { toMonth } from '../../src/period.js';
import type { Report } from '../support/classic-schemas.js';
import { assembleInput, currentReport, PHRASES } from '../fixtures/api-fixtures.js';

/** The fixture's October 2026 answer with its history reaching back to `from` (one point a month, GEO and SEO given). */
function reportWithYear(points: Array<{ date: string; geo: number; seo: number }>): Report {
  const report = currentReport();
  const history = report.sections?.history ?? [];
  return {
    ...report,
    sections: { ...report.sections, history: [...points.map((p) => ({ date: p.date, geo_score: p.geo, seo_score: p.seo })), ...history] },
  };
}

const OCTOBER_2025 = [
  { date: '2025-09-05', geo: 40.2, seo: 50 },
  { date: '2025-10-05', geo: 63.6, seo: 58.44 },
];

describe('yearNews: whether the year says what the month does not', () => {
  it('tells a year that went the other way, or moved while the month held', () => {
    expect(yearNews(-3, 7)).toBe('against');
    expect(yearNews(4, -5)).toBe('against');
    // A month under the noise held: the year's move is news.
    expect(yearNews(VERDICT_NOISE - 0.5, 5)).toBe('against');
    expect(yearNews(0, -VERDICT_NOISE)).toBe('against');
  });

  it('tells a large year over a month that was not, and any year when the month has no change', () => {
    expect(yearNews(3, LARGE_MOVE)).toBe('over');
    expect(yearNews(-2, -12)).toBe('over');
    expect(yearNews(null, 3)).toBe('over');
  });

  it('says nothing of a year under the noise, or one that agrees with the month', () => {
    expect(yearNews(-6, VERDICT_NOISE - 0.1)).toBeNull();
    expect(yearNews(null, 1)).toBeNull();
    expect(yearNews(4, 6)).toBeNull();
    // Both large the same way: the month's sentence already tells it.
    expect(yearNews(LARGE_MOVE, LARGE_MOVE + 5)).toBeNull();
  });
});

describe('the same month last year on the scores card', () => {
  it("compares with the history's October 2025, both sides rounded by the one rule, as facts", () => {
    const model = assembleReport(assembleInput({ report: reportWithYear(OCTOBER_2025) }));
    // 71.4 shows 71 and 63.6 shows 64: the change is 71 − 64 = 7, never 7.8.
    expect(model.scores?.geo.yearAgo).toEqual({ period: '2025-10', periodLabel: 'October 2025', change: { value: 7, direction: 'up', previous: 64 } });
    // SEO 64.0 against 58.44 (58): +6.
    expect(model.scores?.seo.yearAgo?.change).toEqual({ value: 6, direction: 'up', previous: 58 });
    const fact = (key: string): Fact | undefined => model.facts.find((f) => f.key === key);
    expect(fact('scores.geo.yearAgo')).toMatchObject({ figure: 64, month: '2025-10', source: 'history' });
    expect(fact('scores.geo.yearChange')).toMatchObject({ figure: 7, month: '2026-10' });
  });

  it('names the month in the report’s language', () => {
    const model = assembleReport(assembleInput({ report: reportWithYear(OCTOBER_2025), language: 'fr' }));
    expect(model.scores?.geo.yearAgo?.periodLabel).toBe('octobre 2025');
  });

  it('takes the figure the report of that month showed over the history, as told', () => {
    const told: Fact = {
      key: 'scores.geo',
      value: 59.2,
      unit: 'score',
      direction: 'higher',
      month: '2025-10',
      date: '2025-10-05',
      source: 'history',
      figure: 59,
      shown: '59',
    };
    const input = assembleInput({ report: reportWithYear(OCTOBER_2025) });
    const model = assembleReport({ ...input, yearAgo: { period: toMonth('2025-10'), facts: [told] } });
    expect(model.scores?.geo.yearAgo?.change).toEqual({ value: 12, direction: 'up', previous: 59 });
    expect(model.facts.find((f) => f.key === 'scores.geo.yearAgo')).toMatchObject({ figure: 59, source: 'told' });
    // The saved month had no SEO figure for that month: the history's is shown.
    expect(model.scores?.seo.yearAgo?.change.previous).toBe(58);
  });

  it('shows none when the history stops short of a year and no month a year before was saved', () => {
    const model = assembleReport(assembleInput());
    expect(model.scores?.geo.yearAgo).toBeUndefined();
    expect(model.facts.some((f) => f.key.includes('year'))).toBe(false);
    // A saved month of another period is no year before.
    const input = assembleInput();
    const other = assembleReport({ ...input, yearAgo: { period: toMonth('2025-11'), facts: [] } });
    expect(other.scores?.geo.yearAgo).toBeUndefined();
  });
});

describe('the summary on the same month last year', () => {
  it('adds one sentence when the year says more than the month, in English and French', () => {
    // GEO rose 4 since September (under LARGE_MOVE) and 12 since October 2025: the year is large news.
    const history = [{ date: '2025-10-05', geo: 59.4, seo: 64.2 }];
    const en = assembleReport(assembleInput({ report: reportWithYear(history) }));
    const sentence = 'Over the year, your GEO score has gained 12 points since October 2025, when it was 59.';
    expect(en.summary.join(' ')).toContain(sentence);
    expect(en.summary.join(' ').split('Over the year').length).toBe(2);
    const fr = assembleReport(assembleInput({ report: reportWithYear(history), language: 'fr' }));
    expect(fr.summary.join(' ')).toContain('Sur un an, votre score GEO a gagné 12 points depuis octobre 2025, où il était de 59.');
  });

  it('says nothing when the year agrees with the month', () => {
    // GEO +4 since September and +6 since October 2025; SEO 64 both: nothing the month does not say.
    const en = assembleReport(assembleInput({ report: reportWithYear([{ date: '2025-10-05', geo: 65, seo: 64 }]) }));
    expect(en.scores?.geo.yearAgo?.change.value).toBe(6);
    expect(en.summary.join(' ')).not.toContain('Over the year');
  });

  it('tells a year that went against the month with "though"', () => {
    const model = assembleReport(assembleInput({ report: reportWithYear(OCTOBER_2025) }));
    const scores = model.scores;
    if (scores === null) throw new Error('no scores');
    const fell = { ...scores, geo: { ...scores.geo, change: { value: -3, direction: 'down' as const, previous: 74 } } };
    const summary = buildSummary({
      language: 'en',
      phrases: PHRASES.en,
      clientName: 'Boulangerie Martin',
      period: toMonth('2026-10'),
      previousPeriod: toMonth('2026-09'),
      scores: fell,
      metrics: null,
      recommendations: null,
    });
    expect(summary.join(' ')).toContain('Over the year, though, your GEO score is up 7 points on October 2025, when it was 64.');
  });
});
