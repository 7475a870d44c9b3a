// The agency's translations of the service's own text (report.translations): each file checked with its line and
// key named, and a French report showing a translated recommendation title in French, marked so, beside an
// untranslated one still marked as the service's English.
import { describe, expect, it } from 'vitest';
import { parseTranslationFile } from '../../src/config/translations.js';
import { ConfigError } from '../../src/errors.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';

/** The error a call throws, as the user reads it: its message and its fix. */
function problem(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return `${(error as ConfigError).message}\n${(error as ConfigError).hint ?? ''}`;
  }
  throw new Error('no error');
}

describe('a translations file', () => {
  it("maps the service's text, its spaces as the report shows them, to the agency's words", () => {
    const file = parseTranslationFile('{\n  // titles\n  "Fix pages  blocked by robots.txt ": " Débloquer les pages dans robots.txt",\n}\n', 'fr.json');
    expect([...file]).toEqual([['Fix pages blocked by robots.txt', 'Débloquer les pages dans robots.txt']]);
  });

  it('is refused at the line and key of each mistake, with the fix', () => {
    const wrongValue = problem(() =>
      parseTranslationFile('{\n  "Compress hero images": "Compresser les images",\n  "Add Organization structured data": 12\n}', 'fr.json'),
    );
    expect(wrongValue).toContain('Invalid translations file fr.json:');
    expect(wrongValue).toContain('fr.json line 3, "Add Organization structured data": expected the translation, a text in double quotes');
    expect(wrongValue).toContain('"Remove noindex from category pages": "Retirer la balise noindex');
    const empty = problem(() => parseTranslationFile('{\n  "Compress hero images": "  "\n}', 'fr.json'));
    expect(empty).toContain('fr.json line 2, "Compress hero images": an empty translation');
    const twice = problem(() => parseTranslationFile('{\n  "Compress hero images": "A",\n  "Compress hero images": "B"\n}', 'fr.json'));
    expect(twice).toContain('fr.json line 3, "Compress hero images": given a second time (first at line 2)');
    const syntax = problem(() =>
      parseTranslationFile('{\n  "Compress hero images": "Compresser les images"\n  "Add Organization structured data": "Ajouter"\n}', 'fr.json'),
    );
    expect(syntax).toContain('The translations file fr.json cannot be read as JSON:');
    expect(syntax).toContain('fr.json line 3, column 3: a comma "," is missing before this entry');
    expect(problem(() => parseTranslationFile('["Compress hero images"]', 'fr.json'))).toContain('expected an object');
  });
});

describe('a French report with the agency’s translations', () => {
  const translations = new Map([
    ['Fix pages blocked by robots.txt', 'Débloquer les pages bloquées par robots.txt'],
    // Resolved since last month: the "what changed" list names it in French too.
    ['Add Organization structured data', 'Ajouter les données structurées Organization'],
  ]);

  it('shows a translated title in French marked fr, an untranslated one marked as the service’s English', async () => {
    const model = assembleReport(assembleInput({ language: 'fr', translations }));
    const items = model.recommendations?.groups.flatMap((group) => group.items) ?? [];
    const fixed = items.find((rec) => rec.title.startsWith('Débloquer'));
    expect(fixed).toMatchObject({ title: 'Débloquer les pages bloquées par robots.txt', titleLang: 'fr' });
    // Its description has no translation: the service's English, marked so.
    expect(fixed?.descriptionLang).toBe(fixed?.description === null ? null : 'en');
    const untranslated = items.find((rec) => rec.title === 'Compress hero images');
    expect(untranslated).toMatchObject({ titleLang: 'en' });
    expect(model.recommendations?.tracking?.resolved).toEqual([
      expect.objectContaining({ title: 'Ajouter les données structurées Organization', titleLang: 'fr' }),
    ]);
    // Tracked by the service's words: translated, the recommendation is still the one open for months.
    const english = assembleReport(assembleInput({ language: 'fr' })).recommendations?.groups.flatMap((group) => group.items);
    expect(fixed?.periodsOpen).toBe(english?.find((rec) => rec.title === 'Fix pages blocked by robots.txt')?.periodsOpen);
    expect(fixed?.periodsOpen).toBeGreaterThan(1);

    const html = (await createHtmlRenderer()).renderReport(model);
    expect(html).toContain('<h4 class="rec__title" lang="fr">Débloquer les pages bloquées par robots.txt</h4>');
    expect(html).toContain('<h4 class="rec__title" lang="en">Compress hero images</h4>');
    expect(html).toContain('<span lang="fr">Ajouter les données structurées Organization</span>');
  });

  it('leaves an English report’s titles unmarked, and a translation for another language unused', () => {
    const model = assembleReport(assembleInput({ language: 'en' }));
    const items = model.recommendations?.groups.flatMap((group) => group.items) ?? [];
    expect(items.every((rec) => rec.titleLang === null)).toBe(true);
    expect(items.some((rec) => rec.title === 'Fix pages blocked by robots.txt')).toBe(true);
  });
});
