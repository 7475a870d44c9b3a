// Annotations: read from the config and from annotations/<id>.csv, refused naming file, line and field; on the
// report model (window, markers, the month's note), in the summary, on the chart and in the HTML, escaped.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datedAnnotations, isCalendarDate, lineOfJsonPath, monthlyNote, parseAnnotationFile } from '../../src/config/annotations.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { historyChartSvg } from '../../src/render/charts.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import { annotationViews, sinceAnnotationSentence } from '../../src/report/annotations.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { reportModel } from '../fixtures/report-model.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-annotations-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A config folder: the config file, and annotation files beside it. */
async function configFolder(name: string, config: string, files: Record<string, string> = {}): Promise<string> {
  const folder = join(dir, name);
  await mkdir(join(folder, 'annotations'), { recursive: true });
  await writeFile(join(folder, 'geo-reports.json'), config);
  for (const [file, text] of Object.entries(files)) await writeFile(join(folder, 'annotations', file), text);
  return join(folder, 'geo-reports.json');
}

const refusal = async (path: string): Promise<string> => {
  const error = await loadConfig({ path, cwd: dir }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
};

describe('annotations in the config and beside it', () => {
  it('reads both forms and the files, the files after the config, a month as the date being its note', async () => {
    const path = await configFolder(
      'good',
      JSON.stringify({
        clients: {
          '102': {
            annotations: [
              { date: '2026-05-03', text: 'Titles rewritten', kind: 'content' },
              { period: '2026-10', note: 'October note' },
            ],
          },
        },
      }),
      {
        '102.csv': 'date,text,kind\n2026-06-01,"Blog, relaunched",content\n2026-10,"A note, from the file"\n',
        '103.csv': '\uFEFFdate,text\r\n2026-04-02,"He said ""hi"""\r\n',
      },
    );
    const { config } = await loadConfig({ path, cwd: dir });
    const own = config.clients['102']?.annotations;
    expect(datedAnnotations(own)).toEqual([
      { date: '2026-05-03', text: 'Titles rewritten', kind: 'content' },
      { date: '2026-06-01', text: 'Blog, relaunched', kind: 'content' },
    ]);
    // The last note given for a month wins: the file's, read after the config.
    expect(monthlyNote(own, '2026-10')).toBe('A note, from the file');
    expect(monthlyNote(own, '2026-09')).toBeNull();
    expect(datedAnnotations(config.clients['103']?.annotations)).toEqual([{ date: '2026-04-02', text: 'He said "hi"', kind: null }]);
  });

  it('refuses a bad entry of the config naming its line and key', async () => {
    const text =
      '{\n  "clients": {\n    "7": {\n      "annotations": [\n        { "date": "2026-05-03", "text": "ok" },\n        { "date": "2026-02-30", "text": "no such day" }\n      ]\n    }\n  }\n}\n';
    const message = await refusal(await configFolder('bad-date', text));
    expect(message).toContain('geo-reports.json');
    expect(message).toContain('line 6, clients."7".annotations[1].date: expected a date like "2026-05-03"');
    const long = await refusal(
      await configFolder('long', JSON.stringify({ clients: { '7': { annotations: [{ date: '2026-05-03', text: 'x'.repeat(121) }] } } })),
    );
    expect(long).toMatch(/line 1, clients\."7"\.annotations\[0\]\.text: is too long: at most 120 characters/);
    const both = await refusal(
      await configFolder('both', JSON.stringify({ clients: { '7': { annotations: [{ date: '2026-05-03', text: 'a', note: 'b' }] } } })),
    );
    expect(both).toContain('not both');
    const missing = await refusal(await configFolder('missing', JSON.stringify({ clients: { '7': { annotations: [{ period: '2026-05' }] } } })));
    expect(missing).toContain('annotations[0].note: is missing');
  });

  it.each([
    ['a day that is not one', 'date,text,kind\n2026-05-03,ok,\n2026-13-01,Titles,content\n', /7\.csv line 3, field date: expected a date/],
    ['a text too long', `date,text\n2026-05-03,${'y'.repeat(121)}\n`, /7\.csv line 2, field text: is too long: at most 120 characters/],
    ['an empty text', 'date,text\n2026-05-03,  \n', /7\.csv line 2, field text: is empty/],
    ['a kind too long', `date,text,kind\n2026-05-03,ok,${'k'.repeat(41)}\n`, /7\.csv line 2, field kind: is too long/],
    ['a month without its note', 'date,text\n2026-05,\n', /7\.csv line 2, field text: is empty/],
    ['a wrong header', 'day,text\n2026-05-03,ok\n', /7\.csv line 1: the first line must be the header date,text,kind/],
    ['a comma outside quotes', 'date,text,kind\n2026-05-03,a,b,c\n', /7\.csv line 2: 4 fields where the header has 3/],
    ['a quote never closed', 'date,text\n2026-05-03,"open\n2026-05-04,x\n', /7\.csv line 2: a quoted field is never closed/],
  ])('refuses an annotations file with %s, naming the file, line and field', async (name, csv, expected) => {
    const path = await configFolder(`file-${name.replace(/\W+/g, '-')}`, '{}', { '7.csv': csv });
    const message = await refusal(path);
    expect(message).toMatch(expected);
    expect(message).toContain(join(dir, `file-${name.replace(/\W+/g, '-')}`, 'annotations', '7.csv'));
  });

  it('counts lines across a quoted line break, and refuses a file not named by a project id', async () => {
    expect(() => parseAnnotationFile('date,text\n2026-05-03,"two\nlines"\n2026-05-32,x\n', 'a.csv')).toThrow(/a\.csv line 4, field date/);
    const message = await refusal(await configFolder('name', '{}', { 'acme.csv': 'date,text\n' }));
    expect(message).toContain('the name of an annotations file is the project');
  });

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
      '2026-10',
      history,
    );
    expect(views).toEqual([
      { marker: '1', date: '2026-03-01', text: 'first day', kind: null },
      { marker: '2', date: '2026-10-31', text: 'last day', kind: 'content' },
    ]);
  });

  it('says in the summary how the GEO score moved since the latest recent annotation, as a fact', () => {
    const annotations = annotationViews([{ date: '2026-05-03', text: 'Titles rewritten', kind: null }], '2026-10', history);
    const geo = { value: 70, benchmarkAverage: null, vsBenchmark: null, change: null, asOf: null };
    const en = sinceAnnotationSentence({ annotations, history, geo, period: '2026-10', language: 'en', phrases: loadPhrases('en') });
    // On 3 May the latest month known was May (62): 70 − 62.
    expect(en).toBe('Your GEO score is up 8 points since “Titles rewritten” on May 3, 2026, at 70.');
    const fr = sinceAnnotationSentence({ annotations, history, geo: { ...geo, value: 61 }, period: '2026-10', language: 'fr', phrases: loadPhrases('fr') });
    expect(fr?.replace(/[\u00a0\u202f]/g, ' ')).toBe('Votre score GEO a perdu 1 point depuis « Titles rewritten » le 3 mai 2026, à 61.');
    const flat = sinceAnnotationSentence({ annotations, history, geo: { ...geo, value: 62 }, period: '2026-10', language: 'en', phrases: loadPhrases('en') });
    expect(flat).toContain('unchanged since');
    // Older than the last six months, or with no score: nothing said.
    expect(sinceAnnotationSentence({ annotations, history, geo, period: '2026-11', language: 'en', phrases: loadPhrases('en') })).toBeNull();
    expect(
      sinceAnnotationSentence({ annotations, history, geo: { ...geo, value: null }, period: '2026-10', language: 'en', phrases: loadPhrases('en') }),
    ).toBeNull();
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
