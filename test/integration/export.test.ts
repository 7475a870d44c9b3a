// `geo-reports export` for real: two months of reports made by `geo-reports demo` on the embedded simulator (one
// client with a hostile display name), exported by the spawned CLI as CSV, JSON lines and an Excel workbook, and
// read back: the values against the text of the reports' PDFs, the workbook through ExcelJS, a formula kept as
// text, the refusals. No token and no API: export sends no request.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Excel from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { EXPORT_COLUMNS } from '../../src/export/rows.js';
import { writeExport } from '../../src/export/write.js';
import { Manifest } from '../../src/output/store.js';
import { sampleAccount } from '../../src/simulator/sample.js';
import { runCli, type CliResult } from '../support/cli.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const PERIODS = [toMonth('2026-09'), toMonth('2026-10')] as const;
/** Quotes, a comma, a line break, and a formula a spreadsheet would run. */
const HOSTILE_NAME = '=HYPERLINK("http://evil.example","Click, here")\nline 2';

let root: string;
let out: string;
let hostileId: number;
let csv: string;
let rows: Array<Record<string, string>>;

/** RFC 4180 → records: quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF. */
function parseCsv(text: string): string[][] {
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
  if (field !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

function asObjects(records: string[][]): Array<Record<string, string>> {
  const [header, ...body] = records;
  return body.map((record) => Object.fromEntries((header ?? []).map((name, i) => [name, record[i] ?? ''])));
}

const cli = (args: string[]): Promise<CliResult> => runCli(args, { env: { PATH: process.env['PATH'] ?? '', HOME: root }, cwd: root, timeoutMs: 180_000 });

async function manifest(period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8')));
}

async function pdfText(period: string, id: number): Promise<string> {
  const entry = (await manifest(period)).projects.find((p) => p.id === id);
  const { stdout } = await exec('pdftotext', [join(out, period, entry?.files.pdf as string), '-']);
  return stdout.replace(/\s+/g, ' ');
}

const value = (id: number, period: string, section: string, key: string): Record<string, string> | undefined =>
  rows.find((r) => r['project_id'] === String(id) && r['period'] === period && r['section'] === section && r['key'] === key);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-export-'));
  out = join(root, 'out');
  // The demo's account: its first active project gets the hostile name, through the config as an agency would.
  const account = sampleAccount({ period: PERIODS[1], projectCount: 4 }).projects();
  hostileId = account.find((project) => project['status'] === 'active')?.['id'] as number;
  await mkdir(join(root, 'config'), { recursive: true });
  await writeFile(join(root, 'config', 'geo-reports.json'), JSON.stringify({ clients: { [hostileId]: { displayName: HOSTILE_NAME } } }));
  const demo = await cli(['demo', '--projects', '4', '--period', PERIODS[1], '--out', out, '--json']);
  expect(demo.code, demo.stderr).toBe(0);
  const exported = await cli(['export', '--out', out, '--file', join(root, 'all.csv')]);
  expect(exported.code, exported.stderr).toBe(0);
  csv = await readFile(join(root, 'all.csv'), 'utf8');
  rows = asObjects(parseCsv(csv));
}, 300_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('export --format csv', () => {
  it('has the tidy columns and one group of rows per client and month of both periods', async () => {
    expect(csv.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(csv.startsWith('\uFEFF')).toBe(false);
    for (const period of PERIODS) {
      const done = (await manifest(period)).projects.filter((p) => p.status === 'done').map((p) => String(p.id));
      expect(done.length).toBeGreaterThan(1);
      const exported = new Set(rows.filter((r) => r['period'] === period).map((r) => r['project_id']));
      expect([...exported].sort()).toEqual([...done].sort());
      for (const id of done) expect(value(Number(id), period, 'scores', 'geo_score'), `${period} ${id}`).toBeDefined();
    }
  });

  it('holds no demo report for its views: the PDF, the index and the fact table agree', async () => {
    for (const period of PERIODS) {
      for (const entry of (await manifest(period)).projects) {
        expect(
          entry.held.filter((reason) => /: the (PDF|agency index) shows /.test(reason)),
          `${period} ${entry.name}`,
        ).toEqual([]);
      }
    }
  });

  it('gives every row its unit and every key one type: numbers as numbers, booleans as true or false', () => {
    const types = new Map<string, Set<string>>();
    for (const row of rows) {
      const where = `${row['period']} ${row['project_id']} ${row['section']} ${row['key']}`;
      expect(row['unit'], where).not.toBe('');
      const value = row['value'] ?? '';
      expect(value, where).not.toMatch(/^(TRUE|FALSE)$/);
      const type = /^(true|false)$/.test(value) ? 'boolean' : value !== '' && Number.isFinite(Number(value)) ? 'number' : 'text';
      if (row['unit'] === '%' || row['unit'] === 'points' || row['unit'] === 'count') expect(type, where).toBe('number');
      const key = `${row['section']}.${row['key']}`;
      types.set(key, (types.get(key) ?? new Set()).add(type));
    }
    for (const [key, seen] of types) expect([...seen], key).toHaveLength(1);
  });

  it('gives the values and changes the October PDFs print: score, change, benchmark', async () => {
    const october = (await manifest(PERIODS[1])).projects.filter((p) => p.status === 'done' && p.id !== hostileId && p.language !== 'fr');
    expect(october.length).toBeGreaterThan(0);
    for (const { id } of october) {
      const text = await pdfText(PERIODS[1], id);
      const geo = value(id, PERIODS[1], 'scores', 'geo_score');
      const shown = /your GEO score (rose|fell|edged up|slipped)(?: sharply,)? by ([\d.]+) points?,? to (\d+)|your GEO score held steady at (\d+)/.exec(text);
      expect(shown, text.slice(0, 600)).not.toBeNull();
      const [, way, by, to, stayed] = shown as RegExpExecArray;
      expect(geo?.['value']).toBe(to ?? stayed);
      expect(geo?.['unit']).toBe('points');
      const change = Number(geo?.['change']);
      if (stayed !== undefined) expect(Math.abs(change)).toBeLessThan(0.05);
      else expect(change).toBeCloseTo(way === 'rose' || way === 'edged up' ? Number(by) : -Number(by), 1);
      const average = value(id, PERIODS[1], 'scores', 'geo_benchmark_average')?.['value'];
      expect(text).toContain(`benchmark average of ${average}`);
      // September had no month before it in this folder: no change, as its report shows none.
      expect(value(id, PERIODS[0], 'scores', 'geo_score')?.['change']).toBe('');
    }
  });

  it('keeps a hostile name whole and inert: quoted, quotes doubled, the line break inside, a leading apostrophe', () => {
    const own = rows.filter((r) => r['project_id'] === String(hostileId));
    expect(own.length).toBeGreaterThan(10);
    for (const row of own) expect(row['client']).toBe(`'${HOSTILE_NAME}`);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""Click, here"")\nline 2"`);
    // A negative number is a number, not text: no apostrophe.
    const negative = rows.find((r) => (r['change'] ?? '').startsWith('-'));
    expect(negative?.['change']).toMatch(/^-\d/);
  });

  it('--bom starts the file with the byte order mark, --period keeps one month, and nothing asks the API', async () => {
    const file = join(root, 'october.csv');
    const result = await cli(['export', '--out', out, '--period', PERIODS[1], '--bom', '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Wrote \d+ rows \(\d+ client reports, 2026-10 to 2026-10\)/);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('\uFEFFperiod,')).toBe(true);
    const october = asObjects(parseCsv(text.slice(1)));
    expect(october).toEqual(rows.filter((r) => r['period'] === PERIODS[1]));
  });
});

describe('export in threads', () => {
  it('reads a share of the clients per thread and writes the same file as one thread, row for row in the same order', async () => {
    const config = ConfigSchema.parse({ clients: { [hostileId]: { displayName: HOSTILE_NAME } } });
    for (const format of ['csv', 'json'] as const) {
      const files = { one: join(root, `one-thread.${format}`), three: join(root, `three-threads.${format}`) };
      const one = await writeExport({ outDir: out, periods: [], config, clock: () => new Date(), format, file: files.one, threads: 1 });
      const three = await writeExport({ outDir: out, periods: [], config, clock: () => new Date(), format, file: files.three, threads: 3 });
      expect({ ...three, file: '' }).toEqual({ ...one, file: '' });
      expect(three.reports).toBeGreaterThan(3);
      expect(await readFile(files.three, 'utf8')).toBe(await readFile(files.one, 'utf8'));
    }
    // And the same as the CLI's export of the same folder.
    expect(await readFile(join(root, 'three-threads.csv'), 'utf8')).toBe(csv);
  });
});

describe('export --history', () => {
  it('reads the months the output folder lacks from a checkout of the history branch: the same rows', async () => {
    // The output folder of a new machine holds October; the history branch's checkout, September's state files.
    const october = join(root, 'october-only');
    const history = join(root, 'history-checkout');
    await cp(join(out, PERIODS[1]), join(october, PERIODS[1]), { recursive: true });
    const september = await manifest(PERIODS[0]);
    await mkdir(join(history, PERIODS[0]), { recursive: true });
    await writeFile(join(history, PERIODS[0], 'manifest.json'), JSON.stringify(september));
    for (const entry of september.projects.filter((p) => p.files.data !== null)) {
      await cp(join(out, PERIODS[0], entry.files.data as string), join(history, PERIODS[0], entry.files.data as string));
    }
    const file = join(root, 'with-history.csv');
    const result = await cli(['export', '--out', october, '--history', history, '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(asObjects(parseCsv(await readFile(file, 'utf8')))).toEqual(rows);
    const without = await cli(['export', '--out', october, '--file', join(root, 'without-history.csv')]);
    const octoberRows = asObjects(parseCsv(await readFile(join(root, 'without-history.csv'), 'utf8')));
    expect(without.code).toBe(0);
    // Without September, October has no change to show: the history gives the changes back.
    expect(octoberRows.every((r) => r['period'] === PERIODS[1] && r['change'] === '')).toBe(true);
  });
});

describe('export --format json', () => {
  it('writes one object per row, the same rows as the CSV with typed values', async () => {
    const file = join(root, 'all.jsonl');
    const result = await cli(['export', '--out', out, '--format', 'json', '--file', file, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { rows: number; periods: string[] };
    expect(summary.periods).toEqual([...PERIODS]);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBe(rows.length);
    expect(summary.rows).toBe(rows.length);
    lines.forEach((line, i) => {
      expect(Object.keys(line)).toEqual([...EXPORT_COLUMNS]);
      const row = rows[i] as Record<string, string>;
      expect(line['client'] === HOSTILE_NAME ? `'${HOSTILE_NAME}` : line['client']).toBe(row['client']);
      expect(line['value'] === null ? '' : String(line['value'])).toBe(row['value']);
      expect(line['change'] === null ? '' : String(line['change'])).toBe(row['change']);
    });
    expect(typeof lines.find((l) => l['key'] === 'geo_score')?.['value']).toBe('number');
  });
});

describe('export --format xlsx', () => {
  let workbook: Excel.Workbook;

  beforeAll(async () => {
    const file = join(out, 'export-2026-09_2026-10.xlsx');
    const result = await cli(['export', '--format', 'xlsx', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(file);
    workbook = new Excel.Workbook();
    await workbook.xlsx.readFile(file);
  });

  it('holds the tidy table in "data": frozen header, months as dates, numbers as numbers, the same rows as the CSV', () => {
    const sheet = workbook.getWorksheet('data') as Excel.Worksheet;
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual([...EXPORT_COLUMNS]);
    expect(sheet.rowCount).toBe(rows.length + 1);
    rows.forEach((row, i) => {
      const cells = sheet.getRow(i + 2);
      const period = cells.getCell(1);
      expect(period.type).toBe(Excel.ValueType.Date);
      expect((period.value as Date).toISOString().slice(0, 7)).toBe(row['period']);
      expect(period.numFmt).toBe('yyyy-mm');
      expect(cells.getCell(2).value).toBe(Number(row['project_id']));
      const shown = cells.getCell(8).value;
      if (typeof shown === 'number') expect(String(shown)).toBe(row['value']);
      const change = cells.getCell(10).value;
      expect(change === null ? '' : String(change)).toBe(row['change']);
    });
  });

  it('keeps a name starting with "=" as a text cell, never a formula', () => {
    const sheet = workbook.getWorksheet('data') as Excel.Worksheet;
    let seen = 0;
    sheet.eachRow((row, number) => {
      if (number === 1 || row.getCell(2).value !== hostileId) return;
      const client = row.getCell(3);
      expect(client.type).toBe(Excel.ValueType.String);
      expect(client.value).toBe(HOSTILE_NAME);
      expect(client.formula).toBeUndefined();
      seen += 1;
    });
    expect(seen).toBeGreaterThan(10);
    workbook.eachSheet((each) => each.eachRow((row) => row.eachCell((cell) => expect(cell.type).not.toBe(Excel.ValueType.Formula))));
  });

  it('has a sheet per section in wide form: a row per client and month, a column per value', () => {
    const names = workbook.worksheets.map((sheet) => sheet.name);
    expect(names.slice(0, 6)).toEqual(['data', 'scores', 'ai_visibility', 'metrics', 'trust', 'recommendations']);
    const scores = workbook.getWorksheet('scores') as Excel.Worksheet;
    expect(scores.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const header = (scores.getRow(1).values as unknown[]).slice(1) as string[];
    expect(header.slice(0, 7)).toEqual(['period', 'project_id', 'client', 'domain', 'language', 'period_kind', 'geo_score']);
    const clientMonths = new Set(rows.map((r) => `${r['period']} ${r['project_id']}`));
    expect(scores.rowCount).toBe(clientMonths.size + 1);
    scores.eachRow((row, number) => {
      if (number === 1) return;
      const period = (row.getCell(1).value as Date).toISOString().slice(0, 7);
      const geo = value(row.getCell(2).value as number, period, 'scores', 'geo_score');
      expect(row.getCell(6).value).toBe('month');
      expect(row.getCell(7).type).toBe(Excel.ValueType.Number);
      expect(String(row.getCell(7).value)).toBe(geo?.['value']);
    });
  });

  it("continues the tidy table on a sheet of its own past a sheet's row limit", async () => {
    const file = join(root, 'small-sheets.xlsx');
    const config = ConfigSchema.parse({});
    const summary = await writeExport({ outDir: out, periods: [], config, clock: () => new Date(), format: 'xlsx', file, sheetRowLimit: 40 });
    const small = new Excel.Workbook();
    await small.xlsx.readFile(file);
    const parts = small.worksheets.filter((sheet) => /^data( \(\d+\))?$/.test(sheet.name));
    expect(parts.length).toBe(Math.ceil(summary.rows / 39));
    expect(parts.reduce((sum, sheet) => sum + sheet.rowCount - 1, 0)).toBe(summary.rows);
    for (const sheet of parts) expect(sheet.getRow(1).getCell(1).value).toBe('period');
  });
});

describe('hostile keys and values', () => {
  it('keeps keys and texts with quotes, commas, line breaks and formulas whole, inert in CSV and text cells in XLSX', async () => {
    // One client's October copied into a folder of its own, its data.json given hostile keys and a hostile text.
    const hostileOut = join(root, 'hostile-out');
    const october = await manifest(PERIODS[1]);
    const entry = october.projects.find((p) => p.status === 'done' && p.files.data !== null) as Manifest['projects'][number];
    await mkdir(join(hostileOut, PERIODS[1], entry.slug), { recursive: true });
    await writeFile(join(hostileOut, PERIODS[1], 'manifest.json'), JSON.stringify({ ...october, projects: [entry] }));
    const data = JSON.parse(await readFile(join(out, PERIODS[1], entry.files.data as string), 'utf8')) as {
      report: { report: { sections: Record<string, unknown> } };
    };
    const sections = data.report.report.sections;
    sections['metrics'] = { ...(sections['metrics'] as object), '=cmd|" /C calc"!A0': 7, 'say "hi", then\nbye': 3 };
    sections['local_presence'] = { status: '@SUM(1+1)', note: '+33 1 23 45 67 89', minus: '-1' };
    await writeFile(join(hostileOut, PERIODS[1], entry.files.data as string), JSON.stringify(data));

    const csvFile = join(root, 'hostile.csv');
    expect((await cli(['export', '--out', hostileOut, '--file', csvFile])).code).toBe(0);
    const text = await readFile(csvFile, 'utf8');
    const parsed = asObjects(parseCsv(text));
    expect(parsed.find((r) => r['key'] === `'=cmd|" /C calc"!A0`)?.['value']).toBe('7');
    expect(parsed.find((r) => r['key'] === 'say "hi", then\nbye')?.['value']).toBe('3');
    expect(text).toContain('"say ""hi"", then\nbye"');
    expect(parsed.find((r) => r['key'] === 'status')?.['value']).toBe("'@SUM(1+1)");
    expect(parsed.find((r) => r['key'] === 'note')?.['value']).toBe("'+33 1 23 45 67 89");
    expect(parsed.find((r) => r['key'] === 'minus')?.['value']).toBe("'-1");
    for (const row of parsed) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+@\t\r]/);

    const xlsxFile = join(root, 'hostile.xlsx');
    expect((await cli(['export', '--out', hostileOut, '--format', 'xlsx', '--file', xlsxFile])).code).toBe(0);
    const book = new Excel.Workbook();
    await book.xlsx.readFile(xlsxFile);
    const sheet = book.getWorksheet('data') as Excel.Worksheet;
    const cells: Excel.Cell[] = [];
    sheet.eachRow((row) => row.eachCell((cell) => cells.push(cell)));
    const keyCell = cells.find((cell) => cell.value === '=cmd|" /C calc"!A0');
    expect(keyCell?.type).toBe(Excel.ValueType.String);
    expect(cells.find((cell) => cell.value === '@SUM(1+1)')?.type).toBe(Excel.ValueType.String);
    expect(cells.find((cell) => cell.value === 'say "hi", then\nbye')?.type).toBe(Excel.ValueType.String);
    for (const cell of cells) expect(cell.type).not.toBe(Excel.ValueType.Formula);
    // The wide sheet of the section names its column after the hostile key, a text cell too.
    const metrics = book.getWorksheet('metrics') as Excel.Worksheet;
    expect((metrics.getRow(1).values as unknown[]).includes('=cmd|" /C calc"!A0')).toBe(true);
  });
});

describe('refusals', () => {
  it('exits 2 naming what is wrong, and leaves no file behind', async () => {
    const missing = await cli(['export', '--out', out, '--period', '2030-01']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no period folder 2030-01');
    expect(missing.stderr).toContain('2026-09, 2026-10');
    const noFolder = await cli(['export', '--out', join(root, 'nowhere')]);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toContain('does not exist');
    const bom = await cli(['export', '--out', out, '--format', 'xlsx', '--bom']);
    expect(bom.code).toBe(2);
    expect(bom.stderr).toContain('--bom is for --format csv only');
    const format = await cli(['export', '--out', out, '--format', 'ods']);
    expect(format.code).toBe(2);
    const badFile = await cli(['export', '--out', out, '--file', join(root, 'no-such-folder', 'x.csv')]);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toContain('no such folder');
    const left = (await readdir(root, { recursive: true })).filter((name) => name.includes('.partial'));
    expect(left).toEqual([]);
  });
});
