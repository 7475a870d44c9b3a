// One Chromium for the whole run turns each report.html into report.pdf, sealed off from the network: a local
// one it starts itself, or a remote one (a DevTools endpoint) it only connects to.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page, PDFOptions, Protocol } from 'puppeteer-core';
import { ConfigError, errorMessage } from '../errors.js';
import { processExists } from '../process-alive.js';
import type { Language } from '../report/model.js';
import { chromiumArgs, headlessModeFor, type HeadlessMode } from './browser.js';
import { escapeHtml } from './escape.js';
import type { PrintAsset } from './html.js';
import { timerDeadline, withTimeout, type StartDeadline } from './time-limit.js';

import { BrowserConnectError, BrowserLaunchError, BrowserLostError, PdfPrintError, PdfTimeoutError } from './browser-errors.js';

export { BrowserConnectError, BrowserLaunchError, BrowserLostError, PdfPrintError, PdfTimeoutError } from './browser-errors.js';
/** The browser would not start or print a blank page before the run: exit 2, the machine needs a fix first. */
export class BrowserStartError extends ConfigError {}

interface PrinterLimits {
  /** Reports printed at the same time, each in its own page. @default 2 */
  pages?: number;
  /** Hard limit per report, load + print. @default 60_000 */
  timeoutMs?: number;
  /** Start a fresh Chromium (or a fresh connection) after this many reports, bounding its memory. @default 100 */
  restartEvery?: number;
  /** Starts the limit of one report: calls `expire` after `ms` unless the returned function cancels it. @default setTimeout */
  startDeadline?: StartDeadline;
}

/** A Chromium on this machine, started and killed by the printer. */
export interface LocalPrinterOptions extends PrinterLimits {
  executablePath: string;
  /** @default 'shell' for a headless-shell binary, else true (new headless) */
  headless?: HeadlessMode;
  /** @default puppeteer.launch */
  launch?: typeof puppeteer.launch;
  /** Folder holding the profile of each browser the printer starts. @default <os temp folder>/geo-reports-chromium */
  profileRoot?: string;
  /** False to start Chromium with --no-sandbox (GEO_REPORTS_CHROMIUM_SANDBOX=off). @default true */
  sandbox?: boolean;
  browserWSEndpoint?: undefined;
}

/**
 * A browser running elsewhere (a browser pool, or a Chrome started with --remote-debugging-port): the printer
 * connects to it, hands each report over as content, closes the pages it opened, and never closes the browser.
 */
export interface RemotePrinterOptions extends PrinterLimits {
  /** The browser's DevTools WebSocket URL: ws://host:port/devtools/browser/<id>. */
  browserWSEndpoint: string;
  /** @default puppeteer.connect */
  connect?: typeof puppeteer.connect;
  executablePath?: undefined;
}

export type PdfPrinterOptions = LocalPrinterOptions | RemotePrinterOptions;

/** The endpoint as it may be shown: no credentials, no query (browser pools take their token there). */
export function describeEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'the remote browser endpoint';
  }
}

export interface PrintJob {
  /** `<dir>/report.html`: the page may read files from `<dir>` and nothing else. */
  htmlPath: string;
  /**
   * The self-contained HTML of `htmlPath`, when the caller has it: printed as content, without a navigation
   * (markedly cheaper), and the page may then load data: URLs only. A remote browser always prints content
   * (read from `htmlPath` when not given).
   */
  html?: string;
  /**
   * Files the page may load besides data: URLs, answered from memory (nothing is fetched): shared assets such
   * as fonts, which a page then decodes once and keeps for the next reports instead of reading them inline.
   */
  assets?: ReadonlyMap<string, PrintAsset>;
  pdfPath: string;
  language: Language;
  /** Left of every page footer (agency footer line). */
  footerText: string;
  /** Right of every page footer, localised, with {page} and {pages} placeholders. */
  pageLabel: string;
}

/**
 * Puppeteer fills `.pageNumber` / `.totalPages` spans in header and footer templates. The footer line wraps onto
 * at most three lines (agency.footer holds up to 300 characters), bottom-aligned with the page label.
 */
