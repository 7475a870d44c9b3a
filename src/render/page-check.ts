// What a page the tool writes may contain, judged on the HTML the templates produced, parsed as a browser parses it
// (parse5 follows the HTML standard's tree building): a template can split any token a check of its own text looks
// for (`<scr{{!-- --}}ipt>`), the printed page cannot. Nothing that runs, loads or navigates by itself: no script, no
// event handler, no javascript: or remote URL, no <base>, <meta http-equiv> other than a policy, <iframe>, <object>…
// Each page then carries a Content-Security-Policy that says the same to the browser.
import { parse, parseFragment, type DefaultTreeAdapterTypes } from 'parse5';
import { GeoReportsError } from '../errors.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** The policy of every page: nothing from anywhere, but the styles, fonts and images the page carries inline. */
export function pagePolicy(): string {
  return ["default-src 'none'", "style-src 'unsafe-inline'", 'font-src data:', 'img-src data:', "base-uri 'none'", "form-action 'none'"].join('; ');
}

/** The policy as the <meta> element every written page carries first in its <head>. */
export const policyMeta = (policy: string = pagePolicy()): string => `<meta http-equiv="Content-Security-Policy" content="${policy}">`;

/** Matches the policy element this module writes. */
const POLICY_META = /<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"<>]*">/;

/** The page without the policy element it carries (the preview sends its own policy, with its toolbar's script). */
export const withoutPolicyMeta = (html: string): string => html.replace(POLICY_META, '');

/** A problem of a rendered page, at its place in the page. */
export interface PageProblem {
  line: number;
  column: number;
  message: string;
}

/** A page that breaks the rules: never written; the message lists what it holds and where. */
export class UnsafePageError extends GeoReportsError {
  readonly problems: readonly PageProblem[];

  constructor(what: string, problems: readonly PageProblem[]) {
    const listed = problems.slice(0, 5).map((p) => `line ${p.line}, column ${p.column} of the page: ${p.message}`);
    super(`${what} is not written: ${listed.join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}.`, {
      hint: 'A value or a template put markup in the page: write values with {{…}} (never {{{…}}}), and run `geo-reports template check`, which renders the sample pages and lists every problem.',
    });
    this.problems = problems;
  }
}

/**
 * Elements that run code, load a document or resource of their own, or change where links lead: why a page may not
 * hold one, and why an agency's template may not (null: named by this check of the printed page alone).
 */
export const FORBIDDEN_ELEMENTS: ReadonlyMap<string, { page: string; template: string | null }> = new Map([
  ['script', { page: 'a page runs no script', template: 'a client report runs no script' }],
  ['iframe', { page: 'a page embeds no other page', template: 'a client report embeds no other page' }],
  ['frame', { page: 'a page embeds no other page', template: 'a client report embeds no other page' }],
  ['frameset', { page: 'a page embeds no other page', template: 'a client report embeds no other page' }],
  ['portal', { page: 'a page embeds no other page', template: 'a client report embeds no other page' }],
  ['fencedframe', { page: 'a page embeds no other page', template: null }],
  ['object', { page: 'a page embeds no plug-in or document', template: 'a client report embeds no plug-in or document' }],
  ['embed', { page: 'a page embeds no plug-in or document', template: 'a client report embeds no plug-in or document' }],
  ['applet', { page: 'a page embeds no plug-in or document', template: 'a client report embeds no plug-in or document' }],
  ['base', { page: 'it would change where every link of the page leads', template: 'it would change where every link of the report leads' }],
  ['link', { page: 'a page loads no stylesheet or resource', template: 'a client report loads no stylesheet or resource: put the rules in assets/extra.css' }],
  ['handler', { page: 'a page runs no script', template: null }],
  ['listener', { page: 'a page runs no script', template: null }],
  // Read as text by a browser running scripts and as markup by one that does not: a page runs none, so it needs none.
  ['noscript', { page: 'a page runs no script, so it has nothing to say without one', template: null }],
]);

