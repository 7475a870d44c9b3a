// The self-check of the written views: what the printed PDF, the mail and the agency index show, read back and
// compared with the fact table. A view that writes a figure the table does not hold is named with the fact ("GEO
// score: the PDF shows 77 where the fact table says 76.6"), and the report is held (the mail is refused) until
// someone looks. The HTML views mark where a fact is shown (`data-fact="scores.geo"`); in the PDF's text the fact is
// the number after its label, before the "out of 100" the score cards write. Pure, but for reading the PDF's text.
import { execFile } from 'node:child_process';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { assistantLabel, interpolate } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import type { Fact } from './facts.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** A view that shows a report's figures. */
export type ViewName = 'pdf' | 'mail' | 'mailText' | 'index';

/** A fact as a view shows it: the fact's key and the text written at its place. */
export interface ShownFact {
  key: string;
  text: string;
  /** The project whose row it is in (the index's `data-project`); null in a view of one report. */
  project: number | null;
}

/** A place where a view shows another figure than the fact table's. */
export interface ViewDisagreement {
  view: ViewName;
  fact: Fact;
  /** What the view writes there, as it writes it ("77", "—"). */
  shown: string;
}

/** The facts the PDF check looks for: the score cards' headline figures, written "<label> … 77 out of 100". */
export const PDF_CHECKED_FACTS = ['scores.geo', 'scores.seo'] as const;

const isElement = (node: Node): node is Element => 'tagName' in node;
const attribute = (node: Element, name: string): string | undefined => node.attrs.find((a) => a.name === name)?.value;
const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  if (isElement(node) && (node.tagName === 'script' || node.tagName === 'style')) return '';
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.map(textOf).join('');
}

function* walk(node: Node, project: number | null): Generator<{ element: Element; project: number | null }> {
  let here = project;
  if (isElement(node)) {
    const id = attribute(node, 'data-project');
    if (id !== undefined && /^\d+$/.test(id)) here = Number(id);
    yield { element: node, project: here };
  }
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* walk(child, here);
}

/** Every place an HTML view marks a fact (`data-fact`), with its text and the project row it is in. */
export function shownInHtml(html: string): ShownFact[] {
  const found: ShownFact[] = [];
  for (const { element, project } of walk(parse(html), null)) {
    const key = attribute(element, 'data-fact');
    if (key !== undefined && key.trim() !== '') found.push({ key: key.trim(), text: squash(textOf(element)), project });
  }
  return found;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A figure as a view writes it: a sign (ASCII or the minus sign), digits, one decimal mark of either kind. */
const FIGURE = String.raw`[-−]?\d+(?:[.,]\d+)?`;

/** The number a view wrote (any language's decimal mark); null when the text holds none ("—"). */
export function figureIn(text: string): number | null {
  const match = new RegExp(FIGURE).exec(text.replace(/[\u00a0\u202f]/g, ' '));
  if (match === null) return null;
  return Number(match[0].replace('−', '-').replace(',', '.'));
}

/**
 * The headline facts in a PDF's text (read in content order): each time its label is followed, with at most one sentence
 * and no number between, by a figure and the score's "out of 100". A label the page never writes that way gives nothing.
 */
export function shownInPdfText(text: string, phrases: Phrases): ShownFact[] {
  const found: ShownFact[] = [];
  const outOf = phrases['scores.outOf'];
  if (outOf === undefined) return found;
  const flat = squash(text.replace(/[\u00a0\u202f]/g, ' '));
  const tail = squash(outOf)
    .split(' ')
    .map(escapeRegExp)
    .join(String.raw`\s*`);
  for (const key of PDF_CHECKED_FACTS) {
    const label = phrases[key];
    if (label === undefined) continue;
    // Between the label and its figure: the card's help, one sentence at most (a summary's sentence that names the
    // score and ends before another figure "out of 100" is no place of it).
    const pattern = new RegExp(`${escapeRegExp(squash(label))}[^\\d.!?;]{0,400}?[.!?]?\\s*(${FIGURE})\\s*${tail}`, 'g');
    for (const match of flat.matchAll(pattern)) found.push({ key, text: match[1] ?? '', project: null });
  }
  return found;
}

/**
 * The figures of a mail's text part, each written "- <label><colon> 77/100": the figure after its label, or its dash.
 */
export function shownInMailText(text: string, figures: ReadonlyArray<{ fact: string; label: string }>, colon: string): ShownFact[] {
  const found: ShownFact[] = [];
  for (const { fact, label } of figures) {
    const pattern = new RegExp(`^- ${escapeRegExp(label)}${escapeRegExp(colon.replace(/[\u00a0\u202f]/g, ' '))}\\s*(${FIGURE}|—)`, 'gmu');
    for (const match of text.replace(/[\u00a0\u202f]/g, ' ').matchAll(pattern)) found.push({ key: fact, text: match[1] ?? '', project: null });
  }
  return found;
}

/** The places of `shown` that write another figure than the fact table's for their fact; a key with no fact is not checked. */
export function disagreements(view: ViewName, facts: readonly Fact[], shown: readonly ShownFact[]): ViewDisagreement[] {
  const byKey = new Map(facts.map((fact) => [fact.key, fact]));
  const found: ViewDisagreement[] = [];
  for (const place of shown) {
    const fact = byKey.get(place.key);
    if (fact === undefined) continue;
    const figure = figureIn(place.text);
    if (figure !== null && Math.abs(figure - fact.figure) < 1e-9) continue;
    if (found.some((d) => d.fact.key === fact.key && d.shown === place.text)) continue;
    found.push({ view, fact, shown: place.text === '' ? '—' : place.text });
  }
  return found;
}

/** A fact's name in a sentence: the report's label for it ("GEO score", "Visibility on Gemini"), else its key. */
export function factLabel(key: string, phrases: Phrases): string {
  if (key.startsWith('ai.')) return interpolate(phrases['email.figure.ai'] ?? '{assistant}', { assistant: assistantLabel(phrases, key.slice(3)) });
  return phrases[key] ?? key;
}

/** "GEO score: the PDF shows 77 where the fact table says 76.6", in `phrases`' language. */
export function disagreementMessage(disagreement: ViewDisagreement, phrases: Phrases): string {
  return interpolate(phrases['check.viewDisagrees'] ?? '{fact}: the {view} shows {shown} where the fact table says {figure}.', {
    fact: factLabel(disagreement.fact.key, phrases),
    view: phrases[`check.view.${disagreement.view}`] ?? disagreement.view,
    shown: disagreement.shown,
    figure: disagreement.fact.shown,
  });
}

/** The text of `pages` (1-based, first and last; all when null) of a PDF, in content order, read by poppler's pdftotext. */
export async function pdfText(pdf: Uint8Array, pages: { first: number; last: number } | null, program = 'pdftotext'): Promise<string | null> {
  const range = pages === null ? [] : ['-f', String(pages.first), '-l', String(pages.last)];
  return new Promise((resolve, reject) => {
    const child = execFile(program, ['-q', '-raw', '-enc', 'UTF-8', ...range, '-', '-'], { maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout) => {
      if (error === null) resolve(stdout);
      else if ((error as NodeJS.ErrnoException).code === 'ENOENT') resolve(null);
      else reject(new Error(`pdftotext could not read the printed PDF: ${error.message}`));
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  });
}
