// The Excel workbook, written row by row with ExcelJS's streaming writer: the tidy table in "data" (continued in
// "data (2)"… past Excel's row limit), then one sheet per section in wide form (one row per client and month, one
// column per value), each with its header row frozen. Periods are dates, numbers are numbers, and a text is always
// a string cell: a name such as "=HYPERLINK(…)" is shown, never run.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type ExcelJS from 'exceljs';
import { EXPORT_COLUMNS, type ExportRow, type ExportSubject, type ExportValue } from './rows.js';
import { firstMonth, toPeriod, type Period } from '../period.js';

/** Rows of a sheet, its header included (Excel's limit). */
export const SHEET_ROW_LIMIT = 1_048_576;
/** Characters of a cell (Excel's limit). */
const CELL_TEXT_LIMIT = 32_767;
export const TIDY_SHEET = 'data';
const SUBJECT_COLUMNS = ['period', 'project_id', 'client', 'domain', 'language', 'period_kind'] as const;
/** A month's first day, shown as the month. */
const PERIOD_FORMAT = 'yyyy-mm';
/**
 * One style object per kind of cell, given to every cell: ExcelJS looks a style up by identity first, where a
 * fresh object per cell costs it a lookup by content each time (half the writer's time).
 */
const PERIOD_STYLE: Partial<ExcelJS.Style> = { numFmt: PERIOD_FORMAT };
const PLAIN_STYLE: Partial<ExcelJS.Style> = {};
/** Rows of a section sheet kept before they are appended to its spill file. */
const SPILL_BATCH = 500;

type Cell = Date | number | string | boolean | null;

export interface XlsxOptions {
  /** Where the workbook goes (a temporary name; the caller renames it). */
  path: string;
  /** Keep each sheet within this many rows, header included. @default SHEET_ROW_LIMIT */
  sheetRowLimit?: number;
}

/** The first day of a period (a quarter's or a year's first month), in UTC, as Excel reads dates. */
export function periodDate(period: Period): Date {
  return new Date(`${firstMonth(period)}-01T00:00:00Z`);
}

function textCell(text: string): string {
  return text.length > CELL_TEXT_LIMIT ? text.slice(0, CELL_TEXT_LIMIT) : text;
}

function valueCell(value: ExportValue | null): Cell {
  return typeof value === 'string' ? textCell(value) : value;
}

