// Every value the tool knows, beside the readers that find it: its unit and whether higher is better, so that a
// change is written with the right verb ("improved", "slipped") and the right unit (a percentage in points). Its
// name in each language, with its article, is in the locale files: `metric.<key>` and `metric.<key>.the`.

/** What a value counts in: a 0–100 score, a percentage, a rank (1 is best), milliseconds, a count, a rating out of 5, a plain number. */
export const VALUE_UNITS = ['points', 'percent', 'rank', 'ms', 'count', 'rating', 'number'] as const;
export type ValueUnit = (typeof VALUE_UNITS)[number];

export interface KnownValue {
  unit: ValueUnit;
  /** true: a rise is good news; false: a fall is (a position, a load time); null: neither (a count of questions tracked). */
  higherIsBetter: boolean | null;
  /** The name is a plural ("citations"): the verb agrees with it. */
  plural: boolean;
}

/** By the key the API sends (and `geo`, `seo` for the two scores). */
export const KNOWN_VALUES = {
  geo: { unit: 'points', higherIsBetter: true, plural: false },
  seo: { unit: 'points', higherIsBetter: true, plural: false },
  trust_score: { unit: 'points', higherIsBetter: true, plural: false },
  ai_mentions: { unit: 'count', higherIsBetter: true, plural: true },
  citations: { unit: 'count', higherIsBetter: true, plural: true },
  share_of_voice: { unit: 'percent', higherIsBetter: true, plural: false },
  avg_ai_position: { unit: 'rank', higherIsBetter: false, plural: false },
  indexed_pages: { unit: 'count', higherIsBetter: true, plural: true },
  organic_keywords: { unit: 'count', higherIsBetter: true, plural: true },
  organic_traffic: { unit: 'count', higherIsBetter: true, plural: false },
  backlinks: { unit: 'count', higherIsBetter: true, plural: true },
  referring_domains: { unit: 'count', higherIsBetter: true, plural: true },
  domain_authority: { unit: 'points', higherIsBetter: true, plural: false },
  core_web_vitals_pass_rate: { unit: 'percent', higherIsBetter: true, plural: false },
  page_speed: { unit: 'points', higherIsBetter: true, plural: false },
  brand_mentions: { unit: 'count', higherIsBetter: true, plural: true },
  sentiment: { unit: 'number', higherIsBetter: true, plural: false },
  questions_tracked: { unit: 'count', higherIsBetter: null, plural: true },
  reviews_count: { unit: 'count', higherIsBetter: true, plural: true },
  rating: { unit: 'rating', higherIsBetter: true, plural: false },
  lcp_ms: { unit: 'ms', higherIsBetter: false, plural: false },
  inp_ms: { unit: 'ms', higherIsBetter: false, plural: false },
  cls: { unit: 'number', higherIsBetter: false, plural: false },
} as const satisfies Record<string, KnownValue>;

/** What the tool knows of a value; null for a key it does not know (its changes are written neutrally). */
export function knownValue(key: string): KnownValue | null {
  return Object.hasOwn(KNOWN_VALUES, key) ? KNOWN_VALUES[key as keyof typeof KNOWN_VALUES] : null;
}

/** Whether a change is good news, bad news, or neither (an unknown value, a neutral one, no change). */
export function changeMeaning(key: string, change: number): 'better' | 'worse' | 'changed' {
  const higherIsBetter = knownValue(key)?.higherIsBetter ?? null;
  if (higherIsBetter === null || change === 0) return 'changed';
  return change > 0 === higherIsBetter ? 'better' : 'worse';
}
