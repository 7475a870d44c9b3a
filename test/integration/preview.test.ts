// `geo-reports preview` for real: the CLI spawned on port 0 over a finished period, its page opened in Chromium,
// a partial changed on disk and the new text seen without a manual reload, the PDF route printing the change, and
// hostile traffic that the server survives without leaking anything. The API double counts every request: the
// preview sends none.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, startCli, type RunningCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const exec = promisify(execFile);
const TOKEN = 'tok-preview-58e2c1a9f0b3d764';
const PERIOD = '2026-10';
const EXAMPLE = new URL('../../examples/agency-templates/', import.meta.url).pathname;

let sim: SimulatorHandle;
let root: string;
let preview: RunningCli;
let url: string;
let browser: Browser;
let page: Page;
let requestsAfterRun: number;
let projectIds: number[];
let reportHashes: string;
const previewFoldersBefore = new Set<string>();

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url });
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
const previewFolders = async (): Promise<string[]> => (await readdir(tmpdir())).filter((name) => name.startsWith('geo-reports-preview-'));

/** Every report.html of the finished period, hashed: the preview must never write there. */
async function periodReports(): Promise<string> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(root, 'out', PERIOD, 'manifest.json'), 'utf8')));
  const hashes = await Promise.all(
    manifest.projects.filter((p) => p.files.html !== null).map(async (p) => sha256(await readFile(join(root, 'out', PERIOD, p.files.html as string)))),
  );
  return hashes.join(',');
}

