// The browser the printer talks to, behind one interface: a Chromium it starts on this machine, or a remote one
// (a DevTools endpoint) it only connects to. The choice is made once, here; nothing past it asks which it is.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { errorMessage } from '../../errors.js';
import { processExists } from '../../process-alive.js';
import { chromiumArgs, headlessModeFor, type HeadlessMode } from './browser.js';
import { BrowserConnectError, BrowserLaunchError } from './errors.js';
import { withTimeout } from './time-limit.js';

/** A Chromium on this machine, started and killed by the printer. */
export interface LocalBrowserOptions {
  executablePath: string;
  /** @default 'shell' for a headless-shell binary, else true (new headless) */
  headless?: HeadlessMode;
  /** @default puppeteer.launch */
  launch?: typeof puppeteer.launch;
  /** Folder holding the profile of each browser the printer starts. @default <os temp folder>/geo-reports-chromium-<user id> */
  profileRoot?: string;
  /** False to start Chromium with --no-sandbox (GEO_REPORTS_CHROMIUM_SANDBOX=off). @default true */
  sandbox?: boolean;
  browserWSEndpoint?: undefined;
}

/**
 * A browser running elsewhere (a browser pool, or a Chrome started with --remote-debugging-port): the printer
 * connects to it, hands each report over as content, closes the pages it opened, and never closes the browser.
 */
export interface RemoteBrowserOptions {
  /** The browser's DevTools WebSocket URL: ws://host:port/devtools/browser/<id>. */
  browserWSEndpoint: string;
  /** @default puppeteer.connect */
  connect?: typeof puppeteer.connect;
  executablePath?: undefined;
}

/** One browser the printer talks to, from its start (or connection) to its end. */
export interface BrowserSession {
  /** Process id of a local Chromium while it runs; null for a remote browser, whose process is not ours. */
  readonly pid: number | null;
  /** The browser can read this machine's files: a report may be loaded from its file, else it travels as content. */
  readonly readsLocalFiles: boolean;
  /** Pages are kept for the next reports; on a browser shared with others each page is closed after its report. */
  readonly keepsPages: boolean;
  /** Why a report failed when this browser went away, and what the next reports do about it. */
  readonly loss: { reason: string; hint: string };
  isConnected(): boolean;
  /** Connected and, for a local browser, its process still running: a killed Chromium can look connected for a moment. */
  isAlive(): boolean;
  /** A new page: in the local browser, or in our own context on the remote one. */
  newPage(): Promise<Page>;
  /** Calls `listener` once the connection ends, whether the browser went away or close() ended it; returns its removal. */
  onDisconnected(listener: () => void): () => void;
  /** Ends the session: kills a local browser and removes its profile; leaves a remote one running, without our context. */
  close(): Promise<void>;
}

/** Where the printer's browsers come from: chosen once, asked for a new session at start and after each loss. */
export interface BrowserSource {
  /** A fresh Chromium, or a fresh connection: throws BrowserLaunchError or BrowserConnectError. */
  start(): Promise<BrowserSession>;
}

/** The source the options name: the remote browser when they give its endpoint, else a Chromium of ours. */
export function browserSource(options: LocalBrowserOptions | RemoteBrowserOptions): BrowserSource {
  return options.browserWSEndpoint === undefined ? new LocalBrowser(options) : new RemoteBrowser(options);
}

/** The endpoint as it may be shown: no credentials, no query (browser pools take their token there). */
export function describeEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'the remote browser endpoint';
  }
}

const BROWSER_CLOSE_LIMIT_MS = 3_000;
const CONNECT_LIMIT_MS = 30_000;

/**
 * The temp folder's name: the tool's, and the user's id where the temp folder is shared by every user (Linux,
 * macOS), so that one user's folder does not refuse another's browsers; Windows's temp folder is the user's own.
 */
export function profileFolderName(uid: number | null = process.getuid?.() ?? null): string {
  return uid === null ? 'geo-reports-chromium' : `geo-reports-chromium-${uid}`;
}

/** The temp folder holding the profile of each Chromium the tool starts. */
export const PROFILE_ROOT = join(tmpdir(), profileFolderName());

/**
 * A new profile folder for one browser, `<root>/<pid>-<random>`: the pid of the process that starts the browser
 * tells a folder in use from one a killed run left behind.
 */
