// The quarterly review in the views of the output: July, August and September run on the simulator and published,
// then `run --period 2026-Q3`. `publish` lists each client's review apart from its months, under its own heading in
// the client's language, its files copied beside the months' and the months' list unchanged; a publish with nothing
// new writes nothing. `export` gives the review's rows with their period and its kind, in CSV and in Excel.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Excel from 'exceljs';
import { parse, serialize, type DefaultTreeAdapterMap } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { EXPORT_COLUMNS } from '../../src/export/rows.js';
import { clientPath, linkToken } from '../../src/output/links.js';
import { Manifest } from '../../src/output/store.js';
import { monthlyRunDay, toMonth } from '../../src/period.js';
import { factFigure, type Fact } from '../../src/report/facts.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';

const TOKEN = 'tok-review-views-8b3f1c7e2a9d5046';
const SECRET = 'review-views-secret-7d2a9f4c1e8b3a6d5c0f9e2b';

let sim: SimulatorHandle;
let root: string;
let now = new Date('2026-08-04T06:00:00Z');
let frenchId: number;

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];
const isElement = (node: Node): node is Element => 'tagName' in node;
const attr = (node: Element, name: string): string | undefined => node.attrs.find((a) => a.name === name)?.value;
function* elements(node: Node): Generator<Element> {
  if (isElement(node)) yield node;
  for (const child of 'childNodes' in node ? node.childNodes : []) yield* elements(child);
}
function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return ('childNodes' in node ? node.childNodes : []).map(textOf).join(' ');
}
const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** RFC 4180 → records, with the header's names as keys. */
function csvObjects(text: string): Array<Record<string, string>> {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else field += c;
  }
  const [header, ...body] = records;
  return body.map((r) => Object.fromEntries((header ?? []).map((name, i) => [name, r[i] ?? ''])));
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { PATH: process.env['PATH'], HOME: root, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url, GEO_REPORTS_LINK_SECRET: SECRET },
    cwd: root,
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    clock: () => now,
    handleSignals: false,
  });
  return { code, stdout, stderr };
}

async function manifestOf(period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(root, 'out', period, 'manifest.json'), 'utf8')));
}

/** The client's page on the site, parsed. */
async function pageOf(id: number): Promise<{ dir: string; doc: Node }> {
  const dir = join(root, 'out', 'site', clientPath(linkToken(SECRET, id, 0)));
  return { dir, doc: parse(await readFile(join(dir, 'index.html'), 'utf8')) as Node };
}

const sectionOf = (doc: Node, titleId: string): Element | undefined =>
  [...elements(doc)].find((el) => el.tagName === 'section' && attr(el, 'aria-labelledby') === titleId);

interface PublishSummary {
  written: number;
  removed: number;
}
async function publish(): Promise<PublishSummary> {
  const ran = await cli(['publish', '--out', 'out', '--json']);
  expect(ran.code, ran.stderr + ran.stdout).toBe(0);
  const events = ran.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; summary?: PublishSummary });
  return events.find((event) => event.type === 'publish-summary')?.summary as PublishSummary;
}