/** One raw HTTP exchange, exactly as written (no URL normalisation on our side). */
function rawRequest(text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(text);
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  rawRequest(
    `GET ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

async function pdfText(bytes: Buffer): Promise<string> {
  const file = join(root, `check-${sha256(bytes).slice(0, 8)}.pdf`);
  await writeFile(file, bytes);
  const { stdout } = await exec('pdftotext', ['-layout', file, '-'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.replace(/\s+/g, ' ');
}

const bodyText = (): Promise<string> => page.evaluate(() => document.body.innerText);
const PREVIEW_ARGS = ['preview', '--port', '0', '--templates', 'tpl', '--out', 'out', '--period', PERIOD, '--config', 'geo-reports.json'];
const ABOUT_PARTIAL = (): string => join(root, 'tpl', 'partials', 'about-us.hbs');
const LIVE_CHANGE = '<p class="live">Changed on disk, seen live.</p>\n  <div class="about-us__body">';
const CONFIG = { agency: { name: 'Northwind Digital', contact: { email: 'reports@northwind.example' } } };

/** Writes a file the preview watches, waits until the page shows `shown`, and gives back a way to undo it. */
async function changeOnDisk(file: string, text: string, shown: string): Promise<() => Promise<void>> {
  const before = await readFile(file, 'utf8');
  await page.goto(url, { waitUntil: 'load' });
  await writeFile(file, text);
  // Not seen: the file is put back before the failure, so that no other test reads the change.
  await page
    .waitForFunction((expected) => document.body.innerText.includes(expected), { timeout: 15_000 }, shown)
    .catch(async (error: unknown) => {
      await writeFile(file, before);
      throw error;
    });
  return async () => {
    await writeFile(file, before);
    await page.waitForFunction((gone) => !document.body.innerText.includes(gone), { timeout: 15_000 }, shown);
  };
}

beforeAll(async () => {
  sim = await startSimulator({ tokens: [TOKEN], projectCount: 4 });
  root = await mkdtemp(join(tmpdir(), 'geo-preview-'));
  await cp(EXAMPLE, join(root, 'tpl'), { recursive: true });
  await writeFile(join(root, 'geo-reports.json'), JSON.stringify(CONFIG));
  // A finished period, made by the monthly run.
  const run = await runCli(['run', '--period', PERIOD, '--out', 'out', '--config', 'geo-reports.json', '--json'], {
    env: env(),
    cwd: root,
    timeoutMs: 120_000,
  });
  expect(run.code, run.stderr).toBe(0);
  const manifest = Manifest.parse(JSON.parse(await readFile(join(root, 'out', PERIOD, 'manifest.json'), 'utf8')));
  projectIds = manifest.projects.filter((p) => p.status === 'done').map((p) => p.id);
  requestsAfterRun = sim.state.requests.length;
  reportHashes = await periodReports();
  for (const name of await previewFolders()) previewFoldersBefore.add(name);

  preview = startCli(PREVIEW_ARGS, { env: env(), cwd: root });
  url = await preview.firstLine;
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
  page = await browser.newPage();
}, 180_000);

afterAll(async () => {
  // Unset when beforeAll failed before reaching them.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
  await browser?.close();
  try {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    if (preview !== undefined) {
      // Whatever the tests asked of it: no request to the API, nothing written into the period, no folder left once stopped.
      expect(sim.state.requests.length).toBe(requestsAfterRun);
      expect(await periodReports()).toBe(reportHashes);
      expect((await preview.stop('SIGINT')).code).toBe(0);
      expect((await previewFolders()).filter((name) => !previewFoldersBefore.has(name))).toEqual([]);
    }
  } finally {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    await preview?.stop('SIGKILL');
    await sim.close();
    await rm(root, { recursive: true, force: true });
  }
});

describe('preview of a finished period, in a real browser', () => {
  it('prints its address first, on loopback, and serves the report with its toolbar', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const response = await page.goto(url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    const text = await bodyText();
    expect(text).toContain('geo-reports preview');
    expect(text).toContain('About Northwind Digital');
    expect(await page.$$eval('#geo-preview select[name=project] option', (options) => options.map((o) => Number(o.value)))).toEqual(projectIds);
    // The page loads nothing but itself, its fonts and its event stream: no remote resource, no console error (CSP holds).
    expect(requested.filter((r) => !r.startsWith(url) && !r.startsWith('data:'))).toEqual([]);
    expect(requested.some((r) => r.startsWith(`${url}fonts/inter-`))).toBe(true);
    expect(await page.evaluate(() => document.fonts.ready.then(() => document.fonts.check('700 12px Inter')))).toBe(true);
    expect(problems).toEqual([]);
    expect(preview.stderr).toMatch(/Previewing \d+ project\(s\) from the saved data of 2026-10/);
  });

  it('picks another project and language from the toolbar', async () => {
    await page.goto(url, { waitUntil: 'load' });
    const other = projectIds[1] as number;
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.select('#geo-preview select[name=project]', String(other))]);
    expect(page.url()).toContain(`project=${other}`);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.select('#geo-preview select[name=language]', 'fr')]);
    expect(await bodyText()).toContain('À propos de Northwind Digital');
    await page.goto(url, { waitUntil: 'load' });
  });

  it('shows the mail that carries the report beside it, in the language asked for', async () => {
    const requested: string[] = [];
    const listen = (request: { url(): string }): void => void requested.push(request.url());
    page.on('request', listen);
    try {
      const response = await page.goto(`${url}email?project=${projectIds[0]}&language=fr`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const text = await bodyText();
      expect(text).toContain('geo-reports preview');
      expect(text).toContain('Le mois en un coup d’œil');
      expect(text).toContain('Score GEO');
      expect(await page.$eval('#geo-preview form', (form) => form.getAttribute('action'))).toBe('/email');
      expect(requested.filter((r) => !r.startsWith(url) && !r.startsWith('data:'))).toEqual([]);
    } finally {
      page.off('request', listen);
    }
    await page.goto(url, { waitUntil: 'load' });
  });

  it('shows a saved change of a partial without a manual reload', async () => {
    await page.goto(url, { waitUntil: 'load' });
    const version = await page.$eval('#geo-preview', (bar) => Number((bar as HTMLElement).dataset['version']));
    const original = await readFile(ABOUT_PARTIAL(), 'utf8');
    const undo = await changeOnDisk(ABOUT_PARTIAL(), original.replace('<div class="about-us__body">', LIVE_CHANGE), 'Changed on disk, seen live.');
    try {
      expect(await page.$eval('#geo-preview', (bar) => Number((bar as HTMLElement).dataset['version']))).toBeGreaterThan(version);
    } finally {
      await undo();
    }
  });

  it('prints the PDF on request, carrying the change', async () => {
    const original = await readFile(ABOUT_PARTIAL(), 'utf8');
    const undo = await changeOnDisk(ABOUT_PARTIAL(), original.replace('<div class="about-us__body">', LIVE_CHANGE), 'Changed on disk, seen live.');
    try {
      const response = await fetch(`${url}report.pdf?project=${projectIds[0]}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const text = await pdfText(bytes);
      expect(text).toContain('Changed on disk, seen live.');
      expect(text).toContain('About Northwind Digital');
      // Finished as the batch's are (the same print step): the agency as author, XMP metadata, tags, a contents page.
      const file = join(root, `finished-${sha256(bytes).slice(0, 8)}.pdf`);
      await writeFile(file, bytes);
      const info = (await exec('pdfinfo', [file])).stdout;
      expect(info).toMatch(/^Author: +Northwind Digital$/m);
      expect(info).toMatch(/^Metadata Stream: +yes$/m);
      expect(info).toMatch(/^Tagged: +yes$/m);
      if (Number(/^Pages: +(\d+)$/m.exec(info)?.[1]) >= 6) {
        expect((await exec('pdftotext', ['-f', '2', '-l', '2', file, '-'])).stdout.trimStart()).toMatch(/^Contents\n/);
      }
    } finally {
      await undo();
    }
  });

  it('shows a broken save as its error in the page, and the report again once fixed', async () => {
    const good = await readFile(ABOUT_PARTIAL(), 'utf8');
    const fix = await changeOnDisk(ABOUT_PARTIAL(), good.replace('{{t "about.serviceGeo"}}', '{{t "about.serviceGeo"}'), 'The report cannot be rendered');
    const shown = await bodyText();
    // At the tag left open (its line and column in the file as saved), in words.
    const lines = good.split('\n');
    const line = lines.findIndex((text) => text.includes('{{t "about.serviceGeo"}}'));
    const column = (lines[line] ?? '').indexOf('{{t "about.serviceGeo"}}') + 1;
    try {
      expect(shown).toContain(
        `${ABOUT_PARTIAL()}:${line + 1}:${column}: error: Handlebars syntax error: the tag {{t "about.serviceGeo"}</li>… is not closed with }}`,
      );
    } finally {
      await fix();
    }
    await page.waitForFunction(() => document.body.innerText.includes('About Northwind Digital'), { timeout: 15_000 });
  });

  it('reloads when the config changes too', async () => {
    const undo = await changeOnDisk(
      join(root, 'geo-reports.json'),
      JSON.stringify({ agency: { ...CONFIG.agency, name: 'Southwind Studio' } }),
      'About Southwind Studio',
    );
    await undo();
  });
});

