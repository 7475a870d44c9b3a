// The monthly batch: plan → shared data → every project through the steps (./steps) → manifest and index.
// Resumable: the manifest is the state; a rerun of the same period skips finished projects without a request.
import { readFile } from 'node:fs/promises';
import pLimit from 'p-limit';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config/schema.js';
import { FileSystemError } from '../errors.js';
import {
  describeVolume,
  diskFix,
  diskFullCode,
  diskProblem,
  DiskFullError,
  formatBytes,
  makeOutputFolder,
  outputFolderError,
  reportSize,
  reserveBytesFor,
  reserveSpace,
  statfsFreeSpace,
  type FreeSpace,
} from '../output/disk.js';
import { ensureDir, insideRoot, lockFolder, readManifest, removeStaleTempFiles, writeFileAtomic, type Manifest, type ProjectEntry } from '../output/store.js';
import { pause } from '../pause.js';
import type { Branding } from '../report/model.js';
import { readAfterPeriod } from '../report/months.js';
import type { StatsContent } from '../content/stats.js';
import type { HtmlRenderer } from '../render/html.js';
import type { PdfPrinter } from '../render/print/printer.js';
import { EarlierPeriods } from './earlier-periods.js';
import type { BatchEvent, BatchStatus, BatchSummary, PlanSummary, SpaceEstimate } from './events.js';
import { PeriodState } from './period-state.js';
import type { IndexPage } from '../output/period-index.js';
import { FactTableSchema, type Fact } from '../report/facts.js';
import { holdLimit, runProject, sentKeptMessage, type PeriodContext, type WriteFile } from './pipeline.js';
import { planRun, type Plan, type Selection } from './plan.js';
import { entriesToRemake, entriesWithData, lastMadeWith, remakeFromData, remakePlan } from './remake.js';
import { savedScan, scanReads } from './scan-reads.js';
import { ScanAsk } from '../sections/scan-ask.js';
import { formatShard } from './shard.js';
import { fetchShared } from './shared.js';
import { PROJECT_STEPS } from './steps/index.js';
import type { MonthPeriod } from '../period.js';

export type { BatchEvent, BatchStatus, BatchSummary, PlanSummary, SpaceEstimate } from './events.js';

export interface BatchOptions {
  client: ApiClient;
  config: Config;
  /** YYYY-MM */
  period: MonthPeriod;
  /** Root output folder (absolute); the period goes to `<outDir>/<period>/`. */
  outDir: string;
  selection: Selection;
  concurrency: number;
  dryRun?: boolean;
  /** Release reports held by the pre-send check. */
  acceptHeld?: boolean;
  /**
   * Make the period's done reports again from their data.json with today's templates and config, and nothing
   * else: no request, not even the list of projects. A sent report gets a new version beside it.
   */
  remake?: boolean;
  renderer: HtmlRenderer;
  /** The run's printer; the CLI starts it and prints a blank page before runBatch, so no request precedes it. */
  printer: () => Promise<PdfPrinter>;
  /** Pages printing at once. @default 2 */
  printConcurrency?: number;
  branding: Branding;
  clock?: () => Date;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on SIGINT / SIGTERM: stop taking work, let in-flight work finish, save. */
  signal?: AbortSignal;
  onEvent?: (event: BatchEvent) => void;
  /** Writes each file of a report. @default writeFileAtomic */
  writeFile?: WriteFile;
  /** Free room on the output folder's disk. @default fs.statfs */
  freeSpace?: FreeSpace;
  /** Each PDF is encrypted to open with it (from the variable report.pdf.encryptWithEnv names); absent: none. */
  pdfPassword?: string;
}

export interface BatchResult {
  status: BatchStatus;
  summary: BatchSummary;
  plan: Plan;
  manifest: Manifest;
  /** Why the disk stopped the run (status `disk_full`) and the fix; null otherwise. */
  diskStop: { message: string; hint: string } | null;
}

