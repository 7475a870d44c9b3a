// The state of one period while it runs: the manifest and its entries, saved through one serialized writer (a
// journal line per change, the whole file now and then and at the end). Beside it, its parts: the stop rules
// (./stop-rules.ts), the request counts and the summary (./run-summary.ts), the entry a report leaves
// (./report-entry.ts) and the events (./events.ts). The pipeline's steps change entries only through it.
import { toMonth } from '../period.js';
import type { Project } from '../api/schemas.js';
import { errorMessage, GeoReportsError } from '../errors.js';
import { join } from 'node:path';
import { diskFullCode, diskProblem, DiskFullError } from '../output/disk.js';
import { RecordWriter } from '../output/record-writer.js';
import { writePeriodIndex, type IndexPage } from '../output/period-index.js';
import type { Fact } from '../report/facts.js';
import { disagreementMessage, disagreements, shownInHtml } from '../report/view-check.js';
import { createManifestWriter, ensureDir, type Manifest, type ManifestWriter, type ProjectEntry, type ReportVersion } from '../output/store.js';
import type { BatchEvent, BatchStatus, BatchSummary } from './events.js';
import { doneEntry, newEntry, type WrittenReport } from './report-entry.js';
import { RequestCounts, summariseRun } from './run-summary.js';
import { StopRules } from './stop-rules.js';

export type { BatchEvent, BatchStatus, BatchSummary, PlanSummary, SpaceEstimate } from './events.js';

/** manifest.json is rewritten whole at least this often during a run; the journal holds the changes between. */
const WHOLE_MANIFEST_EVERY_MS = 2_000;

export interface PeriodStateOptions {
  periodDir: string;
  manifest: Manifest;
  clock: () => Date;
  /** Requests sent so far by the client, per token label. */
  requestsSent: () => Record<string, number>;
  signal?: AbortSignal | undefined;
  emit: (event: BatchEvent) => void;
  /** @default createManifestWriter(periodDir) */
  writer?: ManifestWriter;
}

export class PeriodState {
  readonly manifest: Manifest;
  readonly entries: Map<number, ProjectEntry>;
  /** When sending and rendering stop (quota, disk, browser, signal), and what the run says then. */
  readonly stops: StopRules;
  /** This run's requests, and the period's over every run. */
  readonly requests: RequestCounts;
  readonly #options: PeriodStateOptions;
  /** The manifest's writes, one after the other: a changed entry's id is a journal line. */
  readonly #writes: RecordWriter<number>;

