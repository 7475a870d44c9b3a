// Locale files of a folder written for the test: a new language over English, and a language without its file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocaleError, loadLocales } from '../../src/i18n/locales.js';

describe('locale files of a folder', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const localesWith = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'geo-locales-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  it('adds a language with one new file, English underneath for the keys it lacks', () => {
    const dir = localesWith({
      'en.json': JSON.stringify({ 'summary.title': '{client} — report', 'metric.backlinks': 'Backlinks' }),
      'de.json': JSON.stringify({ 'summary.title': '{client} — Bericht' }),
    });
    const de = loadLocales({ dir, languages: ['de'] }).phrases('de');
    expect(de).toEqual({ 'summary.title': '{client} — Bericht', 'metric.backlinks': 'Backlinks' });
  });

  it('refuses a language without its file instead of switching to English silently', () => {
    const dir = localesWith({ 'en.json': JSON.stringify({ k: 'English' }) });
    expect(() => loadLocales({ dir, languages: ['fr'] })).toThrow(LocaleError);
    expect(() => loadLocales({ dir, languages: ['fr'] })).toThrow(/No locale file for language "fr".*/);
    expect(() => loadLocales({ dir, languages: ['en'] }).phrases('fr')).toThrow(/No phrases for the language "fr"/);
  });
});
