// One rule for a report made before its period ended, and the client's page naming such a month as the report does.
import { describe, expect, it } from 'vitest';
import type { BuiltInLanguage, Locales } from '../../src/i18n/locales.js';
import type { SiteMonth } from '../../src/output/links.js';
import { madeBeforePeriodEnd, periodWording } from '../../src/report/period-wording.js';
import { clientPageModel } from '../../src/site/pages.js';
import { reportModel } from '../fixtures/report-model.js';
import { toMonth } from '../../src/period.js';

const PHRASES: Record<string, Record<string, string>> = {
  en: { 'report.periodSoFar': '{period}, so far this month', 'site.title': '{client}' },
  fr: { 'report.periodSoFar': '{period}, depuis le début du mois', 'site.title': '{client}' },
};
const locales: Locales = { phrases: (language) => PHRASES[language as BuiltInLanguage] ?? {} };

describe('a period reported before it ended', () => {
  it('is one made before the first instant of the next month', () => {
    expect(madeBeforePeriodEnd(toMonth('2026-11'), '2026-11-27T10:00:00.000Z')).toBe(true);
    expect(madeBeforePeriodEnd(toMonth('2026-11'), '2026-11-30T23:59:59.999Z')).toBe(true);
    expect(madeBeforePeriodEnd(toMonth('2026-11'), '2026-12-01T00:00:00.000Z')).toBe(false);
    expect(periodWording(toMonth('2026-11'), 'fr', locales.phrases('fr'), true)).toBe('novembre 2026, depuis le début du mois');
    expect(periodWording(toMonth('2026-11'), 'en', locales.phrases('en'), false)).toBe('November 2026');
  });

  it("is named so on the client's page, for that month only", () => {
    const month = (language: 'en' | 'fr', partial: boolean): SiteMonth => ({
      name: 'Boulangerie Martin',
      language,
      geo: 60,
      seo: 70,
      geoChange: null,
      seoChange: null,
      madeAt: '2026-11-27T10:00:00.000Z',
      ...(partial ? { madeBeforeEnd: true as const } : {}),
      html: { hash: '0'.repeat(64), size: 0, source: null },
      pdf: { hash: '0'.repeat(64), size: 0, source: null },
    });
    for (const [language, soFar] of [
      ['en', 'November 2026, so far this month'],
      ['fr', 'novembre 2026, depuis le début du mois'],
    ] as const) {
      const page = clientPageModel({
        months: new Map([
          [toMonth('2026-10'), month(language, false)],
          [toMonth('2026-11'), month(language, true)],
        ]),
        branding: reportModel(language).branding,
        locales,
      });
      expect(page.latest.periodLabel).toBe(soFar);
      expect(page.months.map((m) => m.periodLabel)).toEqual([soFar, language === 'en' ? 'October 2026' : 'octobre 2026']);
    }
  });
});
