// The events journal: `<out>/events/<YYYY-MM>.jsonl`, one JSON line per fact, appended and flushed to disk
// (fsync) before the receiver answers. Every delivery received, what was done with it, and each alert's record
// live here, so a receiver killed at any moment starts again from the truth: deliveries without an outcome are
// acted on, ids seen in the last 7 days are not acted on twice, and an alert left `sending` is never resent.
import { mkdir, open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { GeoReportsError } from '../errors.js';
import { DELIVERY_STATUSES } from '../output/store.js';
import { addMonths, PERIOD_PATTERN, periodOf } from '../period.js';
import { EVENT_KINDS } from './payload.js';

/** A delivery id is remembered this long: a replay within it answers 2xx and does nothing. */
export const REPLAY_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export const OUTCOMES = ['alerted', 'cooldown', 'below_threshold', 'recorded', 'test', 'unknown_kind', 'no_project', 'no_scores', 'not_sent'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const ALERT_KINDS = ['geo_drop', 'seo_drop', 'scan_failed'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** An alert's record has a report delivery's statuses: the same once-only rules settle both. */
export const ALERT_STATUSES = DELIVERY_STATUSES;

const move = z.object({ before: z.number().nullable(), after: z.number().nullable() });

export const DeliveryLine = z.object({
  type: z.literal('delivery'),
  id: z.string(),
  receivedAt: z.string(),
  kind: z.enum([...EVENT_KINDS, 'unknown']),
  kindText: z.string().nullable(),
  projectId: z.number().int().nullable(),
  timestamp: z.string().nullable(),
  scores: z.object({ geo: move, seo: move }),
  /** The project's last scores the journal knew when this delivery arrived: the "before" a bare value lacks. */
  known: z.object({ geo: z.number().nullable(), seo: z.number().nullable() }),
  payload: z.unknown(),
});
export type DeliveryLine = z.infer<typeof DeliveryLine>;

export const OutcomeLine = z.object({
  type: z.literal('outcome'),
  id: z.string(),
  at: z.string(),
  outcome: z.enum(OUTCOMES),
  detail: z.string(),
  /** The alerts this delivery raised (`<delivery id>#<kind>`), when it raised any. */
  alerts: z
    .array(
      z.object({
        key: z.string(),
        kind: z.enum(ALERT_KINDS),
        projectId: z.number().int(),
        /** The score before and after, for a drop. */
        before: z.number().nullable().default(null),
        after: z.number().nullable().default(null),
      }),
    )
    .default([]),
  /** The channels its alerts were meant for when decided: a channel added later does not owe them. */
  channels: z.array(z.string()).optional(),
  /** Scores read from the API to decide it (a score change that carried none): the journal's latest from then on. */
  read: z.object({ projectId: z.number().int(), geo: z.number().nullable(), seo: z.number().nullable() }).optional(),
});
export type OutcomeLine = z.infer<typeof OutcomeLine>;

export const AlertLine = z.object({
  type: z.literal('alert'),
  key: z.string(),
  channel: z.string(),
  status: z.enum(ALERT_STATUSES),
  at: z.string(),
  attempts: z.number().int().nonnegative(),
  error: z.string().optional(),
  response: z.string().optional(),
});
export type AlertLine = z.infer<typeof AlertLine>;

export const JournalLine = z.discriminatedUnion('type', [DeliveryLine, OutcomeLine, AlertLine]);
export type JournalLine = z.infer<typeof JournalLine>;

/** The file a line received at `at` goes to. */
export function journalFile(dir: string, at: Date): string {
  return join(dir, `${periodOf(at)}.jsonl`);
}

/** One file's lines; the text after the last newline is a line a kill cut short, never counted. */
export function parseJournal(text: string, onBadLine: (line: number) => void = () => undefined): JournalLine[] {
  const lines = text.split('\n');
  lines.pop();
  const parsed: JournalLine[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      onBadLine(index + 1);
      continue;
    }
    const result = JournalLine.safeParse(json);
    if (result.success) parsed.push(result.data);
    else onBadLine(index + 1);
  }
  return parsed;
}

/** Every line of the journal files from `since` on (whole months), oldest first. */
export async function readJournal(dir: string, since: Date, onBadLine?: (file: string, line: number) => void): Promise<JournalLine[]> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new GeoReportsError(`Cannot read the events folder ${dir}: ${(error as Error).message}`, { hint: 'Check its permissions.', cause: error });
  }
  const first = periodOf(since);
  const months = files
    .map((file) => /^(\d{4}-\d{2})\.jsonl$/.exec(file)?.[1])
    .filter((month): month is string => month !== undefined && PERIOD_PATTERN.test(month) && month >= first)
    .sort();
  const lines: JournalLine[] = [];
  for (const month of months) {
    const path = join(dir, `${month}.jsonl`);
    lines.push(...parseJournal(await readFile(path, 'utf8'), (line) => onBadLine?.(path, line)));
  }
  return lines;
}

