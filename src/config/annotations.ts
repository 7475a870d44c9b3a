// The agency's work on a client's timeline: `clients."<id>".annotations` in the config and the files
// annotations/<project-id>.csv beside it (columns date,text,kind), each a dated line ("Titles rewritten", 3 May) or
// the account manager's note of one month ({ "period", "note" }). Checked when the config is read, before any
// request: a wrong entry is refused naming its file, line and field.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { PERIOD_PATTERN } from '../period.js';
import type { Annotation } from '../report/annotations.js';

/** Characters of an annotation's text: a line under a chart, not a paragraph. */
export const ANNOTATION_TEXT_MAX = 120;
const ANNOTATION_KIND_MAX = 40;
const NOTE_MAX = 2000;
/** The folder of annotation files, beside the config file. */
export const ANNOTATIONS_FOLDER = 'annotations';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** YYYY-MM-DD and a day the calendar has (2026-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (match === null) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.getUTCMonth() + 1 === Number(match[2]) && date.getUTCDate() === Number(match[3]);
}

const date = z
  .string({ message: 'expected a date like "2026-05-03"' })
  .refine(isCalendarDate, { message: 'expected a date like "2026-05-03" (YYYY-MM-DD, a real day)' });
const text = z
  .string({ message: 'expected a text' })
  .trim()
  .min(1, { message: 'is empty' })
  .max(ANNOTATION_TEXT_MAX, { message: `is too long: at most ${ANNOTATION_TEXT_MAX} characters` });
const kind = z
  .string({ message: 'expected a word such as "content"' })
  .trim()
  .min(1, { message: 'is empty' })
  .max(ANNOTATION_KIND_MAX, { message: `is too long: at most ${ANNOTATION_KIND_MAX} characters` });
const period = z.string({ message: 'expected a month like "2026-10"' }).regex(PERIOD_PATTERN, { message: 'expected a month like "2026-10" (YYYY-MM)' });
const note = z
  .string({ message: 'expected a text' })
  .trim()
  .min(1, { message: 'is empty' })
  .max(NOTE_MAX, { message: `is too long: at most ${NOTE_MAX} characters` });

/** One entry of `clients."<id>".annotations`: `{ date, text, kind? }`, or `{ period, note }`. */
export const AnnotationEntry = z
  .strictObject({ date: date.optional(), text: text.optional(), kind: kind.optional(), period: period.optional(), note: note.optional() })
  .superRefine((entry, ctx) => {
    const monthly = entry.period !== undefined || entry.note !== undefined;
    const dated = entry.date !== undefined || entry.text !== undefined || entry.kind !== undefined;
    if (monthly && dated) {
      ctx.addIssue({ code: 'custom', message: 'either { "date", "text", "kind" } or { "period", "note" }, not both' });
      return;
    }
    const needed: Array<keyof typeof entry> = monthly ? ['period', 'note'] : ['date', 'text'];
    for (const key of needed) if (entry[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'is missing' });
  });
export type AnnotationEntry = z.infer<typeof AnnotationEntry>;

/** The dated annotations of a client's entries, oldest first (the order given for one day). */
export function datedAnnotations(entries: readonly AnnotationEntry[] | undefined): Annotation[] {
  const dated = (entries ?? []).flatMap((e) => (e.date !== undefined && e.text !== undefined ? [{ date: e.date, text: e.text, kind: e.kind ?? null }] : []));
  return dated
    .map((a, i) => [a, i] as const)
    .sort(([a, i], [b, j]) => a.date.localeCompare(b.date) || i - j)
    .map(([a]) => a);
}

/** The account manager's note of `period` (the last one given), or null. */
export function monthlyNote(entries: readonly AnnotationEntry[] | undefined, forPeriod: string): string | null {
  return (entries ?? []).filter((e) => e.period === forPeriod && e.note !== undefined).at(-1)?.note ?? null;
}

// ---------------------------------------------------------------- files

/** Splits RFC 4180 text into records, each with the line it starts on; a quote left open is an error. */
function csvRecords(source: string, file: string): Array<{ line: number; fields: string[] }> {
  const body = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const endRecord = (): void => {
    fields.push(field);
    if (fields.length > 1 || fields[0]?.trim() !== '') records.push({ line: start, fields });
    fields = [];
    field = '';
  };
  for (let i = 0; i < body.length; i += 1) {
    const c = body.charAt(i);
    if (c === '\n') line += 1;
    if (quoted) {
      if (c === '"' && body.charAt(i + 1) === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body.charAt(i + 1) === '\n') continue;
      endRecord();
      start = line;
    } else field += c;
  }
  if (quoted)
    throw new ConfigError(`${file} line ${start}: a quoted field is never closed.`, {
      hint: 'Close the field with a " (a quote inside a field is written "").',
    });
  endRecord();
  return records;
}

