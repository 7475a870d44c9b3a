// Printing on a remote browser: a real Chromium started apart with --remote-debugging-port, as a browser pool
// would run it; the real CLI and the printer connect to it, must never start a browser of their own, must
// leave it running, and must fail clearly (never hang) when it goes away.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { runBatch } from '../../src/batch/run.js';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { Manifest } from '../../src/output/store.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { BrowserConnectError, BrowserLostError, PdfPrinter, type PrintJob } from '../../src/render/print/printer.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';

const run = promisify(execFile);
const PERIOD = '2026-10';
/** Browser pools take a token in the endpoint's query: it must never be shown. */
const POOL_TOKEN = 'pool-secret-7d1c2b9a';

interface RemoteChromium {
  /** The DevTools WebSocket URL Chromium printed, with the pool token added. */
  endpoint: string;
  port: number;
  pid: number;
  running(): boolean;
  kill(): Promise<void>;
}

const started: RemoteChromium[] = [];

/** Starts a Chromium of its own process group and reads its DevTools URL from stderr. */
async function startRemoteChromium(): Promise<RemoteChromium> {
  const { executablePath, headless } = findBrowser();
  const profile = mkdtempSync(join(tmpdir(), 'geo-remote-profile-'));
  const child: ChildProcess = spawn(
    executablePath,
    [
      ...chromiumArgs(),
      headless === 'shell' ? '--headless' : '--headless=new',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`Chromium printed no DevTools URL within 20 s:\n${seen}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before printing its DevTools URL:\n${seen}`));
    });
  });
  const pid = child.pid as number;
  const remote: RemoteChromium = {
    endpoint: `${url}?token=${POOL_TOKEN}`,
    port: Number(new URL(url).port),
    pid,
    running: () => child.exitCode === null && child.signalCode === null,
    async kill() {
      if (remote.running()) process.kill(-pid, 'SIGKILL');
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
  started.push(remote);
  return remote;
}

/** Watches the remote browser over a connection of its own: the pages opened there, whoever opened them. */
async function watch(remote: RemoteChromium): Promise<{ browser: Browser; pagesOpened: () => number }> {
  const browser = await puppeteer.connect({ browserWSEndpoint: remote.endpoint });
  let opened = 0;
  browser.on('targetcreated', (target: { type(): string }) => {
    if (target.type() === 'page') opened += 1;
  });
  return { browser, pagesOpened: () => opened };
}

/** A loopback TCP relay to the remote browser whose connections the test can cut, the browser still running. */
async function relayTo(port: number): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const withPort = (endpoint: string, port: number): string => {
  const url = new URL(endpoint);
  url.port = String(port);
  return url.toString();
};

async function pdfInfo(path: string): Promise<Record<string, string>> {
  const { stdout } = await run('pdfinfo', [path]);
  return Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m): [string, string] => [m[1] ?? '', m[2] ?? '']),
  );
}

async function expectValidPdf(path: string, text: string): Promise<void> {
  expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-');
  expect((await pdfInfo(path))['Tagged']).toBe('yes');
  const { stdout: fonts } = await run('pdffonts', [path]);
  expect(fonts).toMatch(/Inter-Regular/);
  // Every font line (after the two header lines) says "emb yes".
  for (const line of fonts.trim().split('\n').slice(2)) expect(line).toMatch(/\s+yes\s+yes\s+yes\s+/);
  const { stdout } = await run('pdftotext', [path, '-'], { maxBuffer: 16 * 1024 * 1024 });
  expect(stdout.replace(/\s+/g, ' ')).toContain(text);
}

let root: string;
let sim: SimulatorHandle;
let renderer: HtmlRenderer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'geo-remote-'));
  sim = await startSimulator({ projectCount: 8, tokens: [DEMO_TOKEN], clock: () => new Date('2026-11-04T06:00:00Z') });
  renderer = await createHtmlRenderer();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((remote) => remote.kill()));
});

