// Words and numbers of a report in the client's language: phrase files, `{name}` interpolation,
// readable labels for keys the API sends, and Intl formatting of numbers, periods and lists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

/** Flat map of phrase key ("report.documentTitle") → text with `{name}` placeholders. */
export type Phrases = Readonly<Record<string, string>>;

/** Where the phrase files live when the caller does not say. */
export const DEFAULT_PHRASES_DIR = fileURLToPath(new URL('../../templates/locales/', import.meta.url));

const FALLBACK_LANGUAGE = 'en';

export interface LoadPhrasesOptions {
  /** Folder holding `<language>.json`. @default templates/locales */
  dir?: string;
  /** Reads one file as UTF-8 text. @default fs.readFileSync */
  readFile?: (path: string) => string;
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

function readPhraseFile(path: string, readFile: (path: string) => string): Record<string, string> | null {
  let text: string;
  try {
    text = readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`Cannot read the phrase file ${path}.`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`The phrase file ${path} is not valid JSON.`, { hint: 'Fix the JSON syntax of that file.', cause: e });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`The phrase file ${path} must be a JSON object of "key": "text" pairs.`);
  }
  const phrases: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new ConfigError(`The phrase file ${path}: the value of "${key}" must be a string.`);
    }
    phrases[key] = value;
  }
  return phrases;
}

/**
 * Phrases of `language`, with English underneath so a partial translation never shows a key.
 * A new language is one new file `<language>.json` in the phrase folder.
 */
export function loadPhrases(language: string, options: LoadPhrasesOptions = {}): Phrases {
  const dir = options.dir ?? DEFAULT_PHRASES_DIR;
  const readFile = options.readFile ?? readUtf8;
  if (!/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(language)) {
    throw new ConfigError(`"${language}" is not a language code.`, { hint: 'Use a code such as "en" or "fr".' });
  }
  const english = readPhraseFile(join(dir, `${FALLBACK_LANGUAGE}.json`), readFile);
  if (english === null) {
    throw new ConfigError(`The English phrase file is missing from ${dir}.`, {
      hint: 'English is the fallback of every language: restore en.json.',
    });
  }
  if (language === FALLBACK_LANGUAGE) return english;
  const own = readPhraseFile(join(dir, `${language}.json`), readFile);
  if (own === null) {
    throw new ConfigError(`No phrases for language "${language}" in ${dir}.`, {
      hint: `Add ${language}.json next to en.json, or choose "en".`,
    });
  }
  return { ...english, ...own };
}

/** Replaces `{name}` placeholders; an unknown placeholder stays visible so a typo is noticed. */
export function interpolate(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/** The phrase `key` filled with `params`; the key itself when the phrase is missing, never "undefined". */
export function phrase(phrases: Phrases, key: string, params?: Readonly<Record<string, string | number>>): string {
  const template = phrases[key];
  return interpolate(template ?? key, params);
}

/** `{key}.one` or `{key}.other` by the language's plural rules for `count`. */
export function pluralPhrase(
  phrases: Phrases,
  language: string,
  key: string,
  count: number,
  params: Readonly<Record<string, string | number>> = {},
): string {
  // English and French have no plural category for zero, but "No recommendation resolved" reads better than "0 …".
  const category = count === 0 && phrases[`${key}.zero`] !== undefined ? 'zero' : new Intl.PluralRules(language).select(count);
  const specific = `${key}.${category}`;
  return phrase(phrases, phrases[specific] === undefined ? `${key}.other` : specific, params);
}

// Tokens written as acronyms when a key is made readable ("avg_ai_position" → "Avg AI position").
const ACRONYMS: ReadonlyMap<string, string> = new Map(
  ['ai', 'api', 'cls', 'cta', 'ctr', 'faq', 'fid', 'geo', 'html', 'http', 'https', 'id', 'inp', 'lcp', 'llm', 'nap', 'seo', 'serp', 'ssl', 'ttfb', 'ui', 'url', 'ux']
    .map((word): [string, string] => [word, word.toUpperCase()])
    .concat([['urls', 'URLs'], ['llms', 'LLMs'], ['faqs', 'FAQs'], ['apis', 'APIs'], ['serps', 'SERPs']]),
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

/** Label of an AI assistant: the translated `assistant.<key>` when known, else the key made readable. */
export function assistantLabel(phrases: Phrases, key: string): string {
  return phrases[`assistant.${key}`] ?? readableKey(key);
}

/** A label used inside a sentence: "Indexed pages" → "indexed pages", "AI mentions" stays. */
export function inSentence(label: string): string {
  const second = label.charAt(1);
  return second !== '' && second === second.toLowerCase() && second !== second.toUpperCase()
    ? label.charAt(0).toLowerCase() + label.slice(1)
    : label;
}

/** A number in the language's style: "1,240.5" / "1 240,5" (narrow no-break space). */
export function formatNumber(value: number, language: string, maximumFractionDigits = 1): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits }).format(value);
}

/** A signed share: 0.353 → "+35.3%" / "+35,3 %". */
export function formatSignedPercent(ratio: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format(
    ratio,
  );
}

/** A value with its unit: "12.5%" / "12,5 %", "2.4 s". */
export function formatWithUnit(value: number, unit: string | null, language: string): string {
  if (unit === '%') return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 2 }).format(value / 100);
  const text = formatNumber(value, language, 2);
  return unit === null || unit === '' ? text : `${text}\u00a0${unit}`;
}

/** "A, B, and C" / "A, B et C". */
export function formatList(items: readonly string[], language: string): string {
  return new Intl.ListFormat(language, { type: 'conjunction', style: 'long' }).format(items);
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** True for a period written YYYY-MM. */
export function isPeriod(period: string): boolean {
  return PERIOD.test(period);
}

/** '2026-10' → 'October 2026' / 'octobre 2026'; a malformed period is shown as it came. */
export function periodLabel(period: string, language: string): string {
  const match = PERIOD.exec(period);
  if (match === null) return period;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
  return new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(date);
}

/** Whole months from period `from` to period `to` ('2026-08' → '2026-10' = 2); null when either is malformed. */
export function monthsBetween(from: string, to: string): number | null {
  const a = PERIOD.exec(from);
  const b = PERIOD.exec(to);
  if (a === null || b === null) return null;
  return (Number(b[1]) - Number(a[1])) * 12 + (Number(b[2]) - Number(a[2]));
}