/** Each client's months list as published before the review. */
const monthsBefore = new Map<number, string>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-review-views-'));
  sim = await startSimulator({ projectCount: 3, tokens: [TOKEN], clock: () => now });
  const active = sim.state.projects().filter((p) => p.status === 'active');
  frenchId = active[0]?.id as number;
  await mkdir(join(root, 'config'));
  await writeFile(
    join(root, 'config', 'geo-reports.json'),
    JSON.stringify({
      agency: { name: 'Northwind Digital' },
      clients: Object.fromEntries(active.map((p) => [String(p.id), p.id === frenchId ? { language: 'fr' } : {}])),
    }),
  );
  for (const month of ['2026-07', '2026-08', '2026-09']) {
    now = monthlyRunDay(toMonth(month));
    const ran = await cli(['run', '--period', month, '--out', 'out', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
  }
  await publish();
  for (const entry of (await manifestOf('2026-09')).projects.filter((e) => e.status === 'done')) {
    const months = sectionOf((await pageOf(entry.id)).doc, 'months-title');
    monthsBefore.set(entry.id, months === undefined ? '' : serialize(months));
  }
  now = new Date('2026-10-05T06:00:00Z');
  const review = await cli(['run', '--period', '2026-Q3', '--out', 'out']);
  expect(review.code, review.stderr + review.stdout).toBe(0);
}, 300_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('publish after a quarterly review', () => {
  it("lists the review apart from the months, in the client's language, its links leading to its files", async () => {
    const first = await publish();
    expect(first.written).toBeGreaterThan(0);
    const review = await manifestOf('2026-Q3');
    expect(review.projects.length).toBeGreaterThan(0);
    expect(monthsBefore.size).toBe(review.projects.length);
    for (const entry of review.projects) {
      const { dir, doc } = await pageOf(entry.id);
      const reviews = sectionOf(doc, 'reviews-title');
      expect(reviews, `the page of ${entry.id} lists no review`).toBeDefined();
      const heading = [...elements(reviews as Element)].find((el) => el.tagName === 'h2');
      const items = [...elements(reviews as Element)].filter((el) => el.tagName === 'li');
      expect(items).toHaveLength(1);
      const item = squash(textOf(items[0] as Element));
      if (entry.id === frenchId) {
        expect(squash(textOf(heading as Element))).toBe('Bilans trimestriels et annuels');
        expect(item).toContain('T3 2026');
      } else {
        expect(squash(textOf(heading as Element))).toBe('Quarterly and yearly reviews');
        expect(item).toContain('Q3 2026');
      }
      const hrefs = [...elements(items[0] as Element)].filter((el) => el.tagName === 'a').map((el) => attr(el, 'href') as string);
      expect(hrefs).toEqual(['2026-Q3/report.html', '2026-Q3/report.pdf']);
      // The links work: the files are there, the review's own, the PDF byte for byte.
      for (const href of hrefs) expect((await stat(join(dir, href))).isFile()).toBe(true);
      expect(await readFile(join(dir, '2026-Q3', 'report.pdf'))).toEqual(await readFile(join(root, 'out', '2026-Q3', entry.files.pdf as string)));
      // The months are listed as before, the review not among them.
      const months = sectionOf(doc, 'months-title');
      expect(serialize(months as Element)).toBe(monthsBefore.get(entry.id));
      expect(squash(textOf(months as Element))).not.toMatch(/[TQ]3 2026/);
    }
  }, 120_000);

  it('writes nothing when published again with nothing new', async () => {
    const again = await publish();
    expect(again).toMatchObject({ written: 0, removed: 0 });
  }, 60_000);
});

describe('export after a quarterly review', () => {
  it('gives the review rows their period and its kind, the months theirs, in CSV', async () => {
    const ran = await cli(['export', '--out', 'out', '--file', 'all.csv']);
    expect(ran.code, ran.stderr).toBe(0);
    const csv = await readFile(join(root, 'all.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(EXPORT_COLUMNS.at(-1)).toBe('period_kind');
    const rows = csvObjects(csv);
    const periodsOf = (kind: string): string[] => [...new Set(rows.filter((r) => r['period_kind'] === kind).map((r) => r['period'] as string))].sort();
    expect(periodsOf('month')).toEqual(['2026-07', '2026-08', '2026-09']);
    expect(periodsOf('quarter')).toEqual(['2026-Q3']);
    expect(rows.every((r) => ['month', 'quarter'].includes(r['period_kind'] as string))).toBe(true);
    // The review's rows come after its last month's.
    expect(rows.findIndex((r) => r['period'] === '2026-Q3')).toBeGreaterThan(rows.map((r) => r['period']).lastIndexOf('2026-09'));
    // A review's GEO is the figure its data.json holds, its change against the period before's.
    let compared = 0;
    for (const entry of (await manifestOf('2026-Q3')).projects) {
      const facts = (JSON.parse(await readFile(join(root, 'out', '2026-Q3', entry.files.data as string), 'utf8')) as { facts: Fact[] }).facts;
      const geo = rows.find((r) => r['period'] === '2026-Q3' && r['project_id'] === String(entry.id) && r['section'] === 'scores' && r['key'] === 'geo_score');
      const figure = factFigure(facts, 'scores.geo');
      if (figure === null) continue;
      expect(geo?.['period_kind']).toBe('quarter');
      expect(Number(geo?.['value'])).toBe(figure);
      const previous = factFigure(facts, 'scores.geo.previous');
      expect(geo?.['change']).toBe(previous === null ? '' : String(figure - previous));
      compared += 1;
    }
    expect(compared).toBeGreaterThan(0);
  }, 60_000);

  it('keeps one type per column in Excel: the period a date, its kind a text', async () => {
    const ran = await cli(['export', '--out', 'out', '--format', 'xlsx', '--file', 'all.xlsx']);
    expect(ran.code, ran.stderr).toBe(0);
    const book = new Excel.Workbook();
    await book.xlsx.readFile(join(root, 'all.xlsx'));
    const sheet = book.getWorksheet('data');
    expect(sheet?.getRow(1).values).toEqual([undefined, ...EXPORT_COLUMNS]);
    const kinds = new Map<string, number>();
    sheet?.eachRow((row, index) => {
      if (index === 1) return;
      const period = row.getCell(1).value;
      const kind = row.getCell(EXPORT_COLUMNS.length).value as string;
      expect(period).toBeInstanceOf(Date);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (kind === 'quarter') expect((period as Date).toISOString()).toBe('2026-07-01T00:00:00.000Z');
    });
    expect([...kinds.keys()].sort()).toEqual(['month', 'quarter']);
    expect(kinds.get('quarter')).toBeGreaterThan(0);
    // The wide section sheets name the kind too.
    expect(book.getWorksheet('scores')?.getRow(1).getCell(6).value).toBe('period_kind');
  }, 60_000);
});
