// The words of a report in each language: templates/locales/<language>.json, read once per run and handed to
// whatever writes text (report assembly, HTML renderer, PDF footer). An agency's template folder may add its own
// locales/<language>.json holding only the keys it changes, laid over the built-in file of that language. One
// fallback rule: English underneath.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GeoReportsError } from '../errors.js';

import { LANGUAGES } from './languages.js';

export { LANGUAGES, type BuiltInLanguage } from './languages.js';
/** A language code ("de", "pt-BR") whose phrases are loaded: a built-in one, or one the agency's folder adds. */
export type Language = string;

/** The language under every other one: a key a translation lacks is shown in English. */
export const FALLBACK_LANGUAGE: Language = 'en';

/** Flat map of phrase key ("report.documentTitle") → text with `{name}` placeholders. */
export type Phrases = Readonly<Record<string, string>>;

/** Where the locale files live when the caller does not say (the package's templates/locales/). */
export const DEFAULT_LOCALES_DIR = fileURLToPath(new URL('../../templates/locales/', import.meta.url));

/** Text that cannot be written in the reader's language: a locale file missing or broken, a date that is none. */
export class LocaleError extends GeoReportsError {}

/** The phrases of every language of a run, loaded once. */
export interface Locales {
  /** Phrases of `language`, English underneath; a LocaleError when that language was not loaded. */
  phrases(language: string): Phrases;
}

export interface LoadLocalesOptions {
  /** Folder holding `<language>.json`. @default templates/locales */
  dir?: string;
  /** The agency's locale files, already read, by language: each holds only the keys it changes. */
  overlay?: ReadonlyMap<string, { path: string; text: string }>;
  /** Reads one file as UTF-8 text. @default fs.readFileSync */
  readFile?: (path: string) => string;
  /** Languages to load. @default LANGUAGES and every language of the overlay */
  languages?: readonly string[];
}

const LANGUAGE_CODE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** A language in a config, a model or a manifest: a code; whether its phrases exist is the locales' to say. */
export const LanguageCodeSchema = z
  .string()
  .regex(LANGUAGE_CODE, { message: `expected a language code: ${LANGUAGES.join(', ')}, or one the template folder adds` });

/** Whether `name` reads as a language code (a file locales/<code>.json of an agency's folder adds a language). */
export const isLanguageCode = (name: string): boolean => LANGUAGE_CODE.test(name);

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

function readLocaleFile(path: string, readFile: (path: string) => string): Record<string, string> | null {
  let text: string;
  try {
    text = readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LocaleError(`Cannot read the locale file ${path}.`, { cause: e });
  }
  return parseLocaleFile(path, text);
}

function parseLocaleFile(path: string, text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const at = jsonErrorPosition(text, e);
    const where = at === null ? '' : ` at line ${at.line}, column ${at.column}`;
    throw new LocaleError(`The locale file ${path} is not valid JSON${where} (${(e as Error).message}).`, {
      hint: 'Fix the JSON syntax of that file.',
      cause: e,
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new LocaleError(`The locale file ${path} must be a JSON object of "key": "text" pairs.`);
  }
  const phrases: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new LocaleError(`The locale file ${path}: the value of "${key}" must be a string.`);
    phrases[key] = value;
  }
  return phrases;
}

