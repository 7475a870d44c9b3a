// The one i18n module: locale files (one fallback rule, one error class), phrases, and Intl formatting.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, PRIORITIES, REPORT_SECTIONS } from '../../src/spec/vocabulary.js';
import { SECTIONS } from '../../src/sections/index.js';
import { formatDate, formatNumber, formatPointsChange, inSentence, interpolate, pluralPhrase, readableKey } from '../../src/i18n/format.js';
import { DEFAULT_LOCALES_DIR, LANGUAGES, LocaleError, loadLocales, loadPhrases } from '../../src/i18n/locales.js';
import { DEFAULT_TEMPLATES_DIR } from '../../src/render/html.js';
import { GOAL_STATUSES } from '../../src/report/goals.js';

// French groups thousands with a narrow no-break space (U+202F) and puts a no-break space (U+00A0) before %.
const NNBSP = '\u202f';

describe('locale files', () => {
  it('loads the shipped languages', () => {
    const locales = loadLocales();
    expect(locales.phrases('en')['report.title']).toBe('GEO & SEO report');
    expect(locales.phrases('fr')['report.title']).toBe('Rapport GEO & SEO');
    expect(locales.phrases('fr')['print.page']).toBe('Page {page} sur {pages}');
  });

  it('ships one file per language of LANGUAGES, all with the same keys', () => {
    const files = readdirSync(DEFAULT_LOCALES_DIR).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(LANGUAGES.map((language) => `${language}.json`).sort());
    // A form before a vowel ("d’octobre") is a variant a language may add to its key.
    const keysOf = (file: string): string[] =>
      Object.keys(JSON.parse(readFileSync(join(DEFAULT_LOCALES_DIR, file), 'utf8')) as object)
        .filter((key) => !key.endsWith('.beforeVowel'))
        .sort();
    for (const file of files) expect(keysOf(file), file).toEqual(keysOf('en.json'));
    const fr = loadPhrases('fr');
    expect(Object.values(fr).every((v) => v.trim() !== '')).toBe(true);
  });

  it('translates every phrase: a French phrase equal to the English one is a word both languages write alike', () => {
    // Names, acronyms and words French shares with English; any other phrase copied from English is untranslated.
    const alike = new Set([
      // The glossary's acronyms and proper nouns (GEO, LCP, Core Web Vitals…), and the forms a report writes them in.
      'glossary.geo.term',
      'glossary.seo.term',
      'glossary.core_web_vitals.term',
      'glossary.core_web_vitals.forms',
      'glossary.lcp.term',
      'glossary.lcp.forms',
      'glossary.inp.term',
      'glossary.inp.forms',
      'glossary.cls.term',
      'glossary.cls.forms',
      'glossary.eeat.term',
      'glossary.eeat.forms',
      'glossary.nap.forms',
      'glossary.backlinks.term',
      'cover.contact',
      // "Page" before each number of the contents page, read by a screen reader.
      'print.contentsPage',
      'scores.title',
      'scores.geoShort',
      'scores.seoShort',
      'visibility.assistant',
      'trust.ratingValue',
      'category.seo',
      'index.client',
      'index.percentile',
      'index.html',
      'index.pdf',
      'summary.score.geo',
      'summary.score.seo',
      'summary.points.one',
      'summary.points.other',
      // The summary's joins: the order of their parts, no word of either language.
      'summary.moved',
      'summary.pageExperience.sentence',
      'summary.pageExperience.vital',
      'summary.benchmark.gapOnly',
      'summary.benchmark.rankOnly',
      'summary.metricMover.points',
      'unit.pointsChange.one',
      'unit.pointsChange.other',
      'summary.tracking.sentence',
      'check.section.scores',
      'metric.citations',
      'metric.backlinks',
      'metric.core_web_vitals',
      'metric.sentiment',
      'metric.impact',
      'metric.effort',
      'metric.url',
      'metric.https',
      'metric.source',
      'value.trend.stable',
      'value.trend.flat',
      'email.testPrefix',
      'site.pdf',
      // Google's names of the Core Web Vitals, as the page experience section writes them in every language.
      'goals.metric.cwv.lcp',
      'goals.metric.cwv.inp',
      'goals.metric.cwv.cls',
      // The AI answers section's column heads French writes alike, and its marks and brackets (signs, no words).
      'aiAnswers.voice.assistant',
      'aiAnswers.grid.question',
      'aiAnswers.voice.none',
      'aiAnswers.voice.change',
      'aiAnswers.voice.unchanged',
      'aiAnswers.voice.positionChange.up',
      'aiAnswers.voice.positionChange.down',
      'aiAnswers.voice.positionChange.flat',
      'aiAnswers.grid.named',
      'aiAnswers.grid.namedNoPosition',
      'aiAnswers.grid.notNamed',
      'aiAnswers.grid.notNamedFirst',
      'aiAnswers.grid.noAnswer',
      'pageExperience.lcp',
      'pageExperience.inp',
      'pageExperience.cls',
      'pageExperience.seo',
      // Words French writes as English does ("Performance", "1 place", "2 points"), and a pattern of names alone.
      'pageExperience.performance',
      'pageExperience.summaryItem',
      'keywords.places.one',
      'keywords.places.other',
      'pageExperience.points.one',
      'pageExperience.points.other',
      // Units both languages write alike (point, mention, citation, page, backlink), and titles made only of placeholders
      'goals.unit.points.one',
      'goals.unit.points.other',
      'goals.unit.count.ai_mentions.one',
      'goals.unit.count.ai_mentions.other',
      'goals.unit.count.citations.one',
      'goals.unit.count.citations.other',
      'goals.unit.count.ai_citations.one',
      'goals.unit.count.ai_citations.other',
      'goals.unit.count.indexed_pages.one',
      'goals.unit.count.indexed_pages.other',
      'goals.unit.count.pages_crawled.one',
      'goals.unit.count.pages_crawled.other',
      'goals.unit.count.backlinks.one',
      'goals.unit.count.backlinks.other',
      'review.documentTitle',
      'review.email.subject',
    ]);
    const en = loadPhrases('en');
    const fr = loadPhrases('fr');
    const copied = Object.keys(en).filter((key) => fr[key] === en[key] && !key.startsWith('assistant.') && !alike.has(key));
    expect(copied).toEqual([]);
  });

  it('says month, not period, in reports that are monthly, and no "vs" in either language', () => {
    for (const language of LANGUAGES) {
      const own = loadPhrases(language);
      const found = Object.entries(own).filter(([, text]) => /\bperiods?\b|\bpériodes?\b|\bvs\b/i.test(text.replace(/\{\w+\}/g, '')));
      expect(found, language).toEqual([]);
    }
  });

  it('writes French with French typography: a no-break space before : ; ? ! and inside « »', () => {
    const fr = loadPhrases('fr');
    const breakable = Object.entries(fr).filter(([, text]) => / [:;?!»]|« /.test(text));
    expect(breakable).toEqual([]);
  });

  it('gives each language the same placeholders in every phrase', () => {
    const placeholders = (text: string): string[] => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort();
    const en = loadPhrases('en');
    for (const language of LANGUAGES) {
      const own = loadPhrases(language);
      for (const key of Object.keys(en)) expect(placeholders(own[key] ?? ''), `${language}: ${key}`).toEqual(placeholders(en[key] ?? ''));
    }
  });

  it('reads each file once for the whole run', () => {
    const reads: string[] = [];
    const locales = loadLocales({ readFile: (path) => (reads.push(path), readFileSync(path, 'utf8')) });
    for (let report = 0; report < 5; report += 1) {
      locales.phrases('en');
      locales.phrases('fr');
    }
    expect(reads.map((path) => path.split('/').at(-1)).sort()).toEqual(LANGUAGES.map((language) => `${language}.json`).sort());
  });

  it('reports a broken or missing file with its path, through the injected reader', () => {
    const files: Record<string, string> = {
      '/locales/en.json': '{"summary.title":"T"}',
      '/locales/xx.json': '{"summary.title": 3}',
      '/locales/yy.json': '{not json',
      '/locales/zz.json': '["a list"]',
    };
    const readFile = (path: string): string => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return text;
    };
    const load = (language: string) => loadPhrases(language, { dir: '/locales', readFile });
    expect(load('en')).toEqual({ 'summary.title': 'T' });
    expect(() => load('xx')).toThrow(LocaleError);
    expect(() => load('xx')).toThrow(/xx\.json: the value of "summary.title" must be a string/);
    expect(() => load('yy')).toThrow(/yy\.json is not valid JSON/);
    expect(() => load('zz')).toThrow(/must be a JSON object/);
    expect(() => load('../etc/passwd')).toThrow(/not a language code/);
    expect(() => loadPhrases('fr', { dir: '/nowhere', readFile })).toThrow(/English locale file is missing/);
  });

  it('has a phrase for every key the templates ask for', () => {
    const en = loadPhrases('en');
    const partials = join(DEFAULT_TEMPLATES_DIR, 'partials');
    const sources = [
      readFileSync(join(DEFAULT_TEMPLATES_DIR, 'report.hbs'), 'utf8'),
      readFileSync(join(DEFAULT_TEMPLATES_DIR, 'index.hbs'), 'utf8'),
      ...readdirSync(partials).map((f) => readFileSync(join(partials, f), 'utf8')),
    ].join('\n');
    const literal = [...sources.matchAll(/(?:\{\{|\()t "([\w.]+)"/g)].map((m) => m[1] ?? '');
    expect(literal.length).toBeGreaterThan(50);
    const dynamicPrefixes = new Set(['priority', 'category', 'state', 'index.email', 'index.goal', 'goals.progress', 'check.section']);
    const plural = new Set(['recs.total', 'recs.openFor', 'recs.groupCount', 'scores.sample', 'index.notes', 'changes.more']);
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
    // The index names a section left out of a report by its name: the reports endpoint's five and the scan's three.
    for (const section of [...REPORT_SECTIONS, ...SECTIONS.map((s) => s.name)]) expect(en[`check.section.${section}`], section).toBeTypeOf('string');
    for (const category of CATEGORIES) expect(en[`category.${category}`]).toBeTypeOf('string');
    for (const state of ['done', 'failed', 'pending', 'skipped']) expect(en[`state.${state}`]).toBeTypeOf('string');
    for (const state of ['not_sent', 'sent', 'failed', 'unknown']) expect(en[`index.email.${state}`]).toBeTypeOf('string');
    for (const status of ['behind', 'missed']) expect(en[`index.goal.${status}`]).toBeTypeOf('string');
    // Every goal phrase the code asks for, in every language's own file: status words, metric names, default labels.
    for (const language of LANGUAGES) {
      const phrases = JSON.parse(readFileSync(join(DEFAULT_LOCALES_DIR, `${language}.json`), 'utf8')) as Record<string, string>;
      for (const status of GOAL_STATUSES) expect(phrases[`goals.status.${status}`], `${language}: ${status}`).toBeTypeOf('string');
      for (const key of [
        'goals.metric.geo',
        'goals.metric.seo',
        'goals.metric.trust',
        'goals.metric.ai',
        'goals.metric.keyword',
        'goals.metric.cwv.lcp',
        'goals.metric.cwv.inp',
        'goals.metric.cwv.cls',
        'goals.defaultLabel.up',
        'goals.defaultLabel.down',
        'goals.progress.up',
        'goals.progress.down',
      ]) {
        expect(phrases[key], `${language}: ${key}`).toBeTypeOf('string');
      }
    }
    for (const key of ['percentile.top', 'percentile.ahead', 'percentile.unknown', 'value.yes', 'value.no', 'print.page']) {
      expect(en[key], key).toBeTypeOf('string');
    }
    for (const key of ['report.documentTitle', 'metric.citations', 'check.geoDrop', 'assistant.chatgpt']) {
      expect(
        Object.keys(en).some((k) => k === key || k.startsWith(`${key}.`)),
        key,
      ).toBe(true);
    }
  });
});

describe('phrases', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    expect(interpolate('Page {page} of {pages}', { page: 1, pages: 6 })).toBe('Page 1 of 6');
    expect(interpolate('Hello {nobody}', {})).toBe('Hello {nobody}');
  });

  it('picks the plural form by the language rules, a zero form when the file has one, the plain key otherwise', () => {
    const phrases = { 'n.one': 'one item', 'n.other': '{count} items', 'z.zero': 'none', 'z.other': 'some', plain: 'as is' };
    expect(pluralPhrase(phrases, 'en', 'n', 1, { count: 1 })).toBe('one item');
    expect(pluralPhrase(phrases, 'en', 'n', 0, { count: 0 })).toBe('0 items');
    expect(pluralPhrase(phrases, 'fr', 'n', 0, { count: 0 })).toBe('one item');
    expect(pluralPhrase(phrases, 'en', 'z', 0)).toBe('none');
    expect(pluralPhrase(phrases, 'en', 'plain', 3)).toBe('as is');
  });

  it('lowers a label for a sentence, but keeps a proper noun and an acronym', () => {
    expect(inSentence('Indexed pages')).toBe('indexed pages');
    expect(inSentence('Core Web Vitals pass rate')).toBe('Core Web Vitals pass rate');
    expect(inSentence('Mentions IA')).toBe('mentions IA');
    expect(inSentence('AI mentions')).toBe('AI mentions');
  });

  it('makes keys readable', () => {
    expect(readableKey('core_web_vitals')).toBe('Core web vitals');
    expect(readableKey('avg_ai_position')).toBe('Avg AI position');
    expect(readableKey('pageSpeedScore')).toBe('Page speed score');
    expect(readableKey('seo-audit.url')).toBe('SEO audit URL');
    expect(readableKey('___')).toBe('___');
  });
});