/** A sheet name Excel takes: no []:*?/\, at most 31 characters, not quoted, unique whatever the case. */
export function sheetName(wanted: string, taken: Set<string>): string {
  const base =
    wanted
      .replace(/[[\]:*?/\\]/g, '_')
      .replace(/^'+|'+$/g, '')
      .slice(0, 31) || 'section';
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base.slice(0, 31 - ` (${n})`.length)} (${n})`;
  taken.add(name.toLowerCase());
  return name;
}

/** A section's rows in wide form, spilled to a file as they come, its columns in the order first seen. */
interface SectionSpill {
  file: string;
  keys: Map<string, number>;
  pending: string[];
}

/** Adds a row of cells (the first one a period) and writes it out. */
function commitRow(sheet: ExcelJS.Worksheet, cells: Cell[]): void {
  const row = sheet.addRow(cells);
  row.eachCell((cell, column) => {
    cell.style = column === 1 ? PERIOD_STYLE : PLAIN_STYLE;
  });
  row.commit();
}

export class XlsxExport {
  readonly #workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  readonly #limit: number;
  readonly #names = new Set<string>();
  readonly #sections = new Map<string, SectionSpill>();
  #spillDir: string | null = null;
  #sheet: ExcelJS.Worksheet | null = null;
  #sheetRows = 0;
  #sheets = 0;
  /** Each period's date, made once: a row of every value would make its own. */
  readonly #dates = new Map<string, Date>();

  private constructor(workbook: ExcelJS.stream.xlsx.WorkbookWriter, limit: number) {
    this.#workbook = workbook;
    this.#limit = limit;
  }

  static async open(options: XlsxOptions): Promise<XlsxExport> {
    const { default: Excel } = await import('exceljs');
    // Shared strings: a text cell is a plain string (t="s"); their table holds names and keys, not every value.
    const workbook = new Excel.stream.xlsx.WorkbookWriter({ filename: options.path, useStyles: true, useSharedStrings: true });
    workbook.creator = 'geo-reports';
    return new XlsxExport(workbook, options.sheetRowLimit ?? SHEET_ROW_LIMIT);
  }

  /** The rows of one client's report of one month. */
  async add(subject: ExportSubject, rows: readonly ExportRow[]): Promise<void> {
    for (const row of rows) {
      this.#tidyRow([
        this.#date(row.period),
        row.projectId,
        textCell(row.client),
        row.domain,
        row.language,
        row.section,
        row.key,
        valueCell(row.value),
        row.unit,
        row.change,
        row.periodKind,
      ]);
    }
    const bySection = new Map<string, Record<string, ExportValue>>();
    for (const row of rows) {
      let values = bySection.get(row.section);
      if (values === undefined) bySection.set(row.section, (values = {}));
      values[row.key] = row.value;
    }
    for (const [section, values] of bySection) {
      const spill = await this.#spill(section);
      for (const key of Object.keys(values)) if (!spill.keys.has(key)) spill.keys.set(key, spill.keys.size);
      spill.pending.push(JSON.stringify([subject.period, subject.projectId, subject.client, subject.domain, subject.language, subject.periodKind, values]));
      if (spill.pending.length >= SPILL_BATCH) await this.#flushSpill(spill);
    }
    // ExcelJS's sheet stream keeps what it wrote until the zip takes it, and the zip takes it between turns only.
    await nextTurn();
  }

  /** Writes the section sheets and the end of the workbook. */
  async close(): Promise<void> {
    try {
      if (this.#sheet === null) this.#newTidySheet();
      this.#sheet?.commit();
      for (const [section, spill] of this.#sections) {
        await this.#flushSpill(spill);
        await this.#writeSection(section, spill);
      }
      await this.#workbook.commit();
    } finally {
      await this.#removeSpills();
    }
  }

  /** Ends the workbook without its section sheets (the file is thrown away by the caller). */
  async abort(): Promise<void> {
    await this.#removeSpills();
    await this.#workbook.commit().catch(() => undefined);
  }

  #date(period: Period): Date {
    let date = this.#dates.get(period);
    if (date === undefined) this.#dates.set(period, (date = periodDate(period)));
    return date;
  }

  #tidyRow(cells: Cell[]): void {
    if (this.#sheet === null || this.#sheetRows >= this.#limit) this.#newTidySheet();
    commitRow(this.#sheet as ExcelJS.Worksheet, cells);
    this.#sheetRows += 1;
  }

  #newTidySheet(): void {
    this.#sheet?.commit();
    this.#sheets += 1;
    const name = sheetName(this.#sheets === 1 ? TIDY_SHEET : `${TIDY_SHEET} (${this.#sheets})`, this.#names);
    this.#sheet = this.#addSheet(name, [...EXPORT_COLUMNS]);
    this.#sheetRows = 1;
  }

  #addSheet(name: string, header: string[]): ExcelJS.Worksheet {
    const sheet = this.#workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = header.map((title, i) => ({
      header: textCell(title),
      key: `c${i}`,
      width: Math.min(40, Math.max(10, title.length + 2)),
    }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    return sheet;
  }

  async #spill(section: string): Promise<SectionSpill> {
    let spill = this.#sections.get(section);
    if (spill === undefined) {
      this.#spillDir ??= await mkdtemp(join(tmpdir(), 'geo-export-'));
      spill = { file: join(this.#spillDir, `${this.#sections.size}.jsonl`), keys: new Map(), pending: [] };
      await writeFile(spill.file, '');
      this.#sections.set(section, spill);
    }
    return spill;
  }

  async #flushSpill(spill: SectionSpill): Promise<void> {
    if (spill.pending.length === 0) return;
    await appendFile(spill.file, `${spill.pending.join('\n')}\n`);
    spill.pending = [];
  }

  /** A section's sheet from its spill file, as many sheets as Excel's row limit asks. */
  async #writeSection(section: string, spill: SectionSpill): Promise<void> {
    const keys = [...spill.keys.keys()];
    const header = [...SUBJECT_COLUMNS, ...keys];
    let sheet: ExcelJS.Worksheet | null = null;
    let rows = 0;
    let part = 0;
    const lines = createInterface({ input: createReadStream(spill.file, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      if (sheet === null || rows >= this.#limit) {
        sheet?.commit();
        part += 1;
        sheet = this.#addSheet(sheetName(part === 1 ? section : `${section} (${part})`, this.#names), header);
        rows = 1;
      }
      const [period, projectId, client, domain, language, periodKind, values] = JSON.parse(line) as [
        string,
        number,
        string,
        string | null,
        string,
        string,
        Record<string, ExportValue>,
      ];
      commitRow(sheet, [
        this.#date(toPeriod(period)),
        projectId,
        textCell(client),
        domain,
        language,
        periodKind,
        ...keys.map((key) => valueCell(values[key] ?? null)),
      ]);
      rows += 1;
    }
    sheet?.commit();
  }

  async #removeSpills(): Promise<void> {
    if (this.#spillDir !== null) await rm(this.#spillDir, { recursive: true, force: true });
    this.#spillDir = null;
  }
}
