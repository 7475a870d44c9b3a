// Labels and locale-aware formatting for reports. Labels live in templates/locales/<lang>.json,
// so a new language is one new file; any key it lacks falls back to English.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeoReportsError } from '../errors.js';
import type { Language } from '../report/model.js';

export type Messages = Record<string, string>;

/** Where the templates (and their locales/) live when the caller does not say. */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const FALLBACK_LANGUAGE = 'en';

/** A label set or locale file that cannot be used. */
export class LocaleError extends GeoReportsError {}

function readLocale(file: string): Messages | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LocaleError(`Cannot read locale file ${file}.`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new LocaleError(`Locale file ${file} is not valid JSON.`, { hint: 'Fix the JSON syntax of that file.', cause: e });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new LocaleError(`Locale file ${file} must be a JSON object of "key": "label" pairs.`);
  }
  const messages: Messages = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new LocaleError(`Locale file ${file}: the value of "${key}" must be a string.`);
    }
    messages[key] = value;
  }
  return messages;
}

/** Labels for `language`, English underneath so a partial translation never shows a blank. */
export function loadMessages(language: Language, templatesDir: string = DEFAULT_TEMPLATES_DIR): Messages {
  const english = readLocale(join(templatesDir, 'locales', `${FALLBACK_LANGUAGE}.json`));
  if (english === null) {
    throw new LocaleError(`The English locale file is missing from ${join(templatesDir, 'locales')}.`, {
      hint: 'English is the fallback for every language: restore templates/locales/en.json.',
    });
  }
  if (language === FALLBACK_LANGUAGE) return english;
  const own = readLocale(join(templatesDir, 'locales', `${language}.json`)) ?? {};
  return { ...english, ...own };
}

/** Replaces `{name}` placeholders; unknown placeholders stay visible so a typo is noticed. */
export function interpolate(message: string, params: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

// Building an Intl formatter costs far more than formatting with it, and a report formats hundreds of values.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function numberFormat(language: Language, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${language} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat(language, options);
    numberFormats.set(key, format);
  }
  return format;
}

function dateFormat(language: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language} ${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(language, options);
    dateFormats.set(key, format);
  }
  return format;
}

export function formatNumber(value: number, language: Language, opts: Intl.NumberFormatOptions = {}): string {
  return numberFormat(language, { maximumFractionDigits: 1, ...opts }).format(value);
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseIsoDate(iso: string): Date {
  // A bare date is a calendar day, not midnight somewhere: read it in UTC so no zone shifts it.
  const date = new Date(BARE_DATE.test(iso) ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(date.getTime())) {
    throw new LocaleError(`"${iso}" is not an ISO 8601 date.`);
  }
  return date;
}

/** 'long' → "22 October 2026" / "22 octobre 2026"; 'month' → "Oct 2026" / "oct. 2026" (chart axes). */
export function formatDate(iso: string, language: Language, style: 'long' | 'month' = 'long'): string {
  const date = parseIsoDate(iso);
  const options: Intl.DateTimeFormatOptions =
    style === 'long'
      ? { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }
      : { month: 'short', year: 'numeric', timeZone: 'UTC' };
  return dateFormat(language, options).format(date);
}

/** '2026-10' → 'October 2026' / 'octobre 2026'. */
export function periodLabel(period: string, language: Language): string {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(period);
  if (match === null) {
    throw new LocaleError(`"${period}" is not a period: expected YYYY-MM, e.g. 2026-10.`);
  }
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
  return dateFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(date);
}
