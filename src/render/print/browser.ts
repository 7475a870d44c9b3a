// Which Chromium prints the PDFs, and how it is started: found on the machine, never downloaded. One table of
// places per platform (Linux, macOS, Windows), for Chromium, Chrome, Edge and Puppeteer's chrome-headless-shell.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32, type PlatformPath } from 'node:path';
import { GeoReportsError } from '../../errors.js';

/** No usable Chromium or Chrome on this machine. */
export class BrowserNotFoundError extends GeoReportsError {}

/** The platforms the finder knows; any other is searched like Linux. */
export type BrowserPlatform = 'linux' | 'darwin' | 'win32';

/** Where a browser is installed: a fixed path, or a path under a Windows folder variable (`%LOCALAPPDATA%`…). */
interface Place {
  /** Path parts, joined with the platform's separator; the first may be a `%VARIABLE%`, or `~` for the home folder. */
  parts: readonly string[];
}

/** Puppeteer's cache of a browser: `<cache>/<product>/<platform>-<build>/<binary>`, one binary per architecture. */
interface CachedBrowser {
  product: 'chrome-headless-shell' | 'chrome';
  binaries: ReadonlyArray<readonly string[]>;
}

interface PlatformTable {
  /** The headless shell: the print engine alone, started with Puppeteer's headless: 'shell'. */
  headlessShell: { places: readonly Place[]; cache: CachedBrowser };
  /** Full browsers (Chromium, Chrome, Edge), started in new headless mode. */
  browsers: { places: readonly Place[]; cache: CachedBrowser };
  install: string;
}

const at = (...parts: string[]): Place => ({ parts });

/** Windows installs per user (%LOCALAPPDATA%) or per machine (%PROGRAMFILES%, %PROGRAMFILES(X86)%). */
const WINDOWS_FOLDERS = ['%PROGRAMFILES%', '%PROGRAMFILES(X86)%', '%LOCALAPPDATA%'] as const;
const inWindowsFolders = (...parts: string[]): Place[] => WINDOWS_FOLDERS.map((folder) => at(folder, ...parts));
/** macOS installs for every user (/Applications) or for one (~/Applications). */
const MAC_APPLICATIONS = [['/Applications'], ['~', 'Applications']] as const;
const macApp = (app: string, binary: string): Place[] => MAC_APPLICATIONS.map((folder) => at(...folder, `${app}.app`, 'Contents', 'MacOS', binary));

const PUPPETEER_BROWSERS_INSTALL = 'npx @puppeteer/browsers install chrome-headless-shell@stable --path';