export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  if (options.dryRun) return runPeriod(options);
  const periodDir = insideRoot(options.outDir, options.period);
  // One writer per period: a second run (cron and a manual run, say) stops with a clear message.
  await makeOutputFolder(periodDir);
  const unlock = await lockFolder(periodDir).catch((error: unknown) => {
    throw outputFolderError(error, periodDir);
  });
  try {
    return await runPeriod(options);
  } finally {
    await unlock();
  }
}

async function runPeriod(options: BatchOptions): Promise<BatchResult> {
  const clock = options.clock ?? (() => new Date());
  const emit = options.onEvent ?? (() => {});
  const started = clock().getTime();
  const { client, config, period } = options;
  const periodDir = insideRoot(options.outDir, period);
  const printConcurrency = options.printConcurrency ?? 2;

  const previousManifest = await readManifest(periodDir);
  const state = new PeriodState({
    periodDir,
    manifest: previousManifest ?? newManifest(period, clock().toISOString(), options.selection),
    clock,
    requestsSent: () => client.requestsSent(),
    signal: options.signal,
    emit,
  });
  const remake = options.remake === true;
  const plan = remake
    ? await remakePlan(periodDir, previousManifest, period, options.selection)
    : await planRun({
        client,
        period,
        selection: options.selection,
        manifest: previousManifest,
        scanReads: async (project) =>
          scanReads(
            config,
            project.id,
            await savedScan(
              periodDir,
              previousManifest?.projects.find((e) => e.id === project.id),
            ),
          ),
      });
  const space = await estimateSpace(options, plan, previousManifest);
  state.stops.describeDisk({ volume: space.volume, reportBytes: space.perReport });
  // Done reports made with other templates than today's: said in the plan, made again only when asked (--remake).
  const selectedEntries = (): ProjectEntry[] => plan.selected.flatMap((p) => state.entries.get(p.id) ?? []);
  const madeWith = options.renderer.reportFingerprint;
  const outdated = selectedEntries().filter((e) => e.status === 'done' && lastMadeWith(e) !== undefined && lastMadeWith(e) !== madeWith).length;
  emit({ type: 'plan', plan: summarisePlan(plan, space, { outdated, remake: remake ? plan.selected.length : null }) });
  for (const id of plan.unknownIds) emit({ type: 'warning', message: `Project ${id} is not in this account; skipped.` });
  // Before the first report is asked for: a disk too small must not cost the quota of the reports it cannot hold.
  if (space.reports > 0 && space.needed > space.free) throw notEnoughRoom(period, periodDir, space);
  if (options.dryRun) return finish('partial');

  await ensureDir(periodDir);
  const stale = await removeStaleTempFiles(periodDir);
  if (stale > 0) emit({ type: 'warning', message: `Removed ${stale} unfinished file(s) left by an interrupted run.` });
  const releaseReserve = plan.toDo.length > 0 ? await reserveRoom(periodDir, space) : async () => {};
  try {
    state.manifest.runs += 1;
    state.select(plan.selected);
    await state.save();
    await reportProjects();
    await remakeReports(remake ? 'all' : 'missing');
  } finally {
    // Freed before the last manifest and the index are written: a disk that filled up still takes them.
    await releaseReserve();
  }
  if (options.acceptHeld) state.release(plan.selected);
  await state.checkIndex(indexPage(), new Set(plan.selected.map((p) => p.id)), (entry) => savedFacts(periodDir, entry));
  // The exit code speaks of what was asked (a single `report` may succeed); the manifest of the whole period.
  const selectedIds = new Set(plan.selected.map((p) => p.id));
  const status = state.stops.statusOf([...state.entries.values()].filter((e) => selectedIds.has(e.id)));
  state.setStatus(state.stops.statusOf([...state.entries.values()]));
  await state.settled();
  await writeIndex();
  if (state.stops.diskStop() !== null) {
    // A write the disk refused removed its own temp file; whatever a failure left is not left for the user.
    await removeStaleTempFiles(periodDir);
    // The fix names the room the rest needs, as large as the reports this run could write.
    const measured = await reportSize(options.outDir, period, state.manifest);
    if (measured.source === 'measured') state.stops.describeDisk({ volume: space.volume, reportBytes: measured.bytes });
  }
  return finish(status);

  async function reportProjects(): Promise<void> {
    if (plan.toDo.length === 0) return;
    // Chromium starts while the first reports are asked for, not once the first one is ready to print (a launch
    // that fails fails the prints that wait for it); not when the quota leaves no report to make today.
    const printable = plan.reportsToday > 0 || plan.toDo.some((p) => state.entry(p.id).reportId !== null);
    if (printable) options.printer().catch(() => undefined);
    const shared = await fetchShared(client, config, state, emit);
    const scanAsk = new ScanAsk();
    // Only with scan sections does a report cost more than one request: then each project starts only if all fit.
    if (plan.scanRequests > 0) state.stops.setBudget(client.remainingToday());
    if (shared.stats !== null) await state.recordAccount(accountOfPeriod(shared.stats, period, clock().toISOString()));
    const ctx: PeriodContext = {
      client,
      config,
      period,
      periodDir,
      state,
      shared,
      earlier: new EarlierPeriods(options.outDir, period, emit),
      renderer: options.renderer,
      printer: options.printer,
      branding: options.branding,
      ...(options.pdfPassword === undefined ? {} : { pdfPassword: options.pdfPassword }),
      clock,
      sleep: options.sleep ?? pause,
      signal: options.signal,
      emit,
      lanes: { api: pLimit(Math.max(1, options.concurrency)), print: pLimit(Math.max(1, printConcurrency)) },
      scanAsk,
      countScanRetry(projectId) {
        if (!state.stops.admit(1)) return false;
        plan.scanRetries += 1;
        plan.floor += 1;
        emit({
          type: 'warning',
          message: `The service refused seo_steps when reading project ${projectId}'s scan (${scanAsk.seoStepsRefused ?? 'refused'}): it was asked again without it, and the run reads its scans without it from now on (1 more request than planned: ${plan.floor} in all).`,
        });
        return true;
      },
      // A slot for each request and each print: the API answers faster than Chromium prints, and more reports in
      // hand would only wait for a page, to be read back (one request each) if a full disk stops the run.
      held: holdLimit(Math.max(1, options.concurrency) + Math.max(1, printConcurrency)),
      writeFile: options.writeFile ?? writeFileAtomic,
    };
    // Projects under way at once, from their first request to their manifest entry, reports the service is still
    // building included: unbounded, every report of the account would be asked for and wait for its turn.
    const underWay = pLimit(Math.max(16, 4 * (options.concurrency + printConcurrency)));
    // Every project ends (and saves) before anything is raised: no write may follow the release of the lock.
    const ended = await Promise.allSettled(plan.toDo.map((project) => underWay(() => runProject(project, PROJECT_STEPS, ctx))));
    const broken = ended.find((outcome) => outcome.status === 'rejected');
    if (broken !== undefined) throw broken.reason;
  }

  /**
   * Done reports made again from their data.json, without a request: those whose files are gone (`missing`: the
   * state restored from the history branch), or every one selected (`all`: run --remake, a sent one as a new version).
   */
  async function remakeReports(which: 'missing' | 'all'): Promise<void> {
    const entries = which === 'all' ? await entriesWithData(periodDir, selectedEntries()) : await entriesToRemake(periodDir, selectedEntries());
    if (entries.length === 0) return;
    const ctx = {
      config,
      period,
      periodDir,
      shared: { competitors: null, statsData: null, stats: null },
      earlier: new EarlierPeriods(options.outDir, period, emit),
      renderer: options.renderer,
      printer: options.printer,
      branding: options.branding,
      ...(options.pdfPassword === undefined ? {} : { pdfPassword: options.pdfPassword }),
      clock,
      writeFile: options.writeFile ?? writeFileAtomic,
    };
    const lane = pLimit(Math.max(1, printConcurrency));
    let made = 0;
    const versions: string[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        if (state.stops.stopRendering()) return;
        try {
          const version = await remakeFromData(entry, ctx, lane, { keepSent: which === 'all' });
          if (version !== null) {
            state.addVersion(entry, version);
            versions.push(sentKeptMessage(entry, period, version.files));
          }
          made += 1;
          await state.save(entry);
        } catch (error) {
          if (!state.stops.onDiskFull(error) && !state.stops.onBrowserGone(error)) {
            emit({
              type: 'warning',
              message: `Project ${entry.id}: its report could not be made again from its data.json (${error instanceof Error ? error.message : String(error)}).`,
            });
          }
        }
      }),
    );
    for (const message of versions) emit({ type: 'warning', message });
    emit({
      type: 'warning',
      message:
        which === 'all'
          ? `${made} of ${entries.length} done report(s) made again from their data.json with today's templates and config, without a request${versions.length > 0 ? `; ${versions.length} of them sent before, each kept, the new one beside it` : ''}.`
          : `${made} of ${entries.length} done report(s) made again from their data.json (their files were not in ${periodDir}), without a request.`,
    });
  }

  /** How the agency index looks: the renderer's template, in the agency's language. */
  function indexPage(): IndexPage {
    return {
      renderIndex: (model) => options.renderer.renderIndex(model),
      language: config.report.language,
      branding: options.branding,
      phrases: options.renderer.locales.phrases(config.report.language),
    };
  }

  /** index.html; after a disk stop, one it cannot write is named and left for the next run (the manifest is saved). */
  async function writeIndex(): Promise<void> {
    try {
      await state.writeIndex(indexPage());
    } catch (error) {
      const code = diskFullCode(error);
      if (code === null) throw error;
      const path = insideRoot(periodDir, 'index.html');
      if (state.stops.diskStop() !== null) {
        emit({ type: 'warning', message: `${path} was not updated (${code}); the next run writes it.` });
        return;
      }
      throw new DiskFullError(`Could not write ${path}: the disk of ${periodDir} (${space.volume}) ${diskProblem(code)}. Every report is saved.`, {
        code,
        hint: `${diskFix(code, space.volume, null)}, then run the same command again: it writes the index without a request.`,
        cause: error,
      });
    }
  }

  function finish(status: BatchStatus): BatchResult {
    if (options.dryRun) state.setStatus(status);
    const summary = state.summary({
      status,
      selected: plan.selected,
      dryRunToDo: options.dryRun ? (remake ? plan.selected.length : plan.toDo.length) : null,
      startedMs: started,
    });
    emit({ type: 'summary', summary });
    const stop = state.stops.diskStop();
    return { status, summary, plan, manifest: state.manifest, diskStop: stop === null ? null : { message: stop.message, hint: stop.hint } };
  }
}

