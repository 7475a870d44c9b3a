// The preview's request handler, apart from any socket: `answer` turns a request (method, address, Host header,
// the port it came in on) into a status, headers and a body; `handle` is the same for node:http, and opens the
// event stream of /events. server.ts listens; nothing here does.
//
// Routes: GET /            the report with a toolbar (project, language, PDF); ?project=ID&language=en|fr
//         GET /report.pdf  the same report printed; same query
//         GET /email       the message that carries it (email.hbs), as `send` writes it; same query
//         GET /events      server-sent events: `version` on connect, `reload` after every change
//         GET /fonts/…     the report's fonts, from the renderer's memory
// Every other path is 404: no file is ever served by its path, so nothing outside the preview's own work leaks.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { LANGUAGES } from '../i18n/locales.js';
import type { Language } from '../report/model.js';
import { PRINT_ASSETS_ORIGIN } from '../render/html.js';
import { withoutPolicyMeta } from '../render/page-check.js';
import type { PdfPrinter } from '../render/print/printer.js';
import { configInLanguage, type PreviewData } from './data.js';
import { previewEmailHtml } from './email.js';
import { describeProblem, errorPage, pagePolicy, previewBar, withPreviewBar, type BarFacts, type PageQuery } from './page.js';
import { ReloadEvents } from './reload-events.js';
import { MODEL_STEPS, PAGE_STEPS, PDF_STEPS, runSteps } from './render.js';
import { PreviewState, type PreviewSetup } from './state.js';

export interface PreviewHandlerOptions {
  /** The address the server listens on: a request naming another host than those it serves is refused. */
  host: string;
  /**
   * This machine's names and addresses, which a request to a wildcard bind (0.0.0.0, ::) may give as its Host.
   * @default os.hostname() and the addresses of os.networkInterfaces()
   */
  machineNames?: () => string[];
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
  /** A folder of the preview's own: each render makes its folder in it and removes it. */
  workDir: string;
  clock?: () => Date;
  /** One line per event worth telling at the terminal (a reload, its error). */
  log?: (line: string) => void;
}

/** What the handler reads of a request. */
export interface PreviewRequest {
  method: string | undefined;
  /** The path and query, as in the request line. */
  url: string | undefined;
  /** The Host header. */
  host: string | undefined;
  /** The port the request came in on: the server's own. */
  port: number | undefined;
}

/** A whole answer: what `handle` writes as it is. */
export interface PreviewReply {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A whole answer, or the event stream of /events (opened by `handle` on the connection). */
export type PreviewAnswer = PreviewReply | { status: 200; events: true };

/** Renders waiting for their turn; beyond, the server answers 503 rather than queue without end. */
const MAX_WAITING = 32;
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

function reply(status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): PreviewReply {
  return {
    status,
    headers: {
      'Content-Type': type,
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      ...headers,
    },
    body,
  };
}

const text = (status: number, body: string, headers: Record<string, string> = {}): PreviewReply => reply(status, 'text/plain; charset=utf-8', body, headers);

function write(res: ServerResponse, answer: PreviewReply): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

export class PreviewHandler {
  readonly state: PreviewState;
  readonly events = new ReloadEvents();
  readonly #options: PreviewHandlerOptions;
  readonly #clock: () => Date;
  readonly #log: (line: string) => void;
  // Rendering is CPU work: two at a time, a PDF one at a time, and a bounded queue behind them.
  readonly #renders = pLimit(2);
  readonly #prints = pLimit(1);
  /** The same report asked for twice at once is printed once. */
  readonly #pdfInFlight = new Map<string, Promise<Buffer>>();
  readonly #knownIds: ReadonlySet<number>;
  readonly #defaultProject: number | null;
  /** The names a Host header may give, lower case, without the port. */
  readonly #hostnames: ReadonlySet<string>;