export const BROWSER_TABLES: Readonly<Record<BrowserPlatform, PlatformTable>> = {
  linux: {
    headlessShell: {
      // Debian's /usr/bin/chromium-headless-shell is a wrapper that does not exec (killing it would orphan the
      // browser), so the binary it wraps comes first.
      places: [at('/usr/lib/chromium/chromium-headless-shell'), at('/usr/bin/chromium-headless-shell'), at('/usr/bin/chrome-headless-shell')],
      cache: { product: 'chrome-headless-shell', binaries: [['chrome-headless-shell-linux64', 'chrome-headless-shell']] },
    },
    browsers: {
      places: [
        at('/usr/bin/chromium'),
        at('/usr/bin/chromium-browser'),
        at('/usr/bin/google-chrome'),
        at('/usr/bin/google-chrome-stable'),
        at('/opt/google/chrome/chrome'),
        at('/usr/bin/microsoft-edge'),
        at('/usr/bin/microsoft-edge-stable'),
        at('/opt/microsoft/msedge/msedge'),
      ],
      cache: { product: 'chrome', binaries: [['chrome-linux64', 'chrome']] },
    },
    install:
      'Install the headless shell (Debian: `sudo apt-get install -y chromium-headless-shell`) or the full browser (`sudo apt-get install -y chromium`), or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium binary.',
  },
  darwin: {
    headlessShell: {
      places: [],
      cache: {
        product: 'chrome-headless-shell',
        binaries: [
          ['chrome-headless-shell-mac-arm64', 'chrome-headless-shell'],
          ['chrome-headless-shell-mac-x64', 'chrome-headless-shell'],
        ],
      },
    },
    browsers: {
      places: [
        ...macApp('Google Chrome', 'Google Chrome'),
        ...macApp('Chromium', 'Chromium'),
        ...macApp('Microsoft Edge', 'Microsoft Edge'),
        ...macApp('Google Chrome for Testing', 'Google Chrome for Testing'),
      ],
      cache: {
        product: 'chrome',
        binaries: [
          ['chrome-mac-arm64', 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'],
          ['chrome-mac-x64', 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'],
        ],
      },
    },
    install: `Install Google Chrome (or Chromium, or Microsoft Edge) in /Applications, or the headless shell with \`${PUPPETEER_BROWSERS_INSTALL} ~/.cache/puppeteer\`, or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium binary.`,
  },
  win32: {
    headlessShell: {
      places: [],
      cache: {
        product: 'chrome-headless-shell',
        binaries: [
          ['chrome-headless-shell-win64', 'chrome-headless-shell.exe'],
          ['chrome-headless-shell-win32', 'chrome-headless-shell.exe'],
        ],
      },
    },
    browsers: {
      places: [
        ...inWindowsFolders('Google', 'Chrome', 'Application', 'chrome.exe'),
        ...inWindowsFolders('Chromium', 'Application', 'chrome.exe'),
        ...inWindowsFolders('Microsoft', 'Edge', 'Application', 'msedge.exe'),
      ],
      cache: {
        product: 'chrome',
        binaries: [
          ['chrome-win64', 'chrome.exe'],
          ['chrome-win32', 'chrome.exe'],
        ],
      },
    },
    install: `Install Google Chrome (or Microsoft Edge, or Chromium), or the headless shell with \`${PUPPETEER_BROWSERS_INSTALL} %USERPROFILE%\\.cache\\puppeteer\`, or set PUPPETEER_EXECUTABLE_PATH to chrome.exe (or chrome-headless-shell.exe).`,
  },
};

/** Windows' fallbacks when a folder variable is not set. */
const WINDOWS_DEFAULT_FOLDERS: Readonly<Record<string, string>> = {
  PROGRAMFILES: 'C:\\Program Files',
  'PROGRAMFILES(X86)': 'C:\\Program Files (x86)',
};

/** Puppeteer's headless modes: 'shell' for the headless shell, true (new headless) for the full browser. */
export type HeadlessMode = true | 'shell';

/** The Chromium that prints, and how Puppeteer must start it. */
export interface BrowserChoice {
  executablePath: string;
  headless: HeadlessMode;
}

export interface FindChromiumOptions {
  /** Whose places to look at. @default process.platform */
  platform?: NodeJS.Platform;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default fs.existsSync */
  exists?: (path: string) => boolean;
  /** Home folder holding Puppeteer's cache (and ~/Applications on macOS). @default os.homedir() */
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

/** Orders Puppeteer's cache folders ("linux-131.0.6778.85", "mac_arm-131.0.6778.85") newest build first. */
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
  const name = executablePath.split(/[\\/]/).pop() ?? executablePath;
  return /headless[-_]shell/i.test(name) ? 'shell' : true;
}

/** The platform's table; a platform the finder does not know is searched like Linux. */
function platformOf(platform: NodeJS.Platform): BrowserPlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/** An environment variable, in any case (Windows' names are not case-sensitive; a test's env object is). */
function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  const value = key === undefined ? undefined : env[key];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The Chromium that will print: PUPPETEER_EXECUTABLE_PATH when set; then the headless shell (system package, then
 * Puppeteer's cache); then a full browser (Chromium, Chrome, Edge where the platform installs them, then Puppeteer's
 * cache), from the table of the platform.
 */
export function findBrowser(options: FindChromiumOptions = {}): BrowserChoice {
  const platform = platformOf(options.platform ?? process.platform);
  const path: PlatformPath = platform === 'win32' ? win32 : posix;
  const table = BROWSER_TABLES[platform];
  const env = options.env ?? process.env;
  const exists = options.exists ?? existsSync;
  const listDir = options.listDir ?? listDirOrEmpty;
  const home = options.homeDir ?? homedir();
  const found = (executablePath: string): BrowserChoice => ({ executablePath, headless: headlessModeFor(executablePath) });
  const configured = env['PUPPETEER_EXECUTABLE_PATH'];
  if (configured !== undefined && configured !== '') {
    if (exists(configured)) return found(configured);
    throw new BrowserNotFoundError(`PUPPETEER_EXECUTABLE_PATH points to ${configured}, which does not exist.`, {
      hint: `Fix or unset PUPPETEER_EXECUTABLE_PATH. ${table.install}`,
    });
  }
  const cacheRoot = envValue(env, 'PUPPETEER_CACHE_DIR') ?? path.join(home, '.cache', 'puppeteer');
  /** A place as a path on this platform; null for a Windows folder variable that is not set and has no default. */
  const resolvePlace = ({ parts }: Place): string | null => {
    const [first = '', ...rest] = parts;
    const variable = /^%(.+)%$/.exec(first)?.[1];
    if (variable !== undefined) {
      const folder = envValue(env, variable) ?? WINDOWS_DEFAULT_FOLDERS[variable.toUpperCase()];
      return folder === undefined ? null : path.join(folder, ...rest);
    }
    return first === '~' ? path.join(home, ...rest) : path.join(first, ...rest);
  };
  const newestInCache = ({ product, binaries }: CachedBrowser): string | null => {
    const dir = path.join(cacheRoot, product);
    for (const build of listDir(dir).sort(compareBuildsNewestFirst)) {
      for (const binary of binaries) {
        const candidate = path.join(dir, build, ...binary);
        if (exists(candidate)) return candidate;
      }
    }
    return null;
  };
  const looked: string[] = [];
  const search = (kind: PlatformTable['headlessShell']): string | null => {
    const places = [...new Set(kind.places.map(resolvePlace).filter((p): p is string => p !== null))];
    for (const candidate of places) if (exists(candidate)) return candidate;
    const cached = newestInCache(kind.cache);
    if (cached !== null) return cached;
    looked.push(...places, path.join(cacheRoot, kind.cache.product));
    return null;
  };
  const shell = (options.headlessShell ?? true) ? search(table.headlessShell) : null;
  if (shell !== null) return found(shell);
  const browser = search(table.browsers);
  if (browser !== null) return found(browser);
  throw new BrowserNotFoundError(`No Chromium found (looked at PUPPETEER_EXECUTABLE_PATH, ${looked.join(', ')}).`, {
    hint: table.install,
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
 * CHROMIUM_ARGS, plus --no-sandbox as root, where Chromium refuses its sandbox (containers, CI), or when the user
 * opted out of the sandbox (GEO_REPORTS_CHROMIUM_SANDBOX=off); as any other user the renderer keeps its sandbox.
 */
export function chromiumArgs(uid: number | undefined = process.getuid?.(), sandbox = true): string[] {
  return uid === 0 || !sandbox ? ['--no-sandbox', ...CHROMIUM_ARGS] : [...CHROMIUM_ARGS];
}

/** The fix for Chrome's sandbox on Linux, where a distribution forbids what it needs (Ubuntu 23.10 and later). */
export const SANDBOX_FIX =
  "On Ubuntu 23.10 and later (GitHub's ubuntu-24.04 runners included), AppArmor forbids the unprivileged user namespaces Chrome's sandbox needs: allow them with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or give the browser an AppArmor profile); on a machine that runs nothing but this tool (a CI runner), GEO_REPORTS_CHROMIUM_SANDBOX=off starts it with --no-sandbox instead.";

/**
 * What to do when the browser at `executablePath` would not start or print, from what it said: the sandbox fix
 * on Linux when the sandbox is named (or could be the cause), then how to check or replace the browser.
 */
export function browserStartFix(executablePath: string, said: string, platform: NodeJS.Platform = process.platform): string {
  const table = BROWSER_TABLES[platformOf(platform)];
  const check = `Check that ${executablePath} runs (\`"${executablePath}" --version\`). ${table.install}`;
  if (platformOf(platform) !== 'linux') return check;
  return /sandbox|namespace|zygote|setuid/i.test(said) ? `${SANDBOX_FIX} ${check}` : `${check} ${SANDBOX_FIX}`;
}
