// Reads the SEO audit's Lighthouse scores and Core Web Vitals, wherever the audit puts them (`lighthouse`, or its
// step), numbers bare or as text, scores 0–100 or 0–1, LCP and INP in ms (`lcp_ms`) or LCP in seconds.
import { isRecord, keysNamed, parseNumber, type JsonRecord } from '../../spec/find.js';
import { inRecordOrSteps, inRecordOrStepsAt, scanPartAt } from '../unit.js';

export const LIGHTHOUSE_SCORES = ['performance', 'accessibility', 'best_practices', 'seo'] as const;
export type LighthouseScore = (typeof LIGHTHOUSE_SCORES)[number];
export const VITALS = ['lcp', 'inp', 'cls'] as const;
export type Vital = (typeof VITALS)[number];

export interface PageExperienceRead {
  scores: Record<LighthouseScore, number | null>;
  /** LCP and INP in milliseconds, CLS unitless; null when not measured. */
  vitals: Record<Vital, number | null>;
}

const SCORE_NAMES: Record<LighthouseScore, string[]> = {
  performance: ['performance', 'performancescore', 'perf'],
  accessibility: ['accessibility', 'accessibilityscore', 'a11y'],
  best_practices: ['bestpractices', 'bestpracticesscore'],
  seo: ['seo', 'seoscore'],
};

/** The audit's Lighthouse and vitals; null when the scan has no SEO audit or no Lighthouse in it. */
export function readPageExperience(scan: JsonRecord): PageExperienceRead | null {
  const lighthouse = lighthouseAt(scan)?.value;
  if (!isRecord(lighthouse)) return null;
  // Lighthouse's own report keeps the scores under `categories`, each `{ score: 0.62 }`.
  const categories = inRecordOrSteps(lighthouse, ['categories', 'scores']);
  const scoreSource = isRecord(categories) ? categories : lighthouse;
  const raw = Object.fromEntries(LIGHTHOUSE_SCORES.map((name) => [name, numberAt(scoreSource, SCORE_NAMES[name])])) as Record<LighthouseScore, number | null>;
  // Lighthouse's own scale is 0–1: every score at most 1 is read as a fraction.
  const fractions = Object.values(raw).every((v) => v === null || v <= 1) && Object.values(raw).some((v) => v !== null && v > 0 && v < 1);
  const scores = Object.fromEntries(
    LIGHTHOUSE_SCORES.map((name) => [name, raw[name] === null ? null : Math.round(fractions ? raw[name] * 100 : raw[name])]),
  ) as Record<LighthouseScore, number | null>;
  const vitalsRecord = inRecordOrSteps(lighthouse, ['corewebvitals', 'cwv', 'webvitals', 'vitals', 'metrics']);
  const source = isRecord(vitalsRecord) ? vitalsRecord : lighthouse;
  const vitals = {
    lcp: milliseconds(source, ['lcpms', 'largestcontentfulpaintms'], ['lcp', 'largestcontentfulpaint'], 'lcp'),
    inp: milliseconds(source, ['inpms', 'interactiontonextpaintms'], ['inp', 'interactiontonextpaint'], 'inp'),
    cls: numberAt(source, ['cls', 'cumulativelayoutshift']),
  };
  if (Object.values(scores).every((v) => v === null) && Object.values(vitals).every((v) => v === null)) return null;
  return { scores, vitals };
}

/** The audit's Lighthouse (or its step's), with its path; null when there is no audit or none. */
function lighthouseAt(scan: JsonRecord): { value: unknown; path: string } | null {
  const audit = scanPartAt(scan, ['seoaudit', 'seo']);
  if (audit === null) return null;
  const found = inRecordOrStepsAt(audit.record, ['lighthouse', 'pagespeed', 'lighthouseresults']);
  return found === null ? null : { value: found.value, path: `${audit.path}.${found.path}` };
}

/** Where the scan holds Lighthouse and the Core Web Vitals, for doctor. */
export const locatePageExperience = (scan: JsonRecord): string | null => lighthouseAt(scan)?.path ?? null;

function numberAt(record: JsonRecord, names: readonly string[]): number | null {
  for (const key of keysNamed(record, names)) {
    const value = record[key];
    const number = parseNumber(isRecord(value) ? (value['value'] ?? value['numericValue'] ?? value['score']) : value);
    if (number !== null) return number;
  }
  return null;
}

/** A time in ms: under a `_ms` name as is; under a bare name, seconds for LCP when it is small ("2.4"), else ms. */
function milliseconds(record: JsonRecord, msNames: readonly string[], bareNames: readonly string[], vital: 'lcp' | 'inp'): number | null {
  const ms = numberAt(record, msNames);
  if (ms !== null) return ms;
  const bare = numberAt(record, bareNames);
  if (bare === null) return null;
  return vital === 'lcp' && bare < 60 ? bare * 1000 : bare;
}
