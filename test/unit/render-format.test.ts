import { describe, expect, it } from 'vitest';
import {
  barWidth,
  contrastRatio,
  ensureContrast,
  formatDelta,
  formatPercent,
  formatScore,
  formatSigned,
  percentileBand,
  readableTextOn,
  safeColor,
  safeFontFamily,
  safeImageDataUri,
  safeRelativeHref,
} from '../../src/render/format.js';

describe('values placed where a browser would style or fetch', () => {
  it('keeps plain colours and replaces anything that could inject CSS', () => {
    expect(safeColor('#16324F', '#000')).toBe('#16324F');
    expect(safeColor(' rgb(10, 20, 30) ', '#000')).toBe('rgb(10, 20, 30)');
    expect(safeColor('navy', '#000')).toBe('navy');
    expect(safeColor('red;}</style><script>alert(1)</script>', '#000')).toBe('#000');
    expect(safeColor('#000; background:url(http://198.51.100.7/x)', '#111')).toBe('#111');
    expect(safeColor('expression(alert(1))', '#111')).toBe('#111');
  });

  it('keeps a font stack made of names only', () => {
    expect(safeFontFamily("Inter, 'Helvetica Neue', sans-serif", 'x')).toBe("Inter, 'Helvetica Neue', sans-serif");
    expect(safeFontFamily('x; src: url(http://198.51.100.7/f.woff)', 'fallback')).toBe('fallback');
    expect(safeFontFamily('a}</style>', 'fallback')).toBe('fallback');
  });

  it('accepts only inline images as a logo', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    expect(safeImageDataUri(png)).toBe(png);
    expect(safeImageDataUri('http://198.51.100.7/logo.png')).toBeNull();
    expect(safeImageDataUri('data:text/html;base64,PHNjcmlwdD4=')).toBeNull();
    expect(safeImageDataUri('data:image/png;base64,abc" onerror="x')).toBeNull();
    expect(safeImageDataUri(undefined)).toBeNull();
  });

  it('keeps index links relative and inside the period folder', () => {
    expect(safeRelativeHref('atelier-verdant/report.pdf')).toBe('atelier-verdant/report.pdf');
    expect(safeRelativeHref('javascript:alert(1)')).toBeNull();
    expect(safeRelativeHref('https://198.51.100.7/r.pdf')).toBeNull();
    expect(safeRelativeHref('//198.51.100.7/r.pdf')).toBeNull();
    expect(safeRelativeHref('/etc/passwd')).toBeNull();
    expect(safeRelativeHref('../../outside.pdf')).toBeNull();
    expect(safeRelativeHref('a/..\\..\\b')).toBeNull();
    expect(safeRelativeHref(null)).toBeNull();
  });
});

describe('contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#fff', '#fff')).toBeCloseTo(1, 5);
    expect(contrastRatio('navy', '#fff')).toBeNull();
  });

  it('swaps a brand colour too pale to read for the fallback', () => {
    expect(ensureContrast('#9ca3af', '#ffffff', '#4b5563')).toBe('#4b5563');
    expect(ensureContrast('#4b5563', '#ffffff', '#000000')).toBe('#4b5563');
    expect(ensureContrast('#9ca3af', '#ffffff', '#000000', 2)).toBe('#9ca3af');
  });

  it('picks white text on dark brand colours and dark text on light ones', () => {
    expect(readableTextOn('#16324f')).toBe('#ffffff');
    expect(readableTextOn('#fde047')).toBe('#111827');
    expect(readableTextOn('#FFF')).toBe('#111827');
  });

  it('keeps bars inside their track', () => {
    expect(barWidth(64)).toBe(64);
    expect(barWidth(140)).toBe(100);
    expect(barWidth(-3)).toBe(0);
    expect(barWidth(null)).toBe(0);
    expect(barWidth(Number.NaN)).toBe(0);
  });
});

describe('changes and ranks', () => {
  it('puts an arrow and a sign on every change', () => {
    expect(formatDelta({ value: 6, previous: 66, direction: 'up' }, 'en')).toBe('▲ +6');
    expect(formatDelta({ value: -2.5, previous: 70, direction: 'down' }, 'en')).toBe('▼ −2.5');
    expect(formatDelta({ value: -2.5, previous: 70, direction: 'down' }, 'fr')).toBe('▼ −2,5');
    expect(formatDelta({ value: 0, previous: 70, direction: 'flat' }, 'en')).toBe('▶ 0');
    expect(formatDelta(null, 'en')).toBe('—');
  });

  it('derives the arrow of a signed number from its sign as written, and never writes a non-zero value as 0', () => {
    expect(formatSigned(4.6, 'en')).toBe('▲ +4.6');
    expect(formatSigned(-3, 'fr')).toBe('▼ −3');
    expect(formatSigned(0.01, 'en')).toBe('▲ +0.01');
    // "Needed: ▶ 0 a month" where -0.04 a month is needed: the digits it needs, its own arrow.
    expect(formatSigned(-0.04, 'en')).toBe('▼ −0.04');
    expect(formatSigned(-0.04, 'fr')).toBe('▼ −0,04');
    expect(formatSigned(0.00001, 'en')).toBe('▶ 0');
    expect(formatSigned(0, 'en')).toBe('▶ 0');
    expect(formatSigned(null, 'en')).toBe('—');
  });

  it('writes scores as whole numbers and percents per language', () => {
    expect(formatScore(72.4, 'en')).toBe('72');
    expect(formatScore(null, 'fr')).toBe('—');
    expect(formatPercent(42, 'en')).toBe('42%');
    expect(formatPercent(42, 'fr')).toBe('42\u00a0%');
  });

  it('turns a percentile into a top share or an ahead-of share', () => {
    expect(percentileBand(80)).toEqual({ key: 'percentile.top', share: 20 });
    expect(percentileBand(99.8)).toEqual({ key: 'percentile.top', share: 1 });
    expect(percentileBand(50)).toEqual({ key: 'percentile.top', share: 50 });
    expect(percentileBand(31)).toEqual({ key: 'percentile.ahead', share: 31 });
    expect(percentileBand(140)).toEqual({ key: 'percentile.top', share: 1 });
  });
});
