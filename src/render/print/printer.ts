// The printer: one browser session for the whole run turns each report.html into report.pdf on sealed pages, a few
// reports at a time, the browser replaced when it goes away and recycled every so many reports.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { PDFOptions, Protocol } from 'puppeteer-core';
import { errorMessage } from '../../errors.js';
import type { Language } from '../../report/model.js';
import { BrowserLostError, PdfPrintError, PdfTimeoutError } from './errors.js';
import { browserSource, type BrowserSession, type BrowserSource, type LocalBrowserOptions, type RemoteBrowserOptions } from './session.js';
import { escapeHtml } from '../escape.js';
import type { PrintAsset } from '../html.js';
import { SealedPage, SealedPagePool } from './sealed-page.js';
import { timerDeadline, withTimeout, type StartDeadline } from './time-limit.js';

export { BrowserConnectError, BrowserLaunchError, BrowserLostError, BrowserStartError, PdfPrintError, PdfTimeoutError } from './errors.js';
export { describeEndpoint, PROFILE_ROOT, profileFolderName, removeStaleProfiles } from './session.js';
export { isAllowedResource } from './sealed-page.js';

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
export type LocalPrinterOptions = PrinterLimits & LocalBrowserOptions;

/** A browser running elsewhere: the printer connects to it and never closes it (see RemoteBrowserOptions). */
export type RemotePrinterOptions = PrinterLimits & RemoteBrowserOptions;

export type PdfPrinterOptions = LocalPrinterOptions | RemotePrinterOptions;

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

/** An element of a page to draw as a PNG (PdfPrinter.picture). */
export interface PictureJob {
  /** What the drawing is, for an error message ("the mail's logo"). */
  label: string;
  /** A self-contained page: it may load data: URLs and nothing else. */
  html: string;
  selector: string;
  /** Device pixels per CSS pixel: 2 for sharp screens. */
  scale: number;
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
/** A browser session and the sealed pages opened on it, replaced together. */
interface OpenBrowser {
  session: BrowserSession;
  pages: SealedPagePool;
}

export class PdfPrinter {
  readonly #limits: Required<PrinterLimits>;
  readonly #source: BrowserSource;
  #open: OpenBrowser | null = null;
  #starting: Promise<OpenBrowser> | null = null;
  #reportsOnBrowser = 0;
  #active = 0;
  #waiting: Array<() => void> = [];
  #closed = false;

  private constructor(options: PdfPrinterOptions) {
    const pages = options.pages ?? 2;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const restartEvery = options.restartEvery ?? 100;
    if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, got ${pages}`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    if (!Number.isInteger(restartEvery) || restartEvery < 1) {
      throw new RangeError(`restartEvery must be a positive integer, got ${restartEvery}`);
    }
    this.#limits = { pages, timeoutMs, restartEvery, startDeadline: options.startDeadline ?? timerDeadline };
    this.#source = browserSource(options);
  }

  /** Starts the one Chromium of the run, or connects to the remote one. */
  static async launch(options: PdfPrinterOptions): Promise<PdfPrinter> {
    const printer = new PdfPrinter(options);
    await printer.#ensureBrowser();
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
    return this.#open?.session.pid ?? null;
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
      if (this.#reportsOnBrowser >= this.#limits.restartEvery) await this.#recycle();
      const open = await this.#ensureBrowser();
      this.#reportsOnBrowser += 1;
      return await this.#printOn(open, job);
    } finally {
      this.#releaseSlot();
    }
  }

  /**
   * Draws an element of a self-contained page as a PNG (see SealedPage.picture) on the run's browser, in a page of
   * its own that is closed after: what it changes (the scale) never reaches a report's print. Sealed like a report:
   * no JavaScript, and data: URLs are all the page may load.
   */
  async picture(job: PictureJob): Promise<Buffer> {
    if (this.#closed) throw new PdfPrintError(`Cannot draw ${job.label}: the browser is closed.`);
    await this.#acquireSlot();
    let page: SealedPage | null = null;
    try {
      const open = await this.#ensureBrowser();
      const onCrash = (): void => undefined;
      const work = (async (): Promise<Buffer> => {
        page = await SealedPage.open(open.session, onCrash);
        await page.load(job.label, job.html, { folder: null, assets: undefined, blocked: [] });
        return page.picture(job.selector, job.scale);
      })();
      work.catch(() => undefined);
      return await withTimeout(
        work,
        this.#limits.timeoutMs,
        () => new PdfTimeoutError(`Drawing ${job.label} took longer than ${this.#limits.timeoutMs} ms and was stopped.`),
        this.#limits.startDeadline,
      );
    } finally {
      await (page as SealedPage | null)?.close();
      this.#releaseSlot();
    }
  }

