// The one serialized writer of a record a command keeps on disk while it changes it: a period's manifest during a
// run, the same manifest during a send, the site's links record during a publish. Writes never overlap and keep the
// order they were asked in; a change is one journal line when the file keeps a journal, and the whole file is
// rewritten now and then and at the end; a failed write goes to the owner and never breaks the chain.

/** How a record reaches its file. Each write is crash-safe on its own: a temp file renamed over, a flushed line. */
export interface RecordFile<Change> {
  /** Writes the whole record; a file that keeps a journal names a new, empty one. */
  whole(): Promise<void>;
  /** Appends one journal line with these changes, flushed to disk. Absent when the file keeps no journal: every save is whole. */
  append?(changes: readonly Change[]): Promise<void>;
  /** The last write: the whole record, without a journal. @default whole */
  close?(): Promise<void>;
}

export interface RecordWriterOptions<Change> {
  file: RecordFile<Change>;
  /** A write that failed, for the owner to keep or act on (a full disk stops a run); the next write still runs. */
  onError: (error: unknown) => void;
  /** Runs right before each write: what every write carries (the record's time, its counts). */
  beforeWrite?: () => void;
  /** The whole file is rewritten at least this often; the journal holds the changes between. @default 2000 */
  wholeEveryMs?: number;
  /** Milliseconds on a clock that only goes forward. @default performance.now */
  now?: () => number;
}

export class RecordWriter<Change> {
  readonly #file: RecordFile<Change>;
  readonly #onError: (error: unknown) => void;
  readonly #beforeWrite: () => void;
  readonly #wholeEveryMs: number;
  readonly #now: () => number;
  /** Changes asked for since the last write began. */
  readonly #changed = new Set<Change>();
  #wholeAsked = false;
  #lastWhole = -Infinity;
  #tail: Promise<void> = Promise.resolve();
  #next: Promise<void> | null = null;

  constructor(options: RecordWriterOptions<Change>) {
    this.#file = options.file;
    this.#onError = options.onError;
    this.#beforeWrite = options.beforeWrite ?? (() => undefined);
    this.#wholeEveryMs = options.wholeEveryMs ?? 2_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Writes after the writes already asked for: `change` as a line of the journal, or with no change (and at least
   * every `wholeEveryMs`) the whole file. Saves asked while a write is under way share the next one, which records
   * all their changes; it resolves once that write has ended, failed or not.
   */
  save(change?: Change): Promise<void> {
    if (change === undefined) this.#wholeAsked = true;
    else this.#changed.add(change);
    this.#next ??= this.#chain(async () => {
      const changes = [...this.#changed];
      const whole = this.#wholeAsked || this.#file.append === undefined || this.#now() - this.#lastWhole >= this.#wholeEveryMs;
      this.#wholeAsked = false;
      this.#changed.clear();
      if (whole) {
        await this.#file.whole();
        this.#lastWhole = this.#now();
      } else {
        await this.#file.append?.(changes);
      }
    }, false, () => {
      // From here on, a change needs the write after this one.
      this.#next = null;
    });
    return this.#next;
  }

  /**
   * The last write, after every save asked for and in a link of its own (never shared with a save still waiting).
   * Rejects with its failure, which `onError` gets too; a save that failed earlier is made good by this one.
   */
  close(): Promise<void> {
    return this.#chain(() => (this.#file.close !== undefined ? this.#file.close() : this.#file.whole()), true);
  }

  /** Resolves once every write asked for so far has ended. */
  idle(): Promise<void> {
    return this.#tail;
  }

  /**
   * Runs `write` after the writes already asked for (`started` first, whatever follows); its failure goes to onError
   * (and to the caller if `rethrow`).
   */
  #chain(write: () => Promise<void>, rethrow = false, started?: () => void): Promise<void> {
    const next = this.#tail.then(async () => {
      started?.();
      try {
        // Inside: a hook that throws is a failed write, and the chain (and the next save) goes on.
        this.#beforeWrite();
        await write();
      } catch (error) {
        this.#onError(error);
        if (rethrow) throw error;
      }
    });
    // A failed write never breaks the chain: the next one still runs.
    this.#tail = next.catch(() => undefined);
    return next;
  }
}
