// The printed reports as a client leafs through them, made by the monthly batch on each reading of the API the
// simulator has, in English and in French: the agency's footer line and "page X of Y" on every page, every page
// but the cover and the last filled below 55 % of its height (sections flow: none waits for a new page while it
// fits), and no heading left alone at a page's foot. Measured on the PDFs: pdftotext page by page, pdftoppm for
// how far down each page is printed.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { loadLocales } from '../../src/i18n/locales.js';
import { Manifest } from '../../src/output/store.js';
import { DIALECT_NAMES } from '../../src/simulator/dialects.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { pageFills, shortMiddlePages } from '../support/page-fill.js';
import { toMonth } from '../../src/period.js';

const run = promisify(execFile);
const PERIOD = toMonth('2026-10');
const clock = (): Date => new Date('2026-11-04T06:00:00Z');
/** A footer per language, each with characters the footer template must escape and a dash the font must not widen. */
const FOOTER: Record<'en' | 'fr', string> = {
  en: 'Confidential — Northwind & Partners <prepared for our clients> e-mail us',
  fr: 'Confidentiel — Northwind & Partners <préparé pour nos clients> écrivez-nous',
};
const phrases = { en: loadLocales().phrases('en'), fr: loadLocales().phrases('fr') };
type Reading = keyof typeof phrases;

let rig: BatchRig;
let root: string;

beforeAll(async () => {
  rig = await startBatchRig();
  root = await mkdtemp(join(tmpdir(), 'geo-pages-'));
});

afterAll(async () => {
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

async function pdfPages(path: string): Promise<string[]> {
  const count = Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [path])).stdout)?.[1]);
  const pages: string[] = [];
  for (let page = 1; page <= count; page += 1) {
    const { stdout } = await run('pdftotext', ['-layout', '-f', String(page), '-l', String(page), path, '-'], { maxBuffer: 4 * 1024 * 1024 });
    pages.push(stdout);
  }
  return pages;
}

/** The titles a page must not end on: the sections', their parts', and the recommendations' priority groups. */
function headingAtFoot(language: Reading): (line: string) => boolean {
  const words = phrases[language];
  const titles = new Set(
    ['summary', 'changes', 'goals', 'scores', 'visibility', 'history', 'metrics', 'trust', 'recs', 'other'].map((section) => words[`${section}.title`]),
  );
  titles.add(words['trust.platforms']);
  titles.add(words['trust.details']);
  const priorities = ['critical', 'high', 'medium', 'low'].map((priority) => words[`priority.${priority}`]);
  return (line) => titles.has(line) || priorities.some((priority) => line.startsWith(`${priority} · `));
}

describe.each(DIALECT_NAMES)('the reports of a batch on the %s reading', (dialect) => {
  let out: string;
  let reports: Array<{ id: number; language: Reading; pdf: string }>;

  beforeAll(async () => {
    const sim = await startSimulator({ seed: 23, projectCount: 8, clock, dialect });
    try {
      const active = sim.state.projects().filter((project) => project.status === 'active');
      // Every other client reads French; all have goals, so each report has every built-in section.
      const config = ConfigSchema.parse({
        agency: { footer: FOOTER },
        report: {
          goals: [
            { metric: 'geo', target: 80, by: '2027-06' },
            { metric: 'ai:chatgpt', target: 70, by: '2027-03' },
          ],
        },
        // A client without a language follows its project's, so each states its own.
        clients: Object.fromEntries(active.map((project, index) => [String(project.id), { language: index % 2 === 1 ? 'fr' : 'en' }])),
      });
      out = join(root, dialect);
      const result = await rig.run({ baseUrl: sim.url, tokens: [DEMO_TOKEN], period: PERIOD, outDir: out, config, clock });
      expect(result.summary).toMatchObject({ done: active.length, failed: 0 });
    } finally {
      await sim.close();
    }
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    reports = manifest.projects.map((entry) => ({
      id: entry.id,
      language: entry.language === 'fr' ? 'fr' : 'en',
      pdf: join(out, PERIOD, entry.files.pdf as string),
    }));
    expect(new Set(reports.map((report) => report.language))).toEqual(new Set(['en', 'fr']));
  }, 240_000);

  it("puts the agency's footer line and the page, both in the report's language, at the foot of every page", async () => {
    for (const { id, language, pdf } of reports) {
      const pages = await pdfPages(pdf);
      expect(pages.length, `pages of ${id}`).toBeGreaterThan(2);
      for (const [index, text] of pages.entries()) {
        const label = (phrases[language]['print.page'] as string).replace('{page}', String(index + 1)).replace('{pages}', String(pages.length));
        const foot = text.trimEnd().split('\n').at(-1) ?? '';
        expect(foot, `foot of page ${index + 1} of ${id}`).toContain(FOOTER[language]);
        expect(foot, `foot of page ${index + 1} of ${id}`).not.toContain(FOOTER[language === 'fr' ? 'en' : 'fr']);
        expect(foot, `foot of page ${index + 1} of ${id}`).toContain(label);
      }
    }
  }, 120_000);

  it('fills every page but the cover, the contents and the last below 55 % of its height', async () => {
    for (const { id, language, pdf } of reports) {
      const fills = await pageFills(pdf);
      expect(fills.length).toBeGreaterThan(2);
      // The contents page lists the sections and ends where its list does.
      const front = (await pdfPages(pdf))[1]?.trim().startsWith(phrases[language]['print.contents'] as string) === true ? 2 : 1;
      expect(shortMiddlePages(fills, 0.55, front), `pages of ${id} ending above 55 %: ${JSON.stringify(fills)}`).toEqual([]);
    }
  }, 120_000);

  it('leaves no heading alone at the foot of a page, and starts the recommendations where the page before ends', async () => {
    let recommendationsAfterContent = 0;
    let pagesFullBeforeRecommendations = 0;
    for (const { id, language, pdf } of reports) {
      const isHeading = headingAtFoot(language);
      const fills = await pageFills(pdf);
      const recsTitle = phrases[language]['recs.title'];
      for (const [index, text] of (await pdfPages(pdf)).entries()) {
        // The page's lines without the footer line: the last one is where the page's content ends.
        const lines = text
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '')
          .slice(0, -1);
        expect(isHeading(lines.at(-1) ?? ''), `page ${index + 1} of ${id} ends on "${lines.at(-1)}"`).toBe(false);
        const recsAt = lines.indexOf(recsTitle as string);
        if (recsAt > 0) recommendationsAfterContent += 1;
        // Opening a page, they follow a page that was filled (below 55 % of its height, as every middle page): never a forced break.
        if (recsAt === 0) {
          expect(fills[index - 1]?.bottom ?? 0, `the page before the recommendations of ${id}`).toBeGreaterThan(0.55);
          pagesFullBeforeRecommendations += 1;
        }
      }
    }
    // Before, the recommendations always opened a page of their own, whatever room the page before had left.
    expect(recommendationsAfterContent + pagesFullBeforeRecommendations).toBeGreaterThan(0);
  }, 120_000);
});
