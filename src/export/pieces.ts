// The export's reports as pieces of its file: each client's report of each month as its text (CSV, JSON lines) or
// its rows (the workbook), in the export's order. A large export is read by one thread per core, each reading a
// share of the clients, and put back in order here: the reading and the report's assembly are most of the time.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ConfigError, errorMessage, FileSystemError, GeoReportsError } from '../errors.js';
import { readManifest } from '../output/store.js';
import { csvRecord } from './csv.js';
import { reportRows, type ExportRow } from './rows.js';
import type { Period } from '../period.js';
import { exportValues, periodFolders, type ClientShare, type ExportSourceOptions } from './source.js';

export type PieceFormat = 'csv' | 'json' | 'xlsx';

/** One client's report of one month in the file: its text (CSV, JSON lines), or its rows for the workbook. */
export interface Piece {
  /** Rows of the tidy table. */
  count: number;
  text: string | null;
  rows: ExportRow[] | null;
}

/** A piece with its place: the period's index, then the manifest entry's. */
export interface PlacedPiece {
  period: number;
  entry: number;
  piece: Piece;
}

/** What a thread is given: where to read, which clients, in which format. The clock's time, as a thread has none of its own. */
export interface ShareInput {
  source: Omit<ExportSourceOptions, 'clock' | 'onSkip' | 'signal'>;
  now: string;
  share: ClientShare;
  format: PieceFormat;
}

/** What a thread says: a batch of pieces, a report left out, or its end. */
export type ShareMessage =
  { type: 'batch'; pieces: PlacedPiece[] } | { type: 'skip'; message: string } | { type: 'error'; error: ThreadError } | { type: 'end' };

/** An error of a thread, as a message carries it: a thread's error object loses its class on the way. */
export interface ThreadError {
  kind: 'config' | 'file-system' | 'tool' | 'other';
  message: string;
  hint: string | undefined;
}

/** The error a thread met, for its message to the export. */
export function threadError(error: unknown): ThreadError {
  const kind = error instanceof ConfigError ? 'config' : error instanceof FileSystemError ? 'file-system' : error instanceof GeoReportsError ? 'tool' : 'other';
  return { kind, message: errorMessage(error), hint: error instanceof GeoReportsError ? error.hint : undefined };
}

/** The error a thread met, back in its class: a config or disk problem says its fix and exits as it would here. */
export function fromThread(error: ThreadError): Error {
  const options = error.hint === undefined ? {} : { hint: error.hint };
  if (error.kind === 'config') return new ConfigError(error.message, options);
  if (error.kind === 'file-system') return new FileSystemError(error.message, options);
  if (error.kind === 'tool') return new GeoReportsError(error.message, options);
  return new Error(error.message);
}

/** Reports of a thread's batch: one message carries many, as a message costs more than a report's text. */
export const BATCH_SIZE = 64;
/** Batches a thread sends ahead of the writer: it waits for the writer beyond these, so memory stays flat. */
export const BATCHES_AHEAD = 8;
/** Fewer reports than this are read in this thread: starting threads would cost more than it saves. */
const THREADS_FROM = 2000;
const MAX_THREADS = 8;

export function pieceOf(format: PieceFormat, rows: ExportRow[]): Piece {
  if (format === 'xlsx') return { count: rows.length, text: null, rows };
  return { count: rows.length, text: rows.map(format === 'csv' ? csvText : jsonLine).join(''), rows: null };
}

function csvText(row: ExportRow): string {
  return csvRecord([row.period, row.projectId, row.client, row.domain, row.language, row.section, row.key, row.value, row.unit, row.change, row.periodKind]);
}

/** One JSON object per line, the tidy table's columns as keys. */
function jsonLine(row: ExportRow): string {
  return `${JSON.stringify({
    period: row.period,
    project_id: row.projectId,
    client: row.client,
    domain: row.domain,
    language: row.language,
    section: row.section,
    key: row.key,
    value: row.value,
    unit: row.unit,
    change: row.change,
    period_kind: row.periodKind,
  })}\n`;
}

/** The pieces of a share of the clients, in order (what a thread runs; the only share when there is one thread). */
export async function* sharePieces(source: ExportSourceOptions, share: ClientShare, format: PieceFormat): AsyncGenerator<PlacedPiece> {
  for await (const placed of exportValues(source, share)) {
    yield { period: placed.period, entry: placed.entry, piece: pieceOf(format, 'rows' in placed ? placed.rows : reportRows(placed.values)) };
  }
}

/**
 * Every piece of the export, in order, from `threads` shares of the clients (default: one per core for a large
 * export, else one). The first share is read in this thread, unless it writes a workbook: ExcelJS keeps it busy.
 */
