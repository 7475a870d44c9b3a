// The state of one period while it runs: the manifest and its entries, the chain of manifest writes, the
// requests of this run, and whether sending stopped (quota, full disk, signal). The pipeline's steps change
// entries only through it.
import { TokensSpentError } from '../api/errors.js';
import type { Project } from '../api/schemas.js';
import { errorMessage, GeoReportsError } from '../errors.js';
import { join } from 'node:path';
import { diskFix, diskFullCode, diskProblem, DiskFullError, formatBytes, type DiskFullCode } from '../output/disk.js';
import { writePeriodIndex, type IndexPage } from '../output/period-index.js';
import { JournalWriter } from '../output/journal-writer.js';
import { createManifestWriter, ensureDir, projectSlug, type Manifest, type ManifestWriter, type ProjectEntry } from '../output/store.js';
import type { ReportModel } from '../report/model.js';
import { reportFigures } from '../report/email-model.js';
import { BrowserConnectError, BrowserLaunchError, BrowserLostError } from '../render/browser-errors.js';

export type BatchStatus = Manifest['status'];

/** manifest.json is rewritten whole at least this often during a run; the journal holds the changes between. */
const WHOLE_MANIFEST_EVERY_MS = 2_000;

export type BatchEvent =
  | { type: 'plan'; plan: PlanSummary }
  | { type: 'project-start'; id: number; name: string }
  | { type: 'project-done'; id: number; name: string; held: string[]; ms: number }
  | { type: 'project-failed'; id: number; name: string; error: string }
  | { type: 'project-pending'; id: number; name: string; reason: string }
  | { type: 'quota-exhausted'; message: string }
  /** The first write the disk refused (full, over quota, read-only): no new request; what is not written waits. */
  | { type: 'disk-full'; code: DiskFullCode; message: string; hint: string }
  | { type: 'warning'; message: string }
  | { type: 'summary'; summary: BatchSummary };

export interface PlanSummary {
  period: string;
  selected: number;
  alreadyDone: number;
  toDo: number;
  reportsToday: number;
  reportsLater: number;
  floor: number;
  /** Of the floor, the requests reading the period's scans (scan sections on); absent when none. */
  scanRequests?: number;
  remainingToday: number;
  unknownIds: number[];
  /** Room the reports of this run need on the output folder's disk, against what it has free. */
  space: SpaceEstimate | null;
}

export interface SpaceEstimate {
  /** Reports this run is expected to write. */
  reports: number;
  /** One report (HTML, PDF and data), measured on the reports already written or the default. */
  perReport: number;
  perReportSource: 'measured' | 'default';
  /** Room kept aside during the run for the last manifest and the index (see reserveSpace). */
  reserve: number;
  /** The reports plus the reserve. */
  needed: number;
  free: number;
  /** The disk, as "tmpfs mounted at /srv/out", or the folder when it cannot be told. */
  volume: string;
}

