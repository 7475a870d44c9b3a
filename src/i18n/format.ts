// Words and numbers in the reader's language: `{name}` interpolation, plural forms, readable labels for keys the
// API sends, and Intl formatting of numbers, dates and lists.
import { LocaleError, type Phrases } from './locales.js';

type Params = Readonly<Record<string, string | number>>;

/** Replaces `{name}` placeholders; an unknown placeholder stays visible so a typo is noticed. */
export function interpolate(template: string, params: Params = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/** The phrase `key` filled with `params`; the key itself when the phrase is missing, never "undefined". */
export function phrase(phrases: Phrases, key: string, params?: Params): string {
  return interpolate(phrases[key] ?? key, params);
}

/**
 * `{key}.one` or `{key}.other` by the language's plural rules for `count` (`{key}.zero` for 0 when the file has
 * one); the plain `key` when the file has no plural forms of it.
 */
export function pluralPhrase(phrases: Phrases, language: string, key: string, count: number, params: Params = {}): string {
  // English and French have no plural category for zero, but "No recommendation resolved" reads better than "0 …".
  const category =
    count === 0 && phrases[`${key}.zero`] !== undefined ? 'zero' : cached(pluralRules, language, {}, () => new Intl.PluralRules(language)).select(count);
  const form = [`${key}.${category}`, `${key}.other`, key].find((candidate) => phrases[candidate] !== undefined) ?? `${key}.other`;
  return phrase(phrases, form, params);
}

// Tokens written as acronyms when a key is made readable ("avg_ai_position" → "Avg AI position").
const ACRONYMS: ReadonlyMap<string, string> = new Map(
  [
    'ai',
    'api',
    'cls',
    'cta',
    'ctr',
    'faq',
    'fid',
    'geo',
    'html',
    'http',
    'https',
    'id',
    'inp',
    'lcp',
    'llm',
    'nap',
    'seo',
    'serp',
    'ssl',
    'ttfb',
    'ui',
    'url',
    'ux',
  ]
    .map((word): [string, string] => [word, word.toUpperCase()])
    .concat([
      ['urls', 'URLs'],
      ['llms', 'LLMs'],
      ['faqs', 'FAQs'],
      ['apis', 'APIs'],
      ['serps', 'SERPs'],
    ]),
);

/** "core_web_vitals" → "Core web vitals"; "pageSpeed" → "Page speed"; acronyms in capitals. */
export function readableKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
  if (words.length === 0) return key;
  const shown = words.map((w) => ACRONYMS.get(w) ?? w);
  const first = shown[0] ?? '';
  shown[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return shown.join(' ');
}

/** Label of a field the API sends: the translated `metric.<key>` when known, else the key made readable. */
export function fieldLabel(phrases: Phrases, key: string): string {
  return phrases[`metric.${key}`] ?? readableKey(key);
}

/** Whether the locale names the field `key` (a label of its own), rather than showing the API's key as it is. */
export function knowsField(phrases: Phrases, key: string): boolean {
  return phrases[`metric.${key}`] !== undefined;
}

/**
 * A word the API sends as the value of a field the tool knows (impact "high", status "in_progress"): the phrase
 * `value.<key>.<value>` when the locale has it, else the value as sent.
 */
export function fieldValue(phrases: Phrases, key: string, value: string): string {
  const word = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return phrases[`value.${key}.${word}`] ?? value;
}

/** Label of an AI assistant: the translated `assistant.<key>` when known, else the key made readable. */
export function assistantLabel(phrases: Phrases, key: string): string {
  return phrases[`assistant.${key}`] ?? readableKey(key);
}

/**
 * A period after "of" as the language writes it: the phrase `period.of` ("October 2026", "de mars 2026"), or
 * `period.of.beforeVowel` when the locale has one and the label starts with a vowel or a mute h ("d’octobre 2026").
 */
export function ofPeriod(label: string, phrases: Phrases): string {
  const elides = phrases['period.of.beforeVowel'] !== undefined && /^[aeiouyâàéèêëîïôöûüœh]/i.test(label);
  return phrase(phrases, elides ? 'period.of.beforeVowel' : 'period.of', { period: label });
}

/** A label used inside a sentence: "Indexed pages" → "indexed pages", "AI mentions" stays. */
export function inSentence(label: string): string {
  const second = label.charAt(1);
  // "Core Web Vitals pass rate": a first word followed by a capitalised word (not an acronym) is a proper noun, kept.
  const next = label.split(/\s+/)[1] ?? '';
  if (/^\p{Lu}\p{Ll}/u.test(next)) return label;
  return second !== '' && second === second.toLowerCase() && second !== second.toUpperCase() ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

// Building an Intl formatter costs far more than formatting with it, and a report formats hundreds of values.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const pluralRules = new Map<string, Intl.PluralRules>();
const listFormats = new Map<string, Intl.ListFormat>();

function cached<F>(cache: Map<string, F>, language: string, options: object, make: () => F): F {
  const key = `${language} ${JSON.stringify(options)}`;
  let format = cache.get(key);
  if (format === undefined) {
    format = make();
    cache.set(key, format);
  }
  return format;
}

/**
 * A number in the language's style, one decimal at most unless told: "1,240.5" / "1 240,5" (narrow no-break space);
 * a negative one with the typographic minus ("−3", U+2212), never the hyphen Intl writes.
 */
export function formatNumber(value: number, language: string, options: Intl.NumberFormatOptions = {}): string {
  const all = { maximumFractionDigits: 1, ...options };
  return cached(numberFormats, language, all, () => new Intl.NumberFormat(language, all))
    .format(value)
    .replace(/-/g, '\u2212');
}

/** The fraction digits that write `value` without rounding a non-zero value to 0: `digits`, or up to 4 when it needs them. */
export function digitsFor(value: number, digits = 1): number {
  let needed = digits;
  while (needed < 4 && value !== 0 && Number(Math.abs(value).toFixed(needed)) === 0) needed += 1;
  return needed;
}

/** A change of a percentage, in percentage points: 3.2 → "+3.2 pts" / "+3,2 pts", 1 → "+1 pt". */
export function formatPointsChange(value: number, phrases: Phrases, language: string, digits = 1): string {
  const shown = formatNumber(value, language, { maximumFractionDigits: digitsFor(value, digits), signDisplay: 'exceptZero' });
  return pluralPhrase(phrases, language, 'unit.pointsChange', Math.abs(Number(value.toFixed(digitsFor(value, digits)))), { value: shown });
}

/** A signed share: 0.353 → "+35.3%" / "+35,3 %". */
export function formatSignedPercent(ratio: number, language: string): string {
  return formatNumber(ratio, language, { style: 'percent', signDisplay: 'exceptZero' });
}

/** A value with its unit: "12.5%" / "12,5 %", "2.4 s". */
export function formatWithUnit(value: number, unit: string | null, language: string): string {
  if (unit === '%') return formatNumber(value / 100, language, { style: 'percent', maximumFractionDigits: 2 });
  const text = formatNumber(value, language, { maximumFractionDigits: 2 });
  return unit === null || unit === '' ? text : `${text}\u00a0${unit}`;
}

/** "A, B, and C" / "A, B et C". */
export function formatList(items: readonly string[], language: string): string {
  return cached(listFormats, language, {}, () => new Intl.ListFormat(language, { type: 'conjunction', style: 'long' })).format(items);
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** 'long' → "22 October 2026" / "22 octobre 2026"; 'month' → "Oct 2026" / "oct. 2026" (chart axes). */
export function formatDate(iso: string, language: string, style: 'long' | 'month' = 'long'): string {
  // A bare date is a calendar day, not midnight somewhere: read it in UTC so no zone shifts it.
  const date = new Date(BARE_DATE.test(iso) ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(date.getTime())) throw new LocaleError(`"${iso}" is not an ISO 8601 date.`);
  const options: Intl.DateTimeFormatOptions =
    style === 'long' ? { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' } : { month: 'short', year: 'numeric', timeZone: 'UTC' };
  return cached(dateFormats, language, options, () => new Intl.DateTimeFormat(language, options)).format(date);
}
