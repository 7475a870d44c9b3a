// report.html reads on a phone (the published site links to it) while its print stays what it was: the built-in
// report's narrow-screen rules are screen-only. Each model is rendered with the built-in stylesheet and with the
// same stylesheet without those rules, then printed by the real Chromium and opened at 390 px wide: the PDFs have
// the same text and the same page count, and only the stylesheet with the rules fits the phone's width.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocales } from '../../src/i18n/locales.js';
import { chromiumArgs, findBrowser, findChromium } from '../../src/render/browser.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { PdfPrinter } from '../../src/render/pdf.js';
import { loadTemplates } from '../../src/render/templates.js';
import { assembleReport } from '../../src/report/assemble.js';
import type { ReportModel } from '../../src/report/model.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { hostileReportModel, reportModel } from '../fixtures/report-model.js';
import { withoutNarrowScreenRules } from '../support/narrow-screen.js';

const run = promisify(execFile);

let root: string;
let withRules: HtmlRenderer;
let withoutRules: HtmlRenderer;
let printer: PdfPrinter;
let browser: Browser;
const locales = loadLocales();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-phone-'));
  const prepared = await loadTemplates();
  withRules = await createHtmlRenderer({ templates: prepared });
  withoutRules = await createHtmlRenderer({ templates: withoutNarrowScreenRules(prepared), fonts: withRules.fonts });
  printer = await PdfPrinter.launch({ executablePath: findChromium() });
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
}, 60_000);

afterAll(async () => {
  await printer.close();
  await browser.close();
  await rm(root, { recursive: true, force: true });
});

async function print(name: string, html: string, model: ReportModel): Promise<{ text: string; pages: number; htmlPath: string }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const htmlPath = join(dir, 'report.html');
  const pdfPath = join(dir, 'report.pdf');
  await writeFile(htmlPath, html);
  await printer.print({
    htmlPath,
    pdfPath,
    language: model.meta.language,
    footerText: `${model.branding.agencyName} · ${model.client.name} · ${model.meta.periodLabel}`,
    pageLabel: locales.phrases(model.meta.language)['print.page'] ?? 'Page {page} of {pages}',
  });
  const text = (await run('pdftotext', ['-layout', pdfPath, '-'], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  const pages = Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [pdfPath])).stdout)?.[1]);
  return { text, pages, htmlPath };
}

/** The page's width at 390 px: how far it scrolls sideways (0 = not at all). */
async function sidewaysScroll(htmlPath: string): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
    return await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  } finally {
    await page.close();
  }
}

describe.each([
  ['English', () => reportModel('en')],
  ['French', () => reportModel('fr')],
  ['hostile', () => hostileReportModel()],
  ['assembled from the API fixtures', () => assembleReport(assembleInput())],
] as const)('the %s report', (name, makeModel) => {
  it('prints the same text on the same number of A4 pages with the narrow-screen rules, and fits 390 px only with them', async () => {
    const model = makeModel();
    const slug = name.replace(/\W+/g, '-');
    const after = await print(`${slug}-with`, withRules.renderReport(model), model);
    const before = await print(`${slug}-without`, withoutRules.renderReport(model), model);
    expect(after.pages).toBeGreaterThan(1);
    expect(after.pages).toBe(before.pages);
    expect(after.text).toBe(before.text);
    expect(await sidewaysScroll(after.htmlPath)).toBe(0);
    expect(await sidewaysScroll(before.htmlPath)).toBeGreaterThan(300);
  }, 60_000);
});