export interface BatchSummary {
  period: string;
  status: BatchStatus;
  done: number;
  failed: number;
  pending: number;
  skipped: number;
  held: number;
  requests: { total: number; byToken: Record<string, number> };
  durationMs: number;
  periodDir: string;
  /** Done reports with a goal whose metric the report did not have: the goal shows "no data". */
  goalsWithoutData: Array<{ id: number; name: string; metrics: string[] }>;
}

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
  /** The disk of the period folder, as the messages name it, and the room one report takes (for the fix). */
  disk: { volume: string; reportBytes: number } | null = null;
  readonly entries: Map<number, ProjectEntry>;
  readonly #options: PeriodStateOptions;
  readonly #requestsBefore: Record<string, number>;
  readonly #earlierRequests: Manifest['requests'];
  /** The manifest's writes, one after the other: a changed entry's id is a journal line. */
  readonly #journal: JournalWriter<number>;
  #quotaStopped = false;
  /** Requests the tokens have left for projects not yet started; null when not known. */
  #budget: number | null = null;
  /** A project did not start because its requests did not fit in what the tokens have left today. */
  #budgetSpent = false;
  /** The first write the disk refused, with its error. */
  #diskStopped: { code: DiskFullCode; error: unknown } | null = null;
  /** Why the browser could not be started again during the run. */
  #browserStopped: string | null = null;

  constructor(options: PeriodStateOptions) {
    this.#options = options;
    this.manifest = options.manifest;
    this.entries = new Map(options.manifest.projects.map((e) => [e.id, e]));
    // Counted from here, so listing the projects shows in the requests of the run.
    this.#requestsBefore = options.requestsSent();
    this.#earlierRequests = structuredClone(options.manifest.requests);
    const writer = options.writer ?? createManifestWriter(options.periodDir);
    const whole = (): Manifest => {
      this.manifest.projects = [...this.entries.values()];
      return this.manifest;
    };
    this.#journal = new JournalWriter({
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
        this.manifest.requests = this.requestsSoFar();
      },
      // A manifest the disk refused stops the run like a report it refused.
      onError: (error) => this.onDiskFull(error),
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
    return this.#journal.save(changed?.id);
  }

  /**
   * Writes the whole manifest a last time, without a journal, after every write asked for; throws if it failed.
   * An earlier save that failed is made good by this one, which holds every entry.
   */
  async settled(): Promise<void> {
    let lastError: unknown = null;
    await this.#journal.close().catch((error: unknown) => {
      lastError = error;
    });
    if (lastError === null) return;
    const reason = errorMessage(lastError);
    const path = join(this.#options.periodDir, 'manifest.json');
    const code = diskFullCode(lastError);
    if (code !== null) {
      throw new DiskFullError(
        `Could not write ${path}: the disk ${this.#diskName()} ${diskProblem(code)}. Its journal keeps the state of the last change that reached the disk: no report is counted done without its files, and the next run starts from there.`,
        { code, hint: `${this.diskHint(code)}, then run the same command again.`, cause: lastError },
      );
    }
    throw new GeoReportsError(`Could not save the manifest of ${this.manifest.period} (${path}): ${reason}`, {
      hint: 'Check free space and permissions of the output folder, then run again: finished reports are kept.',
    });
  }

  /** This run's requests, per token label. */
  requestsThisRun(): BatchSummary['requests'] {
    return requestsDelta(this.#requestsBefore, this.#options.requestsSent());
  }

  /** The earlier runs' requests plus this run's. */
  requestsSoFar(): Manifest['requests'] {
    const thisRun = this.requestsThisRun();
    const byToken = { ...this.#earlierRequests.byToken };
    for (const [label, count] of Object.entries(thisRun.byToken)) byToken[label] = (byToken[label] ?? 0) + count;
    return { total: this.#earlierRequests.total + thisRun.total, byToken };
  }

  get interrupted(): boolean {
    return this.#options.signal?.aborted === true;
  }

  /** No new request is sent once the quota is used up, the disk takes no more writes, or the run was asked to stop. */
  stopSending(): boolean {
    return this.#quotaStopped || this.#diskStopped !== null || this.#browserStopped !== null || this.interrupted;
  }

  /** No new report starts rendering once the run was asked to stop or the disk takes no more writes. */
  stopRendering(): boolean {
    return this.#diskStopped !== null || this.#browserStopped !== null || this.interrupted;
  }

  stopReason(): string {
    if (this.interrupted) return 'the run was interrupted';
    if (this.#diskStopped !== null) return `the disk ${this.#diskName()} ${diskProblem(this.#diskStopped.code)}`;
    if (this.#browserStopped !== null) return 'the browser could not be started again';
    return 'the daily quota of every token is used up';
  }

  /**
   * True (and sending stops, announced once) when `error` says the disk takes no more writes: full, over quota or
   * read-only. Every later write would fail the same way, so the reports not written wait for the next run.
   */
  onDiskFull(error: unknown): boolean {
    const code = diskFullCode(error);
    if (code === null) return false;
    if (this.#diskStopped === null) {
      this.#diskStopped = { code, error };
      const { message, hint } = this.diskStop() as NonNullable<ReturnType<PeriodState['diskStop']>>;
      this.#options.emit({ type: 'disk-full', code, message, hint });
    }
    return true;
  }

  /**
   * True when `error` says the browser went away: it stopped while printing (the next report starts a fresh one),
   * or it would not start again, which stops the run like a full disk (announced once). Either way the report
   * waits for the next run with its report id, never failed.
   */
  onBrowserGone(error: unknown): boolean {
    if (error instanceof BrowserLaunchError || error instanceof BrowserConnectError) {
      if (this.#browserStopped === null) {
        this.#browserStopped = error.message;
        const waiting = 'no new report is asked; the reports not printed wait for the next run with their report ids (none is counted failed)';
        this.#options.emit({ type: 'warning', message: `The browser stopped and could not be started again (${error.message}): ${waiting}.` });
      }
      return true;
    }
    return error instanceof BrowserLostError;
  }

  /** Why the run stopped for the disk and what to do, or null when it did not. */
  diskStop(): { code: DiskFullCode; message: string; hint: string } | null {
    if (this.#diskStopped === null) return null;
    const { code } = this.#diskStopped;
    const waiting = [...this.entries.values()].filter((e) => e.status !== 'done' && e.status !== 'skipped').length;
    const message = `The disk ${this.#diskName()} ${diskProblem(code)}: no new report is asked; reports in flight finish if they can, the ${waiting} not written wait for the next run (none is counted failed).`;
    return {
      code,
      message,
      hint: `${this.diskHint(code, waiting)}, then run the same command again: finished reports are kept, and reports the service already made are read back by their id, not asked again.`,
    };
  }

  /** The fix for a disk that refused writes, with the room `reports` more reports need when that is known. */
  diskHint(code: DiskFullCode, reports?: number): string {
    const bytes = this.disk?.reportBytes;
    const toFree =
      reports === undefined || bytes === undefined ? null : { bytes: reports * bytes, reckoning: `${reports} report(s) of about ${formatBytes(bytes)}` };
    return diskFix(code, this.disk?.volume ?? this.#options.periodDir, toFree);
  }

  /** "of /srv/out/2026-10 (tmpfs mounted at /srv)": the folder and, when known, the file system under it. */
  #diskName(): string {
    const volume = this.disk?.volume;
    const dir = this.#options.periodDir;
    return volume === undefined || volume === dir ? `of ${dir}` : `of ${dir} (${volume})`;
  }

  /** True (and sending stops, announced once) when `error` says every token's quota is used up. */
  onQuota(error: unknown): boolean {
    if (!(error instanceof TokensSpentError)) return false;
    if (!this.#quotaStopped) {
      this.#quotaStopped = true;
      this.#options.emit({ type: 'quota-exhausted', message: error.message });
    }
    return true;
  }

  /** What the tokens have left today for the projects, once the shared calls are made; not finite: no budget. */
  setBudget(remaining: number): void {
    this.#budget = Number.isFinite(remaining) ? remaining : null;
  }

  /**
   * Takes a project's requests (as its plan counted them) from the day's budget before it sends any: one that does
   * not fit waits for the next run, so the day's requests finish projects instead of starting each one halfway.
   */
  admit(cost: number): boolean {
    if (this.#budget === null) return true;
    if (cost > this.#budget) {
      if (!this.#budgetSpent && !this.#quotaStopped) {
        this.#options.emit({ type: 'quota-exhausted', message: `The tokens have ${this.#budget} request(s) left today: the next report needs ${cost}.` });
      }
      this.#budgetSpent = true;
      return false;
    }
    this.#budget -= cost;
    return true;
  }

  markPending(entry: ProjectEntry, reason: string): void {
    entry.status = 'pending';
    entry.updatedAt = this.#options.clock().toISOString();
    this.#options.emit({ type: 'project-pending', id: entry.id, name: entry.name, reason });
  }

  /**
   * The report is written; its entry records what it says and how it was made (language, display name), and its
   * goals under `goalLabels` (the agency's language, for the index) when given, else under the report's labels.
   */
  markDone(entry: ProjectEntry, model: ReportModel, notes: string[], displayName: string | null, goalLabels?: readonly string[]): void {
    entry.status = 'done';
    delete entry.error;
    entry.reportId = null;
    entry.held = model.held;
    entry.released = false;
    const figures = reportFigures(model);
    entry.geo = figures.geo;
    entry.geoChange = figures.geoChange;
    entry.seo = figures.seo;
    entry.seoChange = figures.seoChange;
    // The email's third figure: the assistant the summary names as having moved the most.
    if (figures.aiMover === undefined) delete entry.aiMover;
    else entry.aiMover = figures.aiMover;
    entry.percentile = model.scores?.percentile ?? null;
    entry.openCritical = model.recommendations?.groups.find((g) => g.priority === 'critical')?.items.length ?? 0;
    entry.notes = notes;
    entry.summary = model.summary;
    if (model.client.note === null) delete entry.note;
    else entry.note = model.client.note;
    if (model.goals === null) delete entry.goals;
    else entry.goals = model.goals.map(({ metric, label, status }, i) => ({ metric, label: goalLabels?.[i] ?? label, status }));
    // The email speaks the report's language with the report's name, whatever the config says when it is sent.
    entry.language = model.meta.language;
    if (displayName === null) delete entry.displayName;
    else entry.displayName = displayName;
    entry.updatedAt = this.#options.clock().toISOString();
  }

  markFailed(entry: ProjectEntry, error: unknown): void {
    entry.status = 'failed';
    entry.error = errorMessage(error);
    entry.updatedAt = this.#options.clock().toISOString();
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
    const selected = new Set(input.selected.map((p) => p.id));
    const mine = [...this.entries.values()].filter((e) => selected.has(e.id));
    const count = (status: ProjectEntry['status']): number => mine.filter((e) => e.status === status).length;
    return {
      period: this.manifest.period,
      status: input.status,
      done: count('done'),
      failed: count('failed'),
      pending: input.dryRunToDo ?? count('pending'),
      skipped: count('skipped'),
      held: mine.filter((e) => e.status === 'done' && e.held.length > 0 && !e.released).length,
      requests: this.requestsThisRun(),
      durationMs: this.#options.clock().getTime() - input.startedMs,
      periodDir: this.#options.periodDir,
      goalsWithoutData: mine.flatMap((e) => {
        const metrics = e.status === 'done' ? (e.goals ?? []).filter((g) => g.status === 'no_data').map((g) => g.metric) : [];
        return metrics.length === 0 ? [] : [{ id: e.id, name: e.name, metrics }];
      }),
    };
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

  /** Status of these entries: interrupted, disk_full, quota_exhausted, partial, held or complete. */
  statusOf(list: readonly ProjectEntry[]): BatchStatus {
    const unfinished = list.some((e) => e.status !== 'done');
    if (this.interrupted && unfinished) return 'interrupted';
    if (this.#diskStopped !== null && unfinished) return 'disk_full';
    if ((this.#quotaStopped || this.#budgetSpent) && unfinished) return 'quota_exhausted';
    if (unfinished) return 'partial';
    return list.some((e) => e.held.length > 0 && !e.released) ? 'held' : 'complete';
  }
}

function newEntry(project: Project, now: string): ProjectEntry {
  return {
    id: project.id,
    name: project.name ?? `Project ${project.id}`,
    slug: projectSlug(project.id, project.name),
    status: 'pending',
    files: { html: null, pdf: null, data: null },
    held: [],
    released: false,
    reportId: null,
    geo: null,
    geoChange: null,
    percentile: null,
    openCritical: 0,
    notes: [],
    updatedAt: now,
  };
}

function requestsDelta(before: Record<string, number>, after: Record<string, number>): BatchSummary['requests'] {
  const byToken: Record<string, number> = {};
  let total = 0;
  for (const [label, count] of Object.entries(after)) {
    const delta = count - (before[label] ?? 0);
    if (delta > 0) {
      byToken[label] = delta;
      total += delta;
    }
  }
  return { total, byToken };
}