  constructor(options: PeriodStateOptions) {
    this.#options = options;
    this.manifest = options.manifest;
    this.entries = new Map(options.manifest.projects.map((e) => [e.id, e]));
    this.requests = new RequestCounts(options.requestsSent, options.manifest.requests);
    this.stops = new StopRules({
      periodDir: options.periodDir,
      signal: options.signal,
      emit: options.emit,
      waiting: () => [...this.entries.values()].filter((e) => e.status !== 'done' && e.status !== 'skipped').length,
    });
    const writer = options.writer ?? createManifestWriter(options.periodDir);
    const whole = (): Manifest => {
      this.manifest.projects = [...this.entries.values()];
      return this.manifest;
    };
    this.#writes = new RecordWriter({
      file: {
        whole: () => writer.whole(whole()),
        append: (ids) =>
          writer.changes(
            this.manifest,
            ids.map((id) => this.entry(id)),
          ),
        close: () => writer.close(whole()),
      },
      wholeEveryMs: WHOLE_MANIFEST_EVERY_MS,
      beforeWrite: () => {
        this.manifest.updatedAt = this.#options.clock().toISOString();
        this.manifest.requests = this.requests.soFar();
      },
      // A manifest the disk refused stops the run like a report it refused.
      onError: (error) => this.stops.onDiskFull(error),
    });
  }

  /** Every selected project gets an entry; one not done is pending again. */
  select(projects: readonly Project[]): void {
    const now = this.#options.clock().toISOString();
    for (const project of projects) {
      const existing = this.entries.get(project.id);
      if (existing === undefined) this.entries.set(project.id, newEntry(project, now));
      else if (existing.status !== 'done') existing.status = 'pending';
    }
  }

  entry(projectId: number): ProjectEntry {
    const entry = this.entries.get(projectId);
    if (entry === undefined) throw new GeoReportsError(`Project ${projectId} has no entry in the manifest.`);
    return entry;
  }

  /**
   * Saves the manifest after the writes already asked for, so concurrent projects never interleave them: the
   * entry `changed` as a line of the journal, or with no entry (and at least every few seconds, so that
   * manifest.json itself follows the run) the whole manifest. A failed write does not break the chain; the first
   * failure is raised by `settled()`.
   */
  save(changed?: ProjectEntry): Promise<void> {
    return this.#writes.save(changed?.id);
  }

  /**
   * Writes the whole manifest a last time, without a journal, after every write asked for; throws if it failed.
   * An earlier save that failed is made good by this one, which holds every entry.
   */
  async settled(): Promise<void> {
    let lastError: unknown = null;
    await this.#writes.close().catch((error: unknown) => {
      lastError = error;
    });
    if (lastError === null) return;
    const reason = errorMessage(lastError);
    const path = join(this.#options.periodDir, 'manifest.json');
    const code = diskFullCode(lastError);
    if (code !== null) {
      throw new DiskFullError(
        `Could not write ${path}: the disk ${this.stops.diskName()} ${diskProblem(code)}. Its journal keeps the state of the last change that reached the disk: no report is counted done without its files, and the next run starts from there.`,
        { code, hint: `${this.stops.diskHint(code)}, then run the same command again.`, cause: lastError },
      );
    }
    throw new GeoReportsError(`Could not save the manifest of ${this.manifest.period} (${path}): ${reason}`, {
      hint: 'Check free space and permissions of the output folder, then run again: finished reports are kept.',
    });
  }

  markPending(entry: ProjectEntry, reason: string): void {
    entry.status = 'pending';
    entry.updatedAt = this.#options.clock().toISOString();
    this.#options.emit({ type: 'project-pending', id: entry.id, name: entry.name, reason });
  }

  /**
   * The report is written; its entry records what it says and how it was made (language, display name), and its
   * goals under `goalLabels` (the agency's language, for the index) when given, else under the report's labels.
   * The entry changes in place: the steps of its project hold it.
   */
  markDone(entry: ProjectEntry, report: WrittenReport): void {
    const done = doneEntry(entry, report, this.#options.clock().toISOString());
    // What the done entry left out goes; every other field keeps its place in the entry.
    for (const key of Object.keys(entry)) if (!(key in done)) Reflect.deleteProperty(entry, key);
    Object.assign(entry, done);
  }

  /**
   * A sent report was made again beside it (`report-v<n>.*`): the entry keeps the sent report's files and figures
   * (the ones the client received, the site shows and a send keeps to) and records the new version.
   */
  addVersion(entry: ProjectEntry, version: Omit<ReportVersion, 'madeAt'>): ReportVersion {
    const made: ReportVersion = { ...version, madeAt: this.#options.clock().toISOString() };
    entry.versions = [...(entry.versions ?? []), made];
    entry.updatedAt = made.madeAt;
    return made;
  }

  markFailed(entry: ProjectEntry, error: unknown): void {
    entry.status = 'failed';
    entry.error = errorMessage(error);
    entry.updatedAt = this.#options.clock().toISOString();
  }

  /** The period's status in its manifest: the whole period's, or, on a dry run, what the run would do. */
  setStatus(status: BatchStatus): void {
    this.manifest.status = status;
  }

  /** The account's figures as this run read them, saved with the manifest. */
  async recordAccount(account: NonNullable<Manifest['account']>): Promise<void> {
    this.manifest.account = account;
    await this.save();
  }

  /** Held reports of `projects` are released (reviewed by the agency); kept for the record. */
  release(projects: readonly Project[]): void {
    for (const project of projects) {
      const entry = this.entries.get(project.id);
      if (entry !== undefined && entry.held.length > 0) entry.released = true;
    }
  }

  /** What the run did for the projects it was asked for (`dryRunToDo`: what a dry run would do). */
  summary(input: { status: BatchStatus; selected: readonly Project[]; dryRunToDo: number | null; startedMs: number }): BatchSummary {
    return summariseRun({
      // A monthly run's state: its folder is a month's.
      period: toMonth(this.manifest.period),
      periodDir: this.#options.periodDir,
      entries: this.entries.values(),
      status: input.status,
      selected: input.selected,
      dryRunToDo: input.dryRunToDo,
      requests: this.requests.thisRun(),
      durationMs: this.#options.clock().getTime() - input.startedMs,
    });
  }

  /**
   * The agency overview read before it is written: a client's row that shows another GEO score than its report's
   * fact table holds that report, with the fact named (report/view-check.ts). The rows of `only` are checked (the
   * run's projects; the others were when they were made); `factsOf` reads a report's table.
   */
  async checkIndex(page: IndexPage, only: ReadonlySet<number>, factsOf: (entry: ProjectEntry) => Promise<Fact[]>): Promise<void> {
    let html = '';
    await writePeriodIndex({
      periodDir: this.#options.periodDir,
      manifest: { ...this.manifest, projects: [...this.entries.values()] },
      page,
      generatedAt: this.#options.clock().toISOString(),
      write: async (_path, written) => {
        html = written;
      },
    });
    const shown = shownInHtml(html);
    for (const entry of this.entries.values()) {
      const row = shown.filter((place) => place.project === entry.id);
      if (entry.status !== 'done' || !only.has(entry.id) || row.length === 0) continue;
      const found = disagreements('index', await factsOf(entry), row);
      if (found.length === 0) continue;
      const reasons = found.map((disagreement) => disagreementMessage(disagreement, page.phrases)).filter((reason) => !entry.held.includes(reason));
      if (reasons.length === 0) continue;
      entry.held = [...entry.held, ...reasons];
      entry.released = false;
      await this.save(entry);
    }
  }

  /** The agency overview of the period (index.html), from the manifest's entries. */
  async writeIndex(page: IndexPage): Promise<void> {
    await ensureDir(this.#options.periodDir);
    await writePeriodIndex({
      periodDir: this.#options.periodDir,
      manifest: { ...this.manifest, projects: [...this.entries.values()] },
      page,
      generatedAt: this.#options.clock().toISOString(),
    });
  }
}
