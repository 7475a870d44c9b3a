// A page sealed once for all the reports it prints (no JavaScript, offline, every request filtered to what the
// report may load), and the pool that keeps such pages between reports.
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CDPSession, HTTPRequest, Page, Protocol } from 'puppeteer-core';
import type { BrowserSession } from './session.js';
import type { PrintAsset } from '../html.js';
import { withTimeout } from './time-limit.js';

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

/** What the report being printed lets its page load; whatever else the page asks for is listed in `blocked`. */
export interface PageAllowance {
  /** Files inside this folder (the report's own); null for none, when the report was handed over as content. */
  folder: string | null;
  /** Answered from memory, nothing fetched. */
  assets: ReadonlyMap<string, PrintAsset> | undefined;
  blocked: string[];
}

/** Bytes asked per IO.read: base64 of 48 KB stays under V8's 128 KB large-object threshold. */
const PDF_READ_CHUNK = 48 * 1024;
const PAGE_CLOSE_LIMIT_MS = 5_000;

export class SealedPage {
  readonly #page: Page;
  /** The page's own DevTools session and main frame, to hand it a document as content and print it. */
  readonly #cdp: CDPSession;
  readonly #frameId: string;
  /** The report the page is printing; null between reports, when every request is refused. */
  #allowance: PageAllowance | null = null;

  private constructor(page: Page, cdp: CDPSession, frameId: string) {
    this.#page = page;
    this.#cdp = cdp;
    this.#frameId = frameId;
  }

  /** A new page of `session`, sealed: no JavaScript, offline, every request filtered. */
  static async open(session: BrowserSession, onCrash: (error: Error) => void): Promise<SealedPage> {
    const page = await session.newPage();
    // Watched from the start: a renderer that dies while the page is being sealed leaves those calls unanswered.
    page.once('error', onCrash);
    const cdp = await page.createCDPSession();
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const sealed = new SealedPage(page, cdp, frameTree.frame.id);
    await page.setJavaScriptEnabled(false);
    await page.setOfflineMode(true);
    await page.setRequestInterception(true);
    page.on('request', (request: HTTPRequest) => sealed.#filter(request));
    return sealed;
  }

  #filter(request: HTTPRequest): void {
    if (request.isInterceptResolutionHandled()) return;
    const url = request.url();
    const allowance = this.#allowance;
    const asset = allowance?.assets?.get(url);
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
    } else if (allowance !== null && isAllowedResource(url, allowance.folder)) {
      void request.continue().catch(() => undefined);
    } else {
      allowance?.blocked.push(url);
      void request.abort('blockedbyclient').catch(() => undefined);
    }
  }

  /** Tells `onCrash` when the page's renderer dies; unwatch() stops it. */
  watch(onCrash: (error: Error) => void): void {
    this.#page.once('error', onCrash);
  }

  unwatch(onCrash: (error: Error) => void): void {
    this.#page.off('error', onCrash);
  }

  /**
   * Loads a report under `allowance`: `content` replaces the page's document when given, else the page opens
   * `htmlPath` itself. Until forget(), the page may load what the allowance names and nothing else.
   */
  async load(htmlPath: string, content: string | null, allowance: PageAllowance): Promise<void> {
    this.#allowance = allowance;
    if (content !== null) await this.#setDocument(content);
    else await this.#page.goto(pathToFileURL(resolve(htmlPath)).href, { waitUntil: 'load', timeout: 0 });
  }

  /** Ends the report's allowance: the page refuses every request until the next load(). */
  forget(): void {
    this.#allowance = null;
  }

  /**
   * Replaces the page's document with `html` and waits for its load event: no navigation, so no new frame,
   * no file to fetch, and the page's renderer and Puppeteer's frame bookkeeping are reused.
   */
  async #setDocument(html: string): Promise<void> {
    let onLoad: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => {
      onLoad = resolve;
    });
    // A renderer that crashes never fires load: the print's crash watch ends the wait.
    this.#page.once('load', onLoad);
    try {
      await this.#cdp.send('Page.setDocumentContent', { frameId: this.#frameId, html });
      await loaded;
    } finally {
      this.#page.off('load', onLoad);
    }
  }

  /** What page.pdf() does with the same request, the PDF read back in chunks small enough for Node's young heap. */
  async print(request: Protocol.Page.PrintToPDFRequest): Promise<Buffer[]> {
    // As page.pdf() does: web fonts still loading would print in a fallback face.
    await this.#page.evaluate(() => document.fonts.ready.then(() => undefined));
    const { stream } = await this.#cdp.send('Page.printToPDF', request);
    if (stream === undefined) throw new Error('Chromium returned no PDF stream');
    const chunks: Buffer[] = [];
    try {
      for (;;) {
        const { data, base64Encoded, eof } = await this.#cdp.send('IO.read', { handle: stream, size: PDF_READ_CHUNK });
        chunks.push(Buffer.from(data, base64Encoded === true ? 'base64' : 'utf8'));
        if (eof) break;
      }
    } finally {
      await this.#cdp.send('IO.close', { handle: stream }).catch(() => undefined);
    }
    return chunks;
  }

  /**
   * The element `selector` matches, as a PNG drawn at `scale` device pixels per CSS pixel, on a transparent
   * background: a vector image (an SVG logo) drawn sharp for screens that have two pixels to a point.
   */
  async picture(selector: string, scale: number): Promise<Buffer> {
    await this.#page.setViewport({ width: 800, height: 600, deviceScaleFactor: scale });
    const element = await this.#page.$(selector);
    if (element === null) throw new Error(`nothing on the page matches ${selector}`);
    try {
      return Buffer.from(await element.screenshot({ type: 'png', omitBackground: true }));
    } finally {
      await element.dispose();
    }
  }

  /** False when the page would not close in time: its renderer is wedged. */
  async close(): Promise<boolean> {
    try {
      await withTimeout(this.#page.close(), PAGE_CLOSE_LIMIT_MS, () => new Error('page close timed out'));
      return true;
    } catch {
      return false;
    }
  }
}

/** The sealed pages of one browser session: idle ones wait there for the next report while the session lasts. */
export class SealedPagePool {
  readonly #session: BrowserSession;
  #idle: SealedPage[] = [];
  #retired = false;

  constructor(session: BrowserSession) {
    this.#session = session;
  }

  /** An idle page, or a newly sealed one; `onCrash` hears of its renderer's death either way. */
  async take(onCrash: (error: Error) => void): Promise<SealedPage> {
    const idle = this.#idle.pop();
    if (idle === undefined) return SealedPage.open(this.#session, onCrash);
    idle.watch(onCrash);
    return idle;
  }

  /**
   * A page back after its report: kept for the next one when it printed cleanly and its session keeps pages and
   * lasts, closed otherwise. False when it would not close (a wedged renderer: the browser needs replacing).
   */
  async giveBack(page: SealedPage, onCrash: (error: Error) => void, printed: boolean): Promise<boolean> {
    page.unwatch(onCrash);
    page.forget();
    if (printed && !this.#retired && this.#session.keepsPages && this.#session.isConnected()) {
      this.#idle.push(page);
      return true;
    }
    // Gone with its browser (or its connection): nothing left to close.
    if (!this.#session.isConnected()) return true;
    return page.close();
  }

  /** The session is ending or gone: its idle pages go with it, and no page is kept from now on. */
  retire(): void {
    this.#retired = true;
    this.#idle = [];
  }
}
