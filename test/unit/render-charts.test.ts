import { describe, expect, it } from 'vitest';
import { historyChartSvg } from '../../src/render/charts.js';
import type { HistoryPoint } from '../../src/report/model.js';

const history: HistoryPoint[] = [
  { date: '2026-05-01', geo: 50, seo: 60 },
  { date: '2026-06-01', geo: null, seo: 62 },
  { date: '2026-07-01', geo: 58, seo: 61 },
  { date: '2026-08-01', geo: 59, seo: 64 },
];

const options = {
  labels: { geo: 'GEO', seo: 'SEO' },
  colors: { geo: '#16324f', seo: '#0f766e' },
  language: 'en' as const,
};

/** Checks that every element opened is closed in order (what an XML parser would insist on). */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const body = svg.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
  for (const match of body.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name = '', , selfClosing] = match;
    if (selfClosing === '/') continue;
    if (closing === '/') {
      expect(stack.pop(), `closing </${name}>`).toBe(name);
    } else {
      stack.push(name);
    }
  }
  expect(stack).toEqual([]);
}

describe('historyChartSvg', () => {
  it('returns one well-formed, labelled SVG', () => {
    const svg = historyChartSvg(history, { ...options, title: 'Scores by month' });
    expect(svg.startsWith('<svg role="img" aria-label="Scores by month"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<svg[\s>]/g)).toHaveLength(1);
    expect(svg).toContain('viewBox="0 0 640 260"');
    expect(svg).not.toMatch(/<script|<foreignObject|<image/i);
    assertWellFormed(svg);
  });

  it('draws both series, told apart by line style and marker as well as colour', () => {
    const svg = historyChartSvg(history, options);
    const geoLines = svg.match(/<path d="M[^"]*L[^"]*" fill="none"[^>]*stroke="#16324f" stroke-width="3"/g) ?? [];
    const seoLines = svg.match(/<path d="M[^"]*L[^"]*" fill="none"[^>]*stroke="#0f766e" stroke-width="2.5" stroke-dasharray="7,4"/g) ?? [];
    expect(geoLines).toHaveLength(1);
    expect(seoLines).toHaveLength(1);
    // One marker per non-null value: filled circles for GEO, hollow squares for SEO.
    expect(svg.match(/ecmeta_series_index="0" ecmeta_data_index="\d+" ecmeta_ssr_type="chart"/g)).toHaveLength(3);
    expect(svg.match(/ecmeta_series_index="1" ecmeta_data_index="\d+" ecmeta_ssr_type="chart"/g)).toHaveLength(4);
    expect(svg).toMatch(/<path d="M-1 -1l2 0l0 2l-2 0Z"[^>]*fill="#ffffff" stroke="#0f766e"/);
    expect(svg).toMatch(/>GEO<\/text>/);
    expect(svg).toMatch(/>SEO<\/text>/);
  });

  it('leaves a gap where a value is missing instead of inventing one', () => {
    const svg = historyChartSvg(history, options);
    const geoPath = /<path d="(M[^"]*)" fill="none"[^>]*stroke="#16324f" stroke-width="3"/.exec(svg)?.[1] ?? '';
    // May alone, then a jump (a new M) to July–August.
    expect(geoPath.match(/M/g)).toHaveLength(2);
  });

  it('labels months in the report language', () => {
    expect(historyChartSvg(history, options)).toContain('>May 2026</text>');
    expect(historyChartSvg(history, { ...options, language: 'fr' })).toContain('>mai 2026</text>');
  });

  it('escapes the accessible name and honours the requested size', () => {
    const svg = historyChartSvg(history, { ...options, title: '"><script>', width: 400, height: 200 });
    expect(svg).toContain('aria-label="&quot;&gt;&lt;script&gt;"');
    expect(svg).toContain('viewBox="0 0 400 200"');
  });
});