/** An attribute that runs a script on an event: onload, onerror, onclick… */
export const isEventHandler = (attribute: string): boolean => attribute.startsWith('on');

/** The URL schemes whose URL is a script to run. */
export const SCRIPT_SCHEMES: ReadonlySet<string> = new Set(['javascript', 'vbscript']);
const SCRIPT_URL = new RegExp(`^\\s*(?:${[...SCRIPT_SCHEMES].join('|')})\\s*:`, 'i');

/** Attributes through which a browser fetches or navigates (SVG's and MathML's as well as HTML's). */
export const URL_ATTRIBUTES: ReadonlySet<string> = new Set([
  'src',
  'srcset',
  'href',
  'xlink:href',
  'poster',
  'data',
  'action',
  'formaction',
  'background',
  'lowsrc',
  'ping',
  'manifest',
  'codebase',
  'cite',
  'longdesc',
  'usemap',
  'dynsrc',
  'archive',
  'classid',
  'profile',
  'itemtype',
]);

/** A URL as the browser reads it: tabs and line breaks removed anywhere, controls and spaces trimmed at the ends. */
// eslint-disable-next-line no-control-regex -- the control characters are what the URL parser strips
const urlAsRead = (value: string): string => value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
/** data: URLs a page may carry inline: an image or a font. */
const INLINE_DATA = /^data:(?:image\/(?:png|jpeg|gif|webp|svg\+xml|avif)|font\/[a-z0-9.+-]+|application\/font-[a-z0-9.+-]+)[;,]/i;

/** What is wrong with a URL written in a page, or null. `navigation`: a link the reader follows (mailto:, tel: too). */
function urlProblem(written: string, navigation: boolean, allow: PageAllowance = {}): string | null {
  const url = urlAsRead(written);
  if (url === '' || url.startsWith('#')) return null;
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (navigation && allow.links?.includes(url) === true) return null;
  if (!navigation && scheme === 'cid' && allow.inlineParts === true) return null;
  if (scheme !== undefined && SCRIPT_SCHEMES.has(scheme)) return `a ${scheme}: URL runs a script`;
  if (scheme === 'data') return INLINE_DATA.test(url) ? null : 'a data: URL that is not an inline image or font';
  if (scheme === 'mailto' || scheme === 'tel') return navigation ? null : `a ${scheme}: URL cannot be loaded`;
  if (scheme !== undefined) return `a ${scheme}: URL leads outside the page, and a page loads nothing from the network`;
  // `//host/…` and `\\host\…` (browsers read a backslash as a slash) are remote too.
  if (/^[/\\]{2}/.test(url)) return 'it leads to another host, and a page loads nothing from the network';
  return null;
}

/** CSS as the browser reads it: comments blanked, escapes decoded, so `@\69mport` is `@import`. */
function cssAsRead(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ')
    .replace(/\\([0-9a-f]{1,6})[ \t\n\r\f]?/gi, (_, hex: string) => {
      const code = Number.parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
    })
    .replace(/\\([^\n])/g, '$1');
}

/** What a stylesheet (a <style> element, a style attribute) must not hold: an @import, a url() that is not inline. */
function cssProblems(css: string): string[] {
  const text = cssAsRead(css);
  const problems: string[] = [];
  if (/@import/i.test(text)) problems.push('an @import, which loads a stylesheet');
  for (const match of text.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/gi)) {
    const target = match[1] ?? match[2] ?? match[3] ?? '';
    const problem = urlProblem(target, false);
    if (problem !== null || (target.trim() !== '' && !target.trim().startsWith('#') && !/^data:/i.test(urlAsRead(target)))) {
      problems.push(`url(${target.trim().slice(0, 80)}), which is not inline: ${problem ?? 'it loads a file'}`);
    }
  }
  // image-set("…") and src("…") load a quoted string without url().
  for (const match of text.matchAll(/(?:image-set|src)\(([^)]*)\)/gi)) {
    for (const quoted of (match[1] ?? '').matchAll(/"([^"]*)"|'([^']*)'/g)) {
      const target = quoted[1] ?? quoted[2] ?? '';
      if (!/^data:/i.test(urlAsRead(target))) problems.push(`"${target.slice(0, 80)}", which loads a file`);
    }
  }
  return problems;
}

