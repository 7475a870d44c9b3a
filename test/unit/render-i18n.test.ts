import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATEGORIES, PRIORITIES } from '../../src/api/schemas.js';
import {
  formatDelta,
  formatPercent,
  formatScore,
  formatSigned,
  percentileBand,
} from '../../src/render/format.js';
import {
  DEFAULT_TEMPLATES_DIR,
  LocaleError,
  formatDate,
  formatNumber,
  interpolate,
  loadMessages,
  periodLabel,
} from '../../src/render/i18n.js';

// French groups thousands with a narrow no-break space (U+202F) and puts a no-break space (U+00A0) before %.
const NNBSP = '\u202f';

describe('formatNumber', () => {
  it('groups and rounds the English way', () => {
    expect(formatNumber(1234567.891, 'en')).toBe('1,234,567.9');
    expect(formatNumber(0.25, 'en', { maximumFractionDigits: 2 })).toBe('0.25');
  });

  it('groups and rounds the French way', () => {
    expect(formatNumber(1234567.891, 'fr')).toBe(`1${NNBSP}234${NNBSP}567,9`);
    expect(formatNumber(2.5, 'fr')).toBe('2,5');
  });
});

describe('formatDate and periodLabel', () => {
  it('writes long dates per language, whatever the host time zone', () => {
    expect(formatDate('2026-10-01', 'en')).toBe('October 1, 2026');
    expect(formatDate('2026-10-01', 'fr')).toBe('1 octobre 2026');
    expect(formatDate('2026-11-01T06:00:00.000Z', 'en', 'long')).toBe('November 1, 2026');
  });

  it('writes short month labels for chart axes', () => {
    expect(formatDate('2026-03-01', 'en', 'month')).toBe('Mar 2026');
    expect(formatDate('2026-02-01', 'fr', 'month')).toBe('févr. 2026');
  });

  it('rejects something that is not a date', () => {
    expect(() => formatDate('last tuesday', 'en')).toThrow(LocaleError);
  });

  it('names a period in each language', () => {
    expect(periodLabel('2026-10', 'en')).toBe('October 2026');
    expect(periodLabel('2026-10', 'fr')).toBe('octobre 2026');
    expect(periodLabel('2027-01', 'fr')).toBe('janvier 2027');
  });

  it('rejects a malformed period', () => {
    expect(() => periodLabel('2026-13', 'en')).toThrow(/YYYY-MM/);
    expect(() => periodLabel('Oct 2026', 'en')).toThrow(LocaleError);
  });
});

describe('changes and ranks', () => {
  it('puts an arrow and a sign on every change', () => {
    expect(formatDelta({ value: 6, previous: 66, direction: 'up' }, 'en')).toBe('▲ +6');
    expect(formatDelta({ value: -2.5, previous: 70, direction: 'down' }, 'en')).toBe('▼ -2.5');
    expect(formatDelta({ value: -2.5, previous: 70, direction: 'down' }, 'fr')).toBe('▼ -2,5');
    expect(formatDelta({ value: 0, previous: 70, direction: 'flat' }, 'en')).toBe('▶ 0');
    expect(formatDelta(null, 'en')).toBe('—');
  });

  it('derives the arrow of a signed number from its rounded sign', () => {
    expect(formatSigned(4.6, 'en')).toBe('▲ +4.6');
    expect(formatSigned(-3, 'fr')).toBe('▼ -3');
    expect(formatSigned(0.01, 'en')).toBe('▶ 0');
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

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(interpolate('Page {page} of {pages}', { page: 1, pages: 6 })).toBe('Page 1 of 6');
    expect(interpolate('Hello {nobody}', {})).toBe('Hello {nobody}');
  });
});

describe('loadMessages', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const templatesWith = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'geo-locales-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'locales'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'locales', name), text);
    return dir;
  };

  it('loads the shipped English and French labels', () => {
    expect(loadMessages('en')['report.title']).toBe('GEO & SEO report');
    expect(loadMessages('fr')['report.title']).toBe('Rapport GEO & SEO');
    expect(loadMessages('fr')['print.page']).toBe('Page {page} sur {pages}');
  });

  it('falls back to English for keys a translation lacks', () => {
    const dir = templatesWith({
      'en.json': JSON.stringify({ 'a.one': 'One', 'a.two': 'Two' }),
      'fr.json': JSON.stringify({ 'a.one': 'Un' }),
    });
    expect(loadMessages('fr', dir)).toEqual({ 'a.one': 'Un', 'a.two': 'Two' });
  });

  it('uses English alone when the language file does not exist', () => {
    const dir = templatesWith({ 'en.json': JSON.stringify({ k: 'English' }) });
    expect(loadMessages('fr', dir)).toEqual({ k: 'English' });
  });

  it('reports a broken or missing locale file clearly', () => {
    expect(() => loadMessages('en', templatesWith({ 'en.json': '{ nope' }))).toThrow(/not valid JSON/);
    expect(() => loadMessages('en', templatesWith({ 'en.json': '{"k": 3}' }))).toThrow(/must be a string/);
    expect(() => loadMessages('fr', templatesWith({}))).toThrow(/English locale file is missing/);
  });

  it('ships the same keys in every locale file', () => {
    const files = readdirSync(join(DEFAULT_TEMPLATES_DIR, 'locales')).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(['en.json', 'fr.json']);
    const keysOf = (file: string): string[] =>
      Object.keys(JSON.parse(readFileSync(join(DEFAULT_TEMPLATES_DIR, 'locales', file), 'utf8')) as object).sort();
    expect(keysOf('fr.json')).toEqual(keysOf('en.json'));
  });

  it('has a label for every key the templates ask for', () => {
    const en = loadMessages('en');
    const sources = [
      readFileSync(join(DEFAULT_TEMPLATES_DIR, 'report.hbs'), 'utf8'),
      readFileSync(join(DEFAULT_TEMPLATES_DIR, 'index.hbs'), 'utf8'),
      ...readdirSync(join(DEFAULT_TEMPLATES_DIR, 'partials')).map((f) =>
        readFileSync(join(DEFAULT_TEMPLATES_DIR, 'partials', f), 'utf8'),
      ),
    ].join('\n');
    const literal = [...sources.matchAll(/(?:\{\{|\()t "([\w.]+)"/g)].map((m) => m[1] ?? '');
    expect(literal.length).toBeGreaterThan(50);
    const dynamicPrefixes = new Set(['priority', 'category', 'state', 'index.email']);
    const plural = new Set(['recs.total', 'recs.openFor', 'recs.groupCount', 'scores.sample', 'index.notes']);
    for (const key of literal) {
      if (dynamicPrefixes.has(key)) continue;
      if (plural.has(key)) {
        expect(en[`${key}.one`], key).toBeTypeOf('string');
        expect(en[`${key}.other`], key).toBeTypeOf('string');
      } else {
        expect(en[key], key).toBeTypeOf('string');
      }
    }
    for (const priority of PRIORITIES) expect(en[`priority.${priority}`]).toBeTypeOf('string');
    for (const category of CATEGORIES) expect(en[`category.${category}`]).toBeTypeOf('string');
    for (const state of ['done', 'failed', 'pending', 'skipped']) expect(en[`state.${state}`]).toBeTypeOf('string');
    for (const state of ['not_sent', 'sent', 'failed', 'unknown']) expect(en[`index.email.${state}`]).toBeTypeOf('string');
    for (const key of ['percentile.top', 'percentile.ahead', 'percentile.unknown', 'value.yes', 'value.no', 'print.page']) {
      expect(en[key], key).toBeTypeOf('string');
    }
  });
});