  constructor(options: PreviewHandlerOptions) {
    this.#options = options;
    this.#hostnames = servedHostnames(options.host, options.machineNames ?? machineNames);
    this.#clock = options.clock ?? (() => new Date());
    this.#log = options.log ?? (() => undefined);
    this.#knownIds = new Set(options.data.projects.map((p) => p.id));
    this.#defaultProject = options.projectId ?? options.data.projects[0]?.id ?? null;
    this.state = new PreviewState(options.setup, {
      makeSetup: options.reload,
      onReload: (version) => this.events.tell(version),
      clock: this.#clock,
      log: this.#log,
    });
  }

  /** node:http's request listener: the answer written, or the event stream opened. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const answer = await this.answer({ method: req.method, url: req.url, host: req.headers.host, port: req.socket.localPort });
      if ('events' in answer) this.events.open(req, res, this.state.version);
      else write(res, answer);
    } catch (error) {
      if (res.headersSent) res.destroy();
      else write(res, text(500, `${describeProblem(error)}\n`));
    }
  }

  /** The answer to one request; never throws for a request's own fault (a bad query, a broken template). */
  async answer(request: PreviewRequest): Promise<PreviewAnswer> {
    if ((request.url ?? '').length > MAX_URL_LENGTH) return text(414, 'URL too long.\n');
    // A page of another site that resolves its own name to this address (DNS rebinding) is refused, on loopback
    // and on any other bind alike: a Host that names no address the preview serves gets no client's report.
    if (!this.#allowedHosts(request.port).has((request.host ?? '').toLowerCase())) {
      return text(403, 'This preview answers requests to its own address only.\n');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Only GET.\n', { Allow: 'GET, HEAD' });
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://preview.invalid');
    } catch {
      return text(400, 'Bad request.\n');
    }
    switch (url.pathname) {
      case '/':
        return this.#page(url, 'page');
      case '/email':
        return this.#page(url, 'email');
      case '/report.pdf':
        return this.#pdf(url);
      case '/events':
        if (this.events.full) return text(503, 'Too many pages are listening for reloads; close some tabs.\n', { 'Retry-After': '5' });
        return { status: 200, events: true };
      default: {
        // The report's fonts, by their exact name in the renderer's map: no path ever reaches the disk.
        const font = url.pathname.startsWith(FONTS_PATH)
          ? this.state.setup?.renderer.fonts.assets.get(`${PRINT_ASSETS_ORIGIN}/${url.pathname.slice(FONTS_PATH.length)}`)
          : undefined;
        if (font !== undefined) return reply(200, font.contentType, Buffer.from(font.body), { 'Cache-Control': 'public, max-age=31536000, immutable' });
        return text(404, 'Not found. The preview has /, /report.pdf, /email and /events.\n');
      }
    }
  }

  /** Ends the event streams and waits for a reload under way. */
  async close(): Promise<void> {
    this.events.close();
    await this.state.settled();
  }

  #allowedHosts(port: number | undefined): Set<string> {
    return new Set([...this.#hostnames].map((name) => `${name}:${port}`));
  }

  #barFacts(): BarFacts {
    const { data, templatesLabel } = this.#options;
    return {
      projects: data.projects,
      templatesLabel,
      dataKind: data.kind,
      period: data.period,
      version: this.state.version,
      reloadedAt: this.state.reloadedAt,
    };
  }

  #parseQuery(url: URL): PageQuery {
    const { data } = this.#options;
    const projectText = url.searchParams.get('project');
    let projectId = this.#defaultProject;
    if (projectText !== null && projectText !== '') {
      if (!/^\d{1,9}$/.test(projectText)) throw new HttpError(400, `"project" must be a project id (a whole number), not "${projectText.slice(0, 40)}".`);
      projectId = Number(projectText);
      if (!this.#knownIds.has(projectId)) throw new HttpError(404, `Project ${projectId} is not in ${data.description}.`);
    }
    if (projectId === null) throw new HttpError(404, `No project in ${data.description}.`);
    const languageText = url.searchParams.get('language');
    let language = this.#options.language;
    if (languageText !== null && languageText !== '') {
      if (!(LANGUAGES as readonly string[]).includes(languageText)) {
        throw new HttpError(400, `"language" must be one of ${LANGUAGES.join(', ')}, not "${languageText.slice(0, 20)}".`);
      }
      language = languageText;
    }
    return { projectId, language };
  }

