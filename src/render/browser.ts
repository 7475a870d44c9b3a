// Which Chromium prints the PDFs, and how it is started: found on the machine, never downloaded.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GeoReportsError } from '../errors.js';

/** No usable Chromium or Chrome on this machine. */
export class BrowserNotFoundError extends GeoReportsError {}

export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
] as const;

const INSTALL_HINT =
  'Install Chromium (Debian/Ubuntu: `sudo apt-get install -y chromium`) or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium binary.';

export interface FindChromiumOptions {
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default fs.existsSync */
  exists?: (path: string) => boolean;
  /** Home folder holding Puppeteer's cache. @default os.homedir() */
  homeDir?: string;
  /** Lists a folder (Puppeteer's cache of Chrome builds). @default fs.readdirSync, [] when absent */
  listDir?: (path: string) => string[];
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

/**
 * Path of the Chromium that will print: PUPPETEER_EXECUTABLE_PATH when set, then the usual system
 * locations, then the newest build in Puppeteer's cache.
 */
export function findChromium(options: FindChromiumOptions = {}): string {
  const env = options.env ?? process.env;
  const exists = options.exists ?? existsSync;
  const listDir = options.listDir ?? listDirOrEmpty;
  const configured = env['PUPPETEER_EXECUTABLE_PATH'];
  if (configured !== undefined && configured !== '') {
    if (exists(configured)) return configured;
    throw new BrowserNotFoundError(`PUPPETEER_EXECUTABLE_PATH points to ${configured}, which does not exist.`, {
      hint: `Fix or unset PUPPETEER_EXECUTABLE_PATH. ${INSTALL_HINT}`,
    });
  }
  for (const candidate of SYSTEM_CHROMIUM_PATHS) {
    if (exists(candidate)) return candidate;
  }
  const cacheDir = join(options.homeDir ?? homedir(), '.cache', 'puppeteer', 'chrome');
  const builds = listDir(cacheDir).sort(compareBuildsNewestFirst);
  for (const build of builds) {
    const candidate = join(cacheDir, build, 'chrome-linux64', 'chrome');
    if (exists(candidate)) return candidate;
  }
  throw new BrowserNotFoundError(
    `No Chromium found (looked at PUPPETEER_EXECUTABLE_PATH, ${SYSTEM_CHROMIUM_PATHS.join(', ')} and ${cacheDir}).`,
    { hint: INSTALL_HINT },
  );
}

/** Flags for a quiet, offline, headless print server. */
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