/** Line and column (1-based) of a JSON.parse error, when V8 names its position. */
export function jsonErrorPosition(text: string, error: unknown): { line: number; column: number } | null {
  const match = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
  if (match === null) return null;
  const before = text.slice(0, Number(match[1]));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/**
 * Reads English and every asked language once. A language without its file is an error naming the file to add
 * (never a silent switch to English); a key a translation lacks falls back to English.
 */
export function loadLocales(options: LoadLocalesOptions = {}): Locales {
  const dir = options.dir ?? DEFAULT_LOCALES_DIR;
  const readFile = options.readFile ?? readUtf8;
  const languages = options.languages ?? [...new Set([...LANGUAGES, ...(options.overlay?.keys() ?? [])])];
  for (const language of languages) {
    if (!LANGUAGE_CODE.test(language)) {
      throw new LocaleError(`"${language}" is not a language code.`, { hint: 'Use a code such as "en" or "fr".' });
    }
  }
  const overlay = (language: string): Record<string, string> | null => {
    const file = options.overlay?.get(language);
    return file === undefined ? null : parseLocaleFile(file.path, file.text);
  };
  const builtInEnglish = readLocaleFile(join(dir, `${FALLBACK_LANGUAGE}.json`), readFile);
  if (builtInEnglish === null) {
    throw new LocaleError(`The English locale file is missing from ${dir}.`, {
      hint: 'English is the fallback of every language: restore en.json.',
    });
  }
  const english = { ...builtInEnglish, ...overlay(FALLBACK_LANGUAGE) };
  const loaded = new Map<string, Phrases>([[FALLBACK_LANGUAGE, english]]);
  for (const language of languages) {
    if (loaded.has(language)) continue;
    const own = readLocaleFile(join(dir, `${language}.json`), readFile);
    const agencyOwn = overlay(language);
    // A language of the agency's own: its file alone, English underneath.
    if (own === null && agencyOwn !== null) {
      loaded.set(language, { ...english, ...agencyOwn });
      continue;
    }
    if (own === null) {
      throw new LocaleError(`No locale file for language "${language}" in ${dir}.`, {
        hint: `Add ${language}.json next to en.json, or choose "en".`,
      });
    }
    loaded.set(language, { ...english, ...own, ...agencyOwn });
  }
  return {
    phrases(language) {
      const phrases = loaded.get(language);
      if (phrases === undefined) {
        throw new LocaleError(`No phrases for the language "${language}" (loaded: ${[...loaded.keys()].join(', ')}).`, {
          hint: `Choose one of those, or add locales/${language}.json to the template folder (report.templates).`,
        });
      }
      return phrases;
    },
  };
}

/** The phrases of one language, for a caller that writes a single report. */
export function loadPhrases(language: string, options: Omit<LoadLocalesOptions, 'languages'> = {}): Phrases {
  return loadLocales({ ...options, languages: [language] }).phrases(language);
}

/** What one locale file lacks or holds in vain, against English: for `template check` and `doctor`. */
export interface LocaleKeyReport {
  language: string;
  /** The file the keys are to be added to or removed from. */
  file: string;
  /** Keys of en.json this language has no text for (its reports show them in English). */
  missing: string[];
  /** Keys no English phrase has and nothing asks for (a typo, or a phrase the tool no longer uses). */
  unused: string[];
}

export interface LocaleKeyOptions extends Pick<LoadLocalesOptions, 'dir' | 'overlay' | 'readFile'> {
  /** Languages to check. @default LANGUAGES and every language of the overlay */
  languages?: readonly string[];
  /** Whether a key is asked for by something other than the built-in phrases (an agency's own {{t "…"}}). */
  used?: (key: string) => boolean;
}

/**
 * The keys each language lacks or holds in vain, for every language of the list and of the agency's overlay: a
 * built-in file and the agency's file over it together, against English (built-in and overlay). One report per
 * file that has something to say.
 */
export function localeKeyReports(options: LocaleKeyOptions = {}): LocaleKeyReport[] {
  const dir = options.dir ?? DEFAULT_LOCALES_DIR;
  const readFile = options.readFile ?? readUtf8;
  const used = options.used ?? (() => false);
  const overlayOf = (language: string): Record<string, string> => {
    const file = options.overlay?.get(language);
    return file === undefined ? {} : parseLocaleFile(file.path, file.text);
  };
  const english = { ...(readLocaleFile(join(dir, `${FALLBACK_LANGUAGE}.json`), readFile) ?? {}), ...overlayOf(FALLBACK_LANGUAGE) };
  const languages = options.languages ?? [...new Set([...LANGUAGES, ...(options.overlay?.keys() ?? [])])];
  const reports: LocaleKeyReport[] = [];
  for (const language of languages) {
    const builtIn = readLocaleFile(join(dir, `${language}.json`), readFile) ?? {};
    const own = overlayOf(language);
    const both = { ...builtIn, ...own };
    const file = options.overlay?.get(language)?.path ?? join(dir, `${language}.json`);
    // A plural form or a form before a vowel counts as its key: "recs.total.one" answers for "recs.total".
    const base = (key: string): string => key.replace(/\.(zero|one|two|few|many|other|beforeVowel)$/, '');
    const englishBases = new Set(Object.keys(english).map(base));
    const ownBases = new Set(Object.keys(both).map(base));
    const missing = language === FALLBACK_LANGUAGE ? [] : Object.keys(english).filter((key) => both[key] === undefined && !ownBases.has(base(key)));
    const unused = Object.keys(both).filter((key) => !englishBases.has(base(key)) && !used(key));
    if (missing.length > 0 || unused.length > 0) reports.push({ language, file, missing, unused });
  }
  return reports;
}
