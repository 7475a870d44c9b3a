// Real Chromium, real files, a real loopback server that must never be contacted.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocales } from '../../src/i18n/locales.js';
import { findChromium } from '../../src/render/print/browser.js';
import { createHtmlRenderer, printerCopy } from '../../src/render/html.js';
import { withoutPolicyMeta } from '../../src/render/page-check.js';
import type { HtmlRenderer } from '../../src/render/html.js';
import { footerText, pageLabel } from '../../src/render/print/footer.js';
import { BrowserLaunchError, PdfPrintError, PdfPrinter, PdfTimeoutError } from '../../src/render/print/printer.js';
import type { ReportModel } from '../../src/report/model.js';
import { hostileReportModel, reportModel } from '../fixtures/report-model.js';
import { waitFor } from '../support/wait.js';

const run = promisify(execFile);
/** The PDF's text, or one page's. */
const pdfText = async (path: string, page?: number): Promise<string> =>
  (await run('pdftotext', ['-layout', ...(page === undefined ? [] : ['-f', String(page), '-l', String(page)]), path, '-'])).stdout;
const pdfInfo = async (path: string): Promise<Record<string, string>> => {
  const { stdout } = await run('pdfinfo', [path]);
  const info: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^([^:]+):\s*(.*)$/.exec(line);
    if (match?.[1] !== undefined) info[match[1]] = match[2] ?? '';
  }
  return info;
};
const squash = (text: string): string => text.replace(/[\s\u00a0\u202f]+/g, ' ');

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Renderer processes below a browser process, from /proc. */
function renderersBelow(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  const renderers = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('--type=renderer')) renderers.add(Number(name));
    } catch {
      // ended while read
    }
  }
  const found: number[] = [];
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    if (renderers.has(pid)) found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