export async function* exportPieces(source: ExportSourceOptions, format: PieceFormat, threads?: number): AsyncGenerator<Piece> {
  const count = Math.max(1, threads ?? (await threadsFor(source)));
  const { clock: _clock, onSkip, signal, ...rest } = source;
  const here = count === 1 || format !== 'xlsx';
  const shares: Share[] = Array.from({ length: count }, (_, index) =>
    index === 0 && here
      ? new LocalShare(sharePieces(source, { index, count }, format))
      : new ShareThread({ source: rest, now: source.clock().toISOString(), share: { index, count }, format }, onSkip ?? (() => undefined)),
  );
  try {
    for (;;) {
      signal?.throwIfAborted();
      // The earliest next piece of all shares: each share's pieces come in order.
      let next: { share: Share; placed: PlacedPiece } | null = null;
      for (const share of shares) {
        const placed = await share.head();
        if (
          placed !== null &&
          (next === null || placed.period < next.placed.period || (placed.period === next.placed.period && placed.entry < next.placed.entry))
        ) {
          next = { share, placed };
        }
      }
      if (next === null) return;
      next.share.take();
      yield next.placed.piece;
    }
  } finally {
    await Promise.all(shares.map((share) => share.stop()));
  }
}

/** One thread per core for an export of many reports (as many as the newest period's, each month), else this one. */
async function threadsFor(source: ExportSourceOptions): Promise<number> {
  const cores = Math.min(availableParallelism(), MAX_THREADS);
  if (cores <= 1 || source.periods.length === 0) return 1;
  const newest = (await periodFolders(source.outDir, source.history)).get(source.periods.at(-1) as Period);
  const manifest = newest === undefined ? null : await readManifest(newest).catch(() => null);
  const reports = (manifest?.projects.length ?? 0) * source.periods.length;
  return reports >= THREADS_FROM ? cores : 1;
}

/** A thread running worker.js beside this module; from the TypeScript sources (the tests), worker.ts through tsx. */
function startThread(input: ShareInput): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData: input });
  const module = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${module}); });`, { eval: true, workerData: input });
}

/** A share of the clients' pieces, in order. */
interface Share {
  /** Its next piece, waiting for it; null once it has given them all. */
  head(): Promise<PlacedPiece | null>;
  /** Its next piece is written. */
  take(): void;
  stop(): Promise<void>;
}

/** A share read in this thread, a piece when asked. */
class LocalShare implements Share {
  readonly #pieces: AsyncGenerator<PlacedPiece>;
  #next: PlacedPiece | null | undefined;

  constructor(pieces: AsyncGenerator<PlacedPiece>) {
    this.#pieces = pieces;
  }

  async head(): Promise<PlacedPiece | null> {
    if (this.#next === undefined) {
      const next = await this.#pieces.next();
      this.#next = next.done === true ? null : next.value;
    }
    return this.#next;
  }

  take(): void {
    this.#next = undefined;
  }

  async stop(): Promise<void> {
    await this.#pieces.return(undefined);
  }
}

/** A thread reading a share of the clients: its pieces as they come, a batch given back to it once written. */
class ShareThread implements Share {
  readonly #worker: Worker;
  readonly #queue: PlacedPiece[] = [];
  /** Pieces left of each batch received, oldest first: a batch written is one more the thread may send. */
  readonly #batches: number[] = [];
  #ended = false;
  #failure: Error | null = null;
  #wake: (() => void) | null = null;

  constructor(input: ShareInput, onSkip: (message: string) => void) {
    this.#worker = startThread(input);
    this.#worker.on('message', (message: ShareMessage) => {
      if (message.type === 'batch') {
        this.#queue.push(...message.pieces);
        this.#batches.push(message.pieces.length);
      } else if (message.type === 'skip') onSkip(message.message);
      else if (message.type === 'error') this.#failure ??= fromThread(message.error);
      else this.#ended = true;
      this.#wakeUp();
    });
    this.#worker.on('error', (error) => {
      this.#failure ??= error;
      this.#wakeUp();
    });
    this.#worker.on('exit', (code) => {
      if (!this.#ended) this.#failure ??= new Error(`A thread of the export stopped before its end (exit code ${code}).`);
      this.#wakeUp();
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async head(): Promise<PlacedPiece | null> {
    while (this.#queue.length === 0) {
      if (this.#failure !== null) throw this.#failure;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#queue[0] as PlacedPiece;
  }

  /** The batch's last piece written lets the thread send one more. */
  take(): void {
    this.#queue.shift();
    const left = (this.#batches[0] as number) - 1;
    if (left > 0) this.#batches[0] = left;
    else {
      this.#batches.shift();
      this.#worker.postMessage('more');
    }
  }

  async stop(): Promise<void> {
    this.#ended = true;
    await this.#worker.terminate();
  }
}
