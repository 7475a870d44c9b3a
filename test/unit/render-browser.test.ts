import { describe, expect, it } from 'vitest';
import { BrowserNotFoundError, CHROMIUM_ARGS, chromiumArgs, findChromium } from '../../src/render/browser.js';
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
    expect(hint).toContain('sudo apt-get install -y chromium');
    expect(hint).toContain('PUPPETEER_EXECUTABLE_PATH');
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