afterAll(async () => {
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the CLI printing on a remote browser', () => {
  it('run --browser-ws-endpoint prints every report there, starts no browser of its own, leaves the remote one running', async () => {
    const remote = await startRemoteChromium();
    const watcher = await watch(remote);
    const pagesBefore = (await watcher.browser.pages()).length;
    // Any local Chromium the CLI looked for would be this spy, and starting it would leave a mark.
    const spy = join(root, 'spy-chromium');
    const mark = join(root, 'local-chromium-started');
    writeFileSync(spy, `#!/bin/sh\necho started >> '${mark}'\nexit 1\n`);
    chmodSync(spy, 0o755);
    const out = join(root, 'cli-run');
    const env: NodeJS.ProcessEnv = { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url, PUPPETEER_EXECUTABLE_PATH: spy };
    delete env['GEO_REPORTS_BROWSER_WS_ENDPOINT'];
    const { code, stdout, stderr } = await runCli(
      ['run', '--period', PERIOD, '--out', out, '--status', 'active', '--json', '--browser-ws-endpoint', remote.endpoint],
      { env, cwd: root, timeoutMs: 120_000 },
    );
    expect(code, stderr).toBe(0);
    expect(stdout + stderr).not.toContain(POOL_TOKEN);
    expect(existsSync(mark)).toBe(false);

    const manifest = Manifest.parse(JSON.parse(readFileSync(join(out, PERIOD, 'manifest.json'), 'utf8')));
    const active = sim.state.projects().filter((p) => p.status === 'active');
    expect(manifest.status).toBe('complete');
    expect(manifest.projects.map((p) => p.id).sort()).toEqual(active.map((p) => p.id).sort());
    for (const entry of manifest.projects) {
      await expectValidPdf(join(out, PERIOD, entry.files.pdf as string), entry.name);
    }
    // Printed there: one page per report opened in the remote browser, every one of them closed again.
    expect(watcher.pagesOpened()).toBeGreaterThanOrEqual(active.length);
    expect((await watcher.browser.pages()).length).toBe(pagesBefore);
    const cdp = await watcher.browser.target().createCDPSession();
    const { browserContextIds } = await cdp.send('Target.getBrowserContexts');
    expect(browserContextIds).toEqual([]);
    expect(remote.running()).toBe(true);
    expect(watcher.browser.connected).toBe(true);
    expect(await watcher.browser.version()).toMatch(/Chrome/);
    await watcher.browser.disconnect();
  });

  it('report <id> takes the endpoint from GEO_REPORTS_BROWSER_WS_ENDPOINT', async () => {
    const remote = await startRemoteChromium();
    const out = join(root, 'cli-report');
    const id = sim.state.projects()[0]?.id as number;
    const env = {
      ...process.env,
      AGENCY_API_TOKEN: DEMO_TOKEN,
      AGENCY_API_BASE_URL: sim.url,
      PUPPETEER_EXECUTABLE_PATH: join(root, 'no-local-chromium-here'),
      GEO_REPORTS_BROWSER_WS_ENDPOINT: remote.endpoint,
    };
    const made = await runCli(['report', String(id), '--period', PERIOD, '--out', out, '--json'], { env, cwd: root, timeoutMs: 120_000 });
    expect(made.code, made.stderr).toBe(0);
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(out, PERIOD, 'manifest.json'), 'utf8')));
    const entry = manifest.projects.find((p) => p.id === id);
    expect(entry?.status).toBe('done');
    await expectValidPdf(join(out, PERIOD, entry?.files.pdf as string), entry?.name ?? '');
    expect(remote.running()).toBe(true);
  });

  it('refuses an endpoint that is not a DevTools WebSocket URL, naming the flag and the fix', async () => {
    const env = { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url };
    const requestsBefore = sim.state.requests.length;
    const failure = await runCli(['run', '--period', PERIOD, '--out', join(root, 'cli-bad'), '--browser-ws-endpoint', 'http://127.0.0.1:9222'], {
      env,
      cwd: root,
    });
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/--browser-ws-endpoint is not a browser endpoint: must start with ws:\/\/ or wss:\/\//);
    // Refused before the first request: a wrong endpoint costs no quota.
    expect(sim.state.requests.length).toBe(requestsBefore);
  });
});

