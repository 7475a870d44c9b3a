// The monthly batch: plan → shared data → per project (report, merge, HTML, PDF) → manifest and index.
// Resumable: the manifest is the state; a rerun of the same period skips finished projects without a request.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { ApiClient } from '../api/client.js';
import { NotFoundError, TokensSpentError } from '../api/errors.js';
import type { Project, Report, ReportSection } from '../api/schemas.js';
import { REPORT_SECTIONS } from '../api/schemas.js';
import { readCompetitors, readStats, type CompetitorsContent, type StatsContent } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import { readReport, type ReportContent } from '../content/report.js';
import type { Config } from '../config/schema.js';
import { GeoReportsError } from '../errors.js';
import {
  ensureDir,
  insideRoot,
  lockPeriod,
  type Manifest,
  type ProjectEntry,
  projectSlug,
  readManifest,
  removeStaleTempFiles,
  writeFileAtomic,
  writeManifest,
} from '../output/store.js';
import { assembleReport } from '../report/assemble.js';
import { buildIndexModel } from '../report/index-model.js';
import type { Branding, Language, ReportModel } from '../report/model.js';
import type { Ranking } from '../report/assemble.js';
import { buildPeriodData, parsePeriodData, previousContent, type PeriodData } from '../report/period-data.js';
import type { HtmlRenderer } from '../render/html.js';
import type { PdfPrinter } from '../render/pdf.js';
import { periodBefore } from '../period.js';
import { planRun, type Plan, type Selection } from './plan.js';
import { formatShard } from './shard.js';

export type BatchStatus = Manifest['status'];

export type BatchEvent =
  | { type: 'plan'; plan: PlanSummary }
  | { type: 'project-start'; id: number; name: string }
  | { type: 'project-done'; id: number; name: string; held: string[]; ms: number }
  | { type: 'project-failed'; id: number; name: string; error: string }
  | { type: 'project-pending'; id: number; name: string; reason: string }
  | { type: 'quota-exhausted'; message: string }
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
  remainingToday: number;
  unknownIds: number[];
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
}

export interface BatchOptions {
  client: ApiClient;
  config: Config;
  /** YYYY-MM */
  period: string;
  /** Root output folder (absolute); the period goes to `<outDir>/<period>/`. */
  outDir: string;
  selection: Selection;
  concurrency: number;
  dryRun?: boolean;
  /** Release reports held by the pre-send check. */
  acceptHeld?: boolean;
  renderer: HtmlRenderer;
  /** Started on first use, so a run with nothing to do never launches Chromium. */
  printer: () => Promise<PdfPrinter>;
  /** Pages printing at once. @default 2 */
  printConcurrency?: number;
  branding: Branding;
  clock?: () => Date;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on SIGINT / SIGTERM: stop taking work, let in-flight work finish, save. */
  signal?: AbortSignal;
  onEvent?: (event: BatchEvent) => void;
}

export interface BatchResult {
  status: BatchStatus;
  summary: BatchSummary;
  plan: Plan;
  manifest: Manifest;
}

const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 15_000;

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  if (options.dryRun) return runPeriod(options);
  const periodDir = insideRoot(options.outDir, options.period);
  await ensureDir(periodDir);
  // One writer per period: a second run (cron and a manual run, say) stops with a clear message.
  const unlock = await lockPeriod(periodDir);
  try {
    return await runPeriod(options);
  } finally {
    await unlock();
  }
}