  async #page(url: URL, made: 'page' | 'email'): Promise<PreviewAnswer> {
    const nonce = randomBytes(16).toString('base64');
    let query: PageQuery | null = null;
    try {
      query = this.#parseQuery(url);
      const current = query;
      const html = (await this.#queued(this.#renders, () => this.#render(current, made))).toString('utf8');
      const bar = previewBar(this.#barFacts(), query, nonce, null, made === 'email' ? '/email' : '/');
      return reply(200, 'text/html; charset=utf-8', withPreviewBar(html, bar), { 'Content-Security-Policy': pagePolicy(nonce) });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      return reply(status, 'text/html; charset=utf-8', errorPage(this.#barFacts(), status, describeProblem(error), query, nonce), {
        'Content-Security-Policy': pagePolicy(nonce),
      });
    }
  }

  async #pdf(url: URL): Promise<PreviewAnswer> {
    try {
      const query = this.#parseQuery(url);
      const key = `${this.state.version}:${query.projectId}:${query.language ?? ''}`;
      let pdf = this.#pdfInFlight.get(key);
      if (pdf === undefined) {
        pdf = this.#queued(this.#prints, async () => {
          const started = performance.now();
          const bytes = await this.#render(query, 'pdf');
          this.#log(`Printed the PDF of project ${query.projectId} in ${Math.round(performance.now() - started)} ms.`);
          return bytes;
        }).finally(() => this.#pdfInFlight.delete(key));
        this.#pdfInFlight.set(key, pdf);
      }
      const bytes = await pdf;
      return reply(200, 'application/pdf', bytes, { 'Content-Disposition': `inline; filename="report-${query.projectId}-${this.#options.data.period}.pdf"` });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      return text(status, `${describeProblem(error)}\n`);
    }
  }

  #queued<T>(limit: ReturnType<typeof pLimit>, work: () => Promise<T>): Promise<T> {
    if (limit.pendingCount >= MAX_WAITING) return Promise.reject(new HttpError(503, 'The preview is busy; try again in a moment.'));
    return limit(work);
  }

  /**
   * The batch's steps into a folder of this request's own, then removed: the PDF read back from it, or the page
   * as the printer gets it (report.html with its fonts linked, here to /fonts/ so the browser keeps them).
   */
  async #render(query: PageQuery, made: 'page' | 'pdf' | 'email'): Promise<Buffer> {
    const { data: source, workDir, printer } = this.#options;
    const current = this.state.renderSetup();
    const config = query.language === undefined ? current.config : configInLanguage(current.config, query.language);
    const data = await source.load(query.projectId, config);
    const periodDir = await mkdtemp(join(workDir, 'render-'));
    try {
      const work = await runSteps(
        data,
        { config, period: source.period, periodDir, renderer: current.renderer, printer, branding: current.branding, clock: this.#clock },
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
  }
}

/** The addresses that listen on every interface: what reaches the machine reaches the preview. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The names a request to the preview may give as its Host: loopback's, the address it listens on, and for a
 * wildcard bind this machine's own names and addresses. A name of another site (DNS rebinding, a forged Host) is
 * none of them.
 */
export function servedHostnames(host: string, names: () => string[]): Set<string> {
  const served = ['127.0.0.1', 'localhost', '[::1]', hostForUrl(host), ...(WILDCARD_HOSTS.has(host) ? names().map(hostForUrl) : [])];
  return new Set(served.map((name) => name.toLowerCase()));
}

/** This machine's name and the addresses of its interfaces. */
function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
  return [hostname(), ...addresses];
}

/** A host as written in a URL: an IPv6 address in brackets. */
export function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
