// Text that leaves the tool — the terminal, a mail's headers and text part, a chat alert, the CSV and the workbook,
// the report's page — cleaned of what the service may send and no reader should get: control characters (NUL, ESC,
// CR, DEL, the C1 range) that move a terminal's cursor or end a header, the non-characters (U+FFFE, U+FFFF, U+FDD0…)
// and lone surrogates that make XML invalid, and the bidi overrides, embeddings and isolates (U+202A–U+202E,
// U+2066–U+2069) that show a text the other way round. One function, so that every channel drops the same things.

/** What is dropped: C0 controls but tab and line feed, DEL and C1, bidi overrides and isolates, non-characters, lone surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters are what it drops
const DROPPED = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|\p{Noncharacter_Code_Point}|\p{Surrogate}/gu;
const LINE_BREAKS = /[\t\n]+/g;

/** Clears the terminal's line for a progress bar: the one control sequence of the tool's own, let through whole. */
export const CLEAR_LINE = '\r\x1b[2K';

export interface OutgoingTextOptions {
  /** Tabs and line breaks become one space (a mail header, a table cell, a subject). @default false */
  oneLine?: boolean;
}

/** The text, safe to show: see the module's comment for what goes. Tab and line feed stay unless `oneLine`. */
export function outgoingText(text: string, options: OutgoingTextOptions = {}): string {
  const kept = text.replace(DROPPED, '');
  return options.oneLine === true ? kept.replace(LINE_BREAKS, ' ') : kept;
}

/** A hostname in the service's words: "rival.example", as an AI answer names a competitor. */
const HOSTNAME = /\b((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+)([a-z]{2,})\b/gi;

/**
 * The service's words with every hostname's last dot followed by a zero-width joiner: a mail client turns
 * "rival.example" into a link (Gmail, Outlook, Apple Mail all do), so a competitor named by an AI answer would be
 * a link in the agency's mail or chat. The reader sees the same text; the links in a mail are ours alone.
 */
export function unlinkedHosts(words: string): string {
  return words.replace(HOSTNAME, (host, labels: string, top: string) => (FILE_EXTENSIONS.has(top.toLowerCase()) ? host : `${labels}\u200D${top}`));
}

/** A file's name is no host ("robots.txt", "llms.txt" in a recommendation's title): no mail client links it, and it stays whole. */
const FILE_EXTENSIONS = new Set(['txt', 'xml', 'pdf', 'html', 'htm', 'php', 'json', 'csv', 'js', 'css', 'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp']);

/** A terminal's stream whose every write is cleaned, but for the tool's own CLEAR_LINE written alone. */
export function outgoingStream(stream: { write(text: string): boolean; isTTY?: boolean; columns?: number }): {
  write(text: string): boolean;
  isTTY?: boolean;
  columns?: number;
} {
  return {
    write: (text) => stream.write(text === CLEAR_LINE ? text : outgoingText(text)),
    ...(stream.isTTY === undefined ? {} : { isTTY: stream.isTTY }),
    // The terminal's width, which the help is wrapped to.
    ...(stream.columns === undefined ? {} : { columns: stream.columns }),
  };
}