  /** Kills the local Chromium, or leaves the remote one (its pages closed, the browser running). Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    if (starting !== null) await starting.catch(() => undefined);
    await this.#endBrowser();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #printOn({ session, pages }: OpenBrowser, job: Omit<PrintJob, 'pdfPath'>): Promise<{ pdf: Buffer[]; blockedRequests: string[] }> {
    const blockedRequests: string[] = [];
    let page: SealedPage | null = null;
    // Rejected when the browser goes away or the page's renderer crashes: DevTools may never answer then.
    let onLost: (reason: Error) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      onLost = reject;
    });
    const onCrash = (error: Error): void => onLost(new Error(`the page crashed (${error.message})`));
    const work = (async (): Promise<Buffer[]> => {
      page = await pages.take(onCrash);
      // A browser that cannot read our files gets the self-contained HTML over the connection.
      const content = job.html ?? (session.readsLocalFiles ? null : await readFile(job.htmlPath, 'utf8'));
      const folder = content === null ? dirname(resolve(job.htmlPath)) : null;
      await page.load(job.htmlPath, content, { folder, assets: job.assets, blocked: blockedRequests });
      return page.print(printToPdfRequest(job));
    })();
    const stopWatching = session.onDisconnected(() => onLost(new Error('browser disconnected')));
    if (!session.isConnected()) onLost(this.#lostError(session, job));
    let printed = false;
    try {
      const pdf = await withTimeout(
        Promise.race([work, lost]),
        this.#limits.timeoutMs,
        () =>
          new PdfTimeoutError(`Printing ${job.htmlPath} took longer than ${this.#limits.timeoutMs} ms and was stopped.`, {
            hint: 'The report may be unusually large; raise the PDF timeout or check the HTML.',
          }),
        this.#limits.startDeadline,
      );
      printed = true;
      return { pdf, blockedRequests };
    } catch (e) {
      // Let the abandoned work settle quietly once its page is gone.
      work.catch(() => undefined);
      if (e instanceof PdfPrintError) throw e;
      if (!session.isConnected()) throw this.#lostError(session, job, e);
      throw new PdfPrintError(`Printing ${job.htmlPath} failed: ${errorMessage(e)}`, { cause: e });
    } finally {
      stopWatching();
      const used = page as SealedPage | null;
      // A page that will not close means a wedged renderer: start over with a fresh browser next time.
      if (used !== null && !(await pages.giveBack(used, onCrash, printed)) && this.#open?.session === session) {
        this.#reportsOnBrowser = this.#limits.restartEvery;
      }
    }
  }

  /** Why a report failed when its browser went away, in words that say what happens next. */
  #lostError(session: BrowserSession, job: Pick<PrintJob, 'htmlPath'>, cause?: unknown): PdfPrintError {
    const options = cause === undefined ? {} : { cause };
    if (this.#closed) return new PdfPrintError(`Printing ${job.htmlPath} stopped: the PDF printer was closed.`, options);
    return new BrowserLostError(`Printing ${job.htmlPath} failed: ${session.loss.reason}.`, { ...options, hint: session.loss.hint });
  }

  async #acquireSlot(): Promise<void> {
    // Each wake-up follows a finished print, so the loop ends within the number of queued reports.
    while (!this.#closed && !this.#canStart()) {
      await new Promise<void>((wake) => this.#waiting.push(wake));
    }
    this.#active += 1;
  }

  #canStart(): boolean {
    if (this.#active >= this.#limits.pages) return false;
    // A recycle waits for the prints still running on the old browser.
    return !(this.#reportsOnBrowser >= this.#limits.restartEvery && this.#active > 0);
  }

  #releaseSlot(): void {
    this.#active -= 1;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #recycle(): Promise<void> {
    await this.#endBrowser();
    this.#reportsOnBrowser = 0;
  }

  async #ensureBrowser(): Promise<OpenBrowser> {
    if (this.#open !== null && this.#open.session.isAlive()) return this.#open;
    if (this.#open !== null) await this.#endBrowser();
    if (this.#starting === null) {
      this.#starting = this.#startBrowser().finally(() => {
        this.#starting = null;
      });
    }
    return this.#starting;
  }

  async #startBrowser(): Promise<OpenBrowser> {
    const session = await this.#source.start();
    const open: OpenBrowser = { session, pages: new SealedPagePool(session) };
    // A crashed browser or a lost connection is replaced on the next print (the prints in flight hear of it too).
    session.onDisconnected(() => {
      if (this.#open !== open) return;
      this.#open = null;
      open.pages.retire();
      this.#reportsOnBrowser = 0;
    });
    this.#open = open;
    this.#reportsOnBrowser = 0;
    return open;
  }

  async #endBrowser(): Promise<void> {
    const open = this.#open;
    this.#open = null;
    if (open === null) return;
    open.pages.retire();
    await open.session.close();
  }
}
