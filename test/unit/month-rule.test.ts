// The month rule for every source: the period's dated data wins over the service's undated values; an undated value
// is shown "as of" the day it was read and never compared; a value read after the period is not shown at all.
import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/report/assemble.js';
import type { ReportModel } from '../../src/report/model.js';
import { toMonth } from '../../src/period.js';
import { readAfterPeriod } from '../../src/report/months.js';
import { readScanVisibility } from '../../src/report/scan-visibility.js';
import { assembleInput, currentReport } from '../fixtures/api-fixtures.js';

const OCTOBER_SCAN = {
  date: '2026-10-01',
  values: [
    { assistant: 'chatgpt', value: 55.4 },
    { assistant: 'gemini', value: 31 },
  ],
};
const SEPTEMBER_SCAN = {
  date: '2026-09-01',
  values: [
    { assistant: 'chatgpt', value: 50 },
    { assistant: 'gemini', value: 35 },
  ],
};

const visibilityRows = (model: ReportModel) => model.scores?.aiVisibility.map((row) => [row.assistant, row.value, row.change?.value ?? null]);
const fact = (model: ReportModel, key: string) => model.facts.find((f) => f.key === key);

describe('AI visibility by the month rule', () => {
  it("takes the period's scan over the report's undated values, dated by the scan and compared with last month's scan", () => {
    const model = assembleReport(assembleInput({ visibility: { scan: OCTOBER_SCAN, before: SEPTEMBER_SCAN } }));
    // The report answer says ChatGPT 62 (the service's latest, a November value); October's scan says 55.
    expect(visibilityRows(model)).toEqual([
      ['chatgpt', 55, 5],
      ['gemini', 31, -4],
    ]);
    expect(model.scores?.visibilityAsOf).toBeNull();
    expect(fact(model, 'ai.chatgpt')).toMatchObject({ value: 55.4, figure: 55, source: 'scan', month: '2026-10', date: '2026-10-01' });
  });

  it('shows undated values "as of" the run, as no month\'s figure, compared with nothing', () => {
    const model = assembleReport(assembleInput({ visibility: { scan: null, before: null } }));
    expect(visibilityRows(model)?.[0]).toEqual(['chatgpt', 62, null]);
    expect(model.scores?.aiVisibility.every((row) => row.change === null)).toBe(true);
    expect(model.scores?.visibilityAsOf).toBe('2026-11-04');
    expect(fact(model, 'ai.chatgpt')).toMatchObject({ month: null, date: '2026-11-04', source: 'snapshot' });
  });

  it('shows no undated value, ranking or benchmark on a run made 40 days after the period', () => {
    const late = { generatedAt: '2026-12-10T06:00:00.000Z' };
    const model = assembleReport(assembleInput({ ...late, visibility: { scan: null, before: null } }));
    expect(model.scores?.aiVisibility).toEqual([]);
    expect(model.scores?.percentile).toBeNull();
    expect(model.scores?.geo.benchmarkAverage).toBeNull();
    expect(model.scores?.geo.vsBenchmark).toBeNull();
    expect(model.facts.filter((f) => f.key.startsWith('ai.') || f.key === 'percentile' || f.key.startsWith('benchmark.'))).toEqual([]);
    // The headline is the history's October point, dated: it stays.
    expect(model.scores?.geo.value).toBe(71);
    // October's scan still gives October's visibility, however late the run.
    const scanned = assembleReport(assembleInput({ ...late, visibility: { scan: OCTOBER_SCAN, before: SEPTEMBER_SCAN } }));
    expect(visibilityRows(scanned)).toEqual([
      ['chatgpt', 55, 5],
      ['gemini', 31, -4],
    ]);
    expect(scanned.held).toEqual([]);
  });

  it('shows no value the service dated after the period, and an `ai:` goal on it has no value either', () => {
    const report = currentReport();
    const scores = report.sections?.scores as Record<string, unknown>;
    scores['measured_at'] = '2026-11-02';
    const model = assembleReport(
      assembleInput({ report, visibility: { scan: null, before: null }, goals: [{ metric: 'ai:chatgpt', target: 70, by: toMonth('2027-03') }] }),
    );
    expect(model.scores?.aiVisibility).toEqual([]);
    expect(model.goals?.[0]?.value).toBeNull();
    expect(model.held).toEqual([]);
  });

  it('reads a run on the month after the period as the nearest reading, a later one as a later month', () => {
    expect(readAfterPeriod(toMonth('2026-10'), '2026-11-04')).toBe(false);
    expect(readAfterPeriod(toMonth('2026-10'), '2026-11-30')).toBe(false);
    expect(readAfterPeriod(toMonth('2026-10'), '2026-12-10')).toBe(true);
    expect(readAfterPeriod(toMonth('2026-12'), '2027-02-01')).toBe(true);
  });
});

describe("the period's scan as read", () => {
  const read = (data: Record<string, unknown>) => readScanVisibility({ date: '2026-10-01', data })?.values;

  it('finds the per-assistant values in each reading of the geo part', () => {
    const expected = [
      { assistant: 'chatgpt', value: 55 },
      { assistant: 'gemini', value: 31 },
    ];
    expect(read({ geo: { geo_score: 60, ai_visibility: { chatgpt: 55, gemini: 31 } } })).toEqual(expected);
    expect(read({ geo: { geo: '60', assistants: { chatgpt: '55%', gemini: '31%' } } })).toEqual(expected);
    expect(
      read({
        scan: {
          sections: {
            geo: {
              ai_visibility_score: 60,
              visibility_by_assistant: {
                items: [
                  { assistant: 'chatgpt', visibility: 55 },
                  { assistant: 'gemini', visibility: 31 },
                ],
                count: 2,
              },
            },
          },
        },
      }),
    ).toEqual(expected);
  });

  it('is none when the scan has no geo part or no value per assistant', () => {
    expect(readScanVisibility(null)).toBeNull();
    expect(read({ seo_audit: { seo_score: 50 } })).toBeUndefined();
    expect(read({ geo: { geo_score: 60, questions: [] } })).toBeUndefined();
  });
});
