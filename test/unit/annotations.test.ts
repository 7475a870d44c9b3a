// Annotations (read from a config folder: test/integration/annotations-config.test.ts): dates, lines; on the
// report model (window, markers, the month's note), in the summary, on the chart and in the HTML, escaped.
import { describe, expect, it } from 'vitest';
import { isCalendarDate, lineOfJsonPath } from '../../src/config/annotations.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { historyChartSvg } from '../../src/render/charts.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import { annotationViews, sinceAnnotationSentence } from '../../src/report/annotations.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { reportModel } from '../fixtures/report-model.js';
import { toMonth } from '../../src/period.js';
import { typeset } from '../../src/i18n/typography.js';

describe('annotation dates and lines', () => {
  it('tells a real day from a look-alike', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-5-3')).toBe(false);
    expect(isCalendarDate('2026-05-03T00:00')).toBe(false);
  });

  it('finds the line of a value, or of the nearest enclosing one', () => {
    const text = '{\n  "a": [\n    1,\n    { "b": "x,y" },\n    { "c": true }\n  ],\n  "d": null\n}';
    expect(lineOfJsonPath(text, ['a', 1, 'b'])).toBe(4);
    expect(lineOfJsonPath(text, ['a', 2, 'missing'])).toBe(5);
    expect(lineOfJsonPath(text, ['d'])).toBe(7);
  });
});

