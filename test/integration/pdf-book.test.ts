// The demo's PDFs as a reader, an archive and a PDF/UA checker open them: `geo-reports demo` (real Chromium), one
// client in French, every PDF it wrote read back with pdf-lib and poppler. XMP with pdfuaid part 1, the agency as
// author, a RoleMap entry for every structure type PDF 1.7 does not define, alternative text on every figure, the
// links kept, a contents page whose numbers are the pages its sections start on (pdftotext page by page), and a
// running header on each page after it, the name of its section, outside the structure tree (pdf.js).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, decodePDFRawStream, type PDFObject } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { pdfTextPages } from '../support/pdf-text.js';

const run = promisify(execFile);
const AGENCY = 'Northwind Digital';
const FRENCH_CLIENT = 102;
/** PDF 1.7's standard structure types (ISO 32000-1, 14.8.4), written out here apart from the code under test. */
const STANDARD = new Set(
  'Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2 H3 H4 H5 H6 L LI Lbl LBody Table THead TBody TFoot TR TH TD Span Quote Note Reference BibEntry Code Link Annot Ruby RB RT RP Warichu WT WP Figure Formula Form'.split(
    ' ',
  ),
);

let root: string;
let demo: CliResult;
let pdfs: string[];

const linesRead = new Map<string, Promise<string[]>>();
/** The lines of one page's text, trimmed, as pdftotext reads them in reading order (read once per page). */
const pageLines = (path: string, page: number): Promise<string[]> => {
  const key = `${path}#${page}`;
  const known = linesRead.get(key);
  if (known !== undefined) return known;
  const lines = run('pdftotext', ['-f', String(page), '-l', String(page), path, '-']).then(({ stdout }) =>
    stdout
      .split('\n')
      .map((line) => line.replace(/[\s\u00a0\u202f]+/g, ' ').trim())
      .filter((line) => line !== ''),
  );
  linesRead.set(key, lines);
  return lines;
};

/** The contents page's lines (page 2): each section's title and the page it says the section starts on. */
const contentsEntries = async (path: string): Promise<Array<{ title: string; page: number }>> =>
  (await run('pdftotext', ['-layout', '-f', '2', '-l', '2', path, '-'])).stdout
    .split('\n')
    .map((line) => /^\s*(\S.*?)\s{2,}(\d+)\s*$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ title: (match[1] ?? '').trim(), page: Number(match[2]) }));

/** The top margin of the report's pages (16 mm), in points. */
const TOP_MARGIN_PT = (16 / 25.4) * 72;

interface Structure {
  types: Set<string>;
  figures: Array<string | null>;
  roleMap: Map<string, string>;
}

function structureOf(doc: PDFDocument): Structure {
  const lookup = (object: PDFObject | undefined): PDFObject | undefined => (object instanceof PDFRef ? doc.context.lookup(object) : object);
  const root = lookup(doc.catalog.get(PDFName.of('StructTreeRoot')));
  if (!(root instanceof PDFDict)) throw new Error('no StructTreeRoot: the PDF is not tagged');
  const found: Structure = { types: new Set(), figures: [], roleMap: new Map() };
  const roleMap = lookup(root.get(PDFName.of('RoleMap')));
  if (roleMap instanceof PDFDict) for (const [key, value] of roleMap.entries()) found.roleMap.set(key.decodeText(), String(value).slice(1));
  const walk = (node: PDFObject | undefined): void => {
    const value = lookup(node);
    if (value instanceof PDFArray) return value.asArray().forEach(walk);
    if (!(value instanceof PDFDict)) return;
    const type = value.get(PDFName.of('S'));
    if (type instanceof PDFName) {
      found.types.add(type.decodeText());
      const alt = value.get(PDFName.of('Alt'));
      if (type.decodeText() === 'Figure') found.figures.push(alt instanceof PDFString || alt instanceof PDFHexString ? alt.decodeText() : null);
    }
    walk(value.get(PDFName.of('K')));
  };
  walk(root.get(PDFName.of('K')));
  return found;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-pdf-book-'));
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'logo.svg'), await readFile(new URL('../../config/logo.svg', import.meta.url)));
  const config = JSON.parse(await readFile(new URL('../../config/geo-reports.json', import.meta.url), 'utf8')) as { clients: Record<string, unknown> };
  config.clients[String(FRENCH_CLIENT)] = { language: 'fr' };
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

