// The template preview: a small node:http server on loopback that shows a project's report made by the batch's own
// steps from saved or sample data, prints its PDF on request, and tells the page to reload (server-sent events)
// when the template folder or the config changes. It sends no request to the API: it has no API client at all.
//
// Routes: GET /            the report with a toolbar (project, language, PDF); ?project=ID&language=en|fr
//         GET /report.pdf  the same report printed; same query
//         GET /email       the message that carries it (email.hbs), as `send` writes it; same query
//         GET /events      server-sent events: `version` on connect, `reload` after every change
//         GET /fonts/…     the report's fonts, from the renderer's memory
// Every other path is 404: no file is ever served by its path, so nothing outside the preview's own work leaks.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import { isLoopbackHost } from '../config/load.js';
import { ConfigError, errorMessage, isGeoReportsError } from '../errors.js';
import { LANGUAGES } from '../i18n/locales.js';
import type { Branding, Language } from '../report/model.js';
import { PRINT_ASSETS_ORIGIN, type HtmlRenderer } from '../render/html.js';
import { escapeHtml } from '../render/escape.js';
import { withoutPolicyMeta } from '../render/page-check.js';
import type { PdfPrinter } from '../render/pdf.js';
import { TemplateError, formatProblem } from '../render/templates.js';
import { configInLanguage, type PreviewData } from './data.js';
import { previewEmailHtml } from './email.js';
import { MODEL_STEPS, PAGE_STEPS, PDF_STEPS, runSteps } from './render.js';

/** What the page is made with; replaced whole when a watched file changes. */
export interface PreviewSetup {
  config: Config;
  renderer: HtmlRenderer;
  branding: Branding;
}

export interface PreviewServerOptions {
  host: string;
  /** 0 takes a free port. */
  port: number;
  data: PreviewData;
  /** The first setup; `reload` makes the next ones. */
  setup: PreviewSetup;
  /** Makes the setup again from the files (the config, the template folder); throws what is wrong with them. */
  reload: () => Promise<PreviewSetup>;
  /** The printer of /report.pdf, started on the first request for a PDF. */
  printer: () => Promise<PdfPrinter>;
  /** The project shown when the page names none. @default the first one */
  projectId?: number;
  /** The language of every report; absent: each client's own. */
  language?: Language;
  /** What the toolbar says about the templates ("the built-in templates", the folder). */
  templatesLabel: string;
  clock?: () => Date;
  /** One line per event worth telling at the terminal (a reload, its error). */
  log?: (line: string) => void;
}

export interface PreviewServer {
  url: string;
  port: number;
  /** How many times the setup was made again; each one reloads the pages open. */
  readonly version: number;
  /** Makes the setup again now and tells the pages (what a watched change does). */
  reload(reason: string): Promise<void>;
  close(): Promise<void>;
}

/** Pages listening for reloads at once; more is a page left open in many tabs, or abuse. */
const MAX_LISTENERS = 32;
/** Renders waiting for their turn; beyond, the server answers 503 rather than queue without end. */
const MAX_WAITING = 32;
const HEARTBEAT_MS = 15_000;
const MAX_URL_LENGTH = 2048;
/** Where the page finds the report's fonts: served from memory, kept by the browser from one reload to the next. */
const FONTS_PATH = '/fonts/';

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Query {
  projectId: number;
  language: Language | undefined;
}

