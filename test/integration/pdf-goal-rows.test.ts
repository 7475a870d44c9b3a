// A long goals table across pages, printed by `geo-reports demo` (real Chromium), in English and French: on every
// page of every PDF, no row of the table is cut between two pages (each goal's name and its target, in the row's
// first and last lines, land on one page), and nothing of the body is drawn in the footer's band (pdf.js positions).
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { pdfTextPages, type PdfTextPage } from '../support/pdf-text.js';

const FRENCH_CLIENT = 102;
/** The bottom margin the footer is printed in (18 mm), in points. */
const BOTTOM_MARGIN_PT = (18 / 25.4) * 72;
const METRICS = ['geo', 'seo', 'trust', 'ai:chatgpt', 'ai:gemini', 'metric:citations'];
const MONTH_NAMES = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
};

/** 30 goals (the most a client may have), each due in a month of its own and named by a code found in its row. */
const GOALS = Array.from({ length: 30 }, (_, index) => {
  const month = 2027 * 12 + index; // from January 2027 on
  const code = `G${String(index + 1).padStart(2, '0')}`;
  // Every third name long enough to wrap, so rows differ in height and a page break falls anywhere in a row.
  const label = index % 3 === 0 ? `${code} keep the score high through the busy season while the site is rebuilt and moved` : `${code} target`;
  return {
    code,
    year: Math.floor(month / 12),
    month: month % 12,
    goal: { metric: METRICS[index % METRICS.length], target: 40 + index, by: `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`, label },
  };
});

let root: string;
let demo: CliResult;
let pdfs: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-goal-rows-'));
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'logo.svg'), await readFile(new URL('../../config/logo.svg', import.meta.url)));
  const config = JSON.parse(await readFile(new URL('../../config/geo-reports.json', import.meta.url), 'utf8')) as {
    clients: Record<string, unknown>;
    report: Record<string, unknown>;
  };
  config.clients[String(FRENCH_CLIENT)] = { language: 'fr' };
  config.report['goals'] = GOALS.map(({ goal }) => goal);
  await writeFile(join(root, 'config', 'geo-reports.json'), JSON.stringify(config));
  demo = await runCli(['demo', '--projects', '3', '--out', join(root, 'out'), '--json'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: root },
    cwd: root,
    timeoutMs: 240_000,
  });
  pdfs = [];
  for (const period of await readdir(join(root, 'out'))) {
    for (const folder of await readdir(join(root, 'out', period)).catch(() => [])) {
      const path = join(root, 'out', period, folder, 'report.pdf');
      if (
        await readFile(path).then(
          () => true,
          () => false,
        )
      )
        pdfs.push(path);
    }
  }
}, 300_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The pages whose text holds `text` (pieces joined in their order, spaces made one). */
function pagesWith(pages: readonly PdfTextPage[], text: string): number[] {
  const flat = (value: string): string => value.replace(/[\s\u00a0\u202f]+/g, ' ');
  return pages.filter((page) => flat(page.pieces.map((piece) => piece.text).join(' ')).includes(text)).map((page) => page.number);
}

describe('a goals table longer than a page', () => {
  it('was printed for every client, one in French', () => {
    expect(demo.code, demo.stderr).toBe(0);
    expect(pdfs.length).toBeGreaterThanOrEqual(4);
    expect(pdfs.filter((path) => path.includes(`/${FRENCH_CLIENT}-`))).toHaveLength(2);
  });

  it('keeps each row on one page: its goal and its target on the same page, the table over two pages or more', async () => {
    for (const path of pdfs) {
      const months = MONTH_NAMES[path.includes(`/${FRENCH_CLIENT}-`) ? 'fr' : 'en'];
      const pages = await pdfTextPages(path);
      const rowPages = new Set<number>();
      for (const { code, year, month } of GOALS) {
        // The row's first cell starts with the code (a summary sentence may quote the goal within its text).
        const named = pages.filter((page) => page.pieces.some((piece) => piece.text.trimStart().startsWith(`${code} `))).map((page) => page.number);
        const due = pagesWith(pages, `${months[month] ?? ''} ${year}`);
        expect(named, `${code} in ${path}`).toHaveLength(1);
        expect(due, `the target of ${code} in ${path}`).toEqual(named);
        rowPages.add(named[0] ?? 0);
      }
      expect(rowPages.size, path).toBeGreaterThanOrEqual(2);
    }
  });

  it('draws nothing of the body in the footer band, at the foot of any page', async () => {
    for (const path of pdfs) {
      for (const page of await pdfTextPages(path)) {
        const footer = page.pieces.filter((piece) => !piece.tagged && piece.y > page.height - BOTTOM_MARGIN_PT);
        expect(footer.length, `the footer of page ${page.number} of ${path}`).toBeGreaterThan(0);
        const footerTop = Math.min(...footer.map((piece) => piece.y - piece.height));
        const below = page.pieces.filter((piece) => piece.tagged && piece.y > footerTop);
        expect(
          below.map((piece) => piece.text),
          `page ${page.number} of ${path}`,
        ).toEqual([]);
      }
    }
  });
});
