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

/** `count` months from May 2026, scores from `geo` and `seo`. */
function months(count: number, geo: (i: number) => number | null, seo: (i: number) => number | null): HistoryPoint[] {
  return Array.from({ length: count }, (_, i) => ({
    date: new Date(Date.UTC(2026, 4 + i, 1)).toISOString().slice(0, 10),
    geo: geo(i),
    seo: seo(i),
  }));
}

/** Checks that every element opened is closed in order (what an XML parser would insist on). */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  for (const match of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name = '', , selfClosing] = match;
    if (selfClosing === '/') continue;
    if (closing === '/') {
      expect(stack.pop(), `closing </${name}>`).toBe(name);
    } else {
      stack.push(name);
    }
  }
  expect(stack).toEqual([]);
  // Outside tags, only escaped text.
  expect(svg.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]|&(?!amp;|lt;|gt;|quot;)/);
}

const lineOf = (svg: string, color: string): string | undefined =>
  new RegExp(`<path d="(M[\\d. ML-]*)" fill="none" stroke="${color}" stroke-width="(?:3|2\\.5)"`).exec(svg)?.[1];

/** Markers of a series: GEO's filled circles, or SEO's hollow squares, without the legend's. */
const geoMarkers = (svg: string): string[] => svg.match(/<circle cx="[\d.]+" cy="[\d.]+" r="4"\/>/g)?.slice(0, -1) ?? [];
const seoMarkers = (svg: string): string[] => svg.match(/<rect x="[\d.]+" y="[\d.]+" width="8" height="8"\/>/g)?.slice(0, -1) ?? [];

/** The month labels drawn, with their x. */
function monthLabels(svg: string): Array<{ x: number; text: string }> {
  return [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([^<]*)<\/text>/g)].map((m) => ({ x: Number(m[1]), text: m[2] ?? '' }));
}

