// "What these words mean": the terms a client may not know, each explained in the report's language, and only
// those the report itself uses (found in what it writes: its labels, its summary, its recommendations).
import type { Phrases } from '../i18n/locales.js';
import type { ReportModel } from './model.js';

/** The terms the glossary can explain, in the order it lists them. GEO and SEO are in every report's title. */
export const GLOSSARY_TERMS = [
  'geo',
  'seo',
  'ai_visibility',
  'benchmark',
  'share_of_voice',
  'ai_answer_share',
  'core_web_vitals',
  'lcp',
  'inp',
  'cls',
  'eeat',
  'nap',
  'local_pack',
  'backlinks',
  'referring_domains',
] as const;
export type GlossaryTerm = (typeof GLOSSARY_TERMS)[number];

/** Always explained: the report's title names both. */
const ALWAYS: ReadonlySet<GlossaryTerm> = new Set(['geo', 'seo']);

export interface GlossaryEntry {
  term: string;
  meaning: string;
}

/** Every text of the model a client reads, lower-cased, in one string to search. */
function shownText(model: Omit<ReportModel, 'glossary'>): string {
  const texts: string[] = [...model.summary];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 12) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walk(item, depth + 1);
  };
  walk([model.scores, model.metrics, model.trust, model.recommendations, model.otherSections, model.goals, model.sections], 0);
  return texts.join('\n').toLowerCase();
}

/** `form` in `text` as a word of its own ("lcp" in "lcp 2.1 s", not in "xlcpy"). */
function wordIn(text: string, form: string): boolean {
  let at = text.indexOf(form);
  while (at !== -1) {
    const before = text.charAt(at - 1);
    const after = text.charAt(at + form.length);
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    at = text.indexOf(form, at + 1);
  }
  return false;
}

/** The glossary of a report: each term it uses, with what it means, in its language. Pure. */
export function buildGlossary(model: Omit<ReportModel, 'glossary'>, phrases: Phrases): GlossaryEntry[] {
  const text = shownText(model);
  const entries: GlossaryEntry[] = [];
  for (const key of GLOSSARY_TERMS) {
    const term = phrases[`glossary.${key}.term`];
    const meaning = phrases[`glossary.${key}.meaning`];
    if (term === undefined || meaning === undefined) continue;
    // Each form the report may write the term in ("Share of voice", "the share of voice"), separated by "|".
    const forms = (phrases[`glossary.${key}.forms`] ?? term).split('|').map((form) => form.trim().toLowerCase());
    if (ALWAYS.has(key) || forms.some((form) => form !== '' && wordIn(text, form))) entries.push({ term, meaning });
  }
  return entries;
}
