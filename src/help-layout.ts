// The help's text laid out for the terminal it is printed to: words wrapped at its width (80 when it is not a
// terminal), never inside a word, and two-column tables (options, subcommands, commands) with their descriptions
// aligned. Shared by the top-level help and every command's; it imports nothing, as both load it before any command.

/** The width of help when the output is not a terminal (a pipe, a file, a test). */
export const DEFAULT_HELP_WIDTH = 80;
/** Below this a terminal's width is not believed: the help would be one word a line. */
const NARROWEST = 40;
/**
 * A label longer than this (or than a third of a narrow terminal) sits on a line of its own, its description under
 * it, so that one long label does not push every description right.
 */
const LONGEST_INLINE_LABEL = 30;

/** The columns help may use on `out`: the terminal's width, or 80 when it is not a terminal. */
export function helpWidth(out: { isTTY?: boolean; columns?: number }): number {
  const columns = out.isTTY === true ? out.columns : undefined;
  return columns !== undefined && Number.isInteger(columns) && columns >= NARROWEST ? columns : DEFAULT_HELP_WIDTH;
}

/** `text`'s words in lines of at most `width` columns (a word longer than that alone on its line), the first starting at `first` columns in, the others at `indent`. */
export function wrapWords(text: string, width: number, indent: number, first = indent): string[] {
  const words = text.split(/\s+/).filter((word) => word !== '');
  const lines: string[] = [];
  let line = '';
  let start = first;
  for (const word of words) {
    if (line !== '' && start + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
      start = indent;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((text, i) => `${' '.repeat(i === 0 ? first : indent)}${text}`);
}

/**
 * Rows of a label and its description, indented by two: the descriptions start in one column, after the longest
 * label that fits on its line, and are wrapped at `width`. A description's own line breaks are kept. Each row's
 * text (one line or more), in order.
 */
export function helpTable(rows: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  const longest = Math.min(LONGEST_INLINE_LABEL, Math.floor(width / 3));
  const inline = rows.map(([label]) => label.length).filter((length) => length <= longest);
  const column = 2 + Math.max(0, ...inline) + 2;
  return rows.map(([label, description]) => {
    // The description is prose of its own, laid out in the columns right of the labels.
    const lines = wrapHelp(description, width - column)
      .split('\n')
      .map((line) => (line === '' ? '' : `${' '.repeat(column)}${line}`));
    const head = `  ${label}`;
    if (head.length + 2 > column) return [...wrapWords(label, width, 4, 2), ...lines].join('\n');
    return [`${head.padEnd(column)}${(lines[0] ?? '').trimStart()}`, ...lines.slice(1)].join('\n');
  });
}

/** The start of a table row in prose: indented, a label, two spaces or more, its description. */
const ROW = /^( +)(\S+(?: \S+)*?)( {2,})(\S.*)$/;

/**
 * Help prose written at any width, laid out at `width`: a paragraph's lines (not indented, up to a blank line) are
 * joined and wrapped again; an indented row (`  label   description`) takes its indented continuation lines and
 * wraps under its description; any other indented line (a usage line, an example) is kept, wrapped under itself
 * only if too long.
 */
export function wrapHelp(text: string, width: number): string {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      out.push('');
      continue;
    }
    const indent = line.length - line.trimStart().length;
    const row = ROW.exec(line);
    if (indent === 0) {
      const words = [line];
      while (i + 1 < lines.length && /^\S/.test(lines[i + 1] ?? '')) words.push(lines[(i += 1)] ?? '');
      out.push(...wrapWords(words.join(' '), width, 0));
    } else if (row !== null) {
      const column = (row[1] ?? '').length + (row[2] ?? '').length + (row[3] ?? '').length;
      const words = [row[4] ?? ''];
      while (i + 1 < lines.length && (lines[i + 1] ?? '').length - (lines[i + 1] ?? '').trimStart().length === column) {
        words.push((lines[(i += 1)] ?? '').trim());
      }
      const [first = '', ...more] = wrapWords(words.join(' '), width, column);
      out.push(`${line.slice(0, column)}${first.trimStart()}`, ...more);
    } else {
      out.push(...wrapWords(line, width, indent + 2, indent));
    }
  }
  return out.join('\n');
}