describe('changes of a percentage', () => {
  it('are written in points, singular below 2 in French and for 1 in English, with the digits a small change needs', () => {
    const en = loadPhrases('en');
    const fr = loadPhrases('fr');
    const nb = (text: string): string => text.replace(/[\u00a0\u202f]/g, '~');
    expect(nb(formatPointsChange(3.2, en, 'en'))).toBe('+3.2~pts');
    expect(nb(formatPointsChange(3.2, fr, 'fr'))).toBe('+3,2~pts');
    expect(nb(formatPointsChange(-1, en, 'en'))).toBe('−1~pt');
    expect(nb(formatPointsChange(1.5, fr, 'fr'))).toBe('+1,5~pt');
    expect(nb(formatPointsChange(-0.04, en, 'en'))).toBe('−0.04~pts');
  });
});

describe('numbers and dates', () => {
  it('groups and rounds the English way', () => {
    expect(formatNumber(1234567.891, 'en')).toBe('1,234,567.9');
    expect(formatNumber(0.25, 'en', { maximumFractionDigits: 2 })).toBe('0.25');
  });

  it('writes a negative number with the typographic minus, in every language', () => {
    expect(formatNumber(-3.25, 'en')).toBe('\u22123.3');
    expect(formatNumber(-1240.5, 'fr')).toBe(`\u22121${NNBSP}240,5`);
    expect(formatNumber(-0.5, 'fr', { style: 'percent' })).toBe('\u221250\u00a0%');
  });

  it('groups and rounds the French way', () => {
    expect(formatNumber(1234567.891, 'fr')).toBe(`1${NNBSP}234${NNBSP}567,9`);
    expect(formatNumber(2.5, 'fr')).toBe('2,5');
  });

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
});
