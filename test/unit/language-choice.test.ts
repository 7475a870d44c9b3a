// The one function that decides a client's report language, and the service's language as the project carries it.
import { describe, expect, it } from 'vitest';
import { Project } from '../../src/api/schemas.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { languageOf, reportLanguage } from '../../src/i18n/report-language.js';
import { configuredLanguage } from '../../src/output/report-as-made.js';

describe('reportLanguage', () => {
  it("takes the config's pin, else the service's language when followed, else the agency's", () => {
    expect(reportLanguage({ pinned: 'en', service: 'fr', followService: true, fallback: 'fr' })).toBe('en');
    expect(reportLanguage({ service: 'fr', followService: true, fallback: 'en' })).toBe('fr');
    expect(reportLanguage({ service: 'fr', followService: false, fallback: 'en' })).toBe('en');
    // A language we do not write in is no choice: the agency's.
    expect(reportLanguage({ service: 'sv', followService: true, fallback: 'en' })).toBe('en');
    expect(reportLanguage({ service: 'de-AT', followService: true, fallback: 'en' })).toBe('de');
    expect(reportLanguage({ service: null, followService: true, fallback: 'fr' })).toBe('fr');
  });

  it('reads tags and names the way services write them', () => {
    expect(['fr', 'fr-FR', 'FR_ca', ' French ', 'français', 'en-GB', 'english'].map(languageOf)).toEqual(['fr', 'fr', 'fr', 'fr', 'fr', 'en', 'en']);
    expect(['de', 'pt-BR', 'Deutsch', 'español', 'Italian', 'Nederlands', 'português'].map(languageOf)).toEqual(['de', 'pt', 'de', 'es', 'it', 'nl', 'pt']);
    expect([undefined, null, '', 'sv', 'frisian'].map(languageOf)).toEqual([null, null, null, null, null]);
  });

  it('is what the mail, the site and the export ask of the config for a made report', () => {
    const config = { clients: { '7': { language: 'en' as const } }, report: { language: 'en' as const, followProjectLanguage: true } };
    expect(configuredLanguage(config, 7, 'fr')).toBe('en');
    expect(configuredLanguage(config, 8, 'fr-FR')).toBe('fr');
    expect(configuredLanguage({ ...config, report: { language: 'en', followProjectLanguage: false } }, 8, 'fr-FR')).toBe('en');
  });
});

describe('the language rule as the config resolves it', () => {
  const languageOfClient = (raw: unknown, id: number, service: string | null): string => configuredLanguage(ConfigSchema.parse(raw), id, service);

  it("follows the project's language when the config pins none, English when the service gives none we write", () => {
    const config = ConfigSchema.parse({});
    expect(config.report).toMatchObject({ language: 'en', followProjectLanguage: true });
    expect(languageOfClient({}, 8, 'fr')).toBe('fr');
    expect(languageOfClient({}, 8, 'de-AT')).toBe('de');
    expect(languageOfClient({}, 8, 'sv')).toBe('en');
    expect(languageOfClient({}, 8, null)).toBe('en');
  });

  it("puts the client's language first, then the agency's when it gave one, then the project's", () => {
    const raw = { report: { language: 'nl' }, clients: { '7': { language: 'it' } } };
    expect(languageOfClient(raw, 7, 'fr')).toBe('it');
    // The agency's report.language, given, is every unpinned client's language: the service's does not override it.
    expect(languageOfClient(raw, 8, 'fr')).toBe('nl');
    expect(ConfigSchema.parse(raw).report.followProjectLanguage).toBe(false);
  });

  it('keeps followProjectLanguage as written: true over report.language, false never', () => {
    expect(languageOfClient({ report: { language: 'nl', followProjectLanguage: true } }, 8, 'fr')).toBe('fr');
    expect(languageOfClient({ report: { language: 'nl', followProjectLanguage: true } }, 8, 'sv')).toBe('nl');
    expect(languageOfClient({ report: { followProjectLanguage: false } }, 8, 'fr')).toBe('en');
  });
});

describe("the project's language as the service sends it", () => {
  it('is found under language, lang or locale (each dialect of the simulator)', () => {
    expect(Project.parse({ id: 1, status: 'active', language: 'fr' }).language).toBe('fr');
    expect(Project.parse({ id: 1, status: 'active', lang: 'fr' }).language).toBe('fr');
    expect(Project.parse({ id: '1', status: 'Active', title: 'X', locale: 'fr-FR' }).language).toBe('fr-FR');
    expect(Project.parse({ id: 1, status: 'active', locale: { code: 'fr' } }).language).toBe('fr');
    expect(Project.parse({ id: 1, status: 'active' }).language).toBeUndefined();
  });
});
