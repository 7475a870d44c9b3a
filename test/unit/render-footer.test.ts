// The PDF's running footer: agency.footer as configured, a stand-in when it is blank, escaped into the template
// Chromium fills with the page number.
import { describe, expect, it } from 'vitest';
import { footerIn } from '../../src/config/branding.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { footerText, pageLabel } from '../../src/render/print/footer.js';
import { footerTemplate } from '../../src/render/print/printer.js';
import { reportModel } from '../fixtures/report-model.js';

describe('footerText', () => {
  const model = reportModel('en');

  it("is the agency's footer line, as configured", () => {
    expect(footerText({ agencyName: 'Lumen&Co', footer: '  Confidential: prepared for Atelier Verdant.  ' }, model)).toBe(
      'Confidential: prepared for Atelier Verdant.',
    );
  });

  it('is the agency, the client and the period when the footer line is blank', () => {
    expect(footerText({ agencyName: 'Lumen&Co', footer: ' ' }, model)).toBe(`Lumen&Co · Atelier Verdant · ${model.meta.periodLabel}`);
    const long = { ...model, client: { ...model.client, name: 'A'.repeat(90) } };
    expect(footerText({ agencyName: 'Lumen&Co', footer: '' }, long)).toBe(`Lumen&Co · ${'A'.repeat(59)}… · ${model.meta.periodLabel}`);
  });
});

describe('agency.footer per language', () => {
  it("is the one text for every language, or the report's language's text, else blank (the stand-in)", () => {
    expect(footerIn('Confidential.', 'fr')).toBe('Confidential.');
    const footer = ConfigSchema.parse({ agency: { footer: { en: 'Confidential.', fr: 'Confidentiel.' } } }).agency.footer;
    expect(footerIn(footer, 'en')).toBe('Confidential.');
    expect(footerIn(footer, 'fr')).toBe('Confidentiel.');
    expect(footerIn(ConfigSchema.parse({ agency: { footer: { en: 'Confidential.' } } }).agency.footer, 'fr')).toBe('');
  });

  it('is refused under a key that is no language code, or longer than 300 characters', () => {
    // Any language code is a language an agency's locales/<code>.json may add; a name is not one.
    expect(ConfigSchema.safeParse({ agency: { footer: { de: 'Vertraulich.' } } }).success).toBe(true);
    expect(ConfigSchema.safeParse({ agency: { footer: { German: 'Vertraulich.' } } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ agency: { footer: { fr: 'x'.repeat(301) } } }).success).toBe(false);
  });
});

describe('the footer template', () => {
  it('holds the footer line escaped and the page label with the spans Chromium fills', () => {
    const template = footerTemplate('Northwind & Partners <b>"x"</b>', pageLabel({ 'print.page': 'Page {page} sur {pages}' }), 'fr');
    expect(template).toContain('Northwind &amp; Partners &lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(template).not.toContain('<b>');
    expect(template).toContain('Page <span class="pageNumber"></span> sur <span class="totalPages"></span>');
    expect(template).toContain('lang="fr"');
  });

  it('falls back to the English page label when a locale has none', () => {
    expect(pageLabel({})).toBe('Page {page} of {pages}');
  });
});