describe('PdfPrinter on a remote browser', () => {
  let hits: string[];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    hits = [];
    server = createHttpServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('nope');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function job(name: string, html: string): PrintJob {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.html'), html);
    return { htmlPath: join(dir, 'report.html'), pdfPath: join(dir, 'report.pdf'), language: 'en', footerText: 'x', pageLabel: '{page}/{pages}' };
  }

  /** A page long enough that printing it takes a while: the connection can be lost in the middle. */
  const longPage = (title: string): string =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${'<p>Quarterly visibility, line after line of it.</p>'.repeat(20_000)}</body></html>`;

  it('seals the page as a local one: no script, no network, not even our own files', async () => {
    const remote = await startRemoteChromium();
    const printer = await PdfPrinter.launch({ browserWSEndpoint: remote.endpoint });
    try {
      expect(printer.browserPid).toBeNull();
      writeFileSync(join(root, 'local-secret.html'), '<p>Text from a file of the machine that runs the batch</p>');
      const sealed = job(
        'remote-sealed',
        `<!doctype html><html lang="en"><head><title>Sealed page</title>
        <link rel="stylesheet" href="${base}/style.css">
        </head><body><h1>Sealed</h1><iframe src="file://${join(root, 'local-secret.html')}"></iframe><img src="${base}/direct.png" alt=""><iframe src="${base}/frame"></iframe>
        <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
        <script>document.title = 'script ran'; fetch('${base}/script');</script></body></html>`,
      );
      const { blockedRequests } = await printer.print(sealed);
      expect(hits).toEqual([]);
      expect(blockedRequests).toEqual(expect.arrayContaining([`${base}/style.css`, `${base}/direct.png`, `${base}/frame`]));
      // The page has no file: origin to read from; Chromium refuses the file before it becomes a request.
      const { stdout: text } = await run('pdftotext', [sealed.pdfPath, '-']);
      expect(text).toContain('Sealed');
      expect(text).not.toContain('Text from a file');
      expect(blockedRequests.some((url) => url.startsWith('data:'))).toBe(false);
      expect((await pdfInfo(sealed.pdfPath))['Title']).toBe('Sealed page');
    } finally {
      await printer.close();
    }
    expect(remote.running()).toBe(true);
  });

  it('prints a real report there, as the batch renders it', async () => {
    const remote = await startRemoteChromium();
    const printer = await PdfPrinter.launch({ browserWSEndpoint: remote.endpoint, pages: 2 });
    try {
      const { reportModel } = await import('../fixtures/report-model.js');
      const model = reportModel('en');
      const report = job('remote-report', renderer.renderReport(model));
      await printer.print(report);
      await expectValidPdf(report.pdfPath, 'Add Product schema to every product page');
    } finally {
      await printer.close();
    }
    expect(remote.running()).toBe(true);
  });

  it('a lost connection fails the reports in flight at once, and the next report reconnects', async () => {
    const remote = await startRemoteChromium();
    const relay = await relayTo(remote.port);
    const watcher = await watch(remote);
    const printer = await PdfPrinter.launch({ browserWSEndpoint: withPort(remote.endpoint, relay.port), pages: 2 });
    try {
      // Cut as soon as the printer opens its first page: both reports are then still being printed.
      watcher.browser.once('targetcreated', () => relay.cut());
      const results = await Promise.allSettled([printer.print(job('cut-1', longPage('One'))), printer.print(job('cut-2', longPage('Two')))]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const error = (result as PromiseRejectedResult).reason as Error;
        expect(error).toBeInstanceOf(BrowserLostError);
        expect(error.message).toMatch(/the connection to the remote browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+ was lost/);
        expect(error.message).not.toContain(POOL_TOKEN);
      }
      expect(existsSync(join(root, 'cut-1', 'report.pdf'))).toBe(false);
      const after = job('after-cut', '<!doctype html><html lang="en"><head><title>After</title></head><body><p>Printed after reconnecting.</p></body></html>');
      await printer.print(after);
      expect((await pdfInfo(after.pdfPath))['Title']).toBe('After');
    } finally {
      await printer.close();
      await relay.close();
    }
    expect(remote.running()).toBe(true);
    // Nothing of ours is left in the pool's browser, not even the context of the connection that was cut.
    const cdp = await watcher.browser.target().createCDPSession();
    expect((await cdp.send('Target.getBrowserContexts')).browserContextIds).toEqual([]);
    await watcher.browser.disconnect();
  });

  it('a remote browser killed mid-print fails those reports clearly, and the next one fails to connect, no hang', async () => {
    const remote = await startRemoteChromium();
    const watcher = await watch(remote);
    const printer = await PdfPrinter.launch({ browserWSEndpoint: remote.endpoint, pages: 2, timeoutMs: 50_000 });
    try {
      watcher.browser.once('targetcreated', () => void remote.kill());
      const results = await Promise.allSettled([printer.print(job('kill-1', longPage('One'))), printer.print(job('kill-2', longPage('Two')))]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BrowserLostError);
      }
      const next = printer.print(job('kill-3', longPage('Three')));
      await expect(next).rejects.toBeInstanceOf(BrowserConnectError);
      await expect(next).rejects.toThrow(/Could not connect to the remote browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\//);
      await next.catch((error: unknown) => expect((error as Error).message).not.toContain(POOL_TOKEN));
    } finally {
      await printer.close();
    }
  });
});

describe('the monthly batch when the remote browser dies mid-run', () => {
  it('leaves the reports it could not print pending with their report ids (never failed), names the lost browser, keeps the others', async () => {
    const remote = await startRemoteChromium();
    const printer = await PdfPrinter.launch({ browserWSEndpoint: remote.endpoint, pages: 2 });
    const config = ConfigSchema.parse({ report: { statuses: ['active', 'paused', 'archived'] } });
    const clock = (): Date => new Date('2026-11-04T06:00:00Z');
    const out = join(root, 'batch-killed');
    try {
      let killed = false;
      const warnings: string[] = [];
      const result = await runBatch({
        client: new ApiClient({ baseUrl: sim.url, tokens: new TokenPool([DEMO_TOKEN], { clock }), clock }),
        config,
        period: PERIOD,
        outDir: out,
        selection: { statuses: ['active', 'paused', 'archived'], projectIds: [] },
        concurrency: 2,
        printConcurrency: 2,
        renderer,
        printer: async () => printer,
        branding: await brandingFrom(config),
        clock,
        sleep: async () => {},
        onEvent: (event) => {
          if (event.type === 'warning') warnings.push(event.message);
          if (event.type === 'project-done' && !killed) {
            killed = true;
            void remote.kill();
          }
        },
      });
      expect(result.status).toBe('partial');
      const done = result.manifest.projects.filter((p) => p.status === 'done');
      const pending = result.manifest.projects.filter((p) => p.status === 'pending');
      expect(result.manifest.projects.filter((p) => p.status === 'failed')).toEqual([]);
      expect(done.length).toBeGreaterThanOrEqual(1);
      expect(pending.length).toBeGreaterThanOrEqual(1);
      expect(done.length + pending.length).toBe(8);
      // Those the service made are read back by their id next run, not asked again.
      expect(pending.some((entry) => entry.reportId !== null)).toBe(true);
      for (const entry of done) await expectValidPdf(join(out, PERIOD, entry.files.pdf as string), entry.name);
      const lost = warnings.join('\n');
      expect(lost).toMatch(/remote browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+/);
      expect(lost).not.toContain(POOL_TOKEN);
    } finally {
      await printer.close();
    }
  });
});
