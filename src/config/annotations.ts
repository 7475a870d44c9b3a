// The agency's work on a client's timeline: `clients."<id>".annotations` in the config and the files
// annotations/<project-id>.csv beside it (columns date,text,kind), each a dated line ("Titles rewritten", 3 May) or
// the account manager's note of one month ({ "period", "note" }). Checked when the config is read, before any
// request: a wrong entry is refused naming its file, line and field.
import { constants } from 'node:fs';
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { isPeriod, PERIOD_PATTERN, toMonth, type MonthPeriod } from '../period.js';
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
const period = z
  .string({ message: 'expected a month like "2026-10"' })
  .regex(PERIOD_PATTERN, { message: 'expected a month like "2026-10" (YYYY-MM)' })
  .transform(toMonth);
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
export function monthlyNote(entries: readonly AnnotationEntry[] | undefined, forPeriod: MonthPeriod): string | null {
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
    const candidate = isPeriod(day) ? { period: day, note: words } : { date: day, text: words, ...(sort !== '' ? { kind: sort } : {}) };
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

/** Largest annotations file read: a few lines a month for years is a few kilobytes. */
export const ANNOTATION_FILE_MAX_BYTES = 1024 * 1024;
/** Most lines of one annotations file: each is a mark on a chart or a month's note, and every one reaches the report. */
export const ANNOTATION_FILE_MAX_LINES = 5_000;
/** The first bytes read: the header is checked on them before the rest is read. */
const HEAD_BYTES = 64 * 1024;

/**
 * Project id → entries, from every <id>.csv of `<configDir>/annotations/`; none when the folder is absent. Each file
 * is checked before it is read whole: a regular file (a FIFO would never end), its header from its first bytes,
 * its size, then its encoding (UTF-8, or UTF-16 with a byte order mark) and its number of lines.
 */
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
  // Every name first: two spellings of one id (102.csv and 0102.csv) would each give the client's annotations.
  const files = new Map<string, string>();
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.csv'))) {
    const file = join(dir, name);
    const digits = /^(\d+)\.csv$/i.exec(name)?.[1];
    if (digits === undefined) {
      throw new ConfigError(`${file}: the name of an annotations file is the project's id (e.g. 102.csv).`, { hint: `Rename it <project-id>.csv.` });
    }
    const id = digits.replace(/^0+(?=\d)/, '');
    const first = files.get(id);
    if (first !== undefined) {
      throw new ConfigError(`${first} and ${file} are both the annotations of project ${id}: only one file per project is read.`, {
        hint: `Move the lines of one into the other and remove it: one file per project, named by its id without leading zeros (${id}.csv).`,
      });
    }
    files.set(id, file);
  }
  const byProject = new Map<string, AnnotationEntry[]>();
  for (const [id, file] of files) byProject.set(id, parseAnnotationFile(await readAnnotationSource(file), file));
  return byProject;
}

/** What a file that is not a regular file is, for the message. */
function kindOf(info: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  return info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'not a regular file';
}

const notRegular = (file: string, kind: string): ConfigError =>
  new ConfigError(`${file} is ${kind}, not a file: an annotations file is a plain <project-id>.csv.`, {
    hint: 'Remove it from the annotations folder, or put the file itself there.',
  });

/** The text of one annotations file, refused (a ConfigError naming the file and the fix) as soon as it cannot be one. */
async function readAnnotationSource(file: string): Promise<string> {
  const failed = (error: unknown): never => {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`);
  };
  const info = await stat(file).catch(failed);
  // Never opened when it is no regular file: reading a FIFO waits for a writer that never comes.
  if (!info.isFile()) throw notRegular(file, kindOf(info));
  let handle: FileHandle | undefined;
  try {
    // Non-blocking, and checked again once open: the name may have been swapped for a FIFO since.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegular(file, kindOf(opened));
    const head = await readUpTo(handle, Math.min(HEAD_BYTES, ANNOTATION_FILE_MAX_BYTES + 1));
    const encoding = encodingOf(head);
    // The header from the first bytes: a wrong file of any size is refused before the rest is read.
    if (head.length < opened.size) {
      const firstLine = (decode(head, encoding, file, true).split(/\r?\n|\r/)[0] ?? '').slice(0, 200);
      parseAnnotationFile(`${firstLine}\n`, file);
    }
    if (opened.size > ANNOTATION_FILE_MAX_BYTES) throw tooLarge(file, `${(opened.size / 1024 / 1024).toFixed(1)} MB`);
    const rest = await readUpTo(handle, ANNOTATION_FILE_MAX_BYTES + 1 - head.length);
    const bytes = Buffer.concat([head, rest]);
    // The file grew while it was read.
    if (bytes.length > ANNOTATION_FILE_MAX_BYTES) throw tooLarge(file, 'over 1 MB');
    const text = decode(bytes, encoding, file, false);
    const lines = text.split(/\r?\n|\r/).length - (/[\r\n]$/.test(text) ? 1 : 0);
    if (lines > ANNOTATION_FILE_MAX_LINES) throw tooLarge(file, `${lines.toLocaleString('en')} lines`);
    return text;
  } catch (error) {
    return failed(error);
  } finally {
    await handle?.close();
  }
}

function tooLarge(file: string, size: string): ConfigError {
  return new ConfigError(
    `${file} is too large for an annotations file (${size}): at most ${ANNOTATION_FILE_MAX_LINES.toLocaleString('en')} lines and 1 MB are read, every line reaching the client's report.`,
    { hint: 'Keep the annotations the report should show (a few a month), and the rest of the log elsewhere.' },
  );
}

async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < limit) {
    const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(Math.min(limit - size, HEAD_BYTES)) });
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    size += bytesRead;
  }
  return Buffer.concat(chunks, size);
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** UTF-16 only with its byte order mark (Excel's "Unicode text"); everything else must be UTF-8. */
function encodingOf(head: Buffer): Encoding {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/**
 * The bytes as text, or an error naming the line of the first byte that is not in the encoding: a Latin-1 "é"
 * would otherwise become U+FFFD on the client's report without a word. `partial`: more bytes follow.
 */
function decode(bytes: Buffer, encoding: Encoding, file: string, partial: boolean): string {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes, { stream: partial });
  } catch {
    const lossy = new TextDecoder(encoding).decode(bytes, { stream: partial });
    const at = lossy.indexOf('\uFFFD');
    const line = at === -1 ? 1 : lossy.slice(0, at).split(/\r?\n|\r/).length;
    throw new ConfigError(
      `${file} line ${line} is not ${encoding === 'utf-8' ? 'UTF-8' : 'UTF-16'} text (Latin-1 or Windows-1252, as Excel's plain "CSV" saves it?): its accents would be lost.`,
      {
        hint: 'Save the file as UTF-8: in Excel "CSV UTF-8 (Comma delimited)", in LibreOffice "Edit filter settings" then "Unicode (UTF-8)", in an editor "Save with encoding: UTF-8". UTF-16 with a byte order mark is read too.',
      },
    );
  }
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
