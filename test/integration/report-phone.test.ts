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
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocales } from '../../src/i18n/locales.js';
import { chromiumArgs, findBrowser, findChromium } from '../../src/render/print/browser.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { footerText, pageLabel } from '../../src/render/print/footer.js';
import { PdfPrinter } from '../../src/render/print/printer.js';
import { loadTemplates } from '../../src/render/template-check/load.js';
import { assembleReport } from '../../src/report/assemble.js';
import type { ReportModel } from '../../src/report/model.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { hostileReportModel, reportModel } from '../fixtures/report-model.js';
import { withoutNarrowScreenRules } from '../support/narrow-screen.js';
import { pageFills, shortMiddlePages } from '../support/page-fill.js';
import { brokenWords, hyphenWidths, sidewaysScroll as pageSidewaysScroll, svgTextSizes, textSmallerThan } from '../support/screen-measure.js';

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

async function print(name: string, html: string, model: ReportModel): Promise<{ text: string; pages: number; htmlPath: string; pdfPath: string }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const htmlPath = join(dir, 'report.html');
  const pdfPath = join(dir, 'report.pdf');
  await writeFile(htmlPath, html);
  await printer.print({
    htmlPath,
    pdfPath,
    language: model.meta.language,
    footerText: footerText(model.branding, model),
    pageLabel: pageLabel(locales.phrases(model.meta.language)),
  });
  const text = (await run('pdftotext', ['-layout', pdfPath, '-'], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  const pages = Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [pdfPath])).stdout)?.[1]);
  return { text, pages, htmlPath, pdfPath };
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
    // Its pages look finished: every one but the cover and the last printed below 55 % of its height.
    expect(shortMiddlePages(await pageFills(after.pdfPath))).toEqual([]);
  }, 60_000);
});

/** `html` written to a folder of its own and opened at 390 px wide, as on a phone (or A4 wide, as printed). */
async function openReport(name: string, html: string, media: 'phone' | 'print'): Promise<Page> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'report.html'), html);
  const page = await browser.newPage();
  if (media === 'phone') await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
  else {
    await page.emulateMediaType('print');
    await page.setViewport({ width: 794, height: 1123 });
  }
  await page.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
  return page;
}

describe.each([
  ['English', 'en'],
  ['French', 'fr'],
] as const)('the %s report read on a 390 px phone', (name, language) => {
  it("keeps its table headers whole, opens its history on the newest months and draws the chart's labels at 10 px or more", async () => {
    const page = await openReport(`phone-${language}`, withRules.renderReport(reportModel(language)), 'phone');
    try {
      expect(await pageSidewaysScroll(page)).toBe(0);
      expect(await brokenWords(page, '.table thead th')).toEqual([]);
      const history = await page.evaluate(() => {
        const box = document.querySelector('.history-scroll') as HTMLElement;
        const edge = (element: Element | null) => {
          const rect = (element as Element).getBoundingClientRect();
          return { left: rect.left, right: rect.right };
        };
        return {
          scrolls: box.scrollWidth > box.clientWidth,
          box: edge(box),
          newest: edge(box.querySelector('thead th:last-child')),
          rowName: edge(box.querySelector('tbody th[scope="row"]')),
        };
      });
      // The table is wider than the phone: it scrolls inside its box, which opens on its right end.
      expect(history.scrolls).toBe(true);
      expect(history.newest.right).toBeLessThanOrEqual(history.box.right + 1);
      expect(history.newest.left).toBeGreaterThanOrEqual(history.box.left);
      expect(history.rowName.left).toBeGreaterThanOrEqual(history.box.left - 1);
      const labels = await svgTextSizes(page, '.chart');
      expect(labels.length).toBeGreaterThanOrEqual(6);
      for (const label of labels) expect(label.px, `"${label.text}" on the ${name} chart`).toBeGreaterThanOrEqual(10);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('prints and shows its hyphens as hyphens, no wider than in plain text', async () => {
    const html = withRules.renderReport(reportModel(language));
    for (const media of ['phone', 'print'] as const) {
      const page = await openReport(`hyphens-${language}-${media}`, html, media);
      try {
        const hyphens = await hyphenWidths(page, 'body');
        expect(hyphens.length).toBeGreaterThan(0);
        for (const { word, width, plain } of hyphens) expect(Math.abs(width - plain), `the hyphen of "${word}" (${media})`).toBeLessThan(0.25);
      } finally {
        await page.close();
      }
    }
  }, 60_000);
});

describe.each([
  ['English', () => reportModel('en')],
  ['French', () => reportModel('fr')],
  ['hostile', () => hostileReportModel()],
  ['assembled from the API fixtures', () => assembleReport(assembleInput())],
] as const)('the %s report on a 375 px phone', (name, makeModel) => {
  it('shows no text under 12 px (the computed size of every text node, SVG labels at their drawn size)', async () => {
    const slug = name.replace(/\W+/g, '-');
    const page = await openReport(`small-${slug}`, withRules.renderReport(makeModel()), 'phone');
    try {
      await page.setViewport({ width: 375, height: 812, isMobile: true, hasTouch: true });
      expect(await pageSidewaysScroll(page)).toBe(0);
      expect(await textSmallerThan(page, 'body', 12)).toEqual([]);
    } finally {
      await page.close();
    }
    // The measure is live: the same page without the phone's rules has text under 12 px.
    const before = await openReport(`small-${slug}-before`, withoutRules.renderReport(makeModel()), 'phone');
    try {
      await before.setViewport({ width: 375, height: 812, isMobile: true, hasTouch: true });
      expect((await textSmallerThan(before, 'body', 12)).length).toBeGreaterThan(20);
    } finally {
      await before.close();
    }
  }, 60_000);
});
