// Page experience → what the client reads: the four Lighthouse scores and LCP, INP, CLS against Google's published
// thresholds, rated in words and with a sign (never colour alone), each with its change since last month.
import { z } from 'zod';
import { formatNumber, phrase, pluralPhrase } from '../../i18n/format.js';
import type { Language, Phrases } from '../../i18n/locales.js';
import type { SectionInput } from '../unit.js';
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
  const { now, before, language, phrases } = input;
  const say = (key: string, params?: Record<string, string | number>): string => phrase(phrases, `pageExperience.${key}`, params);
  const scores = LIGHTHOUSE_SCORES.map((key) => {
    const value = now.scores[key];
    const last = before?.scores[key] ?? null;
    const change = value === null || last === null ? null : value - last;
    return {
      key,
      label: say(key),
      value,
      valueText: value === null ? say('notMeasured') : formatNumber(value, language),
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
      label: say(key),
      value,
      valueText: value === null ? say('notMeasured') : vitalText(key, value, language),
      rating,
      ratingText: rating === null ? say('notMeasured') : say(rating),
      cue: rating === null ? '–' : CUES[rating],
      thresholdText: say('thresholds', {
        good: vitalText(key, THRESHOLDS[key].good, language),
        poor: vitalText(key, THRESHOLDS[key].poor, language),
      }),
      changeText: delta === null ? null : amount === shown ? say('same') : say(delta > 0 ? 'better' : 'worse', { amount }),
    };
  });
  const view: PageExperienceView = {
    title: say('title'),
    intro: say('intro'),
    headers: { measure: say('measure'), value: say('value'), rating: say('rating'), change: say('change') },
    scores,
    vitals,
    summary: null,
  };
  return { ...view, summary: pageExperienceSummary(view, phrases, language) };
}

export function pageExperienceSummary(view: PageExperienceView, phrases: Phrases, language: Language): string | null {
  const say = (key: string, params?: Record<string, string | number>): string => phrase(phrases, `pageExperience.${key}`, params);
  const measured = view.vitals.filter((v) => v.rating !== null);
  const performance = view.scores.find((s) => s.key === 'performance');
  if (measured.length === 0 && performance?.value == null) return null;
  const list = measured.map((v) => say('summaryItem', { name: v.key.toUpperCase(), rating: `${v.ratingText} (${v.valueText})` })).join(', ');
  const head = measured.length === 0 ? '' : say('summaryVitals', { list });
  const perf =
    performance?.value == null
      ? ''
      : say('summaryPerformance', { value: performance.valueText }) +
        (performance.change === null
          ? ''
          : say('summaryChange', {
              // "1 point", "0 point" in French, "2 points": the language's plural rules, as the report's other scores.
              change: pluralPhrase(phrases, language, 'pageExperience.points', Math.abs(Math.round(performance.change)), {
                count: signedNumber(performance.change, language),
              }),
            }));
  return `${head === '' ? perf.replace(/^\s*;\s*/, '') : head + perf}.`;
}
