// The element balance of the pages a template set writes, judged on the HTML it rendered, parsed as a browser parses
// it: an unclosed <div> in a partial turns the rest of the report into its child, a stray </div> closes an element
// of another file. A template cannot be judged alone (a {{#if}} may open one of two <div>s that one </div> closes),
// so the pages are rendered with a mark before each run of template text, saying which file and where it starts;
// a tag found in the page is then named at its place in the file that wrote it.
// The AST types are Handlebars' global `hbs` namespace, declared by its package.
import type {} from 'handlebars';
import { html, Parser, type DefaultTreeAdapterTypes, type Token } from 'parse5';
import { positionOf, type TemplateProblem } from './problems.js';

type Node = DefaultTreeAdapterTypes.Node;

/** Private-use characters: no template or sample value writes them. */
const MARK_START = '\uE001';
const MARK_END = '\uE002';
const MARK = /\uE001(\d+):(\d+)\uE002/g;

/** Elements that have no end tag, or whose end tag HTML lets a page leave out. */
const NO_END_TAG = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);
const OPTIONAL_END_TAG = new Set([
  'html',
  'head',
  'body',
  'p',
  'li',
  'dt',
  'dd',
  'rt',
  'rp',
  'rb',
  'rtc',
  'optgroup',
  'option',
  'colgroup',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
]);

/** The files whose text a marked page carries marks of, each by its number. */
export class SourceMarks {
  readonly files: { path: string; text: string }[] = [];

  /** A template's syntax tree (whitespace control applied, as Handlebars compiles it) with a mark before each run of text. */
  mark(parse: (text: string) => hbs.AST.Program, path: string, text: string): hbs.AST.Program {
    const index = this.files.push({ path, text }) - 1;
    const lineStarts = [0];
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
    const program = parse(text);
    const visit = (node: hbs.AST.Program): void => {
      for (const statement of node.body) {
        if (statement.type === 'ContentStatement') {
          // Handlebars' types call `original` strip flags; it is the text as written.
          const content = statement as hbs.AST.ContentStatement;
          if (content.value === '') continue;
          // Whitespace control only takes blanks off either end: the value is the original from this far in.
          const start =
            (lineStarts[content.loc.start.line - 1] ?? 0) +
            content.loc.start.column +
            Math.max(0, (content.original as unknown as string).indexOf(content.value));
          // A mark before the doctype would be text before it, and the page would parse in another mode.
          const doctype = /^\s*<!doctype[^>]*>/i.exec(content.value)?.[0] ?? '';
          content.value = `${doctype}${MARK_START}${index}:${start + doctype.length}${MARK_END}${content.value.slice(doctype.length)}`;
        }
        for (const child of [(statement as { program?: hbs.AST.Program }).program, (statement as { inverse?: hbs.AST.Program }).inverse]) {
          if (child !== undefined) visit(child);
        }
      }
    };
    visit(program);
    return program;
  }
}

/** A parser that also keeps every end tag it read, matched or not (parse5 drops a stray one silently). */
class EndTagParser extends Parser<DefaultTreeAdapterTypes.DefaultTreeAdapterMap> {
  readonly endTags: { name: string; offset: number }[] = [];

  override onEndTag(token: Token.TagToken): void {
    if (token.location !== null) this.endTags.push({ name: token.tagName, offset: token.location.startOffset });
    super.onEndTag(token);
  }
}

/**
 * Every element a marked page leaves unclosed and every end tag that closes nothing, at its place in the template
 * that wrote it. Those of the agency's files come first; the built-in files' ones (an agency's stray tag makes the
 * built-in closing tag after it stray too) only when no agency file has one. `what` names the page in the message.
 */
export function balanceProblems(marked: string, marks: SourceMarks, what: string, agencyFiles: ReadonlySet<string>): TemplateProblem[] {
  // The page without its marks, and where each mark stood in it.
  const points: { at: number; file: number; offset: number }[] = [];
  let page = '';
  let last = 0;
  for (const mark of marked.matchAll(MARK)) {
    page += marked.slice(last, mark.index);
    points.push({ at: page.length, file: Number(mark[1]), offset: Number(mark[2]) });
    last = mark.index + mark[0].length;
  }
  page += marked.slice(last);

  /** The file and position of the page's offset: the nearest mark before it, and the distance from it. */
  const placeOf = (at: number): { path: string; line: number; column: number } | null => {
    let low = 0;
    let high = points.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((points[middle]?.at ?? 0) <= at) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    const point = points[found];
    const file = point === undefined ? undefined : marks.files[point.file];
    if (point === undefined || file === undefined) return null;
    return { path: file.path, ...positionOf(file.text, Math.min(file.text.length, point.offset + (at - point.at))) };
  };

  const parser = new EndTagParser({ sourceCodeLocationInfo: true });
  parser.tokenizer.write(page, true);
  const closed = new Set<number>();
  const unclosed: { name: string; at: number }[] = [];
  const crossed: { name: string; start: number; end: number }[] = [];
  const seen = new Set<number>();
  const walk = (node: Node): void => {
    if ('tagName' in node) {
      const element = node;
      const location = element.sourceCodeLocation;
      const start = location?.startTag;
      if (location?.endTag !== undefined) {
        closed.add(location.endTag.startOffset);
        if (start !== undefined) crossed.push({ name: element.tagName, start: start.startOffset, end: location.endTag.startOffset });
      }
      const selfClosed = start !== undefined && page.slice(start.endOffset - 2, start.endOffset) === '/>';
      if (
        start !== undefined &&
        location?.endTag === undefined &&
        !seen.has(start.startOffset) &&
        !NO_END_TAG.has(element.tagName) &&
        !OPTIONAL_END_TAG.has(element.tagName) &&
        !(selfClosed && element.namespaceURI !== html.NS.HTML)
      ) {
        // A formatting element (<em>, <b>) left open is copied into the blocks after it: named once.
        seen.add(start.startOffset);
        unclosed.push({ name: element.tagName, at: start.startOffset });
      }
    }
    for (const child of (node as { childNodes?: Node[] }).childNodes ?? []) walk(child);
    const content = (node as { content?: Node }).content;
    if (content !== undefined) walk(content);
  };
  walk(parser.document);

  const found: (TemplateProblem & { agency: boolean })[] = [];
  const add = (at: number, message: string): void => {
    const place = placeOf(at);
    if (place === null) return;
    found.push({ severity: 'error', file: place.path, line: place.line, column: place.column, message, agency: agencyFiles.has(place.path) });
  };
  for (const element of unclosed) {
    add(
      element.at,
      `<${element.name}> is never closed in ${what}: everything after it becomes its content (the rest of the report takes its style); add </${element.name}> where it ends`,
    );
  }
  for (const end of parser.endTags) {
    if (closed.has(end.offset) || NO_END_TAG.has(end.name) || OPTIONAL_END_TAG.has(end.name)) continue;
    add(end.offset, `</${end.name}> closes no <${end.name}> opened before it in ${what}: remove it, or open the element it closes`);
  }
  for (const element of crossed) {
    // A file closes what it opens: a </div> that closes another file's <div> is one too many where it stands.
    const opened = placeOf(element.start);
    const closing = placeOf(element.end);
    if (opened === null || closing === null || opened.path === closing.path) continue;
    add(
      element.end,
      `</${element.name}> closes the <${element.name}> opened in ${opened.path} at line ${opened.line} (${what}): a template closes only what it opened; remove it, or open the element it closes in the same file`,
    );
  }
  const ofAgency = found.filter((problem) => problem.agency);
  return (ofAgency.length > 0 ? ofAgency : found).map(({ agency: _agency, ...problem }) => problem);
}
