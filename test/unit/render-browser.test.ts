import { describe, expect, it } from 'vitest';
import {
  BrowserNotFoundError,
  browserStartFix,
  CHROMIUM_ARGS,
  chromiumArgs,
  findBrowser,
  findChromium,
  headlessModeFor,
} from '../../src/render/print/browser.js';
import { GeoReportsError } from '../../src/errors.js';

const only =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

/** No Puppeteer cache: the machine's own is never listed. */
const NO_CACHE = { homeDir: '/nohome', listDir: (): string[] => [] };

describe('findChromium', () => {
  it('prefers PUPPETEER_EXECUTABLE_PATH when it exists', () => {
    const path = findChromium({
      platform: 'linux',
      env: { PUPPETEER_EXECUTABLE_PATH: '/opt/chrome/chrome' },
      exists: only('/opt/chrome/chrome', '/usr/bin/chromium'),
    });
    expect(path).toBe('/opt/chrome/chrome');
  });

  it('names PUPPETEER_EXECUTABLE_PATH when it points nowhere, instead of guessing', () => {
    const find = (): string => findChromium({ platform: 'linux', env: { PUPPETEER_EXECUTABLE_PATH: '/nowhere/chrome' }, exists: only('/usr/bin/chromium') });
    expect(find).toThrow(BrowserNotFoundError);
    expect(find).toThrow(/PUPPETEER_EXECUTABLE_PATH points to \/nowhere\/chrome/);
  });

  it('walks the system locations in order', () => {
    expect(findChromium({ platform: 'linux', ...NO_CACHE, env: {}, exists: only('/usr/bin/chromium', '/usr/bin/google-chrome') })).toBe('/usr/bin/chromium');
    expect(findChromium({ platform: 'linux', ...NO_CACHE, env: {}, exists: only('/usr/bin/chromium-browser', '/opt/google/chrome/chrome') })).toBe(
      '/usr/bin/chromium-browser',
    );
    expect(findChromium({ platform: 'linux', ...NO_CACHE, env: {}, exists: only('/usr/bin/google-chrome-stable') })).toBe('/usr/bin/google-chrome-stable');
    expect(findChromium({ platform: 'linux', ...NO_CACHE, env: { PUPPETEER_EXECUTABLE_PATH: '' }, exists: only('/opt/google/chrome/chrome') })).toBe(
      '/opt/google/chrome/chrome',
    );
  });

  it("falls back to the newest build in Puppeteer's cache", () => {
    const cache = '/home/ci/.cache/puppeteer/chrome';
    const path = findChromium({
      platform: 'linux',
      env: {},
      homeDir: '/home/ci',
      listDir: (dir) => (dir === cache ? ['linux-121.0.6167.85', 'linux-131.0.6778.85', 'linux-99.0.1'] : []),
      exists: only(`${cache}/linux-121.0.6167.85/chrome-linux64/chrome`, `${cache}/linux-131.0.6778.85/chrome-linux64/chrome`),
    });
    expect(path).toBe(`${cache}/linux-131.0.6778.85/chrome-linux64/chrome`);
  });

  it('prefers the headless shell to the full browser, and starts each in its own headless mode', () => {
    expect(findBrowser({ platform: 'linux', env: {}, exists: only('/usr/bin/chromium', '/usr/lib/chromium/chromium-headless-shell') })).toEqual({
      executablePath: '/usr/lib/chromium/chromium-headless-shell',
      headless: 'shell',
    });
    expect(findBrowser({ platform: 'linux', env: {}, exists: only('/usr/bin/chromium', '/usr/bin/chromium-headless-shell') })).toEqual({
      executablePath: '/usr/bin/chromium-headless-shell',
      headless: 'shell',
    });
    expect(findBrowser({ platform: 'linux', env: {}, homeDir: '/nohome', listDir: () => [], exists: only('/usr/bin/chromium') })).toEqual({
      executablePath: '/usr/bin/chromium',
      headless: true,
    });
  });

  it('lets PUPPETEER_EXECUTABLE_PATH win over the headless shell, in the mode its binary needs', () => {
    const exists = only('/opt/chrome/chrome', '/opt/shell/chrome-headless-shell', '/usr/lib/chromium/chromium-headless-shell');
    expect(findBrowser({ platform: 'linux', env: { PUPPETEER_EXECUTABLE_PATH: '/opt/chrome/chrome' }, exists })).toEqual({
      executablePath: '/opt/chrome/chrome',
      headless: true,
    });
    expect(findBrowser({ platform: 'linux', env: { PUPPETEER_EXECUTABLE_PATH: '/opt/shell/chrome-headless-shell' }, exists })).toEqual({
      executablePath: '/opt/shell/chrome-headless-shell',
      headless: 'shell',
    });
  });

  it("finds the headless shell in Puppeteer's cache before any full browser", () => {
    const cache = '/home/ci/.cache/puppeteer';
    const shell = `${cache}/chrome-headless-shell/linux-131.0.6778.85/chrome-headless-shell-linux64/chrome-headless-shell`;
    const choice = findBrowser({
      platform: 'linux',
      env: {},
      homeDir: '/home/ci',
      listDir: (dir) => (dir === `${cache}/chrome-headless-shell` ? ['linux-131.0.6778.85'] : []),
      exists: only(shell, '/usr/bin/chromium'),
    });
    expect(choice).toEqual({ executablePath: shell, headless: 'shell' });
  });

  it('finds only full browsers when asked to (the one-by-one reference of the benchmark)', () => {
    const exists = only('/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium');
    expect(findBrowser({ platform: 'linux', env: {}, exists, headlessShell: false })).toEqual({ executablePath: '/usr/bin/chromium', headless: true });
  });

  it('tells a headless-shell binary from a full browser by its name', () => {
    expect(headlessModeFor('/usr/lib/chromium/chromium-headless-shell')).toBe('shell');
    expect(headlessModeFor('/x/chrome-headless-shell-linux64/chrome-headless-shell')).toBe('shell');
    expect(headlessModeFor('C:/x/chrome_headless_shell.exe')).toBe('shell');
    expect(headlessModeFor('/usr/bin/chromium')).toBe(true);
    expect(headlessModeFor('/opt/headless-shells/chrome')).toBe(true);
  });

  it('explains how to install Chromium when there is none', () => {
    let error: unknown;
    try {
      findChromium({ platform: 'linux', env: {}, homeDir: '/home/ci', exists: () => false, listDir: () => [] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrowserNotFoundError);
    expect(error).toBeInstanceOf(GeoReportsError);
    const hint = (error as BrowserNotFoundError).hint ?? '';
    expect(hint).toContain('sudo apt-get install -y chromium-headless-shell');
    expect(hint).toContain('sudo apt-get install -y chromium`');
    expect(hint).toContain('PUPPETEER_EXECUTABLE_PATH');
    expect((error as BrowserNotFoundError).message).toContain('/usr/lib/chromium/chromium-headless-shell');
    expect((error as BrowserNotFoundError).message).toContain('/usr/bin/chromium,');
  });
});

/** A file system holding `files` only: what exists, and what each folder lists (for Puppeteer's cache). */
function disk(files: string[], separator: '/' | '\\'): { exists: (path: string) => boolean; listDir: (path: string) => string[] } {
  return {
    exists: (path) => files.includes(path),
    listDir: (dir) => [...new Set(files.filter((f) => f.startsWith(dir + separator)).map((f) => f.slice(dir.length + 1).split(separator)[0] as string))],
  };
}

describe('findBrowser on each platform (mocked platform and file system)', () => {
  it('linux: Edge when it is the only browser, the headless shell from the Puppeteer cache first', () => {
    expect(findBrowser({ platform: 'linux', env: {}, homeDir: '/home/ana', ...disk(['/opt/microsoft/msedge/msedge'], '/') })).toEqual({
      executablePath: '/opt/microsoft/msedge/msedge',
      headless: true,
    });
    const shell = '/home/ana/.cache/puppeteer/chrome-headless-shell/linux-131.0.6778.85/chrome-headless-shell-linux64/chrome-headless-shell';
    expect(findBrowser({ platform: 'linux', env: {}, homeDir: '/home/ana', ...disk([shell, '/usr/bin/google-chrome'], '/') })).toEqual({
      executablePath: shell,
      headless: 'shell',
    });
  });

  it('darwin: the headless shell from the Puppeteer cache (Apple silicon or Intel), then Chrome, Chromium, Edge in /Applications or ~/Applications', () => {
    const home = '/Users/ana';
    const cache = `${home}/.cache/puppeteer`;
    const arm = `${cache}/chrome-headless-shell/mac_arm-131.0.6778.85/chrome-headless-shell-mac-arm64/chrome-headless-shell`;
    const intel = `${cache}/chrome-headless-shell/mac-130.0.6723.58/chrome-headless-shell-mac-x64/chrome-headless-shell`;
    const chrome = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    const find = (files: string[]) => findBrowser({ platform: 'darwin', env: {}, homeDir: home, ...disk(files, '/') });
    expect(find([intel, arm, chrome])).toEqual({ executablePath: arm, headless: 'shell' });
    expect(find([intel, chrome])).toEqual({ executablePath: intel, headless: 'shell' });
    expect(find([chrome, '/Applications/Chromium.app/Contents/MacOS/Chromium'])).toEqual({ executablePath: chrome, headless: true });
    expect(find([`${home}/Applications/Chromium.app/Contents/MacOS/Chromium`]).executablePath).toBe(
      `${home}/Applications/Chromium.app/Contents/MacOS/Chromium`,
    );
    expect(find(['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge']).executablePath).toBe(
      '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    );
    const testing = `${cache}/chrome/mac_arm-131.0.6778.85/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing`;
    expect(find([testing])).toEqual({ executablePath: testing, headless: true });
    // Puppeteer's cache where PUPPETEER_CACHE_DIR puts it.
    const elsewhere = '/Volumes/tools/puppeteer/chrome-headless-shell/mac_arm-131.0.6778.85/chrome-headless-shell-mac-arm64/chrome-headless-shell';
    expect(
      findBrowser({ platform: 'darwin', env: { PUPPETEER_CACHE_DIR: '/Volumes/tools/puppeteer' }, homeDir: home, ...disk([elsewhere, chrome], '/') })
        .executablePath,
    ).toBe(elsewhere);
  });

  it('darwin: with no browser, names the places and the fix for a Mac', () => {
    const error = (() => {
      try {
        return findBrowser({ platform: 'darwin', env: {}, homeDir: '/Users/ana', ...disk([], '/') });
      } catch (e) {
        return e as BrowserNotFoundError;
      }
    })();
    expect(error).toBeInstanceOf(BrowserNotFoundError);
    const { message, hint } = error as BrowserNotFoundError;
    expect(message).toContain('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(message).toContain('/Users/ana/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge');
    expect(message).toContain('/Users/ana/.cache/puppeteer/chrome-headless-shell');
    expect(hint).toContain('npx @puppeteer/browsers install chrome-headless-shell@stable --path ~/.cache/puppeteer');
    expect(hint).toContain('PUPPETEER_EXECUTABLE_PATH');
    expect(hint).not.toContain('apt-get');
  });

  it('win32: %PROGRAMFILES%, %PROGRAMFILES(X86)% and %LOCALAPPDATA%, joined with backslashes, the cache first', () => {
    const env = { ProgramFiles: 'C:\\Program Files', 'ProgramFiles(x86)': 'C:\\Program Files (x86)', LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' };
    const home = 'C:\\Users\\ana';
    const find = (files: string[], environment: Record<string, string> = env) =>
      findBrowser({ platform: 'win32', env: environment, homeDir: home, ...disk(files, '\\') });
    const shell = `${home}\\.cache\\puppeteer\\chrome-headless-shell\\win64-131.0.6778.85\\chrome-headless-shell-win64\\chrome-headless-shell.exe`;
    const chrome = 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe';
    expect(find([chrome, shell])).toEqual({ executablePath: shell, headless: 'shell' });
    expect(find([chrome])).toEqual({ executablePath: chrome, headless: true });
    expect(find(['C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe']).executablePath).toBe(
      'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
    );
    expect(find(['C:\\Users\\ana\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe']).executablePath).toBe(
      'C:\\Users\\ana\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe',
    );
    expect(find(['C:\\Users\\ana\\AppData\\Local\\Chromium\\Application\\chrome.exe']).executablePath).toBe(
      'C:\\Users\\ana\\AppData\\Local\\Chromium\\Application\\chrome.exe',
    );
    // Program Files where Windows puts it when the variables are missing.
    expect(find([chrome], {}).executablePath).toBe(chrome);
    const testing = `${home}\\.cache\\puppeteer\\chrome\\win64-131.0.6778.85\\chrome-win64\\chrome.exe`;
    expect(find([testing])).toEqual({ executablePath: testing, headless: true });
  });

  it('win32: with no browser, names the places and the fix for Windows', () => {
    let error: unknown;
    try {
      findBrowser({ platform: 'win32', env: { LOCALAPPDATA: 'D:\\Local' }, homeDir: 'C:\\Users\\ana', ...disk([], '\\') });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrowserNotFoundError);
    const { message, hint } = error as BrowserNotFoundError;
    expect(message).toContain('C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe');
    expect(message).toContain('D:\\Local\\Microsoft\\Edge\\Application\\msedge.exe');
    expect(message).toContain('C:\\Users\\ana\\.cache\\puppeteer\\chrome');
    expect(message).not.toContain('/');
    expect(hint).toContain('npx @puppeteer/browsers install chrome-headless-shell@stable --path %USERPROFILE%\\.cache\\puppeteer');
    expect(hint).toContain('PUPPETEER_EXECUTABLE_PATH');
  });

  it('tells the headless shell by its name on every platform', () => {
    expect(headlessModeFor('C:\\x\\chrome-headless-shell-win64\\chrome-headless-shell.exe')).toBe('shell');
    expect(headlessModeFor('C:\\headless-shell\\chrome.exe')).toBe(true);
  });
});

describe('CHROMIUM_ARGS', () => {
  it('keeps the sandbox except as root, where Chromium refuses it', () => {
    expect(chromiumArgs(0)).toContain('--no-sandbox');
    expect(chromiumArgs(1000)).not.toContain('--no-sandbox');
    expect(chromiumArgs(1000)).toEqual(CHROMIUM_ARGS);
  });

  it('drops the sandbox for any user who opted out of it (GEO_REPORTS_CHROMIUM_SANDBOX=off)', () => {
    expect(chromiumArgs(1000, false)).toEqual(['--no-sandbox', ...CHROMIUM_ARGS]);
  });
});

describe('browserStartFix', () => {
  it('leads with the AppArmor fix on Linux when the browser speaks of its sandbox, and names the browser', () => {
    const fix = browserStartFix('/opt/chrome/chrome', 'FATAL: No usable sandbox!', 'linux');
    expect(fix.startsWith('On Ubuntu 23.10 and later')).toBe(true);
    expect(fix).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(fix).toContain('GEO_REPORTS_CHROMIUM_SANDBOX=off');
    expect(fix).toContain('/opt/chrome/chrome');
  });

  it('leads with checking the browser otherwise, and speaks of no sandbox where there is no AppArmor', () => {
    expect(browserStartFix('/opt/chrome/chrome', 'error while loading shared libraries', 'linux').startsWith('Check that /opt/chrome/chrome runs')).toBe(true);
    expect(browserStartFix('C:\\chrome.exe', 'exited', 'win32')).not.toContain('AppArmor');
  });

  it('runs quiet and offline-minded', () => {
    for (const flag of [
      '--dns-prefetch-disable',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--font-render-hinting=none',
    ]) {
      expect(CHROMIUM_ARGS).toContain(flag);
    }
  });
});
