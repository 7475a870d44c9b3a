// Page experience → what the client reads: the four Lighthouse scores and LCP, INP, CLS against Google's published
// thresholds, rated in words and with a sign (never colour alone), each with its change since last month.
import { z } from 'zod';
import { formatNumber, pluralPhrase } from '../../i18n/format.js';
import type { Language } from '../../i18n/locales.js';
import { say, type Phrased, type SectionInput } from '../unit.js';
import { LIGHTHOUSE_SCORES, VITALS, type PageExperienceRead, type Vital } from './read.js';

/** Google's Core Web Vitals thresholds (web.dev/articles/vitals): good at most `good`, poor above `poor`. */
export const THRESHOLDS: Record<Vital, { good: number; poor: number }> = {
  lcp: { good: 2500, poor: 4000 },
  inp: { good: 200, poor: 500 },
  cls: { good: 0.1, poor: 0.25 },
};

const RATINGS = ['good', 'needs-improvement', 'poor'] as const;
type Rating = (typeof RATINGS)[number];

export const PageExperienceViewSchema = z
  .object({
    title: z.string(),
    intro: z.string(),
    headers: z.object({ measure: z.string(), value: z.string(), rating: z.string(), change: z.string() }),
    scores: z
      .array(
        z.object({
          key: z.string().describe('performance, accessibility, best_practices or seo.'),
          label: z.string(),
          value: z.number().nullable().describe('0–100; null when not measured.'),
          valueText: z.string(),
          change: z.number().nullable().describe("The score now less last month's, in points; null when there is no last month."),
          changeText: z.string().nullable().describe('e.g. "▲ +4" since last month; null when there is no last month.'),
        }),
      )
      .describe('The four Lighthouse scores.'),
    vitals: z
      .array(
        z.object({
          key: z.enum(VITALS),
          label: z.string(),
          value: z.number().nullable().describe('LCP and INP in ms, CLS unitless; null when not measured.'),
          valueText: z.string(),
          rating: z.enum(RATINGS).nullable().describe("good, needs-improvement or poor against Google's thresholds; null when not measured."),
          ratingText: z.string(),
          cue: z.string().describe('The rating as a sign (✓ ! ✕): the non-colour cue.'),
          thresholdText: z.string().describe('The thresholds, e.g. "good ≤ 2.5 s, poor > 4 s".'),
          changeText: z.string().nullable().describe('e.g. "0.3 s better" since last month; null when there is no last month.'),
        }),
      )
      .describe('Core Web Vitals: LCP, INP, CLS.'),
    summary: z.string().nullable(),
  })
  .describe("Page experience (seo_audit's Lighthouse and Core Web Vitals): null when switched off or when the scan has none.");
export type PageExperienceView = z.infer<typeof PageExperienceViewSchema>;

const P = {
  title: { en: 'Page experience', fr: 'Expérience de la page' },
  intro: {
    en: "Lighthouse scores (0–100, higher is better) and Core Web Vitals rated against Google's thresholds.",
    fr: 'Scores Lighthouse (0–100, plus haut est meilleur) et Core Web Vitals évalués selon les seuils de Google.',
  },
  measure: { en: 'Measure', fr: 'Mesure' },
  value: { en: 'Value', fr: 'Valeur' },
  rating: { en: 'Rating', fr: 'Évaluation' },
  change: { en: 'Since last month', fr: 'Depuis le mois dernier' },
  performance: { en: 'Performance', fr: 'Performance' },
  accessibility: { en: 'Accessibility', fr: 'Accessibilité' },
  best_practices: { en: 'Best practices', fr: 'Bonnes pratiques' },
  seo: { en: 'SEO', fr: 'SEO' },
  lcp: { en: 'Largest Contentful Paint (LCP)', fr: 'Largest Contentful Paint (LCP)' },
  inp: { en: 'Interaction to Next Paint (INP)', fr: 'Interaction to Next Paint (INP)' },
  cls: { en: 'Cumulative Layout Shift (CLS)', fr: 'Cumulative Layout Shift (CLS)' },
  good: { en: 'good', fr: 'bon' },
  'needs-improvement': { en: 'needs improvement', fr: 'à améliorer' },
  poor: { en: 'poor', fr: 'mauvais' },
  notMeasured: { en: 'not measured', fr: 'non mesuré' },
  thresholds: { en: 'good ≤ {good}, poor > {poor}', fr: 'bon ≤ {good}, mauvais > {poor}' },
  better: { en: '{amount} better', fr: '{amount} de mieux' },
  worse: { en: '{amount} worse', fr: '{amount} de moins bien' },
  same: { en: 'unchanged', fr: 'inchangé' },
  summaryVitals: { en: 'Core Web Vitals: {list}', fr: 'Core Web Vitals\u00a0: {list}' },
  summaryItem: { en: '{name} {rating}', fr: '{name} {rating}' },
  summaryPerformance: { en: '; performance score {value} out of 100', fr: '\u00a0; score de performance {value} sur 100' },
  // A score out of 100 changes in points, as the report's other scores do.
  summaryChange: { en: ' ({change} {points} since last month)', fr: ' ({change} {points} depuis le mois dernier)' },
  point: { en: 'point', fr: 'point' },
  points: { en: 'points', fr: 'points' },
} satisfies Record<string, Phrased>;

