// The agency's translations of the service's own text (report.translations): a folder of <language>.json files, each
// mapping a text as the service writes it (a recommendation's title or description) to the agency's words in that
// language. Read and checked once, when the config is loaded: a wrong file stops every command before any request.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, visit as visitJsonc, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { LanguageCodeSchema, type Language } from '../i18n/locales.js';
import { serviceText } from '../i18n/service-text.js';

/** Per language, the service's text (as serviceText writes it) → the agency's translation. */
export type Translations = ReadonlyMap<Language, ReadonlyMap<string, string>>;

/** One file: an object whose keys are the service's texts and whose values are their translations. */
const TranslationFile = z.record(
  z.string().refine((key) => serviceText(key) !== '', { message: "an empty text: write the service's text as it shows in the report" }),
  z
    .string({ message: 'expected the translation, a text in double quotes' })
    .max(2000, { message: 'longer than 2000 characters: a title or description, not a page' })
    .refine((value) => value.trim() !== '', { message: "an empty translation: write the text in the file's language, or remove the line" }),
  { message: 'expected an object: { "the service\'s text": "your translation", … }' },
);

const EXAMPLE = '{ "Remove noindex from category pages": "Retirer la balise noindex des pages de catégorie" }';

/** A file's text as its translations; every problem named by the file, its line and the key, with the fix. */
export function parseTranslationFile(source: string, file: string): Map<string, string> {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const errors: ParseError[] = [];
  const raw: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0) {
    const places = errors.slice(0, 5).map((error) => {
      const before = text.slice(0, error.offset).split('\n');
      return `  - ${file} line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${syntaxWords(printParseErrorCode(error.error))}`;
    });
    throw new ConfigError(`The translations file ${file} cannot be read as JSON:\n${places.join('\n')}`, {
      hint: `Fix the first place named (the others often follow from it). Each entry maps the service's text to yours: ${EXAMPLE}`,
    });
  }
  // The line of each key, and a key given twice (JSON would keep the last without a word).
  const lines = new Map<string, number>();
  const problems: string[] = [];
  let depth = 0;
  visitJsonc(
    text,
    {
      onObjectBegin: () => {
        depth += 1;
      },
      onObjectEnd: () => {
        depth -= 1;
      },
      onObjectProperty: (property, _offset, _length, startLine) => {
        if (depth !== 1) return;
        const line = startLine + 1;
        const seen = lines.get(serviceText(property));
        if (seen !== undefined) problems.push(`  - ${file} line ${line}, "${property}": given a second time (first at line ${seen}); only one would be read`);
        else lines.set(serviceText(property), line);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  const parsed = TranslationFile.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 10)) {
      const key = issue.path[0];
      if (typeof key !== 'string') problems.push(`  - ${file}: ${issue.message}`);
      else problems.push(`  - ${file} line ${lines.get(serviceText(key)) ?? '?'}, "${key}": ${issue.message}`);
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid translations file ${file}:\n${problems.join('\n')}`, {
      hint: `Each entry maps the service's text, as the report shows it, to your words in the file's language: ${EXAMPLE}`,
    });
  }
  const translations = new Map<string, string>();
  for (const [key, value] of Object.entries(parsed.data ?? {})) translations.set(serviceText(key), value.trim());
  return translations;
}

/** Every <language>.json of the folder; a file named for no language, or a folder that is not one, refused. */
export async function readTranslations(dir: string): Promise<Translations> {
  let names: string[];
  try {
    if (!(await stat(dir)).isDirectory()) throw new ConfigError(`report.translations: ${dir} is a file, not a folder`);
    names = await readdir(dir);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new ConfigError(error.message, {
        hint: 'Give the folder that holds one <language>.json per language (fr.json, de.json…), relative to the config file.',
      });
    }
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ConfigError(`report.translations: ${missing ? `the folder ${dir} does not exist` : `cannot read ${dir} (${(error as Error).message})`}`, {
      hint: 'The path is relative to the config file. Make the folder with one <language>.json per language (fr.json, de.json…), or remove report.translations.',
    });
  }
  const translations = new Map<Language, Map<string, string>>();
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const file = join(dir, name);
    const language = basename(name, extname(name));
    if (extname(name).toLowerCase() !== '.json' || !LanguageCodeSchema.safeParse(language).success) {
      throw new ConfigError(`report.translations: ${file} is named for no language`, {
        hint: 'Name each file by the language of its translations, as report.language and clients."<id>".language write it: fr.json, de.json, es.json…',
      });
    }
    translations.set(language, parseTranslationFile(await readFile(file, 'utf8'), file));
  }
  return translations;
}

const loaded = new Map<string, Promise<Translations>>();

/** The folder's translations, read once per process (the config's loading checks them; each report then reads them). */
export function loadTranslations(dir: string): Promise<Translations> {
  let translations = loaded.get(dir);
  if (translations === undefined) {
    translations = readTranslations(dir);
    loaded.set(dir, translations);
    // A failed read is not kept: the next call reads the folder again.
    translations.catch(() => loaded.delete(dir));
  }
  return translations;
}

/** Words for jsonc-parser's errors. */
function syntaxWords(code: string): string {
  const words: Readonly<Record<string, string>> = {
    InvalidSymbol: 'this is no JSON value (a text without its double quotes?)',
    PropertyNameExpected: 'a text in double quotes is expected here',
    ValueExpected: 'a value is expected here',
    ColonExpected: 'a colon ":" is missing after the text',
    CommaExpected: 'a comma "," is missing before this entry',
    CloseBraceExpected: 'a closing brace "}" is missing',
    EndOfFileExpected: 'the file goes on after its last closing brace',
    UnexpectedEndOfString: 'a text is never closed (its closing double quote is missing)',
    InvalidEscapeCharacter: 'a backslash escape is not valid (write \\" for a double quote inside a text)',
    InvalidCharacter: 'a character is not valid here (a line break inside a text?)',
  };
  return words[code] ?? code;
}