describe('every demo PDF', () => {
  it('was written, one in French', () => {
    expect(demo.code, demo.stderr).toBe(0);
    expect(pdfs.length).toBeGreaterThanOrEqual(4);
    expect(pdfs.filter((path) => path.includes(`/${FRENCH_CLIENT}-`))).toHaveLength(2);
  });

  it('carries XMP metadata with pdfuaid part 1, the agency as creator and author, the language, a subject', async () => {
    for (const path of pdfs) {
      const doc = await PDFDocument.load(await readFile(path), { updateMetadata: false });
      const stream = doc.context.lookup(doc.catalog.get(PDFName.of('Metadata')));
      expect(stream, path).toBeInstanceOf(PDFRawStream);
      const xmp = Buffer.from(decodePDFRawStream(stream as PDFRawStream).decode()).toString('utf8');
      expect(xmp).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
      expect(xmp).toContain(`<dc:creator><rdf:Seq><rdf:li>${AGENCY}</rdf:li></rdf:Seq></dc:creator>`);
      const language = path.includes(`/${FRENCH_CLIENT}-`) ? 'fr' : 'en';
      expect(xmp).toContain(`<rdf:li>${language}</rdf:li>`);
      const { stdout } = await run('pdfinfo', [path]);
      expect(stdout).toMatch(new RegExp(`^Author: +${AGENCY}$`, 'm'));
      expect(stdout).toMatch(/^Subject: +\S/m);
      expect(stdout).toMatch(/^Metadata Stream: +yes$/m);
      expect(stdout).toMatch(/^Tagged: +yes$/m);
    }
  });

  it('maps every structure type PDF 1.7 does not define, and poppler reads the tree without an error', async () => {
    for (const path of pdfs) {
      const { types, roleMap } = structureOf(await PDFDocument.load(await readFile(path), { updateMetadata: false }));
      const unmapped = [...types].filter((type) => !STANDARD.has(type) && !STANDARD.has(roleMap.get(type) ?? ''));
      expect(unmapped, path).toEqual([]);
      expect(types.has('Strong'), 'Chromium writes Strong for the <strong> of the reports').toBe(true);
      const { stderr } = await run('pdfinfo', ['-struct', path]);
      expect(stderr).not.toMatch(/wrong type/);
    }
  });

  it('gives every figure its alternative text, and keeps the links', async () => {
    for (const path of pdfs) {
      const doc = await PDFDocument.load(await readFile(path), { updateMetadata: false });
      const { figures, types } = structureOf(doc);
      expect(figures.length, path).toBeGreaterThanOrEqual(3);
      expect(
        figures.filter((alt) => alt === null || alt.trim() === ''),
        path,
      ).toEqual([]);
      expect(types.has('Link')).toBe(true);
      // The outline (bookmarks) Chromium writes from the headings is kept.
      expect(doc.catalog.get(PDFName.of('Outlines')), path).toBeDefined();
    }
  });

  it('lists each section after the cover with the page it starts on', async () => {
    for (const path of pdfs) {
      const { stdout } = await run('pdfinfo', [path]);
      const pages = Number(/^Pages: +(\d+)$/m.exec(stdout)?.[1]);
      const french = path.includes(`/${FRENCH_CLIENT}-`);
      const lines = await pageLines(path, 2);
      expect(lines[0], path).toBe(french ? 'Sommaire' : 'Contents');
      const entries = await contentsEntries(path);
      expect(entries.length, path).toBeGreaterThanOrEqual(6);
      for (const { title, page } of entries) {
        expect(page, `${title} in ${path}`).toBeGreaterThanOrEqual(3);
        expect(page).toBeLessThanOrEqual(pages);
        // The heading is a line of its page, and of no page between the contents and it.
        expect(await pageLines(path, page), `"${title}" on page ${page} of ${path}`).toContain(title);
        for (let earlier = 3; earlier < page; earlier += 1) expect(await pageLines(path, earlier), `"${title}" before page ${page}`).not.toContain(title);
      }
    }
  });

  it('heads each page after the contents with its section, in the top margin and outside the structure tree', async () => {
    for (const path of pdfs) {
      const entries = await contentsEntries(path);
      expect(entries.length, path).toBeGreaterThanOrEqual(6);
      const pages = await pdfTextPages(path);
      for (const page of pages) {
        const inMargin = page.pieces.filter((piece) => piece.y < TOP_MARGIN_PT);
        // Nothing of the body is drawn up there, and what is drawn there is an artifact, outside the structure tree.
        expect(
          inMargin.filter((piece) => piece.tagged || !piece.artifact),
          `page ${page.number} of ${path}`,
        ).toEqual([]);
        // The footer too: every piece of text is either tagged or an artifact (PDF/UA: nothing left untagged).
        expect(
          page.pieces.filter((piece) => !piece.tagged && !piece.artifact).map((piece) => piece.text),
          `page ${page.number} of ${path}`,
        ).toEqual([]);
        const header = inMargin.map((piece) => piece.text).join('');
        if (page.number <= 2) {
          expect(header, `the cover and the contents have no header (${path})`).toBe('');
          continue;
        }
        // The section that starts on the page (the first of several), else the last one started before it.
        const expected = entries.find((entry) => entry.page === page.number) ?? entries.filter((entry) => entry.page < page.number).at(-1);
        expect(header, `page ${page.number} of ${path}`).toBe(expected?.title);
      }
    }
  });

  it('copies the side-by-side score cards one after the other, each sentence whole (pdf.js, poppler in content order)', async () => {
    for (const path of pdfs) {
      const phrases = JSON.parse(
        await readFile(new URL(`../../templates/locales/${path.includes(`/${FRENCH_CLIENT}-`) ? 'fr' : 'en'}.json`, import.meta.url), 'utf8'),
      ) as Record<string, string>;
      const [geoTitle, geoHelp, seoTitle, seoHelp] = ['scores.geo', 'scores.geoHelp', 'scores.seo', 'scores.seoHelp'].map((key) => phrases[key] ?? key);
      const pages = await pdfTextPages(path);
      const flat = (text: string): string => text.replace(/[\s\u00a0\u202f]+/g, ' ').trim();
      const page = pages.find((candidate) => candidate.pieces.some((piece) => flat(piece.text) === seoTitle));
      expect(page, `the page of the score cards in ${path}`).toBeDefined();
      if (page === undefined) continue;
      // Each card's title, then its sentence on two lines, whole; the GEO card all before the SEO card.
      const read = [
        flat(page.pieces.map((piece) => piece.text).join(' ')),
        flat((await run('pdftotext', ['-raw', '-f', String(page.number), '-l', String(page.number), path, '-'])).stdout),
      ];
      for (const text of read) {
        const at = [geoTitle, geoHelp, seoTitle, seoHelp].map((phrase) => text.indexOf(flat(phrase ?? '')));
        expect(
          at.every((index) => index >= 0),
          `${text.slice(0, 400)} in ${path}`,
        ).toBe(true);
        expect(
          [...at].sort((a, b) => a - b),
          path,
        ).toEqual(at);
      }
    }
  });

  it('reads letter-spaced capitals as words: no letter-spacing in print', async () => {
    for (const path of pdfs) {
      // The labels of the cover, in capitals by CSS: letter-spaced, they came out as "P R É PA R É P OU R".
      const cover = await pageLines(path, 1);
      const labels = path.includes(`/${FRENCH_CLIENT}-`) ? ['PRÉPARÉ POUR', 'PRÉPARÉ PAR'] : ['PREPARED FOR', 'PREPARED BY'];
      for (const label of labels) expect(cover, path).toContain(label);
    }
  });

  it('is smaller than 205 KB', async () => {
    // About 1 KB of it is the running headers' text.
    for (const path of pdfs) expect((await readFile(path)).length, path).toBeLessThan(205_000);
  });
});