describe('hostile traffic', () => {
  it('unknown routes and every form of path traversal: 404 or 400, nothing read from the disk', async () => {
    for (const path of [
      '/admin',
      '/report.html',
      '/favicon.ico',
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2fetc%2fpasswd',
      '/%252e%252e/etc/passwd',
      '//etc/passwd',
      '/report.pdf/../../../../etc/passwd',
      '/tpl/partials/about-us.hbs',
      '/out/2026-10/manifest.json',
      '/\\..\\..\\etc\\passwd',
      '/fonts/../../etc/passwd',
      '/fonts/%2e%2e/%2e%2e/etc/passwd',
      '/fonts/',
      '/fonts/inter-latin-400-normal.woff2/../../../package.json',
    ]) {
      const answer = await get(path);
      expect([400, 404], path).toContain(statusOf(answer));
      expect(answer, path).not.toMatch(/root:x:0:0|"period"|\{\{t /);
    }
  });

  it('bad query values get a clear 400 or 404', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['/?project=abc', 400, /&quot;project&quot; must be a project id/],
      ['/?project=-1', 400, /&quot;project&quot; must be a project id/],
      ['/?project=1e3', 400, /&quot;project&quot; must be a project id/],
      ['/?project=99999', 404, /Project 99999 is not in the saved data/],
      ['/?language=sv', 400, /&quot;language&quot; must be one of en, fr, de, es, it, nl, pt/],
      ['/?language=%3Cscript%3E', 400, /not &quot;&lt;script&gt;&quot;/],
      ['/report.pdf?project=0', 404, /Project 0 is not/],
      [`/?project=${'9'.repeat(3000)}`, 414, /URL too long/],
    ];
    for (const [path, status, body] of cases) {
      const answer = await get(path);
      expect(statusOf(answer), path).toBe(status);
      expect(answer, path).toMatch(body);
    }
  });

  it('other methods, other hosts and garbage are refused; the server stays up', async () => {
    const host = new URL(url).host;
    expect(statusOf(await rawRequest(`POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello=world`))).toBe(405);
    expect(statusOf(await rawRequest(`DELETE /events HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))).toBe(405);
    // A page of another site whose name resolves to this address (DNS rebinding) gets nothing.
    const rebound = await rawRequest(`GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`);
    expect(statusOf(rebound)).toBe(403);
    expect(rebound).not.toContain('About');
    expect(statusOf(await rawRequest('GARBAGE\r\n\r\n'))).toBe(400);
    expect(statusOf(await rawRequest(`GET / HTTP/1.1\r\nHost: ${host}\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`))).toBe(431);
    expect((await fetch(url)).status).toBe(200);
  });

  it('many requests at once are all answered; the same PDF asked ten times is printed once', async () => {
    const pages = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${url}?project=${projectIds[i % projectIds.length]}`)));
    for (const response of pages) expect([200, 503]).toContain(response.status);
    expect(pages.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    await Promise.all(pages.map((r) => r.arrayBuffer()));
    const printed = (): number => (preview.stderr.match(/Printed the PDF of project/g) ?? []).length;
    const before = printed();
    const pdfs = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${url}report.pdf?project=${projectIds[0]}&language=en`).then(async (r) => ({
          status: r.status,
          hash: sha256(Buffer.from(await r.arrayBuffer())),
        })),
      ),
    );
    expect(pdfs.every((p) => p.status === 200)).toBe(true);
    expect(new Set(pdfs.map((p) => p.hash)).size).toBe(1);
    expect(printed() - before).toBe(1);
  });

  it('event-stream clients that disconnect are let go; too many at once are refused', async () => {
    const open = (): Promise<{ status: number; close(): void }> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${url}events`, (res) => {
          res.once('data', () => resolve({ status: res.statusCode ?? 0, close: () => req.destroy() }));
          if (res.statusCode !== 200) {
            res.resume();
            resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
          }
        });
        req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
        req.end();
      });
    // The browser page leaves: its stream goes too.
    await page.goto('about:blank');
    for (let round = 0; round < 3; round += 1) {
      const streams = await Promise.all(Array.from({ length: 40 }, open));
      const statuses = streams.map((s) => s.status);
      // 32 places, every round: the streams of the round before were let go when their clients left.
      expect(statuses.filter((s) => s === 200).length).toBe(32);
      expect(statuses.filter((s) => s === 503).length).toBe(8);
      for (const stream of streams) stream.close();
      await delay(300);
    }
    const last = await open();
    expect(last.status).toBe(200);
    last.close();
  });

  it('a client that stalls in its headers does not hold up the others', async () => {
    const { port } = new URL(url);
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.write(`GET / HTTP/1.1\r\nHost: ${new URL(url).host}\r\nX-Slow: `);
    try {
      expect((await fetch(url)).status).toBe(200);
    } finally {
      stalled.destroy();
    }
  });
});