export function footerTemplate(footerText: string, pageLabel: string, language: Language): string {
  const label = escapeHtml(pageLabel).replace('{page}', '<span class="pageNumber"></span>').replace('{pages}', '<span class="totalPages"></span>');
  return (
    `<div lang="${escapeHtml(language)}" style="box-sizing:border-box;width:100%;padding:0 14mm;display:flex;justify-content:space-between;align-items:flex-end;` +
    `font-family:Inter,'DejaVu Sans',sans-serif;font-size:7.5pt;line-height:1.3;color:#4b5563;-webkit-print-color-adjust:exact">` +
    `<span style="flex:1 1 auto;min-width:0;overflow:hidden;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;overflow-wrap:anywhere">${escapeHtml(footerText)}</span>` +
    `<span style="flex:none;white-space:nowrap;margin-left:6mm">${label}</span></div>`
  );
}

/** How every report is printed: A4, tagged (title and language in the metadata), page X of Y in the footer. */
export function pdfOptions(job: Pick<PrintJob, 'footerText' | 'pageLabel' | 'language'>): PDFOptions {
  return {
    format: 'A4',
    printBackground: true,
    preferCSSPageSize: true,
    tagged: true,
    outline: true,
    displayHeaderFooter: true,
    headerTemplate: '<span></span>',
    footerTemplate: footerTemplate(job.footerText, job.pageLabel, job.language),
    margin: { top: '16mm', bottom: '18mm', left: '14mm', right: '14mm' },
    timeout: 0,
  };
}

/** Paper sizes and length units as Puppeteer converts them for page.pdf(): the same numbers reach Chromium. */
const PAPER_INCHES = { A4: { width: 8.2677, height: 11.6929 } } as const;
const PIXELS_PER_MM = 3.78;
const PIXELS_PER_INCH = 96;

function inches(length: string | number | undefined): number {
  if (length === undefined) return 0;
  const match = /^(\d+(?:\.\d+)?)mm$/.exec(String(length));
  if (match === null) throw new RangeError(`Print margins are given in mm here, got ${String(length)}`);
  return (Number(match[1]) * PIXELS_PER_MM) / PIXELS_PER_INCH;
}

/**
 * The Page.printToPDF request of pdfOptions(job), as page.pdf() would send it: the printer sends it itself, to
 * read the PDF back in chunks small enough to stay out of Node's large-object space (one 280 KB base64 string
 * per report, several times over, was most of the heap's growth on long runs).
 */
export function printToPdfRequest(job: Pick<PrintJob, 'footerText' | 'pageLabel' | 'language'>): Protocol.Page.PrintToPDFRequest {
  const options = pdfOptions(job);
  const paper = PAPER_INCHES[options.format as keyof typeof PAPER_INCHES];
  return {
    transferMode: 'ReturnAsStream',
    landscape: false,
    displayHeaderFooter: options.displayHeaderFooter ?? false,
    headerTemplate: options.headerTemplate ?? '',
    footerTemplate: options.footerTemplate ?? '',
    printBackground: options.printBackground ?? false,
    scale: 1,
    paperWidth: paper.width,
    paperHeight: paper.height,
    marginTop: inches(options.margin?.top),
    marginBottom: inches(options.margin?.bottom),
    marginLeft: inches(options.margin?.left),
    marginRight: inches(options.margin?.right),
    pageRanges: '',
    preferCSSPageSize: options.preferCSSPageSize ?? false,
    generateTaggedPDF: options.tagged ?? true,
    generateDocumentOutline: options.outline ?? false,
  };
}

/** Bytes asked per IO.read: base64 of 48 KB stays under V8's 128 KB large-object threshold. */
const PDF_READ_CHUNK = 48 * 1024;

/**
 * True when `url` is data: or a file inside `folder` (the report's own folder); with no folder (a remote
 * browser, which cannot read our files) only data: is allowed.
 */
export function isAllowedResource(url: string, folder: string | null): boolean {
  if (url.startsWith('data:')) return true;
  if (folder === null || !url.startsWith('file:')) return false;
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    return false;
  }
  const inside = relative(folder, resolve(path));
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

/** Connected and its process still running: a killed Chromium can look connected for a moment. */
function isAlive(browser: Browser): boolean {
  const child = browser.process();
  return browser.connected && (child === null || (child.exitCode === null && child.signalCode === null));
}