async function runPeriod(options: BatchOptions): Promise<BatchResult> {
  const clock = options.clock ?? (() => new Date());
  const sleep = options.sleep ?? defaultSleep;
  const emit = options.onEvent ?? (() => {});
  const started = clock().getTime();
  const { client, config, period } = options;
  const periodDir = insideRoot(options.outDir, period);

  const previousManifest = await readManifest(periodDir);
  // Counted from before the plan, so listing the projects shows in the requests of the run.
  const requestsBefore = client.tokens.sentByLabel();
  const plan = await planRun({ client, period, selection: options.selection, manifest: previousManifest });
  emit({ type: 'plan', plan: summarisePlan(plan) });
  for (const id of plan.unknownIds) emit({ type: 'warning', message: `Project ${id} is not in this account; skipped.` });

  const now = clock().toISOString();
  const manifest: Manifest = previousManifest ?? {
    period,
    status: 'partial',
    startedAt: now,
    updatedAt: now,
    runs: 0,
    projects: [],
    requests: { total: 0, byToken: {} },
    ...(options.selection.shard !== undefined ? { shard: formatShard(options.selection.shard) } : {}),
  };
  if (options.dryRun) {
    return finish('partial', false);
  }

  await ensureDir(periodDir);
  const stale = await removeStaleTempFiles(periodDir);
  if (stale > 0) emit({ type: 'warning', message: `Removed ${stale} unfinished file(s) left by an interrupted run.` });
  manifest.runs += 1;

  const entries = new Map<number, ProjectEntry>(manifest.projects.map((e) => [e.id, e]));
  for (const project of plan.selected) {
    const existing = entries.get(project.id);
    if (existing === undefined) {
      entries.set(project.id, newEntry(project, now));
    } else if (existing.status !== 'done') {
      existing.status = 'pending';
    }
  }
  // Requests counted in the manifest so far: this run's counter is added on top of the earlier runs'.
  const earlierRequests = structuredClone(manifest.requests);
  const requestsSoFar = (): Manifest['requests'] => {
    const thisRun = requestsDelta(requestsBefore, client.tokens.sentByLabel());
    const byToken = { ...earlierRequests.byToken };
    for (const [label, count] of Object.entries(thisRun.byToken)) byToken[label] = (byToken[label] ?? 0) + count;
    return { total: earlierRequests.total + thisRun.total, byToken };
  };
  // Manifest writes are chained so concurrent projects never interleave them; a failed write does not
  // break the chain, and the first failure is raised once the run has settled.
  let saving: Promise<void> = Promise.resolve();
  let saveError: unknown = null;
  const save = (): Promise<void> => {
    saving = saving.then(async () => {
      manifest.projects = [...entries.values()];
      manifest.updatedAt = clock().toISOString();
      manifest.requests = requestsSoFar();
      try {
        await writeManifest(periodDir, manifest);
      } catch (error) {
        saveError ??= error;
      }
    });
    return saving;
  };
  await save();

  let lastPeriodManifest: Promise<Manifest | null> | null = null;
  let quotaStopped = false;
  const stopSending = (): boolean => quotaStopped || options.signal?.aborted === true;
  const onQuota = (error: unknown): boolean => {
    if (!(error instanceof TokensSpentError)) return false;
    if (!quotaStopped) {
      quotaStopped = true;
      emit({ type: 'quota-exhausted', message: error.message });
    }
    return true;
  };

  if (plan.toDo.length > 0) {
    const shared = await fetchShared();
    if (shared.stats !== null) manifest.account = shared.stats;
    const limit = pLimit(Math.max(1, options.concurrency));
    const printLimit = pLimit(Math.max(1, options.printConcurrency ?? 2));
    await Promise.all(plan.toDo.map((project) => reportProject(project, shared, limit, printLimit)));
  }
  await saving;

  if (options.acceptHeld) {
    for (const project of plan.selected) {
      const entry = entries.get(project.id);
      if (entry !== undefined && entry.held.length > 0) entry.released = true;
    }
  }
  const selectedIds = new Set(plan.selected.map((p) => p.id));
  // The exit code speaks of what was asked (a single `report` may succeed); the manifest of the whole period.
  const status = statusOf([...entries.values()].filter((e) => selectedIds.has(e.id)));
  manifest.status = statusOf([...entries.values()]);
  const result = await finish(status, true);
  if (saveError !== null) {
    throw new GeoReportsError(`Could not save the manifest of ${period}: ${messageOf(saveError)}`, {
      hint: 'Check free space and permissions of the output folder, then run again: finished reports are kept.',
    });
  }
  return result;

  function statusOf(list: ProjectEntry[]): BatchStatus {
    const unfinished = list.some((e) => e.status !== 'done');
    if (options.signal?.aborted === true && unfinished) return 'interrupted';
    if (quotaStopped && unfinished) return 'quota_exhausted';
    if (unfinished) return 'partial';
    return list.some((e) => e.held.length > 0 && !e.released) ? 'held' : 'complete';
  }

  async function finish(status: BatchStatus, write: boolean): Promise<BatchResult> {
    if (!write) manifest.status = status;
    if (write) {
      await save();
      await writeIndex();
    }
    const summary = summarise(status);
    emit({ type: 'summary', summary });
    return { status, summary, plan, manifest };
  }

  function summarise(status: BatchStatus): BatchSummary {
    const selectedIds = new Set(plan.selected.map((p) => p.id));
    const mine = manifest.projects.filter((e) => selectedIds.has(e.id));
    const count = (s: ProjectEntry['status']): number => mine.filter((e) => e.status === s).length;
    const thisRun = requestsDelta(requestsBefore, client.tokens.sentByLabel());
    return {
      period,
      status,
      done: count('done'),
      failed: count('failed'),
      pending: options.dryRun ? plan.toDo.length : count('pending'),
      skipped: count('skipped'),
      held: mine.filter((e) => e.status === 'done' && e.held.length > 0 && !e.released).length,
      requests: thisRun,
      durationMs: clock().getTime() - started,
      periodDir,
    };
  }

  async function fetchShared(): Promise<Shared> {
    const [competitorsData, statsData] = await Promise.all([
      client.getCompetitors().catch((error: unknown) => sharedFailure('competitors', error)),
      client.getStats().catch((error: unknown) => sharedFailure('statistics', error)),
    ]);
    const fields = config.api.fields;
    const competitorsReading = new Reading(fields);
    const competitors = competitorsData === null ? null : readCompetitors(competitorsData, fields, competitorsReading);
    const statsReading = new Reading(fields);
    const stats = statsData === null ? null : readStats(statsData, fields, statsReading);
    // Said once for the run; each project's own notes say what its report lacks.
    for (const note of [...competitorsReading.notes, ...statsReading.notes]) emit({ type: 'warning', message: note });
    return { competitors, statsData, stats };
  }

  function sharedFailure(what: string, error: unknown): null {
    if (!onQuota(error)) {
      emit({ type: 'warning', message: `Could not read the ${what} (${messageOf(error)}); reports go on without them.` });
    }
    return null;
  }

  async function reportProject(
    project: Project,
    shared: Shared,
    limit: ReturnType<typeof pLimit>,
    printLimit: ReturnType<typeof pLimit>,
  ): Promise<void> {
    const entry = entries.get(project.id) as ProjectEntry;
    const name = entry.name;
    const t0 = clock().getTime();
    // Announced once the manifest says so: whoever watches the events can rely on the file.
    let outcome: BatchEvent | null = null;
    try {
      const report = await fetchReport(project, entry, limit);
      if (report === null) return; // pending: stopped by quota or signal before it was read
      // Stopping (SIGINT / SIGTERM) takes no new rendering: the report id is kept, the next run reads it back.
      const notes: string[] = [];
      const model = await printLimit(() => {
        if (options.signal?.aborted === true) return null;
        emit({ type: 'project-start', id: project.id, name });
        return renderProject(project, entry, report, shared, notes);
      });
      if (model === null) {
        markPending(entry, 'the run was interrupted');
        return;
      }
      entry.status = 'done';
      delete entry.error;
      entry.reportId = null;
      entry.held = model.held;
      entry.released = false;
      entry.geo = model.scores?.geo.value ?? null;
      entry.geoChange = model.scores?.geo.change?.value ?? null;
      entry.percentile = model.scores?.percentile ?? null;
      entry.openCritical = model.recommendations?.groups.find((g) => g.priority === 'critical')?.items.length ?? 0;
      entry.notes = notes;
      entry.summary = model.summary;
      entry.updatedAt = clock().toISOString();
      outcome = { type: 'project-done', id: project.id, name, held: model.held, ms: clock().getTime() - t0 };
    } catch (error) {
      if (error instanceof NotFoundError && error.call.endpoint === 'reports.php' && error.call.method === 'GET') {
        entry.reportId = null; // the service no longer has it: the next run asks for a new one
      }
      if (onQuota(error)) {
        markPending(entry, 'the daily quota of every token is used up');
      } else if (options.signal?.aborted === true) {
        // Dropped on SIGINT / SIGTERM: the next run does it (or reads back the report already asked for).
        markPending(entry, 'the run was interrupted');
      } else {
        entry.status = 'failed';
        entry.error = messageOf(error);
        entry.updatedAt = clock().toISOString();
        outcome = { type: 'project-failed', id: project.id, name, error: entry.error };
      }
    } finally {
      await save();
      if (outcome !== null) emit(outcome);
    }
  }

  function markPending(entry: ProjectEntry, reason: string): void {
    entry.status = 'pending';
    entry.updatedAt = clock().toISOString();
    emit({ type: 'project-pending', id: entry.id, name: entry.name, reason });
  }

  /**
   * POST the report (or read back one asked for earlier), then wait for it without holding a slot. A report
   * whose status says it is finished, or that has content and no status saying otherwise, is used at once.
   */
  async function fetchReport(project: Project, entry: ProjectEntry, limit: ReturnType<typeof pLimit>): Promise<ReadReport | null> {
    const include = includedSections(config, project.id);
    const read = (answer: Report): ReadReport => {
      const reading = new Reading(config.api.fields);
      return { answer, content: readReport(answer, config.api.fields, reading), reading };
    };
    let report: ReadReport | null = null;
    if (entry.reportId === null) {
      const answer = await limit(async () => (stopSending() ? null : client.createReport({ projectId: project.id, include, format: 'json' })));
      if (answer === null) {
        markPending(entry, stopReason());
        return null;
      }
      report = read(answer);
      if (report.content.id === null) {
        if (readiness(report.content, include) === 'use') return report;
        throw new GeoReportsError(
          `The service answered the report request of project ${project.id} with no report id and none of the asked sections (it sent: ${keysOf(report.content)}).`,
          { hint: 'Run `geo-reports doctor --project ' + String(project.id) + '` to see where this API puts the report, then map it with api.fields in the config.' },
        );
      }
      entry.reportId = report.content.id;
      await save();
    }
    const reportId = entry.reportId;
    let waited = 0;
    let delay = FIRST_POLL_MS;
    let readBackEmpty = false;
    for (;;) {
      const verdict = report === null ? 'wait' : readiness(report.content, include);
      if (report !== null && verdict === 'use') return report;
      if (report !== null && verdict === 'failed') {
        entry.reportId = null; // a failed report is asked again next run
        throw new GeoReportsError(`The service failed to build report ${reportId} (status "${report.content.status ?? ''}").`);
      }
      if (report !== null && verdict === 'finished-empty') {
        // Finished but none of the asked sections: read back once, then give up with what it did carry.
        if (readBackEmpty) {
          entry.reportId = null;
          throw new GeoReportsError(
            `Report ${reportId} says it is ${report.content.status ?? 'finished'} but carries none of the asked sections (${include.join(', ')}); it sent: ${keysOf(report.content)}.`,
            { hint: 'Run `geo-reports doctor --project ' + String(project.id) + '` to see where this API puts the sections, then map them with api.fields in the config.' },
          );
        }
        readBackEmpty = true;
      } else if (report !== null) {
        if (waited >= config.report.reportWaitMs) {
          markPending(entry, `report ${reportId} still being built after ${Math.round(waited / 1000)} s`);
          return null;
        }
        await sleep(delay, options.signal);
        waited += delay;
        delay = Math.min(delay * 2, MAX_POLL_MS);
      }
      const answer = await limit(async () => (stopSending() ? null : client.getReport(reportId, { projectId: project.id })));
      if (answer === null) {
        markPending(entry, stopReason());
        return null;
      }
      report = read(answer);
    }
  }

  function stopReason(): string {
    return options.signal?.aborted === true ? 'the run was interrupted' : 'the daily quota of every token is used up';
  }

  async function renderProject(
    project: Project,
    entry: ProjectEntry,
    report: ReadReport,
    shared: Shared,
    notes: string[],
  ): Promise<ReportModel> {
    const dir = insideRoot(periodDir, entry.slug);
    await ensureDir(dir);
    const override = config.clients[String(project.id)];
    const language: Language = override?.language ?? config.report.language;
    const phrases = options.renderer.locales.phrases(language);
    const ranking = rankingOf(shared.competitors, project.id);
    const previousData = await readPreviousData(project.id);
    const previous = previousData === null ? null : previousContent(previousData, config.api.fields);
    const generatedAt = clock().toISOString();
    const model = assembleReport({
      project,
      report: report.content,
      ranking,
      previous,
      period,
      generatedAt,
      language,
      phrases,
      branding: options.branding,
      client: {
        ...(override?.displayName !== undefined ? { displayName: override.displayName } : {}),
        ...(override?.note !== undefined ? { note: override.note } : {}),
        sections: sectionSwitches(config, project.id),
      },
      checks: { requiredSections: config.report.requiredSections, maxScoreDrop: config.report.maxScoreDrop },
    });
    notes.push(...report.reading.notes, ...rankingNotes(shared, ranking, model));
    // What the report is made of, as the API sent it: kept as data.json, read again next month.
    const periodData: PeriodData = buildPeriodData({
      period,
      fetchedAt: generatedAt,
      project,
      report: report.answer,
      content: report.content,
      ranking,
      stats: shared.statsData,
      notes,
      previous,
    });
    await writeFileAtomic(join(dir, 'data.json'), `${JSON.stringify(periodData, null, 2)}\n`);
    const htmlPath = join(dir, 'report.html');
    await writeFileAtomic(htmlPath, options.renderer.renderReport(model));
    const printer = await options.printer();
    await printer.print({
      htmlPath,
      // The printer writes `report.pdf.partial` and renames it: a reader never sees half a PDF.
      pdfPath: join(dir, 'report.pdf'),
      language,
      footerText: `${options.branding.agencyName} · ${shorten(model.client.name, 60)} · ${model.meta.periodLabel}`,
      pageLabel: phrases['print.page'] ?? 'Page {page} of {pages}',
    });
    entry.files = { html: `${entry.slug}/report.html`, pdf: `${entry.slug}/report.pdf`, data: `${entry.slug}/data.json` };
    return model;
  }

  async function readPreviousData(projectId: number): Promise<PeriodData | null> {
    const previousDir = insideRoot(options.outDir, periodBefore(period));
    // Read once for the whole run.
    lastPeriodManifest ??= readManifest(previousDir).catch(() => {
      emit({ type: 'warning', message: `The ${periodBefore(period)} manifest is damaged; reports go on without comparison.` });
      return null;
    });
    const previousManifest = await lastPeriodManifest;
    const file = previousManifest?.projects.find((e) => e.id === projectId)?.files.data;
    if (file === undefined || file === null) return null;
    try {
      const parsed = parsePeriodData(JSON.parse(await readFile(insideRoot(previousDir, file), 'utf8')));
      if (parsed === null) emit({ type: 'warning', message: `Last period's data for project ${projectId} is unreadable; no comparison.` });
      return parsed;
    } catch (error) {
      emit({ type: 'warning', message: `Last period's data for project ${projectId} could not be read (${messageOf(error)}); no comparison.` });
      return null;
    }
  }

  async function writeIndex(): Promise<void> {
    await ensureDir(periodDir);
    const model = buildIndexModel({
      period,
      entries: [...entries.values()],
      account: manifest.account ?? null,
      language: config.report.language,
      branding: options.branding,
      generatedAt: clock().toISOString(),
    });
    await writeFileAtomic(join(periodDir, 'index.html'), options.renderer.renderIndex(model));
  }
}

