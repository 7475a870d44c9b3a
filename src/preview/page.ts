// What the preview adds to the pages it sends: the bar above the report (project, language, PDF, mail, and the
// script that reloads the page), the error page shown in place of a report, their content policy, and a problem
// in words for the page and the terminal.
import { errorMessage, isGeoReportsError } from '../errors.js';
import { LANGUAGES } from '../i18n/locales.js';
import type { Language } from '../report/model.js';
import { escapeHtml } from '../render/escape.js';
import { TemplateError, formatProblem } from '../render/template-check/load.js';
import type { PreviewProject } from './data.js';

/** The report a request asks for. */
export interface PageQuery {
  projectId: number;
  language: Language | undefined;
}

/** What the bar tells beside the query: the choices, where the page comes from, and which setup made it. */
export interface BarFacts {
  projects: readonly PreviewProject[];
  /** "the built-in templates", or the template folder. */
  templatesLabel: string;
  dataKind: 'saved' | 'sample';
  period: string;
  version: number;
  reloadedAt: Date;
}

/** The bar on top of every page, with its script: the form submits on change, and a newer version reloads the page. */
export function previewBar(facts: BarFacts, query: PageQuery | null, nonce: string, problem: string | null, path = '/'): string {
  const { version } = facts;
  const projectOptions = facts.projects
    .map((p) => `<option value="${p.id}"${p.id === query?.projectId ? ' selected' : ''}>${escapeHtml(`${p.name} (${p.id})`)}</option>`)
    .join('');
  const languages = [
    `<option value="">client's language</option>`,
    ...LANGUAGES.map((l) => `<option value="${l}"${l === query?.language ? ' selected' : ''}>${l}</option>`),
  ].join('');
  const queryText = query === null ? '' : `?project=${query.projectId}${query.language === undefined ? '' : `&language=${query.language}`}`;
  const pdfHref = `/report.pdf${queryText}`;
  return `<div id="geo-preview" data-version="${version}" style="all:initial;display:flex;flex-wrap:wrap;gap:12px;align-items:center;position:sticky;top:0;z-index:2147483647;padding:8px 14px;background:#111827;color:#f9fafb;font:13px/1.4 system-ui,sans-serif">
<strong style="font-weight:600">geo-reports preview</strong>
<form method="get" action="${path}" style="display:flex;gap:8px;align-items:center;margin:0">
<label>Project <select name="project">${projectOptions}</select></label>
<label>Language <select name="language">${languages}</select></label>
<noscript><button type="submit">Show</button></noscript>
</form>
<a href="${escapeHtml(`/${queryText}`)}" style="color:#93c5fd">Report</a>
<a href="${escapeHtml(pdfHref)}" style="color:#93c5fd">PDF</a>
<a href="${escapeHtml(`/email${queryText}`)}" style="color:#93c5fd">Mail</a>
<span style="color:#9ca3af">${escapeHtml(`Templates: ${facts.templatesLabel} · data: ${facts.dataKind === 'saved' ? `saved, ${facts.period}` : `sample, ${facts.period}`} · version ${version}, ${facts.reloadedAt.toISOString().slice(11, 19)} UTC`)}</span>
${problem === null ? '' : `<span style="color:#fca5a5">${escapeHtml(problem)}</span>`}
</div>
<script nonce="${nonce}">
(() => {
  const shown = ${version};
  const form = document.querySelector('#geo-preview form');
  form.addEventListener('change', () => form.submit());
  const events = new EventSource('/events');
  const check = (event) => { if (Number(event.data) !== shown) { events.close(); location.reload(); } };
  events.addEventListener('version', check);
  events.addEventListener('reload', check);
})();
</script>`;
}

/** The page rendered, with the bar right after its <body>: report.html itself never holds it. */
export function withPreviewBar(html: string, bar: string): string {
  const body = /<body\b[^>]*>/i.exec(html);
  const at = body === null ? 0 : body.index + body[0].length;
  return `${html.slice(0, at)}${bar}${html.slice(at)}`;
}

/** Shown in place of the report: the bar, then what is wrong; the page still reloads at the next save. */
export function errorPage(facts: BarFacts, status: number, message: string, query: PageQuery | null, nonce: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>geo-reports preview: error</title></head><body style="margin:0">${previewBar(facts, query, nonce, null)}` +
    `<pre style="white-space:pre-wrap;margin:24px;font:13px/1.5 ui-monospace,monospace;color:#991b1b">${escapeHtml(`${status === 500 ? 'The report cannot be rendered' : 'Not shown'}:\n\n${message}`)}</pre>` +
    `<p style="margin:24px;font:13px system-ui,sans-serif;color:#4b5563">The page reloads by itself when the template folder or the config changes.</p></body></html>`
  );
}

/** The preview's own policy, in place of the page's: the bar's script by its nonce, the fonts and events from here. */
export function pagePolicy(nonce: string): string {
  return `default-src 'none'; img-src data:; font-src 'self' data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

/** A problem in words: a template's errors one per line, or the error's message with its fix. */
export function describeProblem(error: unknown): string {
  if (error instanceof TemplateError && error.problems.length > 0) {
    return `${error.message.split('\n')[0] ?? ''}\n${error.problems
      .filter((p) => p.severity === 'error')
      .map(formatProblem)
      .join('\n')}`;
  }
  if (isGeoReportsError(error)) return `${error.message}${error.hint === undefined ? '' : `\nFix: ${error.hint}`}`;
  return errorMessage(error);
}
