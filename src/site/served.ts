// What every published site serves the same way: the files that keep crawlers and referrers out, the page of a
// folder that has none, and a report's page sealed as the site serves it.
import { pageProblems, pagePolicy, policyMeta, UnsafePageError } from '../render/page-check.js';
import { escapeHtml } from '../render/escape.js';
import { sha256 } from './files.js';

/** Every crawler is asked to stay out; the pages say noindex too, and the headers file says it for the PDFs. */
export const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';
/**
 * Netlify and Cloudflare Pages read `_headers`: no index, no referrer, for every file (PDFs have no <meta>), and the
 * pages' own Content-Security-Policy.
 */
export const HEADERS_FILE = `/*\n  X-Robots-Tag: noindex, nofollow\n  Referrer-Policy: no-referrer\n  X-Content-Type-Options: nosniff\n  Content-Security-Policy: ${pagePolicy()}\n`;

/**
 * The report's HTML as the site serves it: checked as a browser reads it (an UnsafePageError when it breaks a
 * rule), asking not to be indexed and to send no referrer, and carrying the pages' policy (a report made by an
 * earlier version has none). `checked`: the SHA-256 of the bytes the run checked when it wrote the page (its
 * manifest's `checkedPage`); the very same bytes are not parsed again, any other bytes are.
 */
export function sealReportHtml(bytes: Buffer, checked?: string, backLabel?: string): Buffer {
  const text = bytes.toString('utf8');
  if (checked === undefined || sha256(bytes) !== checked) {
    // The inline fonts are base64 (no character the HTML parser acts on): left out of the parse, 240 KB a report.
    const problems = pageProblems(text.replace(/(url\(data:font\/[a-z0-9.+-]+;base64,)[A-Za-z0-9+/=]+/g, '$1'));
    if (problems.length > 0) throw new UnsafePageError('The report page', problems);
  }
  const head = /<head\b[^>]*>/i.exec(bytes.subarray(0, 16_384).toString('latin1'));
  const policy = text.includes(policyMeta()) ? '' : `\n${policyMeta()}`;
  const back = backLabel === undefined ? null : backLink(backLabel);
  const insert = Buffer.from(`${policy}\n<meta name="robots" content="noindex, nofollow">\n<meta name="referrer" content="no-referrer">${back?.style ?? ''}`);
  // latin1 keeps byte offsets: the match's end is where the bytes go.
  const doctype = /^\s*<!doctype[^>]*>/i.exec(bytes.subarray(0, 1024).toString('latin1'));
  // Without a <head> (an agency's template may leave it out), after the doctype: before it, the page would lose it.
  const at = head !== null ? head.index + head[0].length : doctype !== null ? doctype[0].length : 0;
  const body = back === null ? null : /<body\b[^>]*>/i.exec(bytes.toString('latin1'));
  if (back === null || body === null || body.index < at) return Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]);
  const after = body.index + body[0].length;
  return Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at, after), Buffer.from(back.nav), bytes.subarray(after)]);
}

/**
 * The link a published report opens with, back to the client's page: the month's folder is inside the page's own
 * (`c/<token>/<period>/report.html`), so `../` leads there on any host. 48 px high for a thumb; never printed.
 */
function backLink(label: string): { style: string; nav: string } {
  const text = escapeHtml(label);
  return {
    style:
      '\n<style>.site-back{margin:0;padding:4px 16px;background:var(--brand-background,#fff);font-family:var(--brand-font,sans-serif)}' +
      '.site-back a{display:inline-flex;align-items:center;min-height:48px;padding:0 4px;font-size:16px;font-weight:600;color:var(--brand-primary-ink,#1f3a5f)}' +
      '@media print{.site-back{display:none}}</style>',
    nav: `\n<nav class="site-back" aria-label="${text}"><a href="../">\u2190 ${text}</a></nav>`,
  };
}

/** A file the site serves as its source is (a PDF). */
export const identity = (bytes: Buffer): Buffer => bytes;

/**
 * The page of a folder that has no page of its own (a month's folder): blank, so that no static host lists the
 * folder's files instead. `c/` gets the site's 404 page.
 */
export const FOLDER_PAGE = `<!doctype html>\n<html><head>${policyMeta()}<meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer"><title>404</title></head><body></body></html>\n`;
export const FOLDER_PAGE_BYTES = Buffer.from(FOLDER_PAGE);