/** What a message may hold that a page may not: its own inline parts (cid:), and the links it was made with. */
export interface PageAllowance {
  /** Addresses a link (<a href>) may lead to, exactly as written: the client's page a message's button opens. */
  links?: readonly string[];
  /** An image may be a part of the same message (cid:…), which a mail client shows without a request. */
  inlineParts?: boolean;
}

/** Every problem of a rendered page, in the order they appear; none for a page the tool may write. */
export function pageProblems(html: string, allow: PageAllowance = {}): PageProblem[] {
  return inspectPage(html, allow).problems;
}

/** The page's problems, and where its policy element goes: first in its <head>, as the parser built it. */
function inspectPage(html: string, allow: PageAllowance = {}): { problems: PageProblem[]; policyAt: number } {
  const problems: PageProblem[] = [];
  /** What reports a problem of an element parsed from `source`, whose first line is the page's line `line`. */
  const reporter =
    (source: string, line: number, column: number) =>
    (element: Element, message: string, attribute?: string): void => {
      const location = element.sourceCodeLocation;
      const at = (attribute === undefined ? undefined : location?.attrs?.[attribute]) ?? location?.startTag ?? location;
      // The tag as printed, to find in the templates what made it.
      const tag = location?.startTag ?? location ?? null;
      const printed = tag === null ? '' : source.slice(tag.startOffset, Math.min(tag.endOffset, tag.startOffset + 100)).replace(/\s+/g, ' ');
      const cut = tag !== null && tag.endOffset - tag.startOffset > 100 ? '…' : '';
      const atLine = at?.startLine ?? 1;
      problems.push({
        line: line + atLine - 1,
        column: atLine === 1 ? column + (at?.startCol ?? 1) - 1 : (at?.startCol ?? 1),
        message: printed === '' ? message : `${message} (printed: ${printed}${cut})`,
      });
    };
  const policy: { at: number | null } = { at: null };
  const visit = (parent: ParentNode, add: ReturnType<typeof reporter>): void => {
    for (const node of parent.childNodes) {
      if (node.nodeName === '#documentType') policy.at ??= node.sourceCodeLocation?.endOffset ?? null;
      if (node.nodeName === '#comment') {
        // Outlook (and other Windows mail clients) render what a conditional comment holds: checked as the page is.
        const inner = conditionalContent((node as DefaultTreeAdapterTypes.CommentNode).data);
        const where = node.sourceCodeLocation;
        if (inner !== null)
          visit(
            parseFragment(inner.html, { sourceCodeLocationInfo: true }),
            reporter(inner.html, where?.startLine ?? 1, (where?.startCol ?? 1) + inner.offset + 4),
          );
        continue;
      }
      if (!('tagName' in node)) continue;
      // A <head> written in the page: the policy goes right after its tag; an implied one: after the doctype.
      if (node.tagName === 'head' && node.sourceCodeLocation?.startTag !== undefined) policy.at = node.sourceCodeLocation.startTag.endOffset;
      checkElement(node, add, allow);
      visit(node, add);
      // A <template>'s content is a fragment of its own, cloned into the page by whatever uses it.
      if (node.tagName === 'template') visit((node as DefaultTreeAdapterTypes.Template).content, add);
    }
  };
  visit(parse(html, { sourceCodeLocationInfo: true }), reporter(html, 1, 1));
  return { problems, policyAt: policy.at ?? 0 };
}

