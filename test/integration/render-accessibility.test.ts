// axe-core in a real Chromium. JavaScript is enabled here only, to run axe; the printer keeps it off.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, findChromium } from '../../src/render/print/browser.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import type { HtmlRenderer } from '../../src/render/html.js';
import { hostileReportModel, indexModel, reportModel } from '../fixtures/report-model.js';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

describe('accessibility (axe-core)', () => {
  let browser: Browser;
  let renderer: HtmlRenderer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'geo-axe-'));
    renderer = await createHtmlRenderer();
    browser = await puppeteer.launch({ executablePath: findChromium(), args: chromiumArgs(), pipe: true, headless: true });
  });

  afterAll(async () => {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function seriousViolations(name: string, html: string): Promise<AxeViolation[]> {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html);
    const page = await browser.newPage();
    try {
      // Keep the page offline even with JavaScript on: only the file itself and data: URIs load.
      await page.setRequestInterception(true);
      // The page's own policy refuses every script, axe's too: the test's browser sets it aside, as a reader's never does.
      await page.setBypassCSP(true);
      page.on('request', (request) => {
        const url = request.url();
        void (url.startsWith('data:') || url === pathToFileURL(file).href ? request.continue() : request.abort()).catch(() => undefined);
      });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await page.addScriptTag({ path: AXE_PATH });
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
        const result = await axe.run(document, { resultTypes: ['violations'] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
      });
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    } finally {
      await page.close();
    }
  }

  it('finds no serious or critical violation in the English report', async () => {
    expect(await seriousViolations('report-en', renderer.renderReport(reportModel('en')))).toEqual([]);
  });

  it('finds no serious or critical violation in the French report', async () => {
    expect(await seriousViolations('report-fr', renderer.renderReport(reportModel('fr')))).toEqual([]);
  });

  it('finds no serious or critical violation in a report with hostile data and unsafe branding', async () => {
    expect(await seriousViolations('report-hostile', renderer.renderReport(hostileReportModel()))).toEqual([]);
  });

  it('finds no serious or critical violation in the agency index', async () => {
    expect(await seriousViolations('index', renderer.renderIndex(indexModel('en')))).toEqual([]);
  });

  it('catches a real violation (the check is live)', async () => {
    const broken = '<!doctype html><html><head><title>x</title></head><body><img src="data:image/png;base64,iVBORw0KGgo="></body></html>';
    const ids = (await seriousViolations('broken', broken)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['html-has-lang', 'image-alt']));
  });
});