/**
 * The room the reports of this run need, against the free space of the output folder's disk: the reports it can
 * make today (the quota may leave some for later), each as large as the reports already written (or the default),
 * plus the reserve for the manifest and the index.
 */
async function estimateSpace(options: BatchOptions, plan: Plan, manifest: Manifest | null): Promise<SpaceEstimate> {
  const periodDir = insideRoot(options.outDir, options.period);
  const known = new Set((manifest?.projects ?? []).filter((e) => e.reportId !== null).map((e) => e.id));
  const readBack = plan.toDo.filter((p) => known.has(p.id)).length;
  const reports = Math.min(plan.toDo.length, plan.reportsToday + readBack);
  const size = await reportSize(options.outDir, options.period, manifest);
  const reserve = reserveBytesFor(plan.selected.length + (manifest?.projects.length ?? 0));
  const { free } = await (options.freeSpace ?? statfsFreeSpace)(periodDir).catch((error: unknown) => {
    throw outputFolderError(error, periodDir);
  });
  return {
    reports,
    perReport: size.bytes,
    perReportSource: size.source,
    reserve,
    needed: reports * size.bytes + reserve,
    free,
    volume: (await describeVolume(periodDir)) ?? options.outDir,
  };
}

function notEnoughRoom(period: MonthPeriod, periodDir: string, space: SpaceEstimate): FileSystemError {
  const each = `${formatBytes(space.perReport)} each, ${space.perReportSource === 'measured' ? 'as the reports already written' : 'the default'}`;
  return new FileSystemError(
    `Not enough room for the reports of ${period}: ${space.reports} report(s) need about ${formatBytes(space.needed)} (${each}, with the manifest and the index), and the disk of ${periodDir} (${space.volume}) has ${formatBytes(space.free)} free. No report was asked for.`,
    {
      hint: `${diskFix('ENOSPC', space.volume, { bytes: space.needed - space.free })}, or report fewer projects per run (--project, --shard).`,
    },
  );
}

