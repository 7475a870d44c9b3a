// The contents page of a printed report: the sections its HTML holds (each <section> of <main> named by its heading
// through aria-labelledby), listed after the cover with the page each one starts on. The page numbers are those of a
// print: the report is printed, the page of each heading read back from the PDF, and printed again with them. The same
// numbers give each page after the contents its running header, the name of its section, in the page's top margin.
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { escapeHtml } from '../escape.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** One line of the contents: the heading's id (the link's target) and its text. */
export interface ContentsEntry {
  id: string;
  title: string;
}

/** Where the contents go (just before <main>) and what they list; null when the page has no <main> or no section. */
export interface ContentsPlan {
  offset: number;
  /** Where the running headers' style goes: the end of <head>; null when the page has no </head> of its own. */
  headEnd: number | null;
  entries: ContentsEntry[];
  /**
   * How much each listed section holds, in entry order: its text's length and its blocks (paragraphs, rows, items,
   * headings, figures). Two reports whose sections hold about as much page about alike: the guess of the numbers.
   */
  measures: SectionMeasure[];
}

export interface SectionMeasure {
  text: number;
  blocks: number;
}

/** The elements that start a line of their own, or a box, in the report's layout. */
const BLOCKS = new Set(['p', 'tr', 'li', 'dt', 'dd', 'h2', 'h3', 'h4', 'figure', 'table', 'svg', 'img', 'blockquote', 'pre']);

/** The phrases the contents page is written with, in the report's language. */
export interface ContentsPhrases {
  /** "Contents" */
  title: string;
  /** "Page", read before each number by a screen reader. */
  page: string;
}

const isElement = (node: Node): node is Element => 'tagName' in node;
const attribute = (element: Element, name: string): string | undefined => element.attrs.find((a) => a.name === name)?.value;

function* elements(node: Node): Generator<Element> {
  if (isElement(node)) yield node;
  const children = 'childNodes' in node ? node.childNodes : [];
  const inner = isElement(node) && node.tagName === 'template' ? [] : children;
  for (const child of inner) yield* elements(child);
}

const textOf = (node: Node): string =>
  node.nodeName === '#text' ? (node as DefaultTreeAdapterTypes.TextNode).value : 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';

/** The sections of `html` a contents page lists, in page order, and where it is inserted. */
export function planContents(html: string): ContentsPlan | null {
  const document = parse(html, { sourceCodeLocationInfo: true });
  const all = [...elements(document)];
  const main = all.find((element) => element.tagName === 'main');
  const offset = main?.sourceCodeLocation?.startTag?.startOffset;
  if (main === undefined || offset === undefined) return null;
  const headEnd = all.find((element) => element.tagName === 'head')?.sourceCodeLocation?.endTag?.startOffset ?? null;
  const byId = new Map(all.flatMap((element) => (attribute(element, 'id') === undefined ? [] : [[attribute(element, 'id') ?? '', element] as const])));
  const entries: ContentsEntry[] = [];
  const measures: SectionMeasure[] = [];
  for (const section of elements(main)) {
    if (section.tagName !== 'section') continue;
    const id = attribute(section, 'aria-labelledby')?.trim().split(/\s+/)[0];
    const heading = id === undefined ? undefined : byId.get(id);
    // A section inside a listed one (a card of a scan section) is part of it, not a line of its own.
    if (id === undefined || heading === undefined || !/^h[1-3]$/.test(heading.tagName) || insideListed(section, entries, byId)) continue;
    const title = textOf(heading).replace(/\s+/g, ' ').trim();
    if (title !== '') {
      entries.push({ id, title });
      measures.push(measureOf(section));
    }
  }
  return entries.length === 0 ? null : { offset, headEnd, entries, measures };
}

function measureOf(section: Element): SectionMeasure {
  let blocks = 0;
  for (const element of elements(section)) if (BLOCKS.has(element.tagName)) blocks += 1;
  return { text: textOf(section).replace(/\s+/g, ' ').length, blocks };
}

function insideListed(section: Element, entries: readonly ContentsEntry[], byId: ReadonlyMap<string, Element>): boolean {
  let parent: Node | null = section.parentNode;
  while (parent !== null && isElement(parent)) {
    const id = attribute(parent, 'aria-labelledby');
    if (parent.tagName === 'section' && id !== undefined && byId.has(id) && entries.some((entry) => entry.id === id)) return true;
    parent = parent.parentNode;
  }
  return false;
}

/**
 * `html` with the contents page before <main>: each entry a link to its section, and its page number when `pages`
 * knows it (the first print leaves the numbers blank; they take no room the layout depends on). With the numbers
 * come the running headers (runningHeaders), which take no room either: they are drawn in the top margin.
 */
export function withContents(html: string, plan: ContentsPlan, phrases: ContentsPhrases, pages: ReadonlyMap<string, number> | null): string {
  const lines = plan.entries.map((entry) => {
    const page = pages?.get(entry.id);
    const number = page === undefined ? '' : `<span class="visually-hidden">${escapeHtml(phrases.page)} </span>${page}`;
    return (
      `<li class="contents__item"><a class="contents__link" href="#${escapeHtml(entry.id)}">` +
      `<span class="contents__title">${escapeHtml(entry.title)}</span>` +
      `<span class="contents__page" data-contents-page="${escapeHtml(entry.id)}">${number}</span></a></li>`
    );
  });
  const nav =
    `<nav class="contents" aria-labelledby="contents-title"><h2 class="contents__heading" id="contents-title">${escapeHtml(phrases.title)}</h2>` +
    `<ol class="contents__list">${lines.join('')}</ol></nav>\n`;
  const style = pages === null || plan.headEnd === null ? '' : runningHeaders(plan.entries, pages);
  if (style === '' || plan.headEnd === null || plan.headEnd > plan.offset) return html.slice(0, plan.offset) + nav + html.slice(plan.offset);
  return html.slice(0, plan.headEnd) + style + html.slice(plan.headEnd, plan.offset) + nav + html.slice(plan.offset);
}

/** The counter style whose symbol for page N is the header of page N (a page counter drawn in it). */
const HEADER_STYLE = 'geo-running-header';

/**
 * The running headers as a <style>: each page's top margin box shows the section that starts on it (the first, when
 * several do), else the one it continues; the cover and the contents page none. Chromium draws margin boxes
 * (@page { @top-left }) but not named strings, so the names ride on the page counter: a `fixed` counter style
 * whose symbol for page N is the header of page N, and whose fallback (pages past the last section's start) repeats
 * the last section. Drawn in the margin, outside the structure tree: a screen reader does not read it at each page.
 */
export function runningHeaders(entries: readonly ContentsEntry[], pages: ReadonlyMap<string, number>): string {
  const starts = entries
    .flatMap((entry) => {
      const page = pages.get(entry.id);
      return page === undefined ? [] : [{ page, title: entry.title }];
    })
    .sort((a, b) => a.page - b.page);
  const last = starts.at(-1);
  if (last === undefined) return '';
  const symbols: string[] = [];
  let running = '';
  for (let page = 1; page <= last.page; page += 1) {
    const here = starts.filter((start) => start.page === page);
    symbols.push(cssString(here[0]?.title ?? running));
    running = here.at(-1)?.title ?? running;
  }
  return (
    `<style>@counter-style ${HEADER_STYLE}-last{system:cyclic;symbols:${cssString(last.title)}}` +
    `@counter-style ${HEADER_STYLE}{system:fixed 1;symbols:${symbols.join(' ')};fallback:${HEADER_STYLE}-last}` +
    `@page{@top-left{content:counter(page,${HEADER_STYLE});vertical-align:bottom;padding-bottom:4mm;` +
    `font-family:Inter,'DejaVu Sans',sans-serif;font-size:7.5pt;color:#4b5563;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}}` +
    `@page:first{@top-left{content:none}}</style>`
  );
}

/** A CSS string: quotes, backslashes, line breaks and "<" (which could close the <style>) as escapes. */
function cssString(text: string): string {
  return `"${text.replace(/["\\<>\n\r\f]/g, (c) => `\\${(c.codePointAt(0) ?? 0).toString(16)} `)}"`;
}
