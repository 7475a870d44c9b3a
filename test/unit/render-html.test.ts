import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHtmlRenderer, sortIndexRows, withoutControlCharacters } from '../../src/render/html.js';
import type { HtmlRenderer } from '../../src/render/html.js';
import { DEFAULT_TEMPLATES_DIR } from '../../src/render/html.js';
import type { ReportModel } from '../../src/report/model.js';
import { hostileIndexModel, hostileReportModel, indexModel, reportModel } from '../fixtures/report-model.js';

/** Attributes through which a browser fetches something, and what they point to. */
function resourceReferences(html: string): string[] {
  const found: string[] = [];
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    for (const attr of tag.matchAll(/\s([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/g)) {
      const name = (attr[1] ?? '').toLowerCase();
      const value = (attr[2] ?? '').replace(/^["']|["']$/g, '');
      if (['src', 'href', 'srcset', 'poster', 'data', 'action', 'formaction', 'background', 'xlink:href'].includes(name)) {
        if (!value.startsWith('data:') && !value.startsWith('#')) found.push(`${name}=${value}`);
      }
      if (name === 'style') {
        for (const url of value.matchAll(/url\(\s*['"]?([^'")]*)/g)) {
          if (!(url[1] ?? '').startsWith('#') && !(url[1] ?? '').startsWith('data:')) found.push(`style url(${url[1]})`);
        }
      }
    }
  }
  for (const block of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)) {
    const css = block[1] ?? '';
    if (/@import/i.test(css)) found.push('@import');
    for (const url of css.matchAll(/url\(\s*['"]?([^'")]*)/g)) {
      const target = url[1] ?? '';
      if (!target.startsWith('data:') && !target.startsWith('#')) found.push(`css url(${target})`);
    }
  }
  return found;
}

const tagCount = (html: string, tag: string): number => (html.match(new RegExp(`<${tag}[\\s>/]`, 'gi')) ?? []).length;

const headingLevels = (html: string): number[] => [...html.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));

const visibleHeadings = (html: string): string[] =>
  [...html.matchAll(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/g)].map((m) =>
    (m[1] ?? '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

describe('report HTML', () => {
  let renderer: HtmlRenderer;
  beforeAll(async () => {
    renderer = await createHtmlRenderer();
  });

  it('renders every section of a full English report', () => {
    const html = renderer.renderReport(reportModel('en'));
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<title>Atelier Verdant — GEO &amp; SEO report — October 2026</title>');
    expect(tagCount(html, 'h1')).toBe(1);
    expect(visibleHeadings(html)).toEqual(
      expect.arrayContaining([
        'GEO &amp; SEO report Atelier Verdant',
        'Summary',
        'What changed since last month',
        'Scores',
        'GEO score',
        'SEO score',
        'AI visibility by assistant',
        'Score history',
        'Metrics',
        'Trust',
        'Review platforms',
        'Recommendations',
        'Additional data',
        'Local presence',
      ]),
    );
    for (const text of [
      'atelier-verdant.example',
      'Prepared by',
      'Lumen &amp; Co Digital',
      'hello@lumen-co.example',
      'A note from Lumen &amp; Co Digital',
      'Top 18% of tracked sites',
      'Compared with 1,240 tracked sites',
      '▲ +6',
      '▲ +4.6',
      '▼ −3',
      '▶ 0',
      '1,873',
      'Google Reviews',
      '4.7 / 5',
      'Add Product schema to every product page',
      'Open for 3 months',
      'Submit the XML sitemap to search engines',
      'AI visibility</span>',
      'Expected impact',
    ]) {
      expect(html, text).toContain(text);
    }
    // Recommendations grouped in priority order.
    const order = ['Critical', 'High', 'Medium', 'Low'].map((p) => html.indexOf(`</span>${p} <span class="count">`));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('is one self-contained file: inline fonts, logo and chart, no script, nothing fetched', () => {
    const html = renderer.renderReport(reportModel('en'));
    expect(tagCount(html, 'script')).toBe(0);
    expect(tagCount(html, 'link')).toBe(0);
    expect(resourceReferences(html)).toEqual([]);
    expect(html.match(/src:url\(data:font\/woff2;base64,/g)?.length).toBe(6);
    expect(html).toMatch(/<img class="cover__logo" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="Lumen &amp; Co Digital logo">/);
    // The history chart, drawn twice: for the page and the print, and for a phone's width.
    expect(tagCount(html, 'svg')).toBe(2);
    expect(html).toMatch(/<div class="chart__wide"><svg [^>]*viewBox="0 0 640 260">/);
    expect(html).toMatch(/<div class="chart__narrow"><svg [^>]*viewBox="0 0 340 240">/);
    expect(html).toContain('--brand-primary:#16324f;');
  });

  it('keeps headings in order and labels every table header', () => {
    const html = renderer.renderReport(reportModel('en'));
    const levels = headingLevels(html);
    expect(levels[0]).toBe(1);
    for (let i = 1; i < levels.length; i += 1) {
      expect((levels[i] ?? 0) - (levels[i - 1] ?? 0)).toBeLessThanOrEqual(1);
    }
    const headers = html.match(/<th[\s>][^>]*>|<th>/g) ?? [];
    expect(headers.length).toBeGreaterThan(10);
    for (const th of headers) expect(th).toMatch(/scope="(col|row)"/);
  });

  it('speaks French from the French locale file', () => {
    const html = renderer.renderReport(reportModel('fr'));
    expect(html).toContain('<html lang="fr">');
    for (const text of [
      'Rapport GEO &amp; SEO',
      'Synthèse',
      'Préparé par',
      'Ce qui a changé depuis le mois dernier',
      'Visibilité IA par assistant',
      'Historique des scores',
      'Indicateurs',
      'Plateformes d&#x27;avis',
      'Critique',
      'Dans les 18\u00a0% meilleurs sites suivis',
      'Comparé à 1\u202f240 sites suivis',
      '▲ +4,6',
      '1\u202f873',
      '4,7 / 5',
      'Ouverte depuis 3 mois',
      'Généré le 1 novembre 2026',
    ]) {
      expect(html, text).toContain(text);
    }
    expect(html).not.toContain('Prepared by');
  });

  it('escapes hostile data everywhere: no tag, URL or style from data survives', () => {
    const html = renderer.renderReport(hostileReportModel());
    expect(tagCount(html, 'script')).toBe(0);
    expect(tagCount(html, 'img')).toBe(0);
    expect(tagCount(html, 'iframe')).toBe(0);
    expect(tagCount(html, 'link')).toBe(0);
    expect(tagCount(html, 'base')).toBe(0);
    expect(tagCount(html, 'b')).toBe(0);
    // Ours only: the chart SVG carries no stylesheet.
    expect(tagCount(html, 'style')).toBe(1);
    expect(tagCount(html, 'svg')).toBe(2);
    expect(html).not.toMatch(/\son\w+=/i);
    expect(resourceReferences(html)).toEqual([]);
    // The attacks are shown as text.
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src&#x3D;&quot;http://198.51.100.7/x.png&quot;&gt;');
    expect(html).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt;&lt;/title&gt;&lt;base href');
    expect(html).toContain('../../../&lt;img');
    // NUL and other control characters are dropped, long and non-Latin text kept.
    expect(html).not.toContain('\u0000');
    expect(html).toContain('Note with NUL and Ünïcödé-名前-اسم-');
    // Unsafe branding falls back to the defaults instead of entering the stylesheet.
    expect(html).toContain('--brand-primary:#1e3a8a;');
    expect(html).toContain('--brand-accent:#0f766e;');
    expect(html).not.toContain('expression(');
    expect(html).toMatch(/<p class="cover__wordmark">Agency &lt;script&gt;/);
    // Handlebars syntax in data is text, not a template.
    expect(html).toContain('{{t &quot;x&quot;}}');
  });

  it('leaves out sections the model leaves out, without an empty heading', () => {
    const model: ReportModel = {
      ...reportModel('en'),
      scores: null,
      history: null,
      metrics: null,
      trust: null,
      recommendations: null,
      otherSections: [],
    };
    const html = renderer.renderReport(model);
    const body = html.slice(html.indexOf('<body>'));
    const headings = visibleHeadings(html);
    // The glossary stays: GEO and SEO are in the title of every report.
    expect(headings).toEqual(['GEO &amp; SEO report Atelier Verdant', 'Summary', 'What these words mean']);
    for (const gone of [
      'section--scores',
      'section--history',
      'section--metrics',
      'section--trust',
      'section--recommendations',
      'section--other',
      'What changed',
      '<svg',
    ]) {
      expect(body).not.toContain(gone);
    }
    expect(html).toContain('The GEO score rose 6 points');
  });

  it('says so when a present section has nothing in it', () => {
    const base = reportModel('en');
    const html = renderer.renderReport({
      ...base,
      summary: [],
      client: { ...base.client, note: null },
      history: [],
      metrics: [],
      recommendations: { total: 0, groups: [], tracking: null },
    });
    expect(html).toContain('Nothing notable changed this month.');
    expect(html).toContain('No history is available yet.');
    expect(html).toContain('No metrics this month.');
    expect(html).toContain('No open recommendations: well done.');
    expect(html).not.toContain('class="note"');
    expect(html).not.toContain('<svg');
  });

  it('marks new recommendations only when there is a previous period to compare with', () => {
    const base = reportModel('en');
    const tracked = renderer.renderReport(base);
    expect(tracked).toContain('class="badge badge--new"');
    const recommendations = base.recommendations;
    if (recommendations === null) throw new Error('fixture has recommendations');
    const firstPeriod = renderer.renderReport({ ...base, recommendations: { ...recommendations, tracking: null } });
    expect(firstPeriod).not.toContain('class="badge badge--new"');
    expect(firstPeriod).not.toContain('What changed since last month');
  });

  it('renders unknown sections generically, nested values as nested lists', () => {
    const base = reportModel('en');
    const html = renderer.renderReport({
      ...base,
      otherSections: [
        {
          key: 'mystery',
          label: 'Mystery section',
          entries: [
            { key: 'flag', label: 'Enabled', value: false },
            { key: 'empty', label: 'Nothing', value: [] },
            { key: 'ratio', label: 'Ratio', value: 0.125 },
            { key: 'outer', label: 'Outer', value: [{ key: 'inner', label: 'Inner', value: [{ key: 'deepest', label: 'Deepest', value: 'bottom' }] }] },
          ],
        },
      ],
    });
    const section = html.slice(html.indexOf('class="section section--other"'));
    expect(section).toContain('<h3>Mystery section</h3>');
    expect(section).toMatch(/<dt>Enabled<\/dt>\s*<dd>No<\/dd>/);
    expect(section).toMatch(/<dt>Nothing<\/dt>\s*<dd>None<\/dd>/);
    expect(section).toMatch(/<dt>Ratio<\/dt>\s*<dd>0.13<\/dd>/);
    expect(section).toMatch(
      /<dt>Outer<\/dt>\s*<dd><dl class="kv">\s*<div class="kv__row">\s*<dt>Inner<\/dt>\s*<dd><dl class="kv">\s*<div class="kv__row">\s*<dt>Deepest<\/dt>\s*<dd>bottom<\/dd>/,
    );
  });

  it('renders a held report exactly like a releasable one (only the index flags it)', () => {
    const model = reportModel('en');
    expect(renderer.renderReport({ ...model, held: ['GEO score dropped 14 points'] })).toBe(renderer.renderReport(model));
  });

  it('sets the agency name as a word mark when there is no logo', () => {
    const base = reportModel('en');
    const { logoDataUri: _dropped, ...branding } = base.branding;
    const html = renderer.renderReport({ ...base, branding });
    expect(tagCount(html, 'img')).toBe(0);
    expect(html).toContain('<p class="cover__wordmark">Lumen &amp; Co Digital</p>');
  });

  it('uses no triple-stash in templates: every data value goes through escaping', () => {
    const files = [
      join(DEFAULT_TEMPLATES_DIR, 'report.hbs'),
      join(DEFAULT_TEMPLATES_DIR, 'index.hbs'),
      ...readdirSync(join(DEFAULT_TEMPLATES_DIR, 'partials')).map((f) => join(DEFAULT_TEMPLATES_DIR, 'partials', f)),
    ];
    for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toContain('{{{');
  });

  it('writes a goal on a percentage with its unit, its paces in points, and no pace beside "no trend yet"', () => {
    const goal = (status: 'behind' | 'no_trend', recentPace: number | null): NonNullable<ReportModel['goals']>[number] => ({
      metric: 'metric:share_of_voice',
      metricName: 'Share of voice',
      label: 'Share of voice: 15 or more',
      direction: 'up',
      target: 15,
      by: '2027-06',
      byLabel: 'June 2027',
      value: 14.2,
      asOf: null,
      start: 12,
      unit: '%',
      status,
      statusLabel: status === 'behind' ? 'Behind' : 'No trend yet',
      progress: 94.7,
      paceNeeded: 0.04,
      recentPace,
      projected: null,
      monthsLeft: 20,
      known: 2,
      justAchieved: false,
    });
    const html = renderer.renderReport({ ...reportModel('en'), goals: [goal('behind', -0.5), goal('no_trend', null)] });
    const text = html
      .slice(html.indexOf('id="goals-title"'))
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(text).toContain('14.2%');
    expect(text).toContain('15% by June 2027');
    expect(text).toContain('Needed: ▲ +0.04 pts a month');
    expect(text).toContain('Recent pace: ▼ −0.5 pts a month');
    expect(html).toContain('aria-label="14.2% of 15%"');
    expect(html.split('goal goal--no_trend')[1]?.split('</tr>')[0]).not.toContain('Recent pace');
  });
});

describe('index HTML', () => {
  let renderer: HtmlRenderer;
  beforeAll(async () => {
    renderer = await createHtmlRenderer();
  });

  const clientOrder = (tableHtml: string): string[] => [...tableHtml.matchAll(/<span class="client-name">([^<]*)<\/span>/g)].map((m) => m[1] ?? '');

  it('lists every client, biggest drop first in the table shown by default', () => {
    const html = renderer.renderIndex(indexModel('en'));
    expect(html).toContain('<html lang="en">');
    expect(tagCount(html, 'h1')).toBe(1);
    expect(tagCount(html, 'script')).toBe(0);
    expect(resourceReferences(html).every((ref) => /^href=[\w-]+\/report\.(html|pdf)$/.test(ref))).toBe(true);
    const first = html.slice(html.indexOf('class="sorted sorted--drop"'), html.indexOf('class="sorted sorted--name"'));
    expect(clientOrder(first)).toEqual(['Boulangerie Martin', 'Cobalt Cycles', 'Fjord Seafood', 'Atelier Verdant', 'Dune Outdoor', 'Élan Yoga Studio']);
    expect(html).toMatch(/id="sort-drop" value="drop" checked>/);
    expect(html).toContain('<span class="state state--held">Held</span>');
    expect(html).toContain('<li>GEO score dropped 14 points (threshold 10)</li>');
    expect(html).toContain('The API answered 503 three times for project 4214');
    expect(html).toContain('href="atelier-verdant/report.pdf"');
    expect(html).toContain('Ahead of 31% of tracked sites');
    expect(html).toContain('▼ −14');
    expect(html).toMatch(/<h2 id="totals-title"[^>]*>Totals<\/h2>/);
  });

  it('shows per client whether the email was sent (when), failed (why), is unknown, or was not sent', () => {
    const html = renderer.renderIndex(indexModel('en'));
    const rowOf = (name: string): string => {
      const table = html.slice(html.indexOf('class="sorted sorted--name"'), html.indexOf('class="sorted sorted--geo"'));
      const start = table.indexOf(`<span class="client-name">${name}</span>`);
      return table.slice(start, table.indexOf('</tr>', start));
    };
    expect(html).toContain('<th scope="col">Email</th>');
    expect(rowOf('Atelier Verdant')).toMatch(/mail--sent">Sent<\/span>\s*<time class="mail__at" datetime="2026-11-04T07:02:11.000Z">November 4, 2026<\/time>/);
    expect(rowOf('Cobalt Cycles')).toContain('mail--failed">Failed</span>');
    expect(rowOf('Cobalt Cycles')).toContain('<span class="mail__reason">cobalt@client.example refused: 550 5.1.1 mailbox unknown</span>');
    expect(rowOf('Fjord Seafood')).toContain('mail--unknown">Unknown: check before resending</span>');
    expect(rowOf('Boulangerie Martin')).toContain('mail--not_sent">Not sent</span>');
    expect(renderer.renderIndex(indexModel('fr'))).toContain('mail--sent">Envoyé</span>');
  });

  it('pre-renders the other orders so sorting needs no script', () => {
    const html = renderer.renderIndex(indexModel('fr'));
    const byName = html.slice(html.indexOf('class="sorted sorted--name"'), html.indexOf('class="sorted sorted--geo"'));
    expect(clientOrder(byName)).toEqual(['Atelier Verdant', 'Boulangerie Martin', 'Cobalt Cycles', 'Dune Outdoor', 'Élan Yoga Studio', 'Fjord Seafood']);
    expect(html).toContain('Trier par');
    expect(html).toContain('Retenu');
    const rows = indexModel('en').rows;
    expect(sortIndexRows(rows, 'geo', 'en').map((r) => r.geo)).toEqual([72, 64, 58, 41, null, null]);
    expect(sortIndexRows(rows, 'critical', 'en').map((r) => r.openCritical)).toEqual([4, 2, 1, 0, 0, 0]);
  });

  it('escapes hostile names and drops links that leave the period folder', () => {
    const html = renderer.renderIndex(hostileIndexModel());
    expect(tagCount(html, 'script')).toBe(0);
    expect(tagCount(html, 'img') - 1).toBe(0 /* only the agency logo */);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('href="../');
    expect(resourceReferences(html).every((ref) => /^(src=data:|href=[\w-]+\/report\.(html|pdf)$)/.test(ref))).toBe(true);
  });

  it('is the same page from a renderer made for the index alone, which makes no report', async () => {
    const indexOnly = await createHtmlRenderer({ pages: 'index' });
    expect(indexOnly.renderIndex(indexModel('fr'))).toBe(renderer.renderIndex(indexModel('fr')));
    expect(() => indexOnly.renderReport(reportModel())).toThrow(/agency index only/);
  });
});

describe('withoutControlCharacters', () => {
  it('strips control characters from every string, deeply, keeping tabs and newlines', () => {
    expect(withoutControlCharacters({ a: 'x\u0000y', b: ['\u001b[31mred', { c: 'tab\tnew\nline' }], n: 3, z: null })).toEqual({
      a: 'xy',
      b: ['[31mred', { c: 'tab\tnew\nline' }],
      n: 3,
      z: null,
    });
  });
});
