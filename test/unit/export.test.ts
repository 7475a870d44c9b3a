// The export's pure parts: a report model → the tidy rows, CSV fields as RFC 4180 and OWASP want them, sheet names
// Excel takes.
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord, inertText } from '../../src/export/csv.js';
import { reportRows, unitOfValue } from '../../src/export/rows.js';
import { defaultExportName } from '../../src/export/write.js';
import { sheetName } from '../../src/export/xlsx.js';
import { assembleReport, reportValues } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { hostileReportModel, reportModel } from '../fixtures/report-model.js';

describe('reportRows', () => {
  it('gives every value of the model once, with its unit and its change', () => {
    const model = reportModel();
    const rows = reportRows(model);
    const find = (section: string, key: string) => rows.find((r) => r.section === section && r.key === key);
    const geo = find('scores', 'geo_score');
    expect(geo).toMatchObject({ value: model.scores?.geo.value, unit: 'points', change: model.scores?.geo.change?.value ?? null });
    expect(geo).toMatchObject({ period: model.meta.period, projectId: model.meta.projectId, client: model.client.name, language: 'en' });
    for (const metric of model.metrics ?? []) {
      if (metric.value === null) continue;
      const unit = metric.unit ?? unitOfValue(metric.value);
      expect(find('metrics', metric.key)).toMatchObject({ value: metric.value, unit, change: metric.change?.value ?? null });
    }
    // No row without its unit: a value the service sent without one gets the unit of its kind.
    expect(rows.filter((row) => row.unit === null || row.unit === '')).toEqual([]);
    for (const visibility of model.scores?.aiVisibility ?? []) {
      if (visibility.value !== null) expect(find('ai_visibility', visibility.assistant)?.value).toBe(visibility.value);
    }
    expect(find('recommendations', 'open')?.value).toBe(model.recommendations?.total);
    const byPriority = ['critical', 'high', 'medium', 'low'].map((p) => find('recommendations', `open_${p}`)?.value as number);
    expect(byPriority.reduce((a, b) => a + b, 0)).toBe(model.recommendations?.total);
    for (const row of rows) expect(rows.filter((r) => r.section === row.section && r.key === row.key)).toHaveLength(1);
  });

  it('gives a value sent without a unit the unit of its kind: count, number, yes/no, text', () => {
    expect([unitOfValue(12), unitOfValue(4.6), unitOfValue(true), unitOfValue('verified')]).toEqual(['count', 'number', 'yes/no', 'text']);
  });

  it('leaves out a value the report has none of, and a section the report left out', () => {
    const model = reportModel();
    const rows = reportRows({ ...model, trust: null, scores: model.scores === null ? null : { ...model.scores, percentile: null } });
    expect(rows.some((r) => r.section === 'trust')).toBe(false);
    expect(rows.some((r) => r.key === 'percentile')).toBe(false);
  });

  it('keeps hostile text as it is (the writers make it inert)', () => {
    const model = hostileReportModel();
    const rows = reportRows(model);
    expect(rows.every((r) => r.client === model.client.name)).toBe(true);
    expect(rows.find((r) => r.section === 'metrics')?.value).toBe(model.metrics?.[0]?.value);
  });
});

describe('reportValues', () => {
  it("gives the export the values and rows of the report's own assembly, with and without last month", () => {
    for (const input of [assembleInput(), assembleInput({ previous: null }), assembleInput({ language: 'fr' })]) {
      const model = assembleReport(input);
      const values = reportValues(input);
      expect(values).toEqual({
        meta: { projectId: model.meta.projectId, period: model.meta.period, language: model.meta.language },
        client: { name: model.client.name, domain: model.client.domain },
        scores: model.scores,
        metrics: model.metrics,
        trust: model.trust,
        recommendations: model.recommendations,
        otherSections: model.otherSections,
        facts: model.facts,
      });
      expect(reportRows(values)).toEqual(reportRows(model));
      expect(reportRows(values).length).toBeGreaterThan(10);
    }
  });
});

describe('CSV', () => {
  it('quotes a field with a quote, a comma or a line break, and doubles its quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('one\r\ntwo')).toBe('"one\r\ntwo"');
    expect(csvRecord(['x', 1, null, true])).toBe('x,1,,true\r\n');
  });

  it('makes a text that starts like a formula inert, never a number', () => {
    for (const text of ['=1+1', '+33 1 23', '-2', '@SUM(A1)', '\tx', '\rx']) expect(csvField(text).replace(/^"/, '').startsWith(`'${text[0]}`)).toBe(true);
    expect(csvField('=HYPERLINK("http://x","a,b")')).toBe(`"'=HYPERLINK(""http://x"",""a,b"")"`);
    expect(csvField(-2.5)).toBe('-2.5');
    expect(inertText('Café = good')).toBe('Café = good');
    expect(csvField(Number.NaN)).toBe('');
  });
});

describe('sheetName', () => {
  it('takes out what Excel refuses, keeps 31 characters, and never gives a name twice', () => {
    const taken = new Set<string>();
    expect(sheetName('data', taken)).toBe('data');
    expect(sheetName('DATA', taken)).toBe('DATA (2)');
    expect(sheetName('a/b:c[d]*?\\', taken)).toBe('a_b_c_d____');
    const long = sheetName('x'.repeat(40), taken);
    expect(long).toHaveLength(31);
    expect(sheetName('x'.repeat(40), taken)).toBe(`${'x'.repeat(27)} (2)`);
    expect(sheetName("'quoted'", taken)).toBe('quoted');
    expect(sheetName('', taken)).toBe('section');
  });
});

describe('defaultExportName', () => {
  it('names the span of months and the format', () => {
    expect(defaultExportName(['2026-09', '2026-10'], 'csv')).toBe('export-2026-09_2026-10.csv');
    expect(defaultExportName(['2026-10'], 'json')).toBe('export-2026-10.jsonl');
    expect(defaultExportName([], 'xlsx')).toBe('export-none.xlsx');
  });
});
