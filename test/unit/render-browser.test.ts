import { describe, expect, it } from 'vitest';
import {
  BrowserNotFoundError,
  CHROMIUM_ARGS,
  chromiumArgs,
  findBrowser,
  findChromium,
  headlessModeFor,
} from '../../src/render/browser.js';
import { GeoReportsError } from '../../src/errors.js';

const only =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

describe('findChromium', () => {
  it('prefers PUPPETEER_EXECUTABLE_PATH when it exists', () => {
    const path = findChromium({
      env: { PUPPETEER_EXECUTABLE_PATH: '/opt/chrome/chrome' },
      exists: only('/opt/chrome/chrome', '/usr/bin/chromium'),
    });
    expect(path).toBe('/opt/chrome/chrome');
  });

  it('names PUPPETEER_EXECUTABLE_PATH when it points nowhere, instead of guessing', () => {
    const find = (): string =>
      findChromium({ env: { PUPPETEER_EXECUTABLE_PATH: '/nowhere/chrome' }, exists: only('/usr/bin/chromium') });
    expect(find).toThrow(BrowserNotFoundError);
    expect(find).toThrow(/PUPPETEER_EXECUTABLE_PATH points to \/nowhere\/chrome/);
  });

  it('walks the system locations in order', () => {
    expect(findChromium({ env: {}, exists: only('/usr/bin/chromium', '/usr/bin/google-chrome') })).toBe('/usr/bin/chromium');
    expect(findChromium({ env: {}, exists: only('/usr/bin/chromium-browser', '/opt/google/chrome/chrome') })).toBe(
      '/usr/bin/chromium-browser',
    );
    expect(findChromium({ env: {}, exists: only('/usr/bin/google-chrome-stable') })).toBe('/usr/bin/google-chrome-stable');
    expect(findChromium({ env: { PUPPETEER_EXECUTABLE_PATH: '' }, exists: only('/opt/google/chrome/chrome') })).toBe(
      '/opt/google/chrome/chrome',
    );
  });

  it("falls back to the newest build in Puppeteer's cache", () => {
    const cache = '/home/ci/.cache/puppeteer/chrome';
    const path = findChromium({
      env: {},
      homeDir: '/home/ci',
      listDir: (dir) => (dir === cache ? ['linux-121.0.6167.85', 'linux-131.0.6778.85', 'linux-99.0.1'] : []),
      exists: only(`${cache}/linux-121.0.6167.85/chrome-linux64/chrome`, `${cache}/linux-131.0.6778.85/chrome-linux64/chrome`),
    });
    expect(path).toBe(`${cache}/linux-131.0.6778.85/chrome-linux64/chrome`);
  });

  it('prefers the headless shell to the full browser, and starts each in its own headless mode', () => {
    expect(findBrowser({ env: {}, exists: only('/usr/bin/chromium', '/usr/lib/chromium/chromium-headless-shell') })).toEqual({
      executablePath: '/usr/lib/chromium/chromium-headless-shell',
      headless: 'shell',
    });
    expect(findBrowser({ env: {}, exists: only('/usr/bin/chromium', '/usr/bin/chromium-headless-shell') })).toEqual({
      executablePath: '/usr/bin/chromium-headless-shell',
      headless: 'shell',
    });
    expect(findBrowser({ env: {}, homeDir: '/nohome', listDir: () => [], exists: only('/usr/bin/chromium') })).toEqual({
      executablePath: '/usr/bin/chromium',
      headless: true,
    });
  });

  it('lets PUPPETEER_EXECUTABLE_PATH win over the headless shell, in the mode its binary needs', () => {
    const exists = only('/opt/chrome/chrome', '/opt/shell/chrome-headless-shell', '/usr/lib/chromium/chromium-headless-shell');
    expect(findBrowser({ env: { PUPPETEER_EXECUTABLE_PATH: '/opt/chrome/chrome' }, exists })).toEqual({
      executablePath: '/opt/chrome/chrome',
      headless: true,
    });
    expect(findBrowser({ env: { PUPPETEER_EXECUTABLE_PATH: '/opt/shell/chrome-headless-shell' }, exists })).toEqual({
      executablePath: '/opt/shell/chrome-headless-shell',
      headless: 'shell',
    });
  });

  it("finds the headless shell in Puppeteer's cache before any full browser", () => {
    const cache = '/home/ci/.cache/puppeteer';
    const shell = `${cache}/chrome-headless-shell/linux-131.0.6778.85/chrome-headless-shell-linux64/chrome-headless-shell`;
    const choice = findBrowser({
      env: {},
      homeDir: '/home/ci',
      listDir: (dir) => (dir === `${cache}/chrome-headless-shell` ? ['linux-131.0.6778.85'] : []),
      exists: only(shell, '/usr/bin/chromium'),
    });
    expect(choice).toEqual({ executablePath: shell, headless: 'shell' });
  });

  it('finds only full browsers when asked to (the one-by-one reference of the benchmark)', () => {
    const exists = only('/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium');
    expect(findBrowser({ env: {}, exists, headlessShell: false })).toEqual({ executablePath: '/usr/bin/chromium', headless: true });
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
      findChromium({ env: {}, homeDir: '/home/ci', exists: () => false, listDir: () => [] });
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

describe('CHROMIUM_ARGS', () => {
  it('keeps the sandbox except as root, where Chromium refuses it', () => {
    expect(chromiumArgs(0)).toContain('--no-sandbox');
    expect(chromiumArgs(1000)).not.toContain('--no-sandbox');
    expect(chromiumArgs(1000)).toEqual(CHROMIUM_ARGS);
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
