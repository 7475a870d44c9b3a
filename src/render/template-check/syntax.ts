// A Handlebars parse error in plain words, at the place to look in the template.
import Handlebars from 'handlebars';
import { positionOf, type ParsedTemplate, type TemplateFile, type TemplateProblem } from './problems.js';

/** Parses one template without whitespace processing, so every position is the file's own. */
export function parseTemplate(file: TemplateFile, problems: TemplateProblem[]): ParsedTemplate | null {
  try {
    return { file, ast: Handlebars.parseWithoutProcessing(file.text) };
  } catch (error) {
    const message = (error as Error).message;
    // The parser's lexer still holds the token it stopped at (parsing is synchronous; nothing ran since).
    const where = (Handlebars as unknown as { Parser: { lexer: { yylloc?: { first_line: number; first_column: number } } } }).Parser.lexer.yylloc;
    const own = error as { lineNumber?: number; column?: number };
    const line = own.lineNumber ?? where?.first_line;
    const column = own.lineNumber !== undefined ? own.column : where?.first_column;
    const plain = plainSyntaxError(file.text, message, line === undefined ? null : { line, column: (column ?? 0) + 1 });
    problems.push({ severity: 'error', file: file.path, ...(plain.at ?? {}), message: `Handlebars syntax error: ${plain.message}` });
    return null;
  }
}

/** What the parser's token names stand for, as they are written in a template. */
const TOKEN_WORDS: Readonly<Record<string, string>> = {
  CLOSE: '}}',
  CLOSE_UNESCAPED: '}}}',
  CLOSE_RAW_BLOCK: '}}}}',
  ID: 'a name',
  STRING: 'a "text"',
  NUMBER: 'a number',
  OPEN_ENDBLOCK: '{{/…}}',
  INVERSE: '{{else}}',
  OPEN_INVERSE_CHAIN: '{{else …}}',
  OPEN_SEXPR: '(',
  CLOSE_SEXPR: ')',
  EOF: 'the end of the file',
  INVALID: 'a character that cannot be there',
  EQUALS: '=',
};

/** Offset in `text` of a 1-based line and column. */
function offsetOf(text: string, at: { line: number; column: number }): number {
  let offset = 0;
  for (let line = 1; line < at.line; line += 1) offset = text.indexOf('\n', offset) + 1;
  return offset + at.column - 1;
}

/** The blocks opened and not closed before `end`, innermost last: `{{#each items}}` with where it is. */
function openBlocks(text: string, end: number): Array<{ name: string; tag: string; offset: number }> {
  const open: Array<{ name: string; tag: string; offset: number }> = [];
  const tags = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{~?\s*([#^/])\s*(?:\*\s*)?(?:>\s*)?([^\s}~]+)[^}]*\}\}/g;
  for (const match of text.slice(0, end).matchAll(tags)) {
    const [tag, kind, name] = match;
    if (kind === undefined || name === undefined) continue;
    if (kind === '/') {
      const last = open.map((block) => block.name).lastIndexOf(name);
      if (last !== -1) open.splice(last);
    } else open.push({ name, tag, offset: match.index });
  }
  return open;
}

/**
 * A Handlebars parse error in plain words, at the place to look: the block left open (and where it opens), the tag
 * not closed, the block closed by another name; for anything else what was expected there, as it is written.
 */
export function plainSyntaxError(
  text: string,
  message: string,
  at: { line: number; column: number } | null,
): { message: string; at: { line: number; column: number } | null } {
  const mismatch = /^(\S+) doesn't match (\S+)/.exec(message);
  if (mismatch !== null) {
    const [, opener, closer] = mismatch;
    return {
      message: `{{/${closer}}} closes the block {{#${opener} …}} opened here: a block is closed by its own name, {{/${opener}}} (is a {{/${opener}}} missing, or misspelt?)`,
      at,
    };
  }
  const got = /got '(\w+)'/.exec(message)?.[1];
  const expected = [...(/Expecting (.*), got/.exec(message)?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1] as string);
  const offset = at === null ? text.length : Math.min(text.length, offsetOf(text, at));
  if (got === 'EOF') {
    const open = openBlocks(text, text.length).at(-1);
    if (open !== undefined) {
      return { message: `the block ${open.tag} is never closed: add {{/${open.name}}} where it ends`, at: positionOf(text, open.offset) };
    }
  }
  let tagStart = text.lastIndexOf('{{', offset);
  // `{{{name}}`: the tag starts at its first brace.
  while (tagStart > 0 && text[tagStart - 1] === '{') tagStart -= 1;
  const line = tagStart === -1 ? '' : (text.slice(tagStart, tagStart + 60).split('\n')[0] ?? '');
  const close = line.indexOf('}}');
  const tag = close === -1 ? line : line.slice(0, close + 2);
  const place = tagStart === -1 ? at : positionOf(text, tagStart);
  if (got === 'INVALID' || (got === 'EOF' && !tag.endsWith('}}'))) {
    return { message: `the tag ${tag.slice(0, 40)}… is not closed with }} (a brace missing?)`, at: place };
  }
  if (got === 'CLOSE' && expected.includes('CLOSE_UNESCAPED')) {
    return { message: `the tag ${tag} opens with three braces and closes with two: write {{{…}}} or {{…}}`, at: place };
  }
  if (got === 'INVERSE' || got === 'OPEN_INVERSE_CHAIN') {
    return { message: 'this {{else}} has no block to belong to (a second {{else}} in one block, or one outside any block)', at };
  }
  const words = [...new Set(expected.map((token) => TOKEN_WORDS[token]).filter((word) => word !== undefined))];
  return {
    message: `the tag ${tag === '' ? 'here' : tag} cannot be read: Handlebars expected ${words.length > 0 ? words.join(' or ') : 'something else'} where it found ${TOKEN_WORDS[got ?? ''] ?? got ?? 'this'}`,
    at: tagStart === -1 ? at : place,
  };
}