/** The temp folder, named for the tool, holding the profile of each Chromium it starts. */
export const PROFILE_ROOT = join(tmpdir(), 'geo-reports-chromium');

/**
 * A new profile folder for one browser, `<root>/<pid>-<random>`: the pid of the process that starts the browser
 * tells a folder in use from one a killed run left behind.
 */
async function newProfile(root: string): Promise<string> {
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, `${process.pid}-`));
}

/** Removes the profiles of browsers started by processes that are gone (killed, crashed); returns how many. */
export async function removeStaleProfiles(root: string = PROFILE_ROOT, alive: (pid: number) => boolean = processExists): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true, maxRetries: 3 });
    removed += 1;
  }
  return removed;
}

/** One browser the printer talks to, from start (or connection) to end. */
interface Session {
  browser: Browser;
  /** The profile folder of a local browser, removed once it has exited; null for a remote one. */
  profile: string | null;
  /** Our own context on a remote browser: every page we open there lives in it; null on a local one. */
  context: BrowserContext | null;
  /** Prints in flight on this browser, told at once when it goes away so none of them waits for a timeout. */
  readonly inFlight: Set<(reason: Error) => void>;
}

const PAGE_CLOSE_LIMIT_MS = 5_000;
const BROWSER_CLOSE_LIMIT_MS = 3_000;
const CONNECT_LIMIT_MS = 30_000;

interface LocalBrowser {
  executablePath: string;
  headless: HeadlessMode;
  launch: typeof puppeteer.launch;
  profileRoot: string;
  sandbox: boolean;
}

interface RemoteBrowser {
  browserWSEndpoint: string;
  connect: typeof puppeteer.connect;
}

export class PdfPrinter {
  readonly #options: Required<PrinterLimits>;
  readonly #local: LocalBrowser | null;
  readonly #remote: RemoteBrowser | null;
  #session: Session | null = null;
  #starting: Promise<Session> | null = null;
  #reportsOnBrowser = 0;
  #active = 0;
  #waiting: Array<() => void> = [];
  #closed = false;
  /** Sealed pages of the current local browser, idle between reports (a remote browser's pages are closed). */
  #idlePages: Page[] = [];
  /** The report each busy page is printing: its folder bounds what the page may load. */
  readonly #jobs = new Map<Page, { folder: string | null; assets: ReadonlyMap<string, PrintAsset> | undefined; blocked: string[] }>();
  /** Each sealed page's own DevTools session and main frame, to hand it a document as content. */
  readonly #documentTargets = new WeakMap<Page, { cdp: CDPSession; frameId: string }>();
  /** Our contexts on the remote browser left behind by a lost connection: disposed once connected again. */
  #strandedContexts: string[] = [];

