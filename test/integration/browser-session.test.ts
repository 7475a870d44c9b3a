// The printer's browser session, local or remote, behind one interface: what each promises the printer, on a real
// Chromium it starts and on a real one started apart and reached over its DevTools endpoint.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processExists } from '../../src/process-alive.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { BrowserConnectError } from '../../src/render/print/errors.js';
import { browserSource } from '../../src/render/print/session.js';
import { waitFor } from '../support/wait.js';

const { executablePath, headless } = findBrowser();
let root: string;
/** The remote browser: a Chromium of the test's own, reached by the session over its WebSocket endpoint only. */
let owner: Browser;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-session-'));
  owner = await puppeteer.launch({ executablePath, headless, args: [...chromiumArgs(), '--remote-debugging-port=0'] });
});
afterAll(async () => {
  await owner.close();
  await rm(root, { recursive: true, force: true });
});

describe('a local browser session', () => {
  it('starts a Chromium with a profile of its own, keeps pages, and on close kills it, takes the profile, tells its listeners once', async () => {
    const profileRoot = join(root, 'local');
    const session = await browserSource({ executablePath, profileRoot }).start();
    const pid = session.pid as number;
    expect(processExists(pid)).toBe(true);
    expect(session.isAlive()).toBe(true);
    expect([session.readsLocalFiles, session.keepsPages]).toEqual([true, true]);
    expect(await readdir(profileRoot)).toHaveLength(1);
    const page = await session.newPage();
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    let told = 0;
    session.onDisconnected(() => {
      told += 1;
    });
    const removed = session.onDisconnected(() => {
      told += 100;
    });
    removed();
    await session.close();
    await session.close();
    expect(told).toBe(1);
    expect(session.isConnected()).toBe(false);
    expect(session.isAlive()).toBe(false);
    await waitFor('the closed browser to end', () => !processExists(pid), { timeoutMs: 10_000 });
    expect(await readdir(profileRoot)).toEqual([]);
  });

  it('is not alive once its process is killed, and its loss names Chromium', async () => {
    const session = await browserSource({ executablePath, profileRoot: join(root, 'killed') }).start();
    try {
      process.kill(session.pid as number, 'SIGKILL');
      await waitFor('the killed browser to be seen dead', () => !session.isAlive(), { timeoutMs: 10_000 });
      expect(session.loss.reason).toBe('Chromium stopped while printing it');
      expect(session.loss.hint).toMatch(/fresh Chromium/);
    } finally {
      await session.close();
    }
  });
});

describe('a remote browser session', () => {
  it('opens its pages in a context of its own, and on close leaves the browser running without that context', async () => {
    const cdp = await owner.target().createCDPSession();
    const contexts = async (): Promise<string[]> => (await cdp.send('Target.getBrowserContexts')).browserContextIds;
    const before = await contexts();
    const session = await browserSource({ browserWSEndpoint: `${owner.wsEndpoint()}?token=pool-secret` }).start();
    expect(session.pid).toBeNull();
    expect(session.isAlive()).toBe(true);
    expect([session.readsLocalFiles, session.keepsPages]).toEqual([false, false]);
    const page = await session.newPage();
    const own = page.browserContext().id as string;
    expect(await contexts()).toEqual([...before, own]);
    expect(session.loss.reason).toMatch(/^the connection to the remote browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+ was lost$/);
    let told = 0;
    session.onDisconnected(() => {
      told += 1;
    });
    await session.close();
    await session.close();
    expect(told).toBe(1);
    expect(session.isConnected()).toBe(false);
    expect(await contexts()).toEqual(before);
    expect(owner.connected).toBe(true);
    await cdp.detach();
  });

  it('fails to start with a BrowserConnectError naming the endpoint without its query', async () => {
    const start = browserSource({ browserWSEndpoint: 'ws://127.0.0.1:1/devtools/browser/none?token=pool-secret' }).start();
    await expect(start).rejects.toBeInstanceOf(BrowserConnectError);
    await expect(start).rejects.toThrow(/^Could not connect to the remote browser at ws:\/\/127\.0\.0\.1:1\/devtools\/browser\/none: /);
    await start.catch((error: unknown) => expect((error as Error).message).not.toContain('pool-secret'));
  });
});
