// What the receiver knows, rebuilt from the journal at start and kept up to date with every line it appends:
// the delivery ids of the replay window, deliveries not acted on yet, each project's last known scores, when
// each project and kind last alerted, and the record of every alert on every channel.
import type { AlertKind, AlertLine, DeliveryLine, JournalLine, OutcomeLine } from './journal.js';
import { JournalWriter, journalSince, readJournal, REPLAY_WINDOW_MS, type JournalWriterOptions } from './journal.js';

export interface KnownScores {
  geo: number | null;
  seo: number | null;
}

export interface EventStoreOptions {
  /** `<out>/events` */
  dir: string;
  clock: () => Date;
  /** A journal line that could not be read (a disk fault): named, skipped. */
  onBadLine?: (file: string, line: number) => void;
  /** The journal's flush to disk (JournalWriterOptions.sync). */
  sync?: JournalWriterOptions['sync'];
}

export class EventStore {
  readonly dir: string;
  readonly #clock: () => Date;
  readonly #writer: JournalWriter;
  /** id → when it was received (ms), for the replay window. */
  readonly #seen = new Map<string, number>();
  readonly #pending = new Map<string, DeliveryLine>();
  readonly #scores = new Map<number, KnownScores>();
  /** `<project>:<kind>` → the time of the last alert raised. */
  readonly #lastAlert = new Map<string, number>();
  /** `<key>|<channel>` → its latest record. */
  readonly #alerts = new Map<string, AlertLine>();
  /** Outcome lines, by delivery id. */
  readonly #outcomes = new Map<string, OutcomeLine>();

  private constructor(options: EventStoreOptions) {
    this.dir = options.dir;
    this.#clock = options.clock;
    this.#writer = new JournalWriter(options.dir, options.sync === undefined ? {} : { sync: options.sync });
  }

  static async open(options: EventStoreOptions): Promise<EventStore> {
    const store = new EventStore(options);
    const lines = await readJournal(options.dir, journalSince(options.clock()), options.onBadLine);
    for (const line of lines) store.#apply(line);
    return store;
  }

  #apply(line: JournalLine): void {
    switch (line.type) {
      case 'delivery': {
        this.#seen.set(line.id, Date.parse(line.receivedAt));
        if (!this.#outcomes.has(line.id)) this.#pending.set(line.id, line);
        // Only a score change moves the scores a later drop is measured from: a completed scan that carries the
        // new scores would otherwise make the score change that follows it look like no change at all.
        if (line.projectId !== null && line.kind === 'score.change') {
          const known = this.#scores.get(line.projectId) ?? { geo: null, seo: null };
          this.#scores.set(line.projectId, { geo: line.scores.geo.after ?? known.geo, seo: line.scores.seo.after ?? known.seo });
        }
        break;
      }
      case 'outcome':
        this.#outcomes.set(line.id, line);
        this.#pending.delete(line.id);
        for (const alert of line.alerts) this.#lastAlert.set(`${alert.projectId}:${alert.kind}`, Date.parse(line.at));
        if (line.read !== undefined) {
          const known = this.#scores.get(line.read.projectId) ?? { geo: null, seo: null };
          this.#scores.set(line.read.projectId, { geo: line.read.geo ?? known.geo, seo: line.read.seo ?? known.seo });
        }
        break;
      case 'alert':
        this.#alerts.set(`${line.key}|${line.channel}`, line);
        break;
    }
  }

  /**
   * True when `id` is new (and from now on taken): a replay, or the same delivery arriving twice at once, is
   * false. `release` gives the id back when its delivery could not be stored.
   */
  claim(id: string): boolean {
    const now = this.#clock().getTime();
    const at = this.#seen.get(id);
    if (at !== undefined && now - at < REPLAY_WINDOW_MS) return false;
    this.#seen.set(id, now);
    return true;
  }

  release(id: string): void {
    this.#seen.delete(id);
  }

  /** Appends the lines and flushes them to disk; the store knows them once they are written. */
  async append(lines: readonly JournalLine[]): Promise<void> {
    await this.#writer.append(lines, this.#clock());
    for (const line of lines) this.#apply(line);
  }

  /** Deliveries stored but not acted on yet, oldest first. */
  pending(): DeliveryLine[] {
    return [...this.#pending.values()];
  }

  /** The latest scores the journal knows for a project (from every delivery so far). */
  knownScores(projectId: number): KnownScores {
    return this.#scores.get(projectId) ?? { geo: null, seo: null };
  }

  /** When this project last alerted for this kind, or null. */
  lastAlert(projectId: number, kind: AlertKind): Date | null {
    const at = this.#lastAlert.get(`${projectId}:${kind}`);
    return at === undefined ? null : new Date(at);
  }

  /** Outcomes that raised alerts, oldest first. */
  outcomesWithAlerts(): OutcomeLine[] {
    return [...this.#outcomes.values()].filter((line) => line.alerts.length > 0);
  }

  /** The outcome of a delivery, once acted on. */
  outcome(id: string): OutcomeLine | undefined {
    return this.#outcomes.get(id);
  }

  alertRecord(key: string, channel: string): AlertLine | undefined {
    return this.#alerts.get(`${key}|${channel}`);
  }

  /** Forgets ids older than the replay window, so a receiver that runs for months stays small. */
  prune(): void {
    const oldest = this.#clock().getTime() - REPLAY_WINDOW_MS;
    for (const [id, at] of this.#seen) if (at < oldest) this.#seen.delete(id);
  }

  close(): Promise<void> {
    return this.#writer.close();
  }
}