describe('historyChartSvg', () => {
  it('returns one well-formed, labelled SVG', () => {
    const svg = historyChartSvg(history, { ...options, title: 'Scores by month' });
    expect(svg.startsWith('<svg role="img" aria-label="Scores by month" focusable="false"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<svg[\s>]/g)).toHaveLength(1);
    expect(svg).toContain('width="640" height="260" viewBox="0 0 640 260"');
    expect(svg).not.toMatch(/<script|<foreignObject|<image|<style/i);
    assertWellFormed(svg);
  });

  it('draws a 0–100 axis with a label and a dotted grid line every 25', () => {
    const svg = historyChartSvg(history, options);
    for (const tick of ['0', '25', '50', '75', '100']) expect(svg).toMatch(new RegExp(`text-anchor="end">${tick}</text>`));
    expect(svg).toContain('<path d="M36 184.5H612M36 136.5H612M36 88.5H612M36 40.5H612" fill="none" stroke="#e5e7eb" stroke-dasharray=');
    expect(svg).toContain('<path d="M36 232.5H612" fill="none" stroke="#9ca3af"/>');
    expect(svg).toContain('font-size="11" fill="#374151"');
    expect(svg).toContain('font-family="Inter, sans-serif"');
  });

  it('draws both series, told apart by line style and marker as well as colour', () => {
    const svg = historyChartSvg(history, options);
    const geoLines = svg.match(/<path d="M[^"]*L[^"]*" fill="none" stroke="#16324f" stroke-width="3"/g) ?? [];
    const seoLines = svg.match(/<path d="M[^"]*L[^"]*" fill="none" stroke="#0f766e" stroke-width="2.5" stroke-dasharray="7,4"/g) ?? [];
    expect(geoLines).toHaveLength(1);
    expect(seoLines).toHaveLength(1);
    // One marker per non-null value: filled circles with a white rim for GEO, hollow squares for SEO.
    expect(svg).toContain('<g fill="#16324f" stroke="#ffffff" stroke-width="1.5"><circle');
    expect(svg).toContain('<g fill="#ffffff" stroke="#0f766e" stroke-width="2"><rect');
    expect(geoMarkers(svg)).toHaveLength(3);
    expect(seoMarkers(svg)).toHaveLength(4);
    // The legend: each label after its sample line and marker, in the top-right corner.
    expect(svg).toMatch(
      /<path d="M[\d.]+ 11h\d+" fill="none" stroke="#16324f" stroke-width="3"[^>]*\/>\n<g [^>]*><circle [^>]*\/><\/g>\n<text [^>]*>GEO<\/text>/,
    );
    expect(svg).toMatch(
      /<path d="M[\d.]+ 11h\d+" fill="none" stroke="#0f766e" stroke-width="2.5" stroke-dasharray="7,4"[^>]*\/>\n<g [^>]*><rect [^>]*\/><\/g>\n<text [^>]*>SEO<\/text>/,
    );
    expect(svg).toContain('font-size="12" font-weight="600" fill="#374151"');
  });

  it('leaves a gap where a value is missing instead of inventing one', () => {
    const gappy = months(
      6,
      (i) => (i === 2 ? null : 50 + i),
      (i) => 60 + i,
    );
    const svg = historyChartSvg(gappy, options);
    // May–June, then a jump (a new M) to August–October; nothing at July's x.
    const geo = lineOf(svg, '#16324f') ?? '';
    expect(geo.match(/M/g)).toHaveLength(2);
    expect(geo).toMatch(/^M36 \S+L151.2 \S+M381.6 \S+L496.8 \S+L612 \S+$/);
    expect(lineOf(svg, '#0f766e')?.match(/M/g)).toHaveLength(1);
    expect(geoMarkers(svg)).toHaveLength(5);
  });

  it('marks a value alone between gaps, with no line to draw through it', () => {
    const svg = historyChartSvg(history, options);
    // May stands alone: its marker is drawn, the line starts in July.
    expect(lineOf(svg, '#16324f')).toBe('M420 120.64L612 118.72');
    expect(geoMarkers(svg)[0]).toBe('<circle cx="36" cy="136" r="4"/>');
  });

  it('labels months in the report language', () => {
    expect(historyChartSvg(history, options)).toContain('>May 2026</text>');
    expect(historyChartSvg(history, { ...options, language: 'fr' })).toContain('>mai 2026</text>');
  });

  it('escapes every text it writes and honours the requested size', () => {
    const svg = historyChartSvg(history, {
      ...options,
      title: '"><script>',
      labels: { geo: 'G&O', seo: '<SEO>' },
      fontFamily: `"Brand" <Sans>, 'Inter'`,
      width: 400,
      height: 200,
    });
    expect(svg).toContain('aria-label="&quot;&gt;&lt;script&gt;"');
    expect(svg).toContain('>G&amp;O</text>');
    expect(svg).toContain('>&lt;SEO&gt;</text>');
    expect(svg).toContain(`font-family="&quot;Brand&quot; &lt;Sans&gt;, 'Inter'"`);
    expect(svg).toContain('width="400" height="200" viewBox="0 0 400 200"');
    expect(svg).toContain('<path d="M36 172.5H372" fill="none" stroke="#9ca3af"/>');
    assertWellFormed(svg);
  });

  it('gives the same bytes for the same input, whatever was drawn before', () => {
    const first = historyChartSvg(history, options);
    historyChartSvg(
      months(
        24,
        (i) => i * 3,
        () => null,
      ),
      { ...options, language: 'fr' },
    );
    expect(historyChartSvg(history, options)).toBe(first);
  });

  it('writes numbers with at most 2 decimals and keeps values outside 0–100 in the plot', () => {
    const svg = historyChartSvg(
      months(
        3,
        (i) => [-20, 33.3333, 140][i] ?? null,
        () => 66.6666,
      ),
      { ...options, width: 333 },
    );
    for (const number of svg.match(/-?\d+\.\d+/g) ?? []) expect(number).toMatch(/\.\d{1,2}$/);
    // -20 sits on the axis (y 232) and 140 on the top line (y 40).
    expect(lineOf(svg, '#16324f')).toMatch(/^M36 232L[\d.]+ [\d.]+L305 40$/);
  });

  it('draws the axes and no line when every value is missing', () => {
    const svg = historyChartSvg(
      months(
        5,
        () => null,
        () => null,
      ),
      options,
    );
    assertWellFormed(svg);
    expect(svg).toContain('text-anchor="end">100</text>');
    expect(monthLabels(svg).map((label) => label.text)).toEqual(['May 2026', 'Jun 2026', 'Jul 2026', 'Aug 2026', 'Sep 2026']);
    expect(lineOf(svg, '#16324f')).toBeUndefined();
    expect(lineOf(svg, '#0f766e')).toBeUndefined();
    expect(geoMarkers(svg)).toEqual([]);
    expect(seoMarkers(svg)).toEqual([]);
    // The legend still says what would be drawn.
    expect(svg).toContain('>GEO</text>');
    expect(svg).toContain('>SEO</text>');
    expect(() => historyChartSvg([], options)).not.toThrow();
    assertWellFormed(historyChartSvg([], options));
  });

  it('puts a single month in the middle of the plot', () => {
    const svg = historyChartSvg(
      months(
        1,
        () => 62,
        () => 48,
      ),
      options,
    );
    expect(monthLabels(svg)).toEqual([{ x: 324, text: 'May 2026' }]);
    expect(geoMarkers(svg)).toEqual(['<circle cx="324" cy="112.96" r="4"/>']);
    expect(seoMarkers(svg)).toEqual(['<rect x="320" y="135.84" width="8" height="8"/>']);
    expect(lineOf(svg, '#16324f')).toBeUndefined();
  });

  it.each(['en', 'fr'] as const)('hides month labels that would overlap (%s, 24 months), keeping the latest', (language) => {
    const long = months(
      24,
      (i) => 50 + (i % 5),
      (i) => 40 + (i % 7),
    );
    const svg = historyChartSvg(long, { ...options, language });
    const labels = monthLabels(svg);
    expect(labels.length).toBeGreaterThanOrEqual(6);
    expect(labels.length).toBeLessThan(24);
    expect(labels.at(-1)?.text).toBe(language === 'en' ? 'Apr 2028' : 'avr. 2028');
    // About 6.5 px per character at 11 px: neighbours at least half of each other's width apart.
    const width = (text: string): number => text.length * 6.5;
    for (let i = 1; i < labels.length; i += 1) {
      const [a, b] = [labels[i - 1], labels[i]];
      if (a === undefined || b === undefined) continue;
      expect(b.x - a.x, `${a.text} / ${b.text}`).toBeGreaterThanOrEqual((width(a.text) + width(b.text)) / 2);
    }
    // None runs off the chart.
    for (const label of labels) {
      expect(label.x - width(label.text) / 2).toBeGreaterThanOrEqual(0);
      expect(label.x + width(label.text) / 2).toBeLessThanOrEqual(640);
    }
    // Every month keeps its markers.
    expect(geoMarkers(svg)).toHaveLength(24);
    expect(seoMarkers(svg)).toHaveLength(24);
  });

  it('shows every month label when they fit', () => {
    expect(monthLabels(historyChartSvg(history, options)).map((label) => label.text)).toEqual(['May 2026', 'Jun 2026', 'Jul 2026', 'Aug 2026']);
  });
});