describe('a port that is taken', () => {
  it('is a clear error, exit 2', async () => {
    const taken = new URL(url).port;
    const second = await runCli(['preview', '--port', taken, '--out', 'out', '--period', PERIOD], { env: env(), cwd: root });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`Error: The preview cannot listen on 127\\.0\\.0\\.1:${taken}: port ${taken} is already in use\\.`));
    expect(second.stderr).toMatch(/Fix: Pick another port with --port N/);
  });
});

describe('a preview on every interface (--host 0.0.0.0)', () => {
  it('warns on start that the network sees the reports, and still answers no Host but its own names and addresses', async () => {
    const wide = startCli([...PREVIEW_ARGS, '--host', '0.0.0.0'], { env: env(), cwd: root });
    try {
      const wideUrl = await wide.firstLine;
      const { port } = new URL(wideUrl);
      const asked = (host: string): Promise<string> =>
        new Promise((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1');
          let answer = '';
          socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
          socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
          socket.on('close', () => resolve(answer));
          socket.on('error', reject);
          socket.write(`GET /?project=${projectIds[0]} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        });
      // A forged Host, and a page of another site whose name resolves to this machine (DNS rebinding): refused.
      for (const host of [`evil.example:${port}`, 'evil.example', `attacker.example:${port}`]) {
        const answer = await asked(host);
        expect(statusOf(answer), host).toBe(403);
        expect(answer).not.toContain('About');
      }
      expect(statusOf(await asked(`127.0.0.1:${port}`))).toBe(200);
      expect(statusOf(await asked(`${hostname()}:${port}`))).toBe(200);
      await waitFor('the warning of a bind on every interface', () => wide.stderr.includes('not loopback'));
      expect(wide.stderr).toContain("Warning: listening on 0.0.0.0, not loopback: anyone who reaches this address sees your clients' reports.");
    } finally {
      await wide.stop('SIGINT');
    }
  });
});

describe('what the preview did not do', () => {
  // A preview of its own, stopped here; the shared one is checked the same way once every test is done (afterAll).
  it('sent no request to the API, wrote nothing into the period, and left no folder behind once stopped', async () => {
    const foldersBefore = new Set(await previewFolders());
    const own = startCli(PREVIEW_ARGS, { env: env(), cwd: root });
    const ownUrl = await own.firstLine;
    expect((await fetch(ownUrl)).status).toBe(200);
    expect((await fetch(`${ownUrl}report.pdf?project=${projectIds[0]}`)).status).toBe(200);
    expect(sim.state.requests.length).toBe(requestsAfterRun);
    expect(await periodReports()).toBe(reportHashes);
    const { code } = await own.stop('SIGINT');
    expect(code).toBe(0);
    expect((await previewFolders()).filter((name) => !foldersBefore.has(name))).toEqual([]);
    expect(sim.state.requests.length).toBe(requestsAfterRun);
  });
});