/** Sets the reserve aside before any report is asked for: a disk that cannot take it cannot take a report either. */
async function reserveRoom(periodDir: string, space: SpaceEstimate): Promise<() => Promise<void>> {
  try {
    return await reserveSpace(periodDir, space.reserve);
  } catch (error) {
    const code = diskFullCode(error);
    if (code === null) throw error;
    throw new DiskFullError(`The disk of ${periodDir} (${space.volume}) ${diskProblem(code)}. No report was asked for.`, {
      code,
      hint: `${diskFix(code, space.volume, { bytes: space.needed })}, then run the same command again.`,
      cause: error,
    });
  }
}

function newManifest(period: MonthPeriod, now: string, selection: Selection): Manifest {
  return {
    period,
    status: 'partial',
    startedAt: now,
    updatedAt: now,
    runs: 0,
    projects: [],
    requests: { total: 0, byToken: {} },
    ...(selection.shard !== undefined ? { shard: formatShard(selection.shard) } : {}),
  };
}

function summarisePlan(plan: Plan, space: SpaceEstimate | null, reports: { outdated: number; remake: number | null }): PlanSummary {
  return {
    ...reports,
    chosenBy: plan.chosenBy,
    leftOut: plan.leftOut,
    period: plan.period,
    selected: plan.selected.length,
    alreadyDone: plan.alreadyDone,
    toDo: plan.toDo.length,
    reportsToday: plan.reportsToday,
    reportsLater: plan.reportsLater,
    ...(plan.scanRequests > 0 ? { scanRequests: plan.scanRequests } : {}),
    ...(plan.scanRetries > 0 ? { scanRetries: plan.scanRetries } : {}),
    floor: plan.floor,
    remainingToday: plan.remainingToday,
    unknownIds: plan.unknownIds,
    space,
  };
}

/**
 * The account's statistics a period's index may show. Its months (the evolution) are dated; its counts, average and
 * top projects are as of the run: read after the month that follows the period (a late run), they are a later
 * month's and are not shown (report/months.ts, readAfterPeriod).
 */
function accountOfPeriod(stats: StatsContent, period: MonthPeriod, runAt: string): StatsContent {
  if (!readAfterPeriod(period, runAt.slice(0, 10))) return stats;
  return { ...stats, projects: null, scans: null, averageScore: null, topProjects: [] };
}

/** The fact table a report was saved with (its data.json); empty when it has none or cannot be read. */
async function savedFacts(periodDir: string, entry: ProjectEntry): Promise<Fact[]> {
  if (entry.files.data === null) return [];
  try {
    const data = JSON.parse(await readFile(insideRoot(periodDir, entry.files.data), 'utf8')) as { facts?: unknown };
    const parsed = FactTableSchema.safeParse(data.facts);
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}
