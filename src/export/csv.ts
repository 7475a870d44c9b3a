// CSV as RFC 4180 writes it (comma, CRLF, a field quoted when it holds a quote, a comma or a line break, a quote
// doubled), with OWASP's rule against formula injection: a text that a spreadsheet would read as a formula starts
// with an apostrophe. Our own dozen lines: a library would add a dependency for less than this file.
import type { ExportValue } from './rows.js';

/** A text starting with one of these is run as a formula by a spreadsheet (tab and CR too, once trimmed). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The UTF-8 byte order mark: Excel reads a CSV as UTF-8 only with it. */
export const UTF8_BOM = '\uFEFF';

/** A text cell that no spreadsheet runs: prefixed with an apostrophe when it starts like a formula. */
export function inertText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One field: numbers as written by JavaScript (a dot for decimals), texts made inert and quoted when needed. */
export function csvField(value: ExportValue | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = inertText(typeof value === 'boolean' ? String(value) : value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRecord(fields: ReadonlyArray<ExportValue | null>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