describe('PdfPrinter with a real Chromium', () => {
  const executablePath = findChromium();
  const locales = loadLocales();
  let root: string;
  let renderer: HtmlRenderer;
  let printer: PdfPrinter;
  let server: Server;
  let port: number;
  const hits: string[] = [];

  /** Writes the model's HTML to `<root>/<name>/report.html` and prints it, as the batch does. */
  async function printModel(name: string, model: ReportModel, on: PdfPrinter = printer) {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const htmlPath = join(dir, 'report.html');
    const pdfPath = join(dir, 'report.pdf');
    writeFileSync(htmlPath, renderer.renderReport(model));
    const result = await on.print({
      htmlPath,
      pdfPath,
      language: model.meta.language,
      footerText: footerText(model.branding, model),
      pageLabel: pageLabel(locales.phrases(model.meta.language)),
    });
    return { ...result, pdfPath };
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'geo-pdf-'));
    renderer = await createHtmlRenderer();
    printer = await PdfPrinter.launch({ executablePath });
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('nope');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await printer.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(root, { recursive: true, force: true });
  });

  it('prints the English report: every section in the text, "Page 1 of N", a title in the metadata', async () => {
    const model = reportModel('en');
    const { pdfPath, blockedRequests } = await printModel('en', model);
    expect(blockedRequests).toEqual([]);
    expect(readFileSync(pdfPath).subarray(0, 5).toString()).toBe('%PDF-');
    const info = await pdfInfo(pdfPath);
    expect(info['Title']).toBe(model.meta.title);
    expect(info['Tagged']).toBe('yes');
    expect(info['Page size']).toContain('(A4)');
    const pages = Number(info['Pages']);
    expect(pages).toBeGreaterThanOrEqual(4);
    const text = squash(await pdfText(pdfPath));
    for (const expected of [
      'Atelier Verdant',
      'GEO & SEO REPORT',
      'October 2026',
      'GEO score',
      '72 out of 100',
      '73 out of 100',
      'Top 18% of tracked sites',
      'ChatGPT',
      'Perplexity',
      'Add Product schema to every product page',
      'Fix the 14 broken internal links in the blog',
      'Add alt text to gallery images',
      'Largest Contentful Paint',
      'Referring domains',
      '1,873',
      'Google Reviews',
      'Trustpilot',
      'Avis Vérifiés',
      'Local presence',
      `Page 1 of ${pages}`,
      `Page ${pages} of ${pages}`,
    ]) {
      expect(text, expected).toContain(expected);
    }
    // agency.footer at the foot of every page, beside its number.
    for (let page = 1; page <= pages; page += 1) {
      const foot = squash(await pdfText(pdfPath, page)).trimEnd();
      expect(foot, `page ${page}`).toMatch(new RegExp(`Lumen & Co Digital · Confidential: prepared for Atelier Verdant Page ${page} of ${pages}$`));
    }
  });

  it('prints the French report with French labels and page numbers', async () => {
    const { pdfPath } = await printModel('fr', reportModel('fr'));
    const pages = Number((await pdfInfo(pdfPath))['Pages']);
    const text = squash(await pdfText(pdfPath));
    for (const expected of [
      'Synthèse',
      'Un mot de Lumen & Co Digital',
      'Dans les 18 % meilleurs sites suivis',
      "Plateformes d'avis",
      'Ajouter le balisage Product à chaque fiche produit',
      'Domaines référents 1 873',
      `Page 1 sur ${pages}`,
    ]) {
      expect(text, expected).toContain(expected);
    }
  });

  it('prints several reports at once on one browser', async () => {
    const pid = printer.browserPid;
    expect(pid).toBeTypeOf('number');
    const results = await Promise.all(['a', 'b', 'c'].map((name) => printModel(`many-${name}`, reportModel('en'))));
    for (const { pdfPath } of results) expect(readFileSync(pdfPath).subarray(0, 5).toString()).toBe('%PDF-');
    expect(printer.browserPid).toBe(pid);
  });

  it('a hostile model makes no request and runs nothing: its markup prints as text', async () => {
    const before = hits.length;
    const { pdfPath, blockedRequests } = await printModel('hostile', hostileReportModel({ remoteUrl: `http://127.0.0.1:${port}/x.png` }));
    expect(hits.length - before).toBe(0);
    expect(blockedRequests).toEqual([]);
    const text = squash(await pdfText(pdfPath));
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain(`<img src="http://127.0.0.1:${port}/x.png">`);
  });

  it('seals the page itself: no script, no network, no file outside the report folder', async () => {
    const dir = join(root, 'sealed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(root, 'outside.css'), 'body { color: red }');
    writeFileSync(join(dir, 'inside.css'), 'body { color: black }');
    const base = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'report.html'),
      `<!doctype html><html lang="en"><head><title>Sealed page</title>
      <link rel="stylesheet" href="${base}/style.css"><link rel="stylesheet" href="inside.css"><link rel="stylesheet" href="../outside.css">
      </head><body><h1>Sealed</h1><img src="${base}/direct.png" alt=""><iframe src="${base}/frame"></iframe>
      <script>document.title = 'script ran'; fetch('${base}/script');</script></body></html>`,
    );
    const pdfPath = join(dir, 'report.pdf');
    const before = hits.length;
    const { blockedRequests } = await printer.print({
      htmlPath: join(dir, 'report.html'),
      pdfPath,
      language: 'en',
      footerText: 'x',
      pageLabel: 'Page {page} of {pages}',
    });
    expect(hits.length - before).toBe(0);
    expect(blockedRequests).toEqual(
      expect.arrayContaining([`${base}/style.css`, `${base}/direct.png`, `${base}/frame`, expect.stringMatching(/^file:.*\/outside\.css$/)]),
    );
    expect(blockedRequests.some((url) => url.endsWith('/inside.css'))).toBe(false);
    expect((await pdfInfo(pdfPath))['Title']).toBe('Sealed page');
  });

  it('stops a report that exceeds the time limit; the next one prints on the same browser', async () => {
    // The test ends the limit itself, once Chromium is surely stuck, instead of waiting for a real one to pass.
    const expiries: Array<() => void> = [];
    const quick = await PdfPrinter.launch({
      executablePath,
      timeoutMs: 30_000,
      startDeadline: (_ms, expire) => {
        expiries.push(expire);
        return () => {};
      },
    });
    try {
      const dir = join(root, 'stuck');
      mkdirSync(dir, { recursive: true });
      // A named pipe nobody writes to: Chromium waits on it forever, so the page never finishes loading.
      const fifo = join(dir, 'stalled.css');
      await run('mkfifo', [fifo]);
      writeFileSync(
        join(dir, 'report.html'),
        '<!doctype html><html lang="en"><head><title>Stuck</title><link rel="stylesheet" href="stalled.css"></head><body>never</body></html>',
      );
      const pid = quick.browserPid;
      const printing = quick.print({
        htmlPath: join(dir, 'report.html'),
        pdfPath: join(dir, 'report.pdf'),
        language: 'en',
        footerText: 'x',
        pageLabel: '{page}/{pages}',
      });
      // Opening the pipe for writing returns once a reader has it open: Chromium is now waiting on the stylesheet.
      const writer = await open(fifo, 'w');
      try {
        expect(expiries).toHaveLength(1);
        expiries[0]?.();
        await expect(printing).rejects.toBeInstanceOf(PdfTimeoutError);
      } finally {
        await writer.close();
      }
      expect(existsSync(join(dir, 'report.pdf'))).toBe(false);
      const { pdfPath } = await printModel('after-timeout', reportModel('en'), quick);
      expect(readFileSync(pdfPath).subarray(0, 5).toString()).toBe('%PDF-');
      expect(quick.browserPid).toBe(pid);
    } finally {
      await quick.close();
    }
  });

  it('replaces a crashed browser and recycles it every restartEvery reports', async () => {
    let launches = 0;
    const counted = await PdfPrinter.launch({
      executablePath,
      restartEvery: 2,
      launch: (options) => {
        launches += 1;
        return puppeteer.launch(options);
      },
    });
    try {
      const first = counted.browserPid;
      await printModel('recycle-1', reportModel('en'), counted);
      await printModel('recycle-2', reportModel('en'), counted);
      expect(counted.browserPid).toBe(first);
      await printModel('recycle-3', reportModel('en'), counted);
      const second = counted.browserPid;
      expect(second).not.toBe(first);
      expect(launches).toBe(2);
      expect(first !== null && isRunning(first)).toBe(false);

      if (second === null) throw new Error('no browser after recycling');
      process.kill(second, 'SIGKILL');
      await waitFor(`the killed Chromium (pid ${second}) to exit`, () => !isRunning(second), { everyMs: 50 });
      await printModel('after-crash', reportModel('en'), counted);
      expect(counted.browserPid).not.toBe(second);
      expect(launches).toBe(3);
    } finally {
      await counted.close();
    }
  });

  it('prints a report handed over as content, its fonts linked or inline, exactly as from its file; data: URLs and its fonts only', async () => {
    const model = reportModel('en');
    const dir = join(root, 'content');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'beside.css'), 'body { color: red }');
    const extra = `<link rel="stylesheet" href="beside.css"><link rel="stylesheet" href="http://127.0.0.1:${port}/c.css"></head>`;
    // Without the page's policy, which would stop those requests before the printer sees them (checked below).
    const html = withoutPolicyMeta(renderer.renderReport(model)).replace('</head>', extra);
    const { before, after } = renderer.renderReportParts(model);
    expect(`${before}${renderer.fonts.embedded}${after}`).toBe(renderer.renderReport(model));
    const linked = `${printerCopy(before)}${renderer.fonts.linked}${after}`.replace('</head>', extra);
    writeFileSync(join(dir, 'report.html'), html);
    const job = { htmlPath: join(dir, 'report.html'), language: 'en' as const, footerText: 'x', pageLabel: 'Page {page} of {pages}' };
    const hitsBefore = hits.length;
    const fromFile = await printer.print({ ...job, pdfPath: join(dir, 'file.pdf') });
    const asContent = await printer.print({ ...job, html, pdfPath: join(dir, 'content.pdf') });
    const withLinkedFonts = await printer.print({ ...job, html: linked, assets: renderer.fonts.assets, pdfPath: join(dir, 'linked.pdf') });
    expect(hits.length - hitsBefore).toBe(0);
    expect(fromFile.blockedRequests).toEqual([`http://127.0.0.1:${port}/c.css`]);
    expect(asContent.blockedRequests).toEqual([`http://127.0.0.1:${port}/c.css`]);
    expect(withLinkedFonts.blockedRequests).toEqual([`http://127.0.0.1:${port}/c.css`]);
    const fileText = await pdfText(join(dir, 'file.pdf'));
    expect(await pdfText(join(dir, 'content.pdf'))).toBe(fileText);
    expect(await pdfText(join(dir, 'linked.pdf'))).toBe(fileText);
    const fileInfo = await pdfInfo(join(dir, 'file.pdf'));
    for (const other of ['content.pdf', 'linked.pdf']) {
      const info = await pdfInfo(join(dir, other));
      for (const key of ['Title', 'Tagged', 'Pages', 'Page size']) expect(info[key], `${other} ${key}`).toBe(fileInfo[key]);
    }
    const fonts = async (path: string): Promise<string[]> =>
      (await run('pdffonts', [path])).stdout
        .trim()
        .split('\n')
        .slice(2)
        .map((line) => line.replace(/^[A-Z]{6}\+/, '').replace(/\s+\d+\s+\d+\s*$/, ''));
    const fileFonts = await fonts(join(dir, 'file.pdf'));
    expect(fileFonts.some((line) => line.startsWith('Inter-'))).toBe(true);
    expect(await fonts(join(dir, 'content.pdf'))).toEqual(fileFonts);
    expect(await fonts(join(dir, 'linked.pdf'))).toEqual(fileFonts);
    expect(fileFonts.every((line) => /\byes\s+yes\s+yes$/.test(line))).toBe(true);
    // With its policy, as written: the same PDF, nothing even asked for; the batch's copy for the printer has none.
    const sealed = await printer.print({ ...job, html: renderer.renderReport(model).replace('</head>', extra), pdfPath: join(dir, 'sealed.pdf') });
    expect(sealed.blockedRequests).toEqual([]);
    expect(hits.length - hitsBefore).toBe(0);
    expect(await pdfText(join(dir, 'sealed.pdf'))).toBe(fileText);
    expect(await fonts(join(dir, 'sealed.pdf'))).toEqual(fileFonts);
    expect(printerCopy(before)).toBe(withoutPolicyMeta(before));
    expect(before).toContain('<meta http-equiv="Content-Security-Policy"');
  });

  it('a renderer that crashes while printing content fails that report at once, and the next one prints on a fresh page', async () => {
    // A time limit longer than the test's own: only the crash itself can end this print in time.
    const own = await PdfPrinter.launch({ executablePath, pages: 1, timeoutMs: 120_000 });
    try {
      const browserPid = own.browserPid as number;
      const dir = join(root, 'crash');
      mkdirSync(dir, { recursive: true });
      const job = { htmlPath: join(dir, 'report.html'), language: 'en' as const, footerText: 'x', pageLabel: '{page}/{pages}' };
      // A first report leaves the printer's sealed page idle, with its own renderer.
      await own.print({ ...job, html: '<!doctype html><title>Warm</title><p>Warm</p>', pdfPath: join(dir, 'warm.pdf') });
      const long = `<!doctype html><html lang="en"><head><title>Long</title></head><body>${'<p>Line after line of visibility figures.</p>'.repeat(20_000)}</body></html>`;
      const printing = own.print({ ...job, html: long, pdfPath: join(dir, 'crashed.pdf') });
      // Every renderer goes (the browser lives on): the page's dies while it takes the long report.
      for (const pid of renderersBelow(browserPid)) process.kill(pid, 'SIGKILL');
      const error = await printing.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PdfPrintError);
      expect(error).not.toBeInstanceOf(PdfTimeoutError);
      expect((error as Error).message).toMatch(/the page crashed/);
      expect(existsSync(join(dir, 'crashed.pdf'))).toBe(false);
      const { pdfPath } = await printModel('after-renderer-crash', reportModel('en'), own);
      expect(readFileSync(pdfPath).subarray(0, 5).toString()).toBe('%PDF-');
      expect(own.browserPid).toBe(browserPid);
    } finally {
      await own.close();
    }
  });

  it('close() kills Chromium, twice is fine, and printing afterwards fails clearly', async () => {
    const own = await PdfPrinter.launch({ executablePath });
    const pid = own.browserPid;
    if (pid === null) throw new Error('no browser pid');
    expect(isRunning(pid)).toBe(true);
    await own.close();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(own.browserPid).toBeNull();
    await own.close();
    await expect(
      own.print({ htmlPath: join(root, 'en', 'report.html'), pdfPath: join(root, 'closed.pdf'), language: 'en', footerText: '', pageLabel: '' }),
    ).rejects.toBeInstanceOf(PdfPrintError);
  });

  it('reports a Chromium that cannot start', async () => {
    await expect(PdfPrinter.launch({ executablePath: join(root, 'no-such-chromium') })).rejects.toBeInstanceOf(BrowserLaunchError);
  });
});
