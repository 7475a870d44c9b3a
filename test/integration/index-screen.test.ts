// The agency index as a real Chromium lays it out on a desktop (1280 px) and a phone (390 px): the page never
// scrolls sideways, and no pill, column header or sort button is cut inside a word ("Don / e").
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { hostileIndexModel, indexModel } from '../fixtures/report-model.js';
import { brokenWords, hyphenWidths, sidewaysScroll } from '../support/screen-measure.js';

let root: string;
let browser: Browser;
let renderer: HtmlRenderer;

beforeAll(async () => {
  renderer = await createHtmlRenderer();
  root = await mkdtemp(join(tmpdir(), 'geo-index-screen-'));
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
}, 60_000);

afterAll(async () => {
  await browser.close();
  await rm(root, { recursive: true, force: true });
});

describe.each([
  ['English', () => indexModel('en')],
  ['French', () => indexModel('fr')],
  ['hostile', () => hostileIndexModel()],
] as const)('the %s agency index', (name, makeModel) => {
  it.each([1280, 390])(
    'fits %i px: its pills, column headers and sort buttons whole, no sideways scroll',
    async (width) => {
      const path = join(root, `${name}-${width}.html`);
      await writeFile(path, renderer.renderIndex(makeModel()));
      const page = await browser.newPage();
      try {
        await page.setJavaScriptEnabled(false);
        await page.setViewport({ width, height: 900, isMobile: width < 600, hasTouch: width < 600 });
        await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
        expect(await sidewaysScroll(page)).toBe(0);
        expect(await brokenWords(page, '.state, .clients thead th, .sorter__label, .totals__label')).toEqual([]);
        // Every pill is on one line: as tall as one line of its text.
        const pills = await page.evaluate(() =>
          Array.from(document.querySelectorAll<HTMLElement>('.state'))
            .filter((pill) => pill.offsetParent !== null)
            .map((pill) => ({ text: pill.textContent, height: pill.getBoundingClientRect().height, line: parseFloat(getComputedStyle(pill).lineHeight) })),
        );
        expect(pills.length).toBeGreaterThan(0);
        for (const pill of pills) expect(pill.height, `the pill "${pill.text}"`).toBeLessThan(pill.line * 1.6 + 8);
        for (const { word, width: drawn, plain } of await hyphenWidths(page, 'body')) {
          expect(Math.abs(drawn - plain), `the hyphen of "${word}"`).toBeLessThan(0.25);
        }
      } finally {
        await page.close();
      }
    },
    60_000,
  );
});
