// The contents page printed once as a rule: a book is printed with the numbers of the printer's earlier book of the
// same sections that held about as much, and printed again only when a section landed elsewhere. Real Chromium;
// every contents page checked against where its sections were printed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/print/browser.js';
import { printBook, type PrintedBook } from '../../src/render/print/book.js';
import { PrintedPdf } from '../../src/render/print/finish.js';
import { PdfPrinter } from '../../src/render/print/printer.js';

const run = promisify(execFile);
const SECTIONS = 6;

/** A report of six sections; `long` sections hold three times the lines of the others (and push the next ones on). */
function report(long: readonly number[]): string {
  const sections = Array.from({ length: SECTIONS }, (_, i) => {
    const lines = Array.from({ length: long.includes(i) ? 75 : 25 }, (_, j) => `<p>Line ${j + 1} of section ${i + 1}.</p>`).join('');
    return `<section aria-labelledby="s${i}"><h2 id="s${i}">Section ${i + 1}</h2>${lines}</section>`;
  });
  return (
    '<!doctype html><html lang="en"><head><title>Book</title><style>' +
    'body{font:11pt/1.5 sans-serif;margin:0} p{margin:0} h2{margin:0 0 8pt} .cover{break-after:page}' +
    '.contents{break-after:page} .contents__link{display:flex;justify-content:space-between}' +
    '</style></head><body><header class="cover"><h1>Report</h1></header>' +
    `<main>${sections.join('')}</main></body></html>`
  );
}

let root: string;
let printer: PdfPrinter;

async function book(on: PdfPrinter, long: readonly number[]): Promise<PrintedBook> {
  const htmlPath = join(root, 'report.html');
  const html = report(long);
  await writeFile(htmlPath, html);
  return printBook(
    on,
    { htmlPath, html, language: 'en', footerText: 'Agency', pageLabel: '{page} / {pages}' },
    {
      facts: { title: 'Book', author: 'Agency', subject: 'Report', language: 'en' },
      contentsFromPages: 4,
      phrases: { title: 'Contents', page: 'Page' },
    },
  );
}

/** The contents the PDF lists (pdftotext of page 2), and the pages its sections were printed on (its destinations). */
async function listedAndLanded(printed: PrintedBook): Promise<{ listed: number[]; landed: number[] }> {
  const path = join(root, 'report.pdf');
  await writeFile(path, printed.pdf);
  const text = (await run('pdftotext', ['-f', '2', '-l', '2', path, '-'])).stdout;
  const listed = [...text.matchAll(/Page\s*(\d+)/g)].map((match) => Number(match[1]));
  const destinations = (await PrintedPdf.read(printed.pdf)).destinationPages();
  const landed = Array.from({ length: SECTIONS }, (_, i) => destinations.get(`s${i}`) ?? -1);
  return { listed, landed };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-book-guess-'));
  printer = await PdfPrinter.launch({ executablePath: findChromium(), pages: 1 });
}, 60_000);

afterAll(async () => {
  await printer.close();
  await rm(root, { recursive: true, force: true });
});

describe('a book printed after others of the same sections', () => {
  it('is printed twice when the printer has printed none alike, then once when an earlier one paged alike', async () => {
    const first = await book(printer, []);
    expect(first.prints).toBe(2);
    const firstPages = await listedAndLanded(first);
    expect(firstPages.listed).toEqual(firstPages.landed);
    expect(firstPages.landed[0]).toBe(3);

    const again = await book(printer, []);
    expect(again.prints).toBe(1);
    expect(await listedAndLanded(again)).toEqual(firstPages);
  }, 120_000);

  it('is printed again when its sections landed elsewhere than the guess, and its contents still match its pages', async () => {
    const longer = await book(printer, [1, 2]);
    expect(longer.prints).toBe(2);
    const pages = await listedAndLanded(longer);
    expect(pages.listed).toEqual(pages.landed);
    // The long sections pushed the last ones on: the earlier book's numbers would have been wrong.
    const short = await listedAndLanded(await book(printer, []));
    expect(pages.landed[SECTIONS - 1]).toBeGreaterThan(short.landed[SECTIONS - 1] ?? 0);
  }, 120_000);

  it('takes the numbers of the earlier book that held about as much, section by section', async () => {
    const longer = await book(printer, [1, 2]);
    expect(longer.prints).toBe(1);
    const shorter = await book(printer, []);
    expect(shorter.prints).toBe(1);
    for (const printed of [longer, shorter]) {
      const { listed, landed } = await listedAndLanded(printed);
      expect(listed).toEqual(landed);
    }
  }, 120_000);

  it('is printed twice again by another printer: the earlier books go with their printer', async () => {
    const other = await PdfPrinter.launch({ executablePath: findChromium(), pages: 1 });
    try {
      const printed = await book(other, []);
      expect(printed.prints).toBe(2);
      const { listed, landed } = await listedAndLanded(printed);
      expect(listed).toEqual(landed);
    } finally {
      await other.close();
    }
  }, 120_000);
});