  private constructor(options: PdfPrinterOptions) {
    const pages = options.pages ?? 2;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const restartEvery = options.restartEvery ?? 100;
    if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, got ${pages}`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    if (!Number.isInteger(restartEvery) || restartEvery < 1) {
      throw new RangeError(`restartEvery must be a positive integer, got ${restartEvery}`);
    }
    this.#options = { pages, timeoutMs, restartEvery, startDeadline: options.startDeadline ?? timerDeadline };
    if (options.browserWSEndpoint !== undefined) {
      this.#local = null;
      this.#remote = {
        browserWSEndpoint: options.browserWSEndpoint,
        connect: options.connect ?? puppeteer.connect.bind(puppeteer),
      };
    } else {
      this.#remote = null;
      this.#local = {
        executablePath: options.executablePath,
        headless: options.headless ?? headlessModeFor(options.executablePath),
        launch: options.launch ?? puppeteer.launch.bind(puppeteer),
        profileRoot: options.profileRoot ?? PROFILE_ROOT,
        sandbox: options.sandbox ?? true,
      };
    }
  }

  /** Starts the one Chromium of the run, or connects to the remote one. */
  static async launch(options: PdfPrinterOptions): Promise<PdfPrinter> {
    const printer = new PdfPrinter(options);
    // Profiles that killed runs left behind go before this run adds its own.
    if (printer.#local !== null) await removeStaleProfiles(printer.#local.profileRoot).catch(() => 0);
    await printer.#ensureSession();
    return printer;
  }

  /**
   * Prints an empty page and throws away the PDF: the whole chain a report takes (browser, page, renderer, print)
   * proven before the run spends a request on a report it could not print.
   */
  async printBlank(): Promise<void> {
    await this.printToMemory({
      htmlPath: 'a blank page',
      html: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>',
      language: 'en',
      footerText: '',
      pageLabel: '',
    });
  }

  /** Process id of the local Chromium, null when none is running (and always with a remote browser). */
  get browserPid(): number | null {
    return this.#session?.browser.process()?.pid ?? null;
  }

  /**
   * Prints `<dir>/report.html` to pdfPath. Sealed: JavaScript off, offline, and every request that is not
   * data: or a file inside the report's folder is aborted (and listed in `blockedRequests`). A remote browser
   * gets the HTML as content and may load data: URLs only.
   */
  async print(job: PrintJob): Promise<{ blockedRequests: string[] }> {
    const { pdf, blockedRequests } = await this.printToMemory(job);
    // Written beside the target then renamed, so a reader never sees half a PDF.
    const partial = `${job.pdfPath}.partial`;
    try {
      await writeFile(partial, pdf);
      await rename(partial, job.pdfPath);
    } catch (e) {
      await rm(partial, { force: true });
      throw e;
    }
    return { blockedRequests };
  }

  /**
   * Prints as print() does and hands the PDF back, in chunks, for the caller to write: the page is free for the
   * next report while the file is written.
   */
  async printToMemory(job: Omit<PrintJob, 'pdfPath'>): Promise<{ pdf: Buffer[]; blockedRequests: string[] }> {
    if (this.#closed) throw new PdfPrintError(`Cannot print ${job.htmlPath}: the PDF printer is closed.`);
    await this.#acquireSlot();
    try {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may have run while waiting for a slot
      if (this.#closed) throw new PdfPrintError(`Cannot print ${job.htmlPath}: the PDF printer is closed.`);
      if (this.#reportsOnBrowser >= this.#options.restartEvery) await this.#recycle();
      const session = await this.#ensureSession();
      this.#reportsOnBrowser += 1;
      return await this.#printOn(session, job);
    } finally {
      this.#releaseSlot();
    }
  }

  /** Kills the local Chromium, or leaves the remote one (its pages closed, the browser running). Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    if (starting !== null) await starting.catch(() => undefined);
    await this.#endSession();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #printOn(session: Session, job: Omit<PrintJob, 'pdfPath'>): Promise<{ pdf: Buffer[]; blockedRequests: string[] }> {
    const blockedRequests: string[] = [];
    const remote = this.#remote !== null;
    let page: Page | null = null;
    // Rejected when the browser goes away or the page's renderer crashes: DevTools may never answer then.
    let onLost: (reason: Error) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      onLost = reject;
    });
    const onCrash = (error: Error): void => onLost(new Error(`the page crashed (${error.message})`));
    const work = (async (): Promise<Buffer[]> => {
      const idle = remote ? undefined : this.#idlePages.pop();
      idle?.once('error', onCrash);
      page = idle ?? (await this.#sealedPage(session, onCrash));
      // The remote browser cannot read our files: the self-contained HTML travels over the connection.
      const content = job.html ?? (remote ? await readFile(job.htmlPath, 'utf8') : null);
      this.#jobs.set(page, {
        folder: content === null ? dirname(resolve(job.htmlPath)) : null,
        assets: job.assets,
        blocked: blockedRequests,
      });
      if (content !== null) await this.#setDocument(page, content);
      else await page.goto(pathToFileURL(resolve(job.htmlPath)).href, { waitUntil: 'load', timeout: 0 });
      return this.#printToPdf(page, job);
    })();
    session.inFlight.add(onLost);
    if (!session.browser.connected) onLost(this.#lostError(job));
    let reusable = false;
    try {
      const pdf = await withTimeout(
        Promise.race([work, lost]),
        this.#options.timeoutMs,
        () =>
          new PdfTimeoutError(`Printing ${job.htmlPath} took longer than ${this.#options.timeoutMs} ms and was stopped.`, {
            hint: 'The report may be unusually large; raise the PDF timeout or check the HTML.',
          }),
        this.#options.startDeadline,
      );
      reusable = true;
      return { pdf, blockedRequests };
    } catch (e) {
      // Let the abandoned work settle quietly once its page is gone.
      work.catch(() => undefined);
      if (e instanceof PdfPrintError) throw e;
      if (!session.browser.connected) throw this.#lostError(job, e);
      throw new PdfPrintError(`Printing ${job.htmlPath} failed: ${errorMessage(e)}`, { cause: e });
    } finally {
      session.inFlight.delete(onLost);
      const used = page as Page | null;
      if (used !== null) {
        used.off('error', onCrash);
        this.#jobs.delete(used);
        // A local page that printed cleanly is kept for the next report; a failed or remote one is closed.
        if (!remote && reusable && this.#session === session && session.browser.connected) this.#idlePages.push(used);
        else await this.#closePage(used, session);
      }
    }
  }

  /** Why a report failed when its browser went away, in words that say what happens next. */
  #lostError(job: Pick<PrintJob, 'htmlPath'>, cause?: unknown): PdfPrintError {
    const options = cause === undefined ? {} : { cause };
    if (this.#closed) return new PdfPrintError(`Printing ${job.htmlPath} stopped: the PDF printer was closed.`, options);
    if (this.#remote !== null) {
      return new BrowserLostError(
        `Printing ${job.htmlPath} failed: the connection to the remote browser at ${describeEndpoint(this.#remote.browserWSEndpoint)} was lost.`,
        { ...options, hint: 'The next reports reconnect; run again to print this one (its data is kept).' },
      );
    }
    return new BrowserLostError(`Printing ${job.htmlPath} failed: Chromium stopped while printing it.`, {
      ...options,
      hint: 'The next reports start a fresh Chromium; run again to print this one (its data is kept).',
    });
  }

  /** What page.pdf(pdfOptions(job)) does, the PDF read back in small chunks. */
  async #printToPdf(page: Page, job: Omit<PrintJob, 'pdfPath'>): Promise<Buffer[]> {
    const target = this.#documentTargets.get(page);
    if (target === undefined) throw new Error('page was not sealed by this printer');
    // As page.pdf() does: web fonts still loading would print in a fallback face.
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const { stream } = await target.cdp.send('Page.printToPDF', printToPdfRequest(job));
    if (stream === undefined) throw new Error('Chromium returned no PDF stream');
    const chunks: Buffer[] = [];
    try {
      for (;;) {
        const { data, base64Encoded, eof } = await target.cdp.send('IO.read', { handle: stream, size: PDF_READ_CHUNK });
        chunks.push(Buffer.from(data, base64Encoded === true ? 'base64' : 'utf8'));
        if (eof) break;
      }
    } finally {
      await target.cdp.send('IO.close', { handle: stream }).catch(() => undefined);
    }
    return chunks;
  }

  /**
   * Replaces the page's document with `html` and waits for its load event: no navigation, so no new frame,
   * no file to fetch, and the page's renderer and Puppeteer's frame bookkeeping are reused.
   */
  async #setDocument(page: Page, html: string): Promise<void> {
    const target = this.#documentTargets.get(page);
    if (target === undefined) throw new Error('page was not sealed by this printer');
    let onLoad: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => {
      onLoad = resolve;
    });
    // A renderer that crashes never fires load: the print's crash watch ends the wait.
    page.once('load', onLoad);
    try {
      await target.cdp.send('Page.setDocumentContent', { frameId: target.frameId, html });
      await loaded;
    } finally {
      page.off('load', onLoad);
    }
  }

  /** A page sealed once for all the reports it will print: no JavaScript, offline, every request filtered. */
  async #sealedPage(session: Session, onCrash: (error: Error) => void): Promise<Page> {
    const page = await (session.context ?? session.browser).newPage();
    // Watched from the start: a renderer that dies while the page is being sealed leaves those calls unanswered.
    page.once('error', onCrash);
    const cdp = await page.createCDPSession();
    const { frameTree } = await cdp.send('Page.getFrameTree');
    this.#documentTargets.set(page, { cdp, frameId: frameTree.frame.id });
    await page.setJavaScriptEnabled(false);
    await page.setOfflineMode(true);
    await page.setRequestInterception(true);
    page.on('request', (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      const url = request.url();
      const job = this.#jobs.get(page);
      const asset = job?.assets?.get(url);
      if (asset !== undefined) {
        // Immutable for the page's life: the renderer keeps it in its memory cache and never asks again.
        void request
          .respond({
            status: 200,
            contentType: asset.contentType,
            headers: { 'Cache-Control': 'public, max-age=31536000, immutable', 'Access-Control-Allow-Origin': '*' },
            body: Buffer.from(asset.body.buffer, asset.body.byteOffset, asset.body.byteLength),
          })
          .catch(() => undefined);
      } else if (job !== undefined && isAllowedResource(url, job.folder)) {
        void request.continue().catch(() => undefined);
      } else {
        job?.blocked.push(url);
        void request.abort('blockedbyclient').catch(() => undefined);
      }
    });
    return page;
  }

  async #closePage(page: Page, session: Session): Promise<void> {
    // Gone with its browser (or its connection): nothing left to close.
    if (!session.browser.connected) return;
    try {
      await withTimeout(page.close(), PAGE_CLOSE_LIMIT_MS, () => new Error('page close timed out'));
    } catch {
      // A page that will not close means a wedged renderer: start over with a fresh browser next time.
      if (this.#session === session) this.#reportsOnBrowser = this.#options.restartEvery;
    }
  }

  async #acquireSlot(): Promise<void> {
    // Each wake-up follows a finished print, so the loop ends within the number of queued reports.
    while (!this.#closed && !this.#canStart()) {
      await new Promise<void>((wake) => this.#waiting.push(wake));
    }
    this.#active += 1;
  }

  #canStart(): boolean {
    if (this.#active >= this.#options.pages) return false;
    // A recycle waits for the prints still running on the old browser.
    return !(this.#reportsOnBrowser >= this.#options.restartEvery && this.#active > 0);
  }

  #releaseSlot(): void {
    this.#active -= 1;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #recycle(): Promise<void> {
    await this.#endSession();
    this.#reportsOnBrowser = 0;
  }

  async #ensureSession(): Promise<Session> {
    if (this.#session !== null && isAlive(this.#session.browser)) return this.#session;
    if (this.#session !== null) await this.#endSession();
    if (this.#starting === null) {
      this.#starting = this.#startSession().finally(() => {
        this.#starting = null;
      });
    }
    return this.#starting;
  }

  async #startSession(): Promise<Session> {
    const session: Session = this.#remote !== null ? await this.#connect(this.#remote) : await this.#launchLocal(this.#local as LocalBrowser);
    const { browser } = session;
    browser.on('disconnected', () => {
      // A local browser that died (or was killed) takes its profile with it once its process has exited.
      void removeProfile(session);
      // A crashed browser or a lost connection is replaced on the next print; prints in flight fail now.
      if (this.#session === session) {
        this.#session = null;
        this.#idlePages = [];
        this.#reportsOnBrowser = 0;
        if (session.context !== null) this.#strandedContexts.push(session.context.id as string);
      }
      for (const fail of session.inFlight) fail(new Error('browser disconnected'));
    });
    this.#session = session;
    this.#reportsOnBrowser = 0;
    return session;
  }

  async #launchLocal(local: LocalBrowser): Promise<Session> {
    // A profile of its own, in a folder of ours: Puppeteer's own temp profile would outlive a killed browser.
    const profile = await newProfile(local.profileRoot);
    try {
      const browser = await local.launch({
        executablePath: local.executablePath,
        headless: local.headless,
        userDataDir: profile,
        // Talk over stdio pipes: no DevTools port is opened, not even on loopback.
        pipe: true,
        args: chromiumArgs(undefined, local.sandbox),
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      return { browser, profile, context: null, inFlight: new Set() };
    } catch (e) {
      await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
      // Over pipes, Puppeteer hears no word from a browser that exits at once: its own stderr says why (the sandbox…).
      const said = await browserComplaint(local);
      throw new BrowserLaunchError(`Could not start Chromium at ${local.executablePath}${said === '' ? '' : ` (it said: ${said})`}.`, {
        hint: 'Check that the path is a working Chromium/Chrome (try running it with --version).',
        cause: e,
      });
    }
  }

  async #connect(remote: RemoteBrowser): Promise<Session> {
    const where = describeEndpoint(remote.browserWSEndpoint);
    const connecting = remote.connect({ browserWSEndpoint: remote.browserWSEndpoint });
    let browser: Browser;
    try {
      browser = await withTimeout(connecting, CONNECT_LIMIT_MS, () => new Error(`no answer within ${CONNECT_LIMIT_MS / 1000} s`));
    } catch (e) {
      // A connection that completes after the deadline is let go at once.
      connecting.then((late: Browser) => late.disconnect()).catch(() => undefined);
      throw new BrowserConnectError(`Could not connect to the remote browser at ${where}: ${errorMessage(e)}`, {
        hint: 'Check that the browser is running and that --browser-ws-endpoint (or GEO_REPORTS_BROWSER_WS_ENDPOINT, or render.browserWSEndpoint) is its DevTools WebSocket URL, ws://host:port/devtools/browser/<id>.',
        cause: e,
      });
    }
    // A context of ours that outlived a lost connection still holds its pages there: dispose of it now.
    const stranded = this.#strandedContexts.splice(0);
    if (stranded.length > 0) {
      const disposal = (async (): Promise<void> => {
        const cdp = await browser.target().createCDPSession();
        for (const browserContextId of stranded) {
          await cdp.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
        }
        await cdp.detach();
      })();
      await withTimeout(disposal, BROWSER_CLOSE_LIMIT_MS, () => new Error('context disposal timed out')).catch(() => undefined);
    }
    try {
      // Our own context: nothing shared with other users of the browser, and one close takes every page we opened.
      return { browser, profile: null, context: await browser.createBrowserContext(), inFlight: new Set() };
    } catch (e) {
      await browser.disconnect().catch(() => undefined);
      throw new BrowserConnectError(`The remote browser at ${where} refused a new browser context: ${errorMessage(e)}`, {
        hint: 'Check that the endpoint is a Chromium DevTools endpoint that allows new contexts.',
        cause: e,
      });
    }
  }

  async #endSession(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    this.#idlePages = [];
    if (session === null) return;
    if (session.context !== null) {
      // A remote browser is never closed: only our context goes, then the connection.
      if (session.browser.connected) {
        await withTimeout(session.context.close(), BROWSER_CLOSE_LIMIT_MS, () => new Error('context close timed out')).catch(() => undefined);
      }
      await session.browser.disconnect().catch(() => undefined);
      return;
    }
    const { browser } = session;
    const child = browser.process();
    const exited = child !== null && (child.exitCode !== null || child.signalCode !== null);
    if (!exited && browser.connected) {
      try {
        await withTimeout(browser.close(), BROWSER_CLOSE_LIMIT_MS, () => new Error('browser close timed out'));
      } catch {
        // Closing politely failed (hung); the kill below still ends it.
      }
    } else {
      // Already dead: only release the pipe so nothing waits on it.
      await browser.disconnect().catch(() => undefined);
    }
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
      });
    }
    await removeProfile(session);
  }
}

/** Removes a local browser's profile once its process has exited (Chromium writes there until then). */
async function removeProfile(session: Session): Promise<void> {
  if (session.profile === null) return;
  const child = session.browser.process();
  if (child !== null && child.exitCode === null && child.signalCode === null) {
    await new Promise<void>((done) => child.once('exit', () => done()));
  }
  await rm(session.profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/** What a local browser that will not start writes to stderr when started alone (its fatal lines), '' if nothing. */
async function browserComplaint(local: LocalBrowser): Promise<string> {
  const profile = await newProfile(local.profileRoot).catch(() => null);
  if (profile === null) return '';
  const headless = local.headless === 'shell' ? '--headless' : '--headless=new';
  const args = [...chromiumArgs(undefined, local.sandbox), headless, `--user-data-dir=${profile}`, '--dump-dom', 'about:blank'];
  const stderr = await new Promise<string>((done) => {
    execFile(local.executablePath, args, { timeout: 10_000, maxBuffer: 1024 * 1024 }, (_error, _stdout, err) => done(err));
  });
  await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const fatal = lines.filter((line) => /FATAL|ERROR|sandbox|error while loading/i.test(line));
  return (fatal.length > 0 ? fatal : lines).slice(-3).join(' ').slice(0, 400);
}
