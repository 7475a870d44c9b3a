// `geo-reports export`: the reports on disk → one file, in the tidy table's form, as CSV, an Excel workbook or
// JSON lines; rows are written as each report is read, and the file appears whole or not at all.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileSystemError, GeoReportsError } from '../errors.js';
import { DISK_FULL_CODES, diskProblem, type DiskFullCode } from '../output/disk.js';
import { writeFileAtomicVia } from '../output/store.js';
import { csvRecord, UTF8_BOM } from './csv.js';
import { exportPieces, type Piece } from './pieces.js';
import { EXPORT_COLUMNS } from './rows.js';
import { exportPeriods, type ExportSourceOptions } from './source.js';

export { exportPeriods } from './source.js';
import { XlsxExport } from './xlsx.js';
import type { Period } from '../period.js';

export const EXPORT_FORMATS = ['csv', 'xlsx', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The file name when none is given: export-<first>_<last>.<ext>, or export-<period>. */
export function defaultExportName(periods: readonly string[], format: ExportFormat): string {
  const extension = format === 'json' ? 'jsonl' : format;
  const first = periods[0];
  const last = periods.at(-1);
  const span = first === undefined ? 'none' : first === last ? first : `${first}_${last}`;
  return `export-${span}.${extension}`;
}

export interface ExportOptions extends ExportSourceOptions {
  format: ExportFormat;
  /** The file written (atomically). */
  file: string;
  /** CSV: start with the UTF-8 byte order mark, for Excel. @default false */
  bom?: boolean;
  /** XLSX: rows per sheet, header included. @default Excel's limit */
  sheetRowLimit?: number;
  /** Threads reading the reports (1: this one). @default one per core for a large export, else 1 */
  threads?: number;
}

export interface ExportSummary {
  file: string;
  format: ExportFormat;
  /** Client reports exported (one client, one month). */
  reports: number;
  rows: number;
  periods: Period[];
}

/** One report's piece at a time to a format's writer. */
interface PieceSink {
  add(piece: Piece): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/** Writes the export; resolves to what it holds. */
export async function writeExport(options: ExportOptions): Promise<ExportSummary> {
  const periods = await exportPeriods(options.outDir, options.periods, options.history);
  const summary: ExportSummary = { file: options.file, format: options.format, reports: 0, rows: 0, periods };
  await writeFileAtomicVia(options.file, async (temp) => {
    await checkedFolder(dirname(options.file));
    const sink = await openSink(options, temp);
    try {
      for await (const piece of exportPieces({ ...options, periods }, options.format, options.threads)) {
        await sink.add(piece);
        summary.reports += 1;
        summary.rows += piece.count;
      }
    } catch (error) {
      await sink.abort();
      throw error;
    }
    await sink.close();
  }).catch((error: unknown) => {
    throw fileError(error, options.file);
  });
  return summary;
}

/** The export's folder exists and is a folder: the file goes into it, never a folder made on the way. */
async function checkedFolder(dir: string): Promise<void> {
  const found = await stat(dir).catch(() => null);
  if (found?.isDirectory() !== true) {
    throw new FileSystemError(`Cannot write the export into ${dir}: ${found === null ? 'no such folder' : 'not a folder'}.`, {
      hint: 'Give --file a path in an existing folder.',
    });
  }
}

/** A system error on the export's file as the tool's own, saying which file and what to do. */
function fileError(error: unknown, file: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof GeoReportsError || typeof code !== 'string') return error;
  const disk = (DISK_FULL_CODES as readonly string[]).includes(code) ? diskProblem(code as DiskFullCode) : null;
  return new FileSystemError(`Cannot write the export ${file}: ${disk === null ? (error as Error).message : `the disk ${disk}`}.`, {
    hint: 'Give --file a path on a disk with room, in a folder you may write; nothing was written.',
    cause: error,
  });
}

async function openSink(options: ExportOptions, path: string): Promise<PieceSink> {
  if (options.format === 'xlsx') {
    const workbook = await XlsxExport.open({ path, ...(options.sheetRowLimit !== undefined ? { sheetRowLimit: options.sheetRowLimit } : {}) });
    return {
      add: async ({ rows }) => (rows?.[0] === undefined ? undefined : workbook.add(rows[0], rows)),
      close: () => workbook.close(),
      abort: () => workbook.abort(),
    };
  }
  const file = await openStream(path);
  if (options.format === 'csv') await file.write(`${options.bom === true ? UTF8_BOM : ''}${csvRecord([...EXPORT_COLUMNS])}`);
  return {
    add: ({ text }) => file.write(text ?? ''),
    close: () => file.end(),
    abort: () => file.end().catch(() => undefined),
  };
}

const WRITE_BUFFER = 1 << 20;

/** A text file written as it comes, waiting while its buffer is full: memory stays flat however many rows come. */
async function openStream(path: string): Promise<{ write(text: string): Promise<void>; end(): Promise<void> }> {
  // A megabyte before waiting: with the default 16 kB the export would stop for the disk every few reports.
  const stream: WriteStream = createWriteStream(path, { flags: 'wx', mode: 0o644, highWaterMark: WRITE_BUFFER });
  // A write error (a full disk) is kept and thrown by the next write or the end, never left unhandled.
  let failure: Error | null = null;
  stream.on('error', (error) => (failure ??= error));
  await once(stream, 'open');
  const failed = (): void => {
    if (failure !== null) throw failure;
  };
  return {
    async write(text) {
      failed();
      if (text === '' || stream.write(text)) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('error', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('error', done);
      });
      failed();
    },
    async end() {
      failed();
      await new Promise<void>((resolve) => stream.end(() => resolve()));
      failed();
    },
  };
}