async function newProfile(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 });
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

/** Listeners of a browser's 'disconnected' event, each told once. */
function disconnectListeners(browser: Browser): (listener: () => void) => () => void {
  const listeners = new Set<() => void>();
  browser.once('disconnected', () => {
    for (const listener of [...listeners]) listener();
  });
  return (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
}

/** Starts each session's Chromium on this machine, with a profile of its own. */
class LocalBrowser implements BrowserSource {
  readonly #executablePath: string;
  readonly #headless: HeadlessMode;
  readonly #launch: typeof puppeteer.launch;
  readonly #profileRoot: string;
  readonly #sandbox: boolean;
  #swept = false;

  constructor(options: LocalBrowserOptions) {
    this.#executablePath = options.executablePath;
    this.#headless = options.headless ?? headlessModeFor(options.executablePath);
    this.#launch = options.launch ?? puppeteer.launch.bind(puppeteer);
    this.#profileRoot = options.profileRoot ?? PROFILE_ROOT;
    this.#sandbox = options.sandbox ?? true;
  }

  async start(): Promise<BrowserSession> {
    if (!this.#swept) {
      this.#swept = true;
      // Profiles that killed runs left behind go before this run adds its own.
      await removeStaleProfiles(this.#profileRoot).catch(() => 0);
    }
    // A profile of its own, in a folder of ours: Puppeteer's own temp profile would outlive a killed browser.
    const profile = await newProfile(this.#profileRoot);
    try {
      const browser = await this.#launch({
        executablePath: this.#executablePath,
        headless: this.#headless,
        userDataDir: profile,
        // Talk over stdio pipes: no DevTools port is opened, not even on loopback.
        pipe: true,
        args: chromiumArgs(undefined, this.#sandbox),
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      return new LocalBrowserSession(browser, profile);
    } catch (e) {
      await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
      // Over pipes, Puppeteer hears no word from a browser that exits at once: its own stderr says why (the sandbox…).
      const said = await this.#complaint();
      throw new BrowserLaunchError(`Could not start Chromium at ${this.#executablePath}${said === '' ? '' : ` (it said: ${said})`}.`, {
        hint: 'Check that the path is a working Chromium/Chrome (try running it with --version).',
        cause: e,
      });
    }
  }

  /** What the browser writes to stderr when started alone (its fatal lines), '' if nothing. */
  async #complaint(): Promise<string> {
    const profile = await newProfile(this.#profileRoot).catch(() => null);
    if (profile === null) return '';
    const headless = this.#headless === 'shell' ? '--headless' : '--headless=new';
    const args = [...chromiumArgs(undefined, this.#sandbox), headless, `--user-data-dir=${profile}`, '--dump-dom', 'about:blank'];
    const stderr = await new Promise<string>((done) => {
      execFile(this.#executablePath, args, { timeout: 10_000, maxBuffer: 1024 * 1024 }, (_error, _stdout, err) => done(err));
    });
    await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    const lines = stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const fatal = lines.filter((line) => /FATAL|ERROR|sandbox|error while loading/i.test(line));
    return (fatal.length > 0 ? fatal : lines).slice(-3).join(' ').slice(0, 400);
  }
}

/** A Chromium of ours: its pages kept between reports, its process killed and its profile removed at the end. */
class LocalBrowserSession implements BrowserSession {
  readonly readsLocalFiles = true;
  readonly keepsPages = true;
  readonly loss = {
    reason: 'Chromium stopped while printing it',
    hint: 'The next reports start a fresh Chromium; run again to print this one (its data is kept).',
  };
  readonly #browser: Browser;
  /** Removed once the browser's process has exited (Chromium writes there until then). */
  readonly #profile: string;
  readonly onDisconnected: (listener: () => void) => () => void;

  constructor(browser: Browser, profile: string) {
    this.#browser = browser;
    this.#profile = profile;
    // Puppeteer stops hearing a dead browser's pipes once it lets go of them: a reset arriving later must not be uncaught.
    for (const stream of browser.process()?.stdio ?? []) stream?.on('error', () => undefined);
    this.onDisconnected = disconnectListeners(browser);
    // A browser that died (or was killed) takes its profile with it once its process has exited.
    this.onDisconnected(() => void this.#removeProfile());
  }

  get pid(): number | null {
    return this.#browser.process()?.pid ?? null;
  }

  isConnected(): boolean {
    return this.#browser.connected;
  }

  isAlive(): boolean {
    const child = this.#browser.process();
    return this.#browser.connected && (child === null || (child.exitCode === null && child.signalCode === null));
  }

  newPage(): Promise<Page> {
    return this.#browser.newPage();
  }

  async close(): Promise<void> {
    const browser = this.#browser;
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
    await this.#removeProfile();
  }

  async #removeProfile(): Promise<void> {
    const child = this.#browser.process();
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((done) => child.once('exit', () => done()));
    }
    await rm(this.#profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** Connects to the remote browser for each session, and clears what a lost connection left there. */
class RemoteBrowser implements BrowserSource {
  readonly #endpoint: string;
  readonly #connect: typeof puppeteer.connect;
  /** Our contexts on the remote browser left behind by a lost connection: disposed once connected again. */
  #stranded: string[] = [];

  constructor(options: RemoteBrowserOptions) {
    this.#endpoint = options.browserWSEndpoint;
    this.#connect = options.connect ?? puppeteer.connect.bind(puppeteer);
  }

  async start(): Promise<BrowserSession> {
    const where = describeEndpoint(this.#endpoint);
    const connecting = this.#connect({ browserWSEndpoint: this.#endpoint });
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
    await this.#disposeStranded(browser);
    let context: BrowserContext;
    try {
      // Our own context: nothing shared with other users of the browser, and one close takes every page we opened.
      context = await browser.createBrowserContext();
    } catch (e) {
      await browser.disconnect().catch(() => undefined);
      throw new BrowserConnectError(`The remote browser at ${where} refused a new browser context: ${errorMessage(e)}`, {
        hint: 'Check that the endpoint is a Chromium DevTools endpoint that allows new contexts.',
        cause: e,
      });
    }
    return new RemoteBrowserSession(browser, context, where, (id) => this.#stranded.push(id));
  }

  /** A context of ours that outlived a lost connection still holds its pages there: disposed of now. */
  async #disposeStranded(browser: Browser): Promise<void> {
    const stranded = this.#stranded.splice(0);
    if (stranded.length === 0) return;
    const disposal = (async (): Promise<void> => {
      const cdp = await browser.target().createCDPSession();
      for (const browserContextId of stranded) {
        await cdp.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
      }
      await cdp.detach();
    })();
    await withTimeout(disposal, BROWSER_CLOSE_LIMIT_MS, () => new Error('context disposal timed out')).catch(() => undefined);
  }
}

/** Our context on a remote browser: each page closed after its report; at the end the context goes, never the browser. */
class RemoteBrowserSession implements BrowserSession {
  readonly pid = null;
  readonly readsLocalFiles = false;
  readonly keepsPages = false;
  readonly loss: { reason: string; hint: string };
  readonly #browser: Browser;
  readonly #context: BrowserContext;
  #closing = false;
  readonly onDisconnected: (listener: () => void) => () => void;

  constructor(browser: Browser, context: BrowserContext, where: string, strand: (contextId: string) => void) {
    this.#browser = browser;
    this.#context = context;
    this.loss = {
      reason: `the connection to the remote browser at ${where} was lost`,
      hint: 'The next reports reconnect; run again to print this one (its data is kept).',
    };
    this.onDisconnected = disconnectListeners(browser);
    // A connection lost before close() leaves our context there: the next connection disposes of it.
    this.onDisconnected(() => {
      if (!this.#closing) strand(context.id as string);
    });
  }

  isConnected(): boolean {
    return this.#browser.connected;
  }

  isAlive(): boolean {
    return this.#browser.connected;
  }

  newPage(): Promise<Page> {
    return this.#context.newPage();
  }

  async close(): Promise<void> {
    this.#closing = true;
    // A remote browser is never closed: only our context goes, then the connection.
    if (this.#browser.connected) {
      await withTimeout(this.#context.close(), BROWSER_CLOSE_LIMIT_MS, () => new Error('context close timed out')).catch(() => undefined);
    }
    await this.#browser.disconnect().catch(() => undefined);
  }
}