/**
 * The markup of a conditional comment (`<!--[if mso]>…<![endif]-->`, `<!--[if gte mso 9]>…`), which Outlook renders
 * as part of the page, with its offset in the comment; null for a comment no mail client renders.
 */
export function conditionalContent(comment: string): { html: string; offset: number } | null {
  const open = /^\s*\[if\b[^\]]*\]>/i.exec(comment);
  if (open === null) return null;
  const end = comment.search(/<!\[endif\]\s*$/i);
  return { html: comment.slice(open[0].length, end === -1 ? undefined : end), offset: open[0].length };
}

function checkElement(element: Element, add: (element: Element, message: string, attribute?: string) => void, allow: PageAllowance): void {
  const name = element.tagName.toLowerCase();
  const why = FORBIDDEN_ELEMENTS.get(name)?.page;
  if (why !== undefined) {
    add(element, `<${name}> is not allowed: ${why}`);
    return;
  }
  const navigation = name === 'a' || name === 'area';
  for (const attribute of element.attrs) {
    const attr = (attribute.prefix === undefined ? attribute.name : `${attribute.prefix}:${attribute.name}`).toLowerCase();
    const value = attribute.value;
    if (isEventHandler(attr)) {
      add(element, `the event handler ${attr}="…" on <${name}> is not allowed: a page runs no script`, attribute.name);
      continue;
    }
    if (name === 'meta' && attr === 'http-equiv' && value.trim().toLowerCase() !== 'content-security-policy') {
      add(element, `<meta http-equiv="${value.slice(0, 40)}"> is not allowed: it can reload or redirect the page`, attribute.name);
      continue;
    }
    if (attr === 'style') {
      for (const problem of cssProblems(value)) add(element, `the style of <${name}> holds ${problem}`, attribute.name);
      continue;
    }
    if (attr === 'srcdoc') {
      add(element, `srcdoc on <${name}> is not allowed: a page embeds no other page`, attribute.name);
      continue;
    }
    // An SVG animation can set any attribute to any value: one that targets a link or a handler is refused outright.
    if ((name === 'animate' || name === 'set') && attr === 'attributename' && /^(?:xlink:)?href$|^on/i.test(value.trim())) {
      add(element, `<${name} attributeName="${value.trim()}"> is not allowed: it rewrites a link or a handler`, attribute.name);
      continue;
    }
    // VML and Office elements (v:fill, v:image, v:imagedata, o:…) load what their src, o:href or o:althref names.
    const office = /^[vo]:/.test(name) && /(?:^|:)(?:src|href|althref|url)$/.test(attr);
    const checked = office || URL_ATTRIBUTES.has(attr) || SCRIPT_URL.test(urlAsRead(value));
    if (!checked) continue;
    const urls =
      attr === 'srcset' || attr === 'ping' || attr === 'archive' ? value.split(/[\s,]+/).filter((part) => !/^\d+(?:\.\d+)?[wx]$/i.test(part)) : [value];
    for (const url of urls) {
      const problem = urlProblem(url, navigation && attr === 'href', allow);
      if (problem !== null) {
        add(element, `${attr}="${urlAsRead(url).slice(0, 80)}" on <${name}> is not allowed: ${problem}`, attribute.name);
        break;
      }
    }
  }
  if (name === 'style') {
    const css = element.childNodes.map((child) => ('value' in child ? child.value : '')).join('');
    for (const problem of cssProblems(css)) add(element, `<style> holds ${problem}`);
  }
}

/**
 * The page, checked and carrying its policy first in its <head> (after the doctype when the page writes no <head>:
 * the parser opens the head around it); an UnsafePageError naming `what` when it breaks a rule.
 */
export function sealPage(html: string, what: string, meta: string = policyMeta()): string {
  const { problems, policyAt } = inspectPage(html);
  if (problems.length > 0) throw new UnsafePageError(what, problems);
  return `${html.slice(0, policyAt)}${meta}${html.slice(policyAt)}`;
}
