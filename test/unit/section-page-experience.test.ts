// The page experience section on hand-made scan answers: Lighthouse where the audit or its step puts it, scores as
// fractions or text, vitals in ms or seconds; Google's thresholds at their edges; the change since last month.
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { pageExperience } from '../../src/sections/page-experience/index.js';
import { readPageExperience } from '../../src/sections/page-experience/read.js';
import { PageExperienceViewSchema, ratingOf, type PageExperienceView } from '../../src/sections/page-experience/view.js';
import { toMonth } from '../../src/period.js';

const lighthouse = (performance: number, lcp_ms: number, inp_ms: number, cls: number) => ({
  performance,
  accessibility: 90,
  best_practices: 80,
  seo: 70,
  core_web_vitals: { lcp_ms, inp_ms, cls },
});

const build = (now: unknown, before: unknown, language: 'en' | 'fr' = 'en'): PageExperienceView => {
  const built = pageExperience.build(
    now as Record<string, unknown>,
    before === null ? null : { scan: before as Record<string, unknown>, period: toMonth('2026-09') },
    language,
    loadPhrases(language),
  );
  if (built === null) throw new Error('no view');
  return PageExperienceViewSchema.parse(built.view);
};

describe('reading the SEO audit’s Lighthouse and Core Web Vitals', () => {
  it('reads the simulator’s classic shape', () => {
    expect(readPageExperience({ seo_audit: { lighthouse: lighthouse(62, 4100, 210, 0.12) } })).toEqual({
      scores: { performance: 62, accessibility: 90, best_practices: 80, seo: 70 },
      vitals: { lcp: 4100, inp: 210, cls: 0.12 },
    });
  });

  it('reads Lighthouse under its step, scores as 0–1 fractions in text, LCP in seconds, under the nested sections', () => {
    const scan = {
      sections: {
        seo_audit: {
          steps: {
            step1_lighthouse: {
              lighthouse: { performance: '0.62', accessibility: '0.9', 'best-practices': 0.8, seo: 1, vitals: { LCP: '2.4', INP: '150', CLS: '0.05' } },
            },
          },
        },
      },
    };
    expect(readPageExperience(scan)).toEqual({
      scores: { performance: 62, accessibility: 90, best_practices: 80, seo: 100 },
      vitals: { lcp: 2400, inp: 150, cls: 0.05 },
    });
  });

  it('is missing without an SEO audit, without Lighthouse, or when the step was not sent', () => {
    expect(readPageExperience({ geo: {} })).toBeNull();
    expect(readPageExperience({ seo_audit: { seo_score: 40, steps: {} } })).toBeNull();
    expect(pageExperience.build({ seo_audit: { keyword_rankings: [] } }, null, 'en', loadPhrases('en'))).toBeNull();
  });
});

describe('the page experience view', () => {
  it("rates each vital by Google's thresholds, at their edges", () => {
    expect([ratingOf('lcp', 2500), ratingOf('lcp', 2501), ratingOf('lcp', 4000), ratingOf('lcp', 4001)]).toEqual([
      'good',
      'needs-improvement',
      'needs-improvement',
      'poor',
    ]);
    expect([ratingOf('inp', 200), ratingOf('inp', 500), ratingOf('inp', 501)]).toEqual(['good', 'needs-improvement', 'poor']);
    expect([ratingOf('cls', 0.1), ratingOf('cls', 0.25), ratingOf('cls', 0.26)]).toEqual(['good', 'needs-improvement', 'poor']);
  });

  it('says each rating in words and with a sign, with the change since last month', () => {
    const view = build({ seo_audit: { lighthouse: lighthouse(70, 4300, 180, 0.15) } }, { seo_audit: { lighthouse: lighthouse(64, 3900, 180, 0.3) } });
    expect(view.vitals.map((v) => [v.key, v.valueText, v.rating, v.cue, v.ratingText, v.changeText])).toEqual([
      ['lcp', '4.3\u00a0s', 'poor', '✕', 'poor', '0.4\u00a0s worse'],
      ['inp', '180\u00a0ms', 'good', '✓', 'good', 'unchanged'],
      ['cls', '0.15', 'needs-improvement', '!', 'needs improvement', '0.15 better'],
    ]);
    expect(view.vitals[0]?.thresholdText).toBe('good ≤ 2.5\u00a0s, poor > 4\u00a0s');
    expect(view.scores[0]).toMatchObject({ label: 'Performance', valueText: '70', changeText: '▲ +6' });
    expect(view.summary).toBe(
      'Core Web Vitals: LCP poor (4.3\u00a0s), INP good (180\u00a0ms), CLS needs improvement (0.15); performance score 70 out of 100 (+6 points since last month).',
    );
  });

  it('has no last month on a first report, and speaks French', () => {
    const view = build({ seo_audit: { lighthouse: lighthouse(50, 2000, 600, 0.05) } }, null, 'fr');
    expect(view.title).toBe('Expérience de la page');
    expect(view.vitals.map((v) => [v.ratingText, v.changeText])).toEqual([
      ['bon', null],
      ['mauvais', null],
      ['bon', null],
    ]);
    expect(view.summary).toBe('Core Web Vitals\u00a0: LCP bon (2\u00a0s), INP mauvais (600\u00a0ms), CLS bon (0,05)\u00a0; score de performance 50 sur 100.');
  });

  it('gives the preview a sample that fits its schema, in both languages', () => {
    for (const language of ['en', 'fr'] as const)
      expect(PageExperienceViewSchema.safeParse(pageExperience.sample(language, loadPhrases(language))).success).toBe(true);
  });
});

describe('page experience in the shapes of the simulator’s dialects', () => {
  it('reads Lighthouse’s own layout (categories with 0–1 scores, metrics as { value, unit })', () => {
    const scan = {
      id: 1,
      sections: {
        seo_audit: {
          lighthouse: {
            categories: { performance: { score: 0.62 }, accessibility: { score: 0.9 }, 'best-practices': { score: 0.8 }, seo: { score: 0.7 } },
            metrics: {
              largest_contentful_paint: { value: 4100, unit: 'ms' },
              interaction_to_next_paint: { value: 210, unit: 'ms' },
              cumulative_layout_shift: { value: 0.12 },
            },
          },
        },
      },
    };
    expect(readPageExperience(scan)).toEqual({
      scores: { performance: 62, accessibility: 90, best_practices: 80, seo: 70 },
      vitals: { lcp: 4100, inp: 210, cls: 0.12 },
    });
  });

  it('reads short names, numbers as text and LCP in seconds', () => {
    const scan = { seo_audit: { lighthouse: { perf: '62', a11y: '90', best_practices: '80', seo: '70', cwv: { lcp: '4.1', inp: '210', cls: '0.12' } } } };
    expect(readPageExperience(scan)).toEqual({
      scores: { performance: 62, accessibility: 90, best_practices: 80, seo: 70 },
      vitals: { lcp: 4100, inp: 210, cls: 0.12 },
    });
  });
});