interface Waiting {
  text: string;
  file: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface JournalWriterOptions {
  /**
   * Flushes what was written to the disk. @default the handle's datasync (fdatasync: the data and the file's new
   * size, which reading it back needs; not its times)
   */
  sync?: (handle: FileHandle) => Promise<void>;
}

/**
 * Appends lines and flushes them to disk before it resolves. Lines asked for while a flush is under way share the
 * next one (group commit): 50 deliveries at once cost a few flushes, not 50. A failed write is cut back off the
 * file, so a line is either whole or absent.
 */
export class JournalWriter {
  readonly #dir: string;
  readonly #sync: (handle: FileHandle) => Promise<void>;
  #queue: Waiting[] = [];
  #flushing: Promise<void> | null = null;
  #handle: { file: string; handle: FileHandle; size: number } | null = null;
  #closed = false;

  constructor(dir: string, options: JournalWriterOptions = {}) {
    this.#dir = dir;
    this.#sync = options.sync ?? ((handle) => handle.datasync());
  }

  append(lines: readonly JournalLine[], at: Date): Promise<void> {
    if (this.#closed) return Promise.reject(new GeoReportsError('The events journal is closed.'));
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    return new Promise((resolve, reject) => {
      this.#queue.push({ text, file: journalFile(this.#dir, at), resolve, reject });
      this.#startFlush();
    });
  }

  #startFlush(): void {
    if (this.#flushing !== null) return;
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = null;
      // A line asked for between the flush's last look at the queue and its end (by the caller its last write
      // woke, typically) would otherwise wait for the next append to start a flush: it starts one now.
      if (this.#queue.length > 0) this.#startFlush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      // One file per month: a batch that spans the turn of a month is written file by file.
      for (const file of [...new Set(batch.map((w) => w.file))]) {
        const waiting = batch.filter((w) => w.file === file);
        try {
          await this.#write(file, waiting.map((w) => w.text).join(''));
          for (const w of waiting) w.resolve();
        } catch (error) {
          for (const w of waiting) w.reject(error);
        }
      }
    }
  }

  async #write(file: string, text: string): Promise<void> {
    if (this.#handle?.file !== file) {
      await this.#handle?.handle.close();
      this.#handle = null;
      await mkdir(this.#dir, { recursive: true });
      const handle = await open(file, 'a');
      this.#handle = { file, handle, size: (await handle.stat()).size };
    }
    const current = this.#handle;
    const bytes = Buffer.from(text);
    try {
      await current.handle.write(bytes, 0, bytes.length, null);
      await this.#sync(current.handle);
      current.size += bytes.length;
    } catch (error) {
      // Whatever part of the text reached the file is removed: the next line must start on a line of its own.
      await current.handle.truncate(current.size).catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#flushing;
    await this.#handle?.handle.close();
    this.#handle = null;
  }
}

/** The months whose files hold the replay window and the cooldowns: this one and the one before. */
export function journalSince(now: Date): Date {
  return new Date(Date.parse(`${addMonths(periodOf(now), -1)}-01T00:00:00Z`));
}