/** The entries of one annotations/<id>.csv: header date,text[,kind]; a month (YYYY-MM) as the date is that month's note. */
export function parseAnnotationFile(source: string, file: string): AnnotationEntry[] {
  const [header, ...rows] = csvRecords(source, file);
  const columns = (header?.fields ?? []).map((name) => name.trim().toLowerCase());
  if (header === undefined || columns[0] !== 'date' || columns[1] !== 'text' || (columns.length > 2 && columns[2] !== 'kind') || columns.length > 3) {
    throw new ConfigError(`${file} line ${header?.line ?? 1}: the first line must be the header date,text,kind (got "${columns.join(',')}").`, {
      hint: 'Start the file with the line date,text,kind; then one annotation per line, e.g. 2026-05-03,Titles rewritten,content',
    });
  }
  return rows.map(({ line, fields }) => {
    if (fields.length > columns.length) {
      throw new ConfigError(`${file} line ${line}: ${fields.length} fields where the header has ${columns.length}.`, {
        hint: 'Put a text with a comma between double quotes: 2026-05-03,"Titles, descriptions rewritten",content',
      });
    }
    const [day = '', words = '', sort = ''] = fields.map((f) => f.trim());
    const candidate = PERIOD_PATTERN.test(day) ? { period: day, note: words } : { date: day, text: words, ...(sort !== '' ? { kind: sort } : {}) };
    const parsed = AnnotationEntry.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = String(issue?.path[0] ?? 'date');
      const field = key === 'period' ? 'date' : key === 'note' ? 'text' : key;
      throw new ConfigError(`${file} line ${line}, field ${field}: ${issue?.message ?? 'invalid'}.`, {
        hint: `Each line is date,text,kind: a day (YYYY-MM-DD) or a month (YYYY-MM, the month's note), a text of at most ${ANNOTATION_TEXT_MAX} characters (a note: ${NOTE_MAX}), an optional kind.`,
      });
    }
    return parsed.data;
  });
}

/** Project id → entries, from every <id>.csv of `<configDir>/annotations/`; none when the folder is absent. */
export async function readAnnotationFiles(configDir: string): Promise<Map<string, AnnotationEntry[]>> {
  const dir = join(configDir, ANNOTATIONS_FOLDER);
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return new Map();
    throw new ConfigError(`Cannot read the annotations folder ${dir}: ${(error as Error).message}`);
  }
  const byProject = new Map<string, AnnotationEntry[]>();
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.csv'))) {
    const file = join(dir, name);
    const id = /^(\d+)\.csv$/i.exec(name)?.[1];
    if (id === undefined) {
      throw new ConfigError(`${file}: the name of an annotations file is the project's id (e.g. 102.csv).`, { hint: `Rename it <project-id>.csv.` });
    }
    let source: string;
    try {
      source = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`);
    }
    byProject.set(String(Number(id)), parseAnnotationFile(source, file));
  }
  return byProject;
}

// ---------------------------------------------------------------- lines of the config file

/**
 * The line of the value at `path` in a JSON text (the longest part of the path found, when a key is missing);
 * null when the text is not JSON the scanner follows. For messages only: the config is parsed by JSON.parse.
 */
export function lineOfJsonPath(source: string, path: ReadonlyArray<PropertyKey>): number | null {
  const lines = new Map<string, number>();
  const stack: Array<{ array: boolean; key: string | number | null; expectKey: boolean }> = [];
  let line = 1;
  const here = (): string => JSON.stringify(stack.map((frame) => frame.key));
  const value = (): void => {
    if (!lines.has(here())) lines.set(here(), line);
  };
  for (let i = 0; i < source.length; i += 1) {
    const c = source.charAt(i);
    if (c === '\n') line += 1;
    else if (c === '{' || c === '[') {
      value();
      stack.push({ array: c === '[', key: c === '[' ? 0 : null, expectKey: c === '{' });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top?.array === true) top.key = (top.key as number) + 1;
      else if (top !== undefined) top.expectKey = true;
    } else if (c === '"') {
      let end = i + 1;
      while (end < source.length && source.charAt(end) !== '"') end += source.charAt(end) === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top !== undefined && !top.array && top.expectKey) {
        try {
          top.key = JSON.parse(source.slice(i, end + 1)) as string;
        } catch {
          return null;
        }
        top.expectKey = false;
      } else value();
      i = end;
    } else if (/[-\dtfn]/.test(c)) {
      value();
      while (i + 1 < source.length && /[\w.+-]/.test(source.charAt(i + 1))) i += 1;
    }
  }
  for (let length = path.length; length >= 0; length -= 1) {
    const found = lines.get(JSON.stringify(path.slice(0, length).map((part) => (typeof part === 'number' ? part : String(part)))));
    if (found !== undefined) return found;
  }
  return null;
}
