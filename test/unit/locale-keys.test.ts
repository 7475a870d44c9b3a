// Every language of the list has every phrase of English and none English lacks; an agency's locale file that
// lacks a phrase or misspells one is told so, with the keys.
import { describe, expect, it } from 'vitest';
import { LANGUAGES, localeKeyReports } from '../../src/i18n/locales.js';

describe('the keys of the locale files', () => {
  it('finds every key of en.json in each built-in language, and no key English lacks', () => {
    expect(LANGUAGES).toEqual(['en', 'fr', 'de', 'es', 'it', 'nl', 'pt']);
    expect(localeKeyReports()).toEqual([]);
  });

  it("lists the keys an agency's file lacks or misspells, a key its own templates ask for being used", () => {
    const overlay = new Map([
      ['en', { path: '/agency/locales/en.json', text: JSON.stringify({ 'agency.tagline': 'Our words' }) }],
      ['de', { path: '/agency/locales/de.json', text: JSON.stringify({ 'summry.title': 'Überblick', 'agency.tagline': 'Unsere Worte', 'own.word': 'x' }) }],
      ['xx', { path: '/agency/locales/xx.json', text: JSON.stringify({ 'report.title': 'Xx report' }) }],
    ]);
    const reports = localeKeyReports({ overlay, used: (key) => key === 'own.word' });
    const de = reports.find((r) => r.language === 'de');
    expect(de).toEqual({ language: 'de', file: '/agency/locales/de.json', missing: [], unused: ['summry.title'] });
    const xx = reports.find((r) => r.language === 'xx');
    expect(xx?.file).toBe('/agency/locales/xx.json');
    expect(xx?.missing).toContain('summary.title');
    expect(xx?.missing).toContain('agency.tagline');
    expect(xx?.missing).not.toContain('report.title');
    // The other built-in languages lack the agency's English phrase: their reports would show it in English.
    expect(reports.find((r) => r.language === 'fr')?.missing).toEqual(['agency.tagline']);
  });
});