describe('annotations on the report', () => {
  const history = ['2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08', '2026-09', '2026-10'].map((month, i) => ({
    date: `${month}-01`,
    geo: 60 + i,
    seo: 50,
  }));

  it("keeps those from the history's first month to the end of the period, oldest first, numbered", () => {
    const views = annotationViews(
      [
        { date: '2026-02-27', text: 'before the chart', kind: null },
        { date: '2026-03-01', text: 'first day', kind: null },
        { date: '2026-10-31', text: 'last day', kind: 'content' },
        { date: '2026-11-01', text: 'after the period', kind: null },
      ],
      toMonth('2026-10'),
      history,
    );
    expect(views).toEqual([
      { marker: '1', date: '2026-03-01', text: 'first day', kind: null },
      { marker: '2', date: '2026-10-31', text: 'last day', kind: 'content' },
    ]);
  });

  it('says in the summary how the GEO score moved since the latest recent annotation, as a fact', () => {
    const annotations = annotationViews([{ date: '2026-05-03', text: 'Titles rewritten', kind: null }], toMonth('2026-10'), history);
    const geo = { value: 70, benchmarkAverage: null, vsBenchmark: null, change: null, asOf: null };
    const en = sinceAnnotationSentence({ annotations, history, geo, period: toMonth('2026-10'), language: 'en', phrases: loadPhrases('en') });
    // On 3 May the latest month known was May (62): 70 − 62.
    expect(en).toBe('Your GEO score is up 8 points since “Titles rewritten” on May 3, 2026, at 70.');
    const fr = sinceAnnotationSentence({
      annotations,
      history,
      geo: { ...geo, value: 61 },
      period: toMonth('2026-10'),
      language: 'fr',
      phrases: loadPhrases('fr'),
    });
    expect(fr?.replace(/[\u00a0\u202f]/g, ' ')).toBe('Votre score GEO a perdu 1 point depuis « Titles rewritten » le 3 mai 2026, à 61.');
    const flat = sinceAnnotationSentence({
      annotations,
      history,
      geo: { ...geo, value: 62 },
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
    });
    expect(flat).toContain('unchanged since');
    // Older than the last six months, or with no score: nothing said.
    expect(sinceAnnotationSentence({ annotations, history, geo, period: toMonth('2026-11'), language: 'en', phrases: loadPhrases('en') })).toBeNull();
    expect(
      sinceAnnotationSentence({ annotations, history, geo: { ...geo, value: null }, period: toMonth('2026-10'), language: 'en', phrases: loadPhrases('en') }),
    ).toBeNull();
  });

  it('quotes an annotation that holds a quotation with the inner marks of each language', () => {
    const geo = { value: 70, benchmarkAverage: null, vsBenchmark: null, change: null, asOf: null };
    // The annotation as the report keeps it: typed with straight quotes, set by the language's typography.
    const sentence = (language: string): string | null =>
      sinceAnnotationSentence({
        annotations: annotationViews([{ date: '2026-05-03', text: typeset('"Summer" titles rewritten', language), kind: null }], toMonth('2026-10'), history),
        history,
        geo,
        period: toMonth('2026-10'),
        language,
        phrases: loadPhrases(language),
      });
    const expected: Record<string, string> = {
      en: '“‘Summer’ titles rewritten”',
      fr: '« “Summer” titles rewritten »',
      de: '„‚Summer‘ titles rewritten“',
      es: '«“Summer” titles rewritten»',
      it: '«“Summer” titles rewritten»',
      nl: '“‘Summer’ titles rewritten”',
      pt: '“‘Summer’ titles rewritten”',
    };
    for (const [language, quoted] of Object.entries(expected)) {
      expect(sentence(language)?.replace(/[\u00a0\u202f]/g, ' '), language).toContain(quoted);
    }
  });

  it("assembles them into the model and the summary; the month's note replaces the general one", () => {
    const input = assembleInput();
    const plain = assembleReport(input);
    const first = plain.history?.[0]?.date as string;
    const model = assembleReport({
      ...input,
      client: { ...input.client, note: 'This month', annotations: [{ date: first, text: 'Work started', kind: 'technical' }] },
    });
    expect(model.annotations).toEqual([{ marker: '1', date: first, text: 'Work started', kind: 'technical' }]);
    expect(model.client.note).toBe('This month');
    expect(plain.annotations).toEqual([]);
    expect(model.summary.length).toBeGreaterThanOrEqual(plain.summary.length);
  });

  it('marks each on the chart at its date, a numbered circle in black on white', () => {
    const svg = historyChartSvg(history, {
      labels: { geo: 'GEO', seo: 'SEO' },
      colors: { geo: '#1f4e79', seo: '#2a9d8f' },
      language: 'en',
      annotations: [
        { marker: '1', date: '2026-05-16' },
        { marker: '2', date: '2026-05-17' },
      ],
    });
    const marks = [
      ...svg.matchAll(
        /<circle cx="([\d.]+)" cy="[\d.]+" r="7"\/><text x="[\d.]+" y="[\d.]+" dy="0.35em" text-anchor="middle" stroke="none" fill="#111827">(\d)<\/text>/g,
      ),
    ];
    expect(marks.map((m) => m[2])).toEqual(['1', '2']);
    // May 16 is about halfway between the May and June months (x of month i: 36 + i × 82.29 on a 640-wide chart).
    const may = 36 + 2 * ((640 - 28 - 36) / 7);
    const june = 36 + 3 * ((640 - 28 - 36) / 7);
    expect(Number(marks[0]?.[1])).toBeGreaterThan(may + (june - may) * 0.4);
    expect(Number(marks[0]?.[1])).toBeLessThan(may + (june - may) * 0.6);
    // The day after would overlap: its mark moves right, clear of the first.
    expect(Number(marks[1]?.[1]) - Number(marks[0]?.[1])).toBeGreaterThanOrEqual(16);
    expect(svg).toContain('stroke-dasharray="1,3"');
    const none = historyChartSvg(history, { labels: { geo: 'GEO', seo: 'SEO' }, colors: { geo: '#1f4e79', seo: '#2a9d8f' }, language: 'en' });
    expect(none).not.toContain('chart-annotations');
  });

  it('lists them under the chart, escaped, and draws no text of theirs into the chart', async () => {
    const renderer = await createHtmlRenderer();
    const base = reportModel('en');
    const date = base.history?.[3]?.date as string;
    const hostile = '<script>alert(1)</script> & "quotes"';
    const html = renderer.renderReport({ ...base, annotations: [{ marker: '1', date, text: hostile, kind: '<b>kind</b>' }] });
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html).toContain('(&lt;b&gt;kind&lt;/b&gt;)');
    expect(html).toMatch(/<span class="annotations__marker" aria-hidden="true">1<\/span>/);
    const svg = /<svg[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect(svg).toContain('chart-annotations');
    expect(svg).not.toContain('script');
    const without = renderer.renderReport(base);
    expect(without).not.toContain('<ol class="annotations__list"');
    expect(html).toContain('<ol class="annotations__list"');
  });
});