export async function startPreviewServer(options: PreviewServerOptions): Promise<PreviewServer> {
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? (() => undefined);
  const workDir = await mkdtemp(join(tmpdir(), 'geo-reports-preview-'));
  let setup: PreviewSetup | null = options.setup;
  let setupError: unknown = null;
  let version = 1;
  let reloadedAt = clock();
  const listeners = new Set<ServerResponse>();
  // Rendering is CPU work: two at a time, a PDF one at a time, and a bounded queue behind them.
  const renders = pLimit(2);
  const prints = pLimit(1);
  const pdfInFlight = new Map<string, Promise<Buffer>>();
  const knownIds = new Set(options.data.projects.map((p) => p.id));
  const defaultProject = options.projectId ?? options.data.projects[0]?.id ?? null;

  const parseQuery = (url: URL): Query => {
    const projectText = url.searchParams.get('project');
    let projectId = defaultProject;
    if (projectText !== null && projectText !== '') {
      if (!/^\d{1,9}$/.test(projectText)) throw new HttpError(400, `"project" must be a project id (a whole number), not "${projectText.slice(0, 40)}".`);
      projectId = Number(projectText);
      if (!knownIds.has(projectId)) throw new HttpError(404, `Project ${projectId} is not in ${options.data.description}.`);
    }
    if (projectId === null) throw new HttpError(404, `No project in ${options.data.description}.`);
    const languageText = url.searchParams.get('language');
    let language = options.language;
    if (languageText !== null && languageText !== '') {
      if (!(LANGUAGES as readonly string[]).includes(languageText)) {
        throw new HttpError(400, `"language" must be one of ${LANGUAGES.join(', ')}, not "${languageText.slice(0, 20)}".`);
      }
      language = languageText as Language;
    }
    return { projectId, language };
  };

  /**
   * The batch's steps into a folder of this request's own, then removed: the PDF read back from it, or the page
   * as the printer gets it (report.html with its fonts linked, here to /fonts/ so the browser keeps them).
   */
  const render = async (query: Query, made: 'page' | 'pdf' | 'email'): Promise<Buffer> => {
    const current = setup;
    if (current === null) throw setupError;
    const config = query.language === undefined ? current.config : configInLanguage(current.config, query.language);
    const data = await options.data.load(query.projectId, config);
    const periodDir = await mkdtemp(join(workDir, 'render-'));
    try {
      const work = await runSteps(
        data,
        { config, period: options.data.period, periodDir, renderer: current.renderer, printer: options.printer, branding: current.branding, clock },
        made === 'pdf' ? PDF_STEPS : made === 'email' ? MODEL_STEPS : PAGE_STEPS,
      );
      if (made === 'pdf') return await readFile(join(periodDir, work.entry.slug, 'report.pdf'));
      if (made === 'email') {
        if (work.model === undefined) throw new Error('The report model was not made.');
        return Buffer.from(previewEmailHtml(work.model, config, current.renderer, current.branding));
      }
      // The preview sends its own policy (its toolbar's script, the fonts from here) in place of the page's.
      return Buffer.from(withoutPolicyMeta(work.html ?? '').replaceAll(`${PRINT_ASSETS_ORIGIN}/`, FONTS_PATH));
    } finally {
      await rm(periodDir, { recursive: true, force: true });
    }
  };
  const queued = <T>(limit: ReturnType<typeof pLimit>, work: () => Promise<T>): Promise<T> => {
    if (limit.pendingCount >= MAX_WAITING) return Promise.reject(new HttpError(503, 'The preview is busy; try again in a moment.'));
    return limit(work);
  };

  const toolbar = (query: Query | null, nonce: string, problem: string | null, path = '/'): string => {
    const options_ = options.data.projects
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
<label>Project <select name="project">${options_}</select></label>
<label>Language <select name="language">${languages}</select></label>
<noscript><button type="submit">Show</button></noscript>
</form>
<a href="${escapeHtml(`/${queryText}`)}" style="color:#93c5fd">Report</a>
<a href="${escapeHtml(pdfHref)}" style="color:#93c5fd">PDF</a>
<a href="${escapeHtml(`/email${queryText}`)}" style="color:#93c5fd">Mail</a>
<span style="color:#9ca3af">${escapeHtml(`Templates: ${options.templatesLabel} · data: ${options.data.kind === 'saved' ? `saved, ${options.data.period}` : `sample, ${options.data.period}`} · version ${version}, ${reloadedAt.toISOString().slice(11, 19)} UTC`)}</span>
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
  };

  const errorPage = (status: number, message: string, query: Query | null, nonce: string): string =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>geo-reports preview: error</title></head><body style="margin:0">${toolbar(query, nonce, null)}` +
    `<pre style="white-space:pre-wrap;margin:24px;font:13px/1.5 ui-monospace,monospace;color:#991b1b">${escapeHtml(`${status === 500 ? 'The report cannot be rendered' : 'Not shown'}:\n\n${message}`)}</pre>` +
    `<p style="margin:24px;font:13px system-ui,sans-serif;color:#4b5563">The page reloads by itself when the template folder or the config changes.</p></body></html>`;

  const describe = (error: unknown): string => {
    if (error instanceof TemplateError && error.problems.length > 0) {
      return `${error.message.split('\n')[0] ?? ''}\n${error.problems
        .filter((p) => p.severity === 'error')
        .map(formatProblem)
        .join('\n')}`;
    }
    if (isGeoReportsError(error)) return `${error.message}${error.hint === undefined ? '' : `\nFix: ${error.hint}`}`;
    return errorMessage(error);
  };

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
    res.writeHead(status, {
      'Content-Type': type,
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      ...headers,
    });
    res.end(body);
  };
  const pagePolicy = (nonce: string): string =>
    `default-src 'none'; img-src data:; font-src 'self' data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

  const servePage = async (res: ServerResponse, url: URL, made: 'page' | 'email'): Promise<void> => {
    const nonce = randomBytes(16).toString('base64');
    let query: Query | null = null;
    try {
      query = parseQuery(url);
      const current = query;
      const html = (await queued(renders, () => render(current, made))).toString('utf8');
      // The toolbar goes in the page sent to the browser only: report.html never holds it.
      const body = /<body\b[^>]*>/i.exec(html);
      const at = body === null ? 0 : body.index + body[0].length;
      send(res, 200, 'text/html; charset=utf-8', `${html.slice(0, at)}${toolbar(query, nonce, null, made === 'email' ? '/email' : '/')}${html.slice(at)}`, {
        'Content-Security-Policy': pagePolicy(nonce),
      });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      send(res, status, 'text/html; charset=utf-8', errorPage(status, describe(error), query, nonce), { 'Content-Security-Policy': pagePolicy(nonce) });
    }
  };

  const servePdf = async (res: ServerResponse, url: URL): Promise<void> => {
    try {
      const query = parseQuery(url);
      // The same report asked for twice at once is printed once.
      const key = `${version}:${query.projectId}:${query.language ?? ''}`;
      let pdf = pdfInFlight.get(key);
      if (pdf === undefined) {
        pdf = queued(prints, async () => {
          const started = performance.now();
          const bytes = await render(query, 'pdf');
          log(`Printed the PDF of project ${query.projectId} in ${Math.round(performance.now() - started)} ms.`);
          return bytes;
        }).finally(() => pdfInFlight.delete(key));
        pdfInFlight.set(key, pdf);
      }
      const bytes = await pdf;
      send(res, 200, 'application/pdf', bytes, { 'Content-Disposition': `inline; filename="report-${query.projectId}-${options.data.period}.pdf"` });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      send(res, status, 'text/plain; charset=utf-8', `${describe(error)}\n`);
    }
  };

  const serveEvents = (req: IncomingMessage, res: ServerResponse): void => {
    if (listeners.size >= MAX_LISTENERS) {
      send(res, 503, 'text/plain; charset=utf-8', 'Too many pages are listening for reloads; close some tabs.\n', { 'Retry-After': '5' });
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Content-Type-Options': 'nosniff' });
    res.write(`retry: 1000\nevent: version\ndata: ${version}\n\n`);
    listeners.add(res);
    const forget = (): void => {
      listeners.delete(res);
    };
    req.on('close', forget);
    res.on('close', forget);
    res.on('error', forget);
  };

  let port = 0;
  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${hostForUrl(options.host)}:${port}`]);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if ((req.url ?? '').length > MAX_URL_LENGTH) {
      send(res, 414, 'text/plain; charset=utf-8', 'URL too long.\n');
      return;
    }
    // A page of another site that resolves its own name to this address (DNS rebinding) is refused.
    if (isLoopbackHost(options.host) && !allowedHosts().has((req.headers.host ?? '').toLowerCase())) {
      send(res, 403, 'text/plain; charset=utf-8', 'This preview answers requests to its own address only.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'Only GET.\n', { Allow: 'GET, HEAD' });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://preview.invalid');
    } catch {
      send(res, 400, 'text/plain; charset=utf-8', 'Bad request.\n');
      return;
    }
    switch (url.pathname) {
      case '/':
        return servePage(res, url, 'page');
      case '/email':
        return servePage(res, url, 'email');
      case '/report.pdf':
        return servePdf(res, url);
      case '/events':
        serveEvents(req, res);
        return;
      default: {
        // The report's fonts, by their exact name in the renderer's map: no path ever reaches the disk.
        const font = url.pathname.startsWith(FONTS_PATH)
          ? setup?.renderer.fonts.assets.get(`${PRINT_ASSETS_ORIGIN}/${url.pathname.slice(FONTS_PATH.length)}`)
          : undefined;
        if (font !== undefined) send(res, 200, font.contentType, Buffer.from(font.body), { 'Cache-Control': 'public, max-age=31536000, immutable' });
        else send(res, 404, 'text/plain; charset=utf-8', 'Not found. The preview has /, /report.pdf, /email and /events.\n');
      }
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `${describe(error)}\n`);
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await rm(workDir, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? `port ${options.port} is already in use`
        : code === 'EACCES'
          ? `port ${options.port} needs privileges`
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? `${options.host} is not an address of this machine`
            : (error as Error).message;
    throw new ConfigError(`The preview cannot listen on ${hostForUrl(options.host)}:${options.port}: ${why}.`, {
      hint: 'Pick another port with --port N (--port 0 takes a free one), or another --host.',
      cause: error,
    });
  }
  port = (server.address() as AddressInfo).port;
  const heartbeat = setInterval(() => {
    for (const listener of listeners) listener.write(': still here\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let reloading: Promise<void> = Promise.resolve();
  const reload = (reason: string): Promise<void> => {
    // One at a time, in order: the last change always wins.
    reloading = reloading.then(async () => {
      try {
        setup = await options.reload();
        setupError = null;
        log(`Reloaded (${reason}).`);
      } catch (error) {
        setup = null;
        setupError = error;
        log(`Reloaded (${reason}), but the report cannot be rendered:\n${describe(error)}`);
      }
      version += 1;
      reloadedAt = clock();
      for (const listener of listeners) listener.write(`event: reload\ndata: ${version}\n\n`);
    });
    return reloading;
  };

  return {
    url: `http://${hostForUrl(options.host)}:${port}/`,
    port,
    get version() {
      return version;
    },
    reload,
    async close() {
      clearInterval(heartbeat);
      for (const listener of listeners) listener.end();
      listeners.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await reloading.catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
