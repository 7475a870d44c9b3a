// One Chromium for the whole run turns each report.html into report.pdf, sealed off from the network.
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser, HTTPRequest, Page, PDFOptions } from 'puppeteer-core';
import { GeoReportsError } from '../errors.js';
import type { Language } from '../report/model.js';
import { chromiumArgs } from './browser.js';

/** A report could not be printed; the printer itself stays usable. */
export class PdfPrintError extends GeoReportsError {}
/** A report took longer than the per-report limit to load and print. */
export class PdfTimeoutError extends PdfPrintError {}
/** Chromium could not be started. */
export class BrowserLaunchError extends GeoReportsError {}

export interface PdfPrinterOptions {
  executablePath: string;
  /** Reports printed at the same time, each in its own page. @default 2 */
  pages?: number;
  /** Hard limit per report, load + print. @default 60_000 */
  timeoutMs?: number;
  /** Start a fresh Chromium after this many reports, bounding its memory. @default 100 */
  restartEvery?: number;
  /** @default puppeteer.launch */
  launch?: typeof puppeteer.launch;
  /** Starts the limit of one report: calls `expire` after `ms` unless the returned function cancels it. @default setTimeout */
  startDeadline?: (ms: number, expire: () => void) => () => void;
}

export interface PrintJob {
  /** `<dir>/report.html`: the page may read files from `<dir>` and nothing else. */
  htmlPath: string;
  pdfPath: string;
  language: Language;
  /** Left of every page footer (agency footer line). */
  footerText: string;
  /** Right of every page footer, localised, with {page} and {pages} placeholders. */
  pageLabel: string;
}

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** Puppeteer fills `.pageNumber` / `.totalPages` spans in header and footer templates. */
export function footerTemplate(footerText: string, pageLabel: string, language: Language): string {
  const label = escapeHtml(pageLabel)
    .replace('{page}', '<span class="pageNumber"></span>')
    .replace('{pages}', '<span class="totalPages"></span>');
  return (
    `<div lang="${escapeHtml(language)}" style="box-sizing:border-box;width:100%;padding:0 14mm;display:flex;justify-content:space-between;` +
    `font-family:Inter,'DejaVu Sans',sans-serif;font-size:7.5pt;color:#4b5563;-webkit-print-color-adjust:exact">` +
    `<span style="flex:1 1 auto;min-width:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis">${escapeHtml(footerText)}</span>` +
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

/** True when `url` is data: or a file inside `folder` (the report's own folder). */
export function isAllowedResource(url: string, folder: string): boolean {
  if (url.startsWith('data:')) return true;
  if (!url.startsWith('file:')) return false;
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    return false;
  }
  const inside = relative(folder, resolve(path));
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

const timerDeadline = (ms: number, expire: () => void): (() => void) => {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
};

function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error, startDeadline = timerDeadline): Promise<T> {
  let cancel = (): void => {};
  const deadline = new Promise<never>((_, reject) => {
    cancel = startDeadline(ms, () => reject(onTimeout()));
  });
  return Promise.race([work, deadline]).finally(cancel);
}

/** Connected and its process still running: a killed Chromium can look connected for a moment. */
function isAlive(browser: Browser): boolean {
  const child = browser.process();
  return browser.connected && (child === null || (child.exitCode === null && child.signalCode === null));
}

const PAGE_CLOSE_LIMIT_MS = 5_000;
const BROWSER_CLOSE_LIMIT_MS = 3_000;

export class PdfPrinter {
  readonly #options: Required<PdfPrinterOptions>;
  #browser: Browser | null = null;
  #launching: Promise<Browser> | null = null;
  #reportsOnBrowser = 0;
  #active = 0;
  #waiting: Array<() => void> = [];
  #closed = false;
  /** Sealed pages of the current browser, idle between reports. */
  #idlePages: Page[] = [];
  /** The report each busy page is printing: its folder bounds what the page may load. */
  readonly #jobs = new Map<Page, { folder: string; blocked: string[] }>();

  private constructor(options: PdfPrinterOptions) {
    const pages = options.pages ?? 2;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const restartEvery = options.restartEvery ?? 100;
    if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, got ${pages}`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    if (!Number.isInteger(restartEvery) || restartEvery < 1) {
      throw new RangeError(`restartEvery must be a positive integer, got ${restartEvery}`);
    }
    this.#options = {
      executablePath: options.executablePath,
      pages,
      timeoutMs,
      restartEvery,
      launch: options.launch ?? puppeteer.launch.bind(puppeteer),
      startDeadline: options.startDeadline ?? timerDeadline,
    };
  }

  /** Starts the one Chromium of the run. */
  static async launch(options: PdfPrinterOptions): Promise<PdfPrinter> {
    const printer = new PdfPrinter(options);
    await printer.#ensureBrowser();
    return printer;
  }

  /** Process id of the current Chromium, null when none is running. */
  get browserPid(): number | null {
    return this.#browser?.process()?.pid ?? null;
  }

  /**
   * Prints `<dir>/report.html` to pdfPath. Sealed: JavaScript off, offline, and every request that is not
   * data: or a file inside the report's folder is aborted (and listed in `blockedRequests`).
   */
  async print(job: PrintJob): Promise<{ blockedRequests: string[] }> {
    if (this.#closed) throw new PdfPrintError(`Cannot print ${job.htmlPath}: the PDF printer is closed.`);
    await this.#acquireSlot();
    try {
      if (this.#closed) throw new PdfPrintError(`Cannot print ${job.htmlPath}: the PDF printer is closed.`);
      if (this.#reportsOnBrowser >= this.#options.restartEvery) await this.#recycle();
      const browser = await this.#ensureBrowser();
      this.#reportsOnBrowser += 1;
      return await this.#printOn(browser, job);
    } finally {
      this.#releaseSlot();
    }
  }

  /** Kills Chromium. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const launching = this.#launching;
    if (launching !== null) await launching.catch(() => undefined);
    await this.#killBrowser();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #printOn(browser: Browser, job: PrintJob): Promise<{ blockedRequests: string[] }> {
    const blockedRequests: string[] = [];
    let page: Page | null = null;
    let abandoned = false;
    const work = (async (): Promise<void> => {
      page = this.#idlePages.pop() ?? (await this.#sealedPage(browser));
      this.#jobs.set(page, { folder: dirname(resolve(job.htmlPath)), blocked: blockedRequests });
      await page.goto(pathToFileURL(resolve(job.htmlPath)).href, { waitUntil: 'load', timeout: 0 });
      const pdf = await page.pdf(pdfOptions(job));
      // A report already failed for timing out must not appear afterwards.
      if (abandoned) return;
      // Written beside the target then renamed, so a reader never sees half a PDF.
      const partial = `${job.pdfPath}.partial`;
      try {
        await writeFile(partial, pdf);
        await rename(partial, job.pdfPath);
      } catch (e) {
        await rm(partial, { force: true });
        throw e;
      }
    })();
    let reusable = false;
    try {
      await withTimeout(
        work,
        this.#options.timeoutMs,
        () =>
          new PdfTimeoutError(`Printing ${job.htmlPath} took longer than ${this.#options.timeoutMs} ms and was stopped.`, {
            hint: 'The report may be unusually large; raise the PDF timeout or check the HTML.',
          }),
        this.#options.startDeadline,
      );
      reusable = true;
      return { blockedRequests };
    } catch (e) {
      abandoned = true;
      // Let the abandoned work settle quietly once its page is gone.
      work.catch(() => undefined);
      if (e instanceof PdfPrintError) throw e;
      throw new PdfPrintError(`Printing ${job.htmlPath} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      const used: Page | null = page;
      if (used !== null) {
        this.#jobs.delete(used);
        // A page that printed cleanly is kept for the next report; a failed one is closed.
        if (reusable && this.#browser === browser && browser.connected) this.#idlePages.push(used);
        else await this.#closePage(used);
      }
    }
  }

  /** A page sealed once for all the reports it will print: no JavaScript, offline, every request filtered. */
  async #sealedPage(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setOfflineMode(true);
    await page.setRequestInterception(true);
    page.on('request', (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      const url = request.url();
      const job = this.#jobs.get(page);
      if (job !== undefined && isAllowedResource(url, job.folder)) {
        void request.continue().catch(() => undefined);
      } else {
        job?.blocked.push(url);
        void request.abort('blockedbyclient').catch(() => undefined);
      }
    });
    return page;
  }

  async #closePage(page: Page | null): Promise<void> {
    if (page === null) return;
    const target: Page = page;
    try {
      await withTimeout(target.close(), PAGE_CLOSE_LIMIT_MS, () => new Error('page close timed out'));
    } catch {
      // A page that will not close means a wedged renderer: start over with a fresh browser next time.
      this.#reportsOnBrowser = this.#options.restartEvery;
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
    await this.#killBrowser();
    this.#reportsOnBrowser = 0;
  }

  async #ensureBrowser(): Promise<Browser> {
    if (this.#browser !== null && isAlive(this.#browser)) return this.#browser;
    if (this.#browser !== null) await this.#killBrowser();
    if (this.#launching === null) {
      this.#launching = this.#startBrowser().finally(() => {
        this.#launching = null;
      });
    }
    return this.#launching;
  }

  async #startBrowser(): Promise<Browser> {
    let browser: Browser;
    try {
      browser = await this.#options.launch({
        executablePath: this.#options.executablePath,
        headless: true,
        // Talk over stdio pipes: no DevTools port is opened, not even on loopback.
        pipe: true,
        args: chromiumArgs(),
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (e) {
      throw new BrowserLaunchError(`Could not start Chromium at ${this.#options.executablePath}.`, {
        hint: 'Check that the path is a working Chromium/Chrome (try running it with --version).',
        cause: e,
      });
    }
    browser.on('disconnected', () => {
      // A crashed browser is replaced on the next print.
      if (this.#browser === browser) {
        this.#browser = null;
        this.#idlePages = [];
        this.#reportsOnBrowser = 0;
      }
    });
    this.#browser = browser;
    this.#reportsOnBrowser = 0;
    return browser;
  }

  async #killBrowser(): Promise<void> {
    const browser = this.#browser;
    this.#browser = null;
    this.#idlePages = [];
    if (browser === null) return;
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
  }
}