const CUES: Record<Rating, string> = { good: '✓', 'needs-improvement': '!', poor: '✕' };

export function ratingOf(vital: Vital, value: number): Rating {
  const { good, poor } = THRESHOLDS[vital];
  return value <= good ? 'good' : value > poor ? 'poor' : 'needs-improvement';
}

function vitalText(vital: Vital, value: number, language: Language): string {
  if (vital === 'cls') return formatNumber(value, language, { maximumFractionDigits: 2 });
  if (vital === 'lcp') return `${formatNumber(value / 1000, language, { maximumFractionDigits: 1 })}\u00a0s`;
  return `${formatNumber(value, language, { maximumFractionDigits: 0 })}\u00a0ms`;
}

/** A whole score's change with its sign: "+6", "−1". */
const signedNumber = (value: number, language: Language): string => formatNumber(value, language, { signDisplay: 'exceptZero', maximumFractionDigits: 0 });

/** The same with its arrow, the non-colour cue of the table: "▲ +6". */
const signed = (value: number, language: Language): string => `${value > 0 ? '▲' : value < 0 ? '▼' : '='} ${signedNumber(value, language)}`;

export function pageExperienceView(input: SectionInput<PageExperienceRead>): PageExperienceView {
  const { now, before, language } = input;
  const scores = LIGHTHOUSE_SCORES.map((key) => {
    const value = now.scores[key];
    const last = before?.scores[key] ?? null;
    const change = value === null || last === null ? null : value - last;
    return {
      key,
      label: say(P[key], language),
      value,
      valueText: value === null ? say(P.notMeasured, language) : formatNumber(value, language),
      change,
      changeText: change === null ? null : signed(change, language),
    };
  });
  const vitals = VITALS.map((key) => {
    const value = now.vitals[key];
    const last = before?.vitals[key] ?? null;
    const rating = value === null ? null : ratingOf(key, value);
    // Lower is better for every vital.
    const delta = value === null || last === null ? null : last - value;
    const amount = delta === null ? '' : vitalText(key, Math.abs(delta), language);
    const shown = delta === null ? '' : vitalText(key, 0, language);
    return {
      key,
      label: say(P[key], language),
      value,
      valueText: value === null ? say(P.notMeasured, language) : vitalText(key, value, language),
      rating,
      ratingText: rating === null ? say(P.notMeasured, language) : say(P[rating], language),
      cue: rating === null ? '–' : CUES[rating],
      thresholdText: say(P.thresholds, language, {
        good: vitalText(key, THRESHOLDS[key].good, language),
        poor: vitalText(key, THRESHOLDS[key].poor, language),
      }),
      changeText: delta === null ? null : amount === shown ? say(P.same, language) : say(delta > 0 ? P.better : P.worse, language, { amount }),
    };
  });
  const view: PageExperienceView = {
    title: say(P.title, language),
    intro: say(P.intro, language),
    headers: { measure: say(P.measure, language), value: say(P.value, language), rating: say(P.rating, language), change: say(P.change, language) },
    scores,
    vitals,
    summary: null,
  };
  return { ...view, summary: pageExperienceSummary(view, language) };
}

export function pageExperienceSummary(view: PageExperienceView, language: Language): string | null {
  const measured = view.vitals.filter((v) => v.rating !== null);
  const performance = view.scores.find((s) => s.key === 'performance');
  if (measured.length === 0 && performance?.value == null) return null;
  const list = measured.map((v) => say(P.summaryItem, language, { name: v.key.toUpperCase(), rating: `${v.ratingText} (${v.valueText})` })).join(', ');
  const head = measured.length === 0 ? '' : say(P.summaryVitals, language, { list });
  const perf =
    performance?.value == null
      ? ''
      : say(P.summaryPerformance, language, { value: performance.valueText }) +
        (performance.change === null
          ? ''
          : say(P.summaryChange, language, {
              change: signedNumber(performance.change, language),
              // "1 point", "0 point" in French, "2 points": the language's plural rules, as the report's other scores.
              points: pluralPhrase(
                { 'points.one': say(P.point, language), 'points.other': say(P.points, language) },
                language,
                'points',
                Math.abs(Math.round(performance.change)),
              ),
            }));
  return `${head === '' ? perf.replace(/^\s*;\s*/, '') : head + perf}.`;
}