function newEntry(project: Project, now: string): ProjectEntry {
  const name = project.name ?? `Project ${project.id}`;
  return {
    id: project.id,
    name,
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

interface Shared {
  competitors: CompetitorsContent | null;
  /** stats.php's `data` as sent (kept in data.json) and as read (the agency index). */
  statsData: unknown;
  stats: StatsContent | null;
}

interface ReadReport {
  answer: Report;
  content: ReportContent;
  reading: Reading;
}

/**
 * What to do with a report answer: use it; it is finished but empty (read back once, then fail); it failed;
 * or wait for it. A status word this tool does not know is judged by whether content is there.
 */
function readiness(content: ReportContent, include: readonly ReportSection[]): 'use' | 'finished-empty' | 'failed' | 'wait' {
  const hasContent = include.some((section) => content.present.includes(section));
  switch (content.state) {
    case 'failed':
      return 'failed';
    case 'finished':
      return hasContent ? 'use' : 'finished-empty';
    case 'building':
      return 'wait';
    case 'unknown':
      return hasContent ? 'use' : 'wait';
  }
}

function keysOf(content: ReportContent): string {
  return content.keys.length === 0 ? 'no key' : content.keys.slice(0, 12).join(', ') + (content.keys.length > 12 ? ', …' : '');
}

function rankingOf(competitors: CompetitorsContent | null, projectId: number): Ranking | null {
  if (competitors === null) return null;
  return { row: competitors.rows.find((row) => row.projectId === projectId) ?? null, benchmark: competitors.benchmark };
}

/** What the agency should know about the comparison figures of one report. */
function rankingNotes(shared: Shared, ranking: Ranking | null, model: ReportModel): string[] {
  if (model.scores === null) return [];
  if (shared.competitors === null) return ['Benchmark and percentile not available: the competitors answer could not be read.'];
  const notes: string[] = [];
  if (ranking?.row === null) notes.push('This project has no row in the competitors answer: percentile and gap to the benchmark not available.');
  else if (ranking?.row.percentile === null) notes.push('Percentile not found in this project\'s competitors row.');
  if (ranking?.benchmark.geo?.average == null) notes.push('Benchmark average (GEO) not found in the competitors answer.');
  return notes;
}

function sectionSwitches(config: Config, projectId: number): Record<ReportSection, boolean> {
  const global = config.report.sections;
  const own = config.clients[String(projectId)]?.sections ?? {};
  return Object.fromEntries(
    REPORT_SECTIONS.map((s) => [s, own[s] ?? global[s] ?? true]),
  ) as Record<ReportSection, boolean>;
}

function includedSections(config: Config, projectId: number): ReportSection[] {
  const switches = sectionSwitches(config, projectId);
  const on = REPORT_SECTIONS.filter((s) => switches[s]);
  // The API needs at least one section; scores is the cheapest that still identifies the report.
  return on.length > 0 ? on : ['scores'];
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

function summarisePlan(plan: Plan): PlanSummary {
  return {
    period: plan.period,
    selected: plan.selected.length,
    alreadyDone: plan.alreadyDone,
    toDo: plan.toDo.length,
    reportsToday: plan.reportsToday,
    reportsLater: plan.reportsLater,
    floor: plan.floor,
    remainingToday: plan.remainingToday,
    unknownIds: plan.unknownIds,
  };
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
