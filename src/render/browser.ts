// Which Chromium prints the PDFs, and how it is started: found on the machine, never downloaded.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { GeoReportsError } from '../errors.js';

/** No usable Chromium or Chrome on this machine. */
export class BrowserNotFoundError extends GeoReportsError {}

/**
 * Chromium's headless shell: the print engine alone, lighter and faster per PDF than the full browser.
 * Debian's `/usr/bin/chromium-headless-shell` is a wrapper that does not exec (killing it would orphan the
 * browser), so the binary it wraps comes first.
 */
export const HEADLESS_SHELL_PATHS = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chrome-headless-shell',
] as const;

export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
] as const;

const INSTALL_HINT =
  'Install the headless shell (Debian: `sudo apt-get install -y chromium-headless-shell`) or the full browser (`sudo apt-get install -y chromium`), or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium binary.';

/** Puppeteer's headless modes: 'shell' for the headless shell, true (new headless) for the full browser. */
export type HeadlessMode = true | 'shell';

/** The Chromium that prints, and how Puppeteer must start it. */
export interface BrowserChoice {
  executablePath: string;
  headless: HeadlessMode;
}

export interface FindChromiumOptions {
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default fs.existsSync */
  exists?: (path: string) => boolean;
  /** Home folder holding Puppeteer's cache. @default os.homedir() */
  homeDir?: string;
  /** Lists a folder (Puppeteer's cache of Chrome builds). @default fs.readdirSync, [] when absent */
  listDir?: (path: string) => string[];
  /** Look for the headless shell before the full browser; false for the full browser only. @default true */
  headlessShell?: boolean;
}

const listDirOrEmpty = (path: string): string[] => {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
};

/** Orders Puppeteer's cache folders ("linux-131.0.6778.85") newest build first. */
function compareBuildsNewestFirst(a: string, b: string): number {
  const version = (name: string): number[] => (name.match(/\d+/g) ?? []).map(Number);
  const va = version(a);
  const vb = version(b);
  for (let i = 0; i < Math.max(va.length, vb.length); i += 1) {
    const diff = (vb[i] ?? 0) - (va[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return b.localeCompare(a);
}

/** 'shell' for a headless-shell binary (it has no new headless mode), true for a full Chrome/Chromium. */
export function headlessModeFor(executablePath: string): HeadlessMode {
  return /headless[-_]shell/i.test(basename(executablePath)) ? 'shell' : true;
}

/**
 * The Chromium that will print: PUPPETEER_EXECUTABLE_PATH when set; then the headless shell (system
 * package, then Puppeteer's cache); then the full browser (system locations, then Puppeteer's cache).
 */
export function findBrowser(options: FindChromiumOptions = {}): BrowserChoice {
  const env = options.env ?? process.env;
  const exists = options.exists ?? existsSync;
  const listDir = options.listDir ?? listDirOrEmpty;
  const found = (executablePath: string): BrowserChoice => ({ executablePath, headless: headlessModeFor(executablePath) });
  const configured = env['PUPPETEER_EXECUTABLE_PATH'];
  if (configured !== undefined && configured !== '') {
    if (exists(configured)) return found(configured);
    throw new BrowserNotFoundError(`PUPPETEER_EXECUTABLE_PATH points to ${configured}, which does not exist.`, {
      hint: `Fix or unset PUPPETEER_EXECUTABLE_PATH. ${INSTALL_HINT}`,
    });
  }
  const cacheRoot = join(options.homeDir ?? homedir(), '.cache', 'puppeteer');
  const newestInCache = (product: string, binary: string): string | null => {
    const dir = join(cacheRoot, product);
    for (const build of listDir(dir).sort(compareBuildsNewestFirst)) {
      const candidate = join(dir, build, binary);
      if (exists(candidate)) return candidate;
    }
    return null;
  };
  const shell = options.headlessShell ?? true;
  const looked: string[] = [];
  if (shell) {
    for (const candidate of HEADLESS_SHELL_PATHS) if (exists(candidate)) return found(candidate);
    const cached = newestInCache('chrome-headless-shell', join('chrome-headless-shell-linux64', 'chrome-headless-shell'));
    if (cached !== null) return found(cached);
    looked.push(...HEADLESS_SHELL_PATHS, join(cacheRoot, 'chrome-headless-shell'));
  }
  for (const candidate of SYSTEM_CHROMIUM_PATHS) if (exists(candidate)) return found(candidate);
  const cached = newestInCache('chrome', join('chrome-linux64', 'chrome'));
  if (cached !== null) return found(cached);
  looked.push(...SYSTEM_CHROMIUM_PATHS, join(cacheRoot, 'chrome'));
  throw new BrowserNotFoundError(`No Chromium found (looked at PUPPETEER_EXECUTABLE_PATH, ${looked.join(', ')}).`, {
    hint: INSTALL_HINT,
  });
}

/** Path of the Chromium that will print (see findBrowser for the order). */
export function findChromium(options: FindChromiumOptions = {}): string {
  return findBrowser(options).executablePath;
}

/** Flags for every Chromium the tool starts; see chromiumArgs() for the sandbox. */
export const CHROMIUM_ARGS: string[] = [
  '--disable-background-networking',
  // DNS prefetch happens below request interception: off, so no name is ever looked up for a report.
  '--dns-prefetch-disable',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-breakpad',
  '--metrics-recording-only',
  '--no-default-browser-check',
  '--no-first-run',
  '--no-pings',
  '--disable-gpu',
  // /dev/shm is 64 MB in Docker: large reports would crash the renderer.
  '--disable-dev-shm-usage',
  // Same glyph positions on every machine, so PDFs do not drift between hosts.
  '--font-render-hinting=none',
  '--mute-audio',
  '--hide-scrollbars',
];

/**
 * CHROMIUM_ARGS, plus --no-sandbox only as root, where Chromium refuses its sandbox (containers, CI);
 * as any other user the renderer keeps its sandbox.
 */
export function chromiumArgs(uid: number | undefined = process.getuid?.()): string[] {
  return uid === 0 ? ['--no-sandbox', ...CHROMIUM_ARGS] : [...CHROMIUM_ARGS];
}
