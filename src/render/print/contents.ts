// The contents page of a printed report: the sections its HTML holds (each <section> of <main> named by its heading
// through aria-labelledby), listed after the cover with the page each one starts on. The page numbers are those of a
// print: the report is printed, the page of each heading read back from the PDF, and printed again with them.
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
  return entries.length === 0 ? null : { offset, entries, measures };
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
 * knows it (the first print leaves the numbers blank; they take no room the layout depends on).
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
  return html.slice(0, plan.offset) + nav + html.slice(plan.offset);
}
