// The monthly batch: plan → shared data → every project through the steps (./steps) → manifest and index.
// Resumable: the manifest is the state; a rerun of the same period skips finished projects without a request.
import pLimit from 'p-limit';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config/schema.js';
import { ensureDir, insideRoot, lockPeriod, readManifest, removeStaleTempFiles, type Manifest } from '../output/store.js';
import { pause } from '../sleep.js';
import type { Branding } from '../report/model.js';
import type { HtmlRenderer } from '../render/html.js';
import type { PdfPrinter } from '../render/pdf.js';
import { EarlierPeriods } from './earlier-periods.js';
import { PeriodState, type BatchEvent, type BatchStatus, type BatchSummary, type PlanSummary } from './period-state.js';
import { runProject, type PeriodContext } from './pipeline.js';
import { planRun, type Plan, type Selection } from './plan.js';
import { formatShard } from './shard.js';
import { fetchShared } from './shared.js';
import { PROJECT_STEPS } from './steps/index.js';

export type { BatchEvent, BatchStatus, BatchSummary, PlanSummary } from './period-state.js';

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
  /** Started when the run has reports to make, so a run with nothing to do never launches Chromium. */
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
  const emit = options.onEvent ?? (() => {});
  const started = clock().getTime();
  const { client, config, period } = options;
  const periodDir = insideRoot(options.outDir, period);

  const previousManifest = await readManifest(periodDir);
  const state = new PeriodState({
    periodDir,
    manifest: previousManifest ?? newManifest(period, clock().toISOString(), options.selection),
    clock,
    requestsSent: () => client.requestsSent(),
    signal: options.signal,
    emit,
  });
  const plan = await planRun({ client, period, selection: options.selection, manifest: previousManifest });
  emit({ type: 'plan', plan: summarisePlan(plan) });
  for (const id of plan.unknownIds) emit({ type: 'warning', message: `Project ${id} is not in this account; skipped.` });
  if (options.dryRun) return finish('partial');

  await ensureDir(periodDir);
  const stale = await removeStaleTempFiles(periodDir);
  if (stale > 0) emit({ type: 'warning', message: `Removed ${stale} unfinished file(s) left by an interrupted run.` });
  state.manifest.runs += 1;
  state.select(plan.selected);
  await state.save();

  if (plan.toDo.length > 0) {
    // Chromium starts while the first reports are asked for, not once the first one is ready to print (a launch
    // that fails fails the prints that wait for it); not when the quota leaves no report to make today.
    const printable = plan.reportsToday > 0 || plan.toDo.some((p) => state.entry(p.id).reportId !== null);
    if (printable) options.printer().catch(() => undefined);
    const shared = await fetchShared(client, config, state, emit);
    if (shared.stats !== null) {
      state.manifest.account = shared.stats;
      await state.save();
    }
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
      clock,
      sleep: options.sleep ?? pause,
      signal: options.signal,
      emit,
      lanes: { api: pLimit(Math.max(1, options.concurrency)), print: pLimit(Math.max(1, options.printConcurrency ?? 2)) },
    };
    // Projects under way at once, from their first request to their manifest entry: the API answers faster than
    // Chromium prints, and unbounded, every report of the account would be fetched and held until its turn.
    const underWay = pLimit(Math.max(16, 4 * (options.concurrency + (options.printConcurrency ?? 2))));
    // Every project ends (and saves) before anything is raised: no write may follow the release of the lock.
    const ended = await Promise.allSettled(plan.toDo.map((project) => underWay(() => runProject(project, PROJECT_STEPS, ctx))));
    const broken = ended.find((outcome) => outcome.status === 'rejected');
    if (broken !== undefined) throw broken.reason;
  }
  if (options.acceptHeld) state.release(plan.selected);
  // The exit code speaks of what was asked (a single `report` may succeed); the manifest of the whole period.
  const selectedIds = new Set(plan.selected.map((p) => p.id));
  const status = state.statusOf([...state.entries.values()].filter((e) => selectedIds.has(e.id)));
  state.manifest.status = state.statusOf([...state.entries.values()]);
  await state.settled();
  await state.writeIndex({ renderer: options.renderer, language: config.report.language, branding: options.branding });
  return finish(status);

  function finish(status: BatchStatus): BatchResult {
    if (options.dryRun) state.manifest.status = status;
    const summary = state.summary({ status, selected: plan.selected, dryRunToDo: options.dryRun ? plan.toDo.length : null, startedMs: started });
    emit({ type: 'summary', summary });
    return { status, summary, plan, manifest: state.manifest };
  }
}

function newManifest(period: string, now: string, selection: Selection): Manifest {
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
