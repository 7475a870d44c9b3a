// One project through the period's steps: fetch → assemble → write data → render HTML → print PDF. Each step is
// a module in ./steps; a new step is one module and one line in PROJECT_STEPS (./steps/index.ts).
import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import type { Project, Report } from '../api/schemas.js';
import type { Config } from '../config/schema.js';
import type { Reading } from '../content/reading.js';
import type { ReportContent } from '../content/report.js';
import { nextVersion, versionedName, wasSent, type ProjectEntry, type writeFileAtomic } from '../output/store.js';
import { errorMessage } from '../errors.js';
import type { PreviousContent, Ranking } from '../report/assemble.js';
import type { SavedScan } from '../report/period-data.js';
import type { SectionLeftOut } from '../report/scan-sections.js';
import type { ScanAsk } from '../sections/scan-ask.js';
import type { Branding, Language, ReportModel } from '../report/model.js';
import type { HtmlRenderer } from '../render/html.js';
import type { PdfPrinter, PrintJob } from '../render/print/printer.js';
import type { EarlierPeriods } from './earlier-periods.js';
import type { BatchEvent } from './events.js';
import type { PeriodState } from './period-state.js';
import type { SharedData } from './shared.js';

/** A concurrency slot (p-limit): runs `fn` when a slot is free. */
export type Lane = <T>(fn: () => Promise<T> | T) => Promise<T>;

/** Writes a report's file whole or not at all (writeFileAtomic). */
export type WriteFile = typeof writeFileAtomic;

/** A bound on things held at once, let go and taken again by the holder (unlike a lane, which runs a function). */
export interface Hold {
  take(): Promise<void>;
  release(): void;
}

export function holdLimit(limit: number): Hold {
  let held = 0;
  const waiting: Array<() => void> = [];
  return {
    async take() {
      while (held >= limit) await new Promise<void>((wake) => waiting.push(wake));
      held += 1;
    },
    release() {
      held -= 1;
      waiting.shift()?.();
    },
  };
}

/**
 * What the steps that make a report from data already read may use (assemble, render, print): no API client and
 * no manifest, so the template preview runs the same steps on saved or sample data.
 */
export interface RenderContext {
  config: Config;
  period: string;
  periodDir: string;
  shared: SharedData;
  /** Earlier periods' data.json: last period's for the changes, a few more for the goals' trend. */
  earlier: Pick<EarlierPeriods, 'last' | 'data'>;
  renderer: HtmlRenderer;
  /** Started once the run has reports to make, so a run with nothing to print never launches Chromium. */
  printer: () => Promise<PdfPrinter>;
  branding: Branding;
  clock: () => Date;
  /** Writes every file of a report (data.json, report.html, report.pdf). */
  writeFile: WriteFile;
}

/** What every step of every project of the period may use. */
export interface PeriodContext extends RenderContext {
  client: ApiClient;
  state: PeriodState;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal | undefined;
  emit: (event: BatchEvent) => void;
  /** `api`: requests to the service; `print`: assembling, writing, rendering and printing (memory and CPU). */
  lanes: { api: Lane; print: Lane };
  /** How the run asks for scans: `seo_steps` until the service refuses it, then without it (sections/scan-ask.ts). */
  scanAsk: ScanAsk;
  /** A scan read asked again without `seo_steps`: counted in the plan, taken from the budget; false to stop. */
  countScanRetry(projectId: number): boolean;
  /**
   * Projects holding a report: asking for it, or holding it until its files are written. One waiting for the
   * service to build its report lets go meanwhile (see fetch-report), so slow reports are still built side by side.
   */
  held: Hold;
}

/** The report answer with what the readers found in it. */
export interface ReadReport {
  answer: Report;
  content: ReportContent;
  reading: Reading;
}

/** One project on its way through the steps; each step fills in what it makes. */
export interface ProjectWork {
  project: Project;
  entry: ProjectEntry;
  /** Data-quality notes for the agency (manifest and index, never the client's report). */
  notes: string[];
  /** Files written so far, relative to the period folder; the entry points at them once every step is done. */
  files: ProjectEntry['files'];
  /**
   * The version the files are written as (`report-v2.pdf`…) when the entry's report was sent: the sent files are
   * never written over. Absent: `report.pdf`.
   */
  version?: number;
  report?: ReadReport;
  /** The project against the benchmark; null when the competitors answer could not be read. */
  ranking?: Ranking | null;
  /** The period's scan for the scan sections; null when none is on or the period has none. */
  scan?: SavedScan | null;
  /** The scan sections on for the client that the report was made without, and why. */
  sectionsLeftOut?: SectionLeftOut[];
  /** Last period's report; null on the first period. */
  previous?: PreviousContent | null;
  language?: Language;
  /** The configured display name the report is made with; null when it shows the project's name. */
  displayName?: string | null;
  model?: ReportModel;
  /** The labels of the client's goals in the agency's language, for the agency index (in the order of the model's). */
  indexGoalLabels?: string[];
  /** The page the printer gets: report.html with its fonts loaded by URL from `printAssets`. */
  html?: string;
  printAssets?: PrintJob['assets'];
  htmlPath?: string;
  /** The SHA-256 of report.html as written, which the page check passed (the manifest's `checkedPage`). */
  checkedPage?: string;
  /** Files being written while later steps go on; each settles to its error or null (see `inBackground`). */
  writes: Array<Promise<unknown>>;
}

/** Lets a file be written while the next steps run (Chromium prints from memory); the last step awaits it. */
export function inBackground(work: ProjectWork, write: Promise<void>): void {
  work.writes.push(
    write.then(
      () => null,
      (error: unknown) => error ?? new Error('a file write failed'),
    ),
  );
}

/** Waits for the files written in the background; throws the first failure. */
export async function writesDone(work: ProjectWork): Promise<void> {
  const failures = (await Promise.all(work.writes)).filter((failure) => failure !== null);
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the write rejected with, as fs raised it
  if (failures.length > 0) throw failures[0];
}

export interface ProjectStep<Context extends RenderContext = PeriodContext> {
  name: string;
  /** The lane the step runs in; consecutive `print` steps share one slot. */
  lane: 'api' | 'print';
  /** False when the project must wait for a later run (the step marked it pending and said why). */
  run(work: ProjectWork, ctx: Context): Promise<boolean>;
}

/** A report file's name in its client's folder, relative to the period folder: the work's version of it. */
export function reportFile(work: Pick<ProjectWork, 'entry' | 'version'>, name: 'report.html' | 'report.pdf' | 'data.json'): string {
  return `${work.entry.slug}/${versionedName(name, work.version ?? null)}`;
}

/** A value a step needs from an earlier one: a missing one is a wrongly ordered pipeline, not a data problem. */
export function need<K extends keyof ProjectWork>(work: ProjectWork, key: K, step: string): NonNullable<ProjectWork[K]> {
  const value = work[key];
  if (value == null) throw new Error(`The "${step}" step needs "${key}" from an earlier step.`);
  return value;
}

/** Runs one project through `steps` and records the outcome in the manifest, announced once it is saved. */
export async function runProject(project: Project, steps: readonly ProjectStep[], ctx: PeriodContext): Promise<void> {
  const { state } = ctx;
  const entry = state.entry(project.id);
  // A report asked for again after it was sent: made as a new version beside the sent one, which stays as it is.
  const sent = entry.status === 'done' && wasSent(entry) ? structuredClone(entry) : null;
  const work: ProjectWork = {
    project,
    entry: sent === null ? entry : { ...entry },
    notes: [],
    files: { html: null, pdf: null, data: null },
    writes: [],
    ...(sent === null ? {} : { version: nextVersion(entry) }),
  };
  const started = ctx.clock().getTime();
  let outcome: BatchEvent | null = null;
  await ctx.held.take();
  try {
    const finished = await runSteps(work, steps, ctx).finally(() => writesDone(work));
    if (!finished) return;
    const model = need(work, 'model', 'record');
    if (sent !== null) {
      const version = need(work, 'version', 'record');
      // The report id the service gave is spent with this version; the sent entry keeps its own state.
      Object.assign(entry, sent);
      state.addVersion(entry, { version, files: work.files, reason: 'report', madeWith: ctx.renderer.reportFingerprint, held: model.held });
      ctx.emit({ type: 'warning', message: sentKeptMessage(entry, ctx.period, work.files) });
    } else {
      entry.files = work.files;
      entry.madeWith = ctx.renderer.reportFingerprint;
      state.markDone(entry, {
        model,
        notes: work.notes,
        displayName: work.displayName ?? null,
        goalLabels: work.indexGoalLabels,
        sectionsLeftOut: work.sectionsLeftOut ?? [],
        checkedPage: work.checkedPage,
      });
    }
    outcome = { type: 'project-done', id: project.id, name: entry.name, held: model.held, ms: ctx.clock().getTime() - started };
  } catch (error) {
    if (sent !== null) {
      // The stops still learn of it (quota, disk, browser, signal); the sent report stays done, as it was.
      if (!state.stops.onQuota(error) && !state.stops.onDiskFull(error) && !state.stops.interrupted) state.stops.onBrowserGone(error);
      Object.assign(entry, sent);
      outcome = {
        type: 'project-failed',
        id: project.id,
        name: entry.name,
        error: `its new version was not made (the sent report is kept): ${errorMessage(error)}`,
      };
      return;
    }
    if (error instanceof NotFoundError && error.call.endpoint === 'reports.php' && error.call.method === 'GET') {
      entry.reportId = null; // the service no longer has it: the next run asks for a new one
    }
    if (state.stops.onQuota(error)) {
      state.markPending(entry, 'the daily quota of every token is used up');
    } else if (state.stops.onDiskFull(error)) {
      // Never failed, never done without its files: the next run writes it (reading back its report by id).
      state.markPending(entry, state.stops.stopReason());
    } else if (state.stops.interrupted) {
      // Dropped on SIGINT / SIGTERM: the next run does it (or reads back the report already asked for).
      state.markPending(entry, 'the run was interrupted');
    } else if (state.stops.onBrowserGone(error)) {
      // Not the report's fault: the next run prints it, reading back the report the service made by its id.
      state.markPending(entry, `the browser stopped before printing it${entry.reportId === null ? '' : ` (report ${entry.reportId} is kept)`}`);
    } else {
      state.markFailed(entry, error);
      outcome = { type: 'project-failed', id: project.id, name: entry.name, error: entry.error ?? '' };
    }
  } finally {
    ctx.held.release();
    await state.save(entry);
    if (outcome !== null) ctx.emit(outcome);
  }
}

/** What a new version of a sent report tells: where it is, and that the sent one is kept. */
export function sentKeptMessage(entry: ProjectEntry, period: string, files: ProjectEntry['files']): string {
  return `Project ${entry.id} (${entry.displayName ?? entry.name}): its ${period} report was sent, so the new one is written beside it as ${files.pdf ?? files.html ?? '?'}; the sent ${entry.files.pdf ?? 'report'} is kept, and the manifest, the site and \`geo-reports send\` keep to it.`;
}

/** Consecutive steps of one lane run together: the `print` ones in one slot, taken only if the run goes on. */
async function runSteps(work: ProjectWork, steps: readonly ProjectStep[], ctx: PeriodContext): Promise<boolean> {
  let announced = false;
  for (let i = 0; i < steps.length;) {
    const lane = steps[i]?.lane;
    let j = i;
    while (j < steps.length && steps[j]?.lane === lane) j += 1;
    const group = steps.slice(i, j);
    i = j;
    const runGroup = async (): Promise<boolean> => {
      for (const step of group) if (!(await step.run(work, ctx))) return false;
      return true;
    };
    if (lane === 'api') {
      if (!(await runGroup())) return false;
      continue;
    }
    const ran = await ctx.lanes.print(async () => {
      // Stopping (SIGINT / SIGTERM, a full disk) takes no new rendering: a report id is kept, the next run reads it back.
      if (ctx.state.stops.stopRendering()) return null;
      if (!announced) {
        announced = true;
        ctx.emit({ type: 'project-start', id: work.project.id, name: work.entry.name });
      }
      return runGroup();
    });
    if (ran === null) {
      ctx.state.markPending(work.entry, ctx.state.stops.stopReason());
      return false;
    }
    if (!ran) return false;
  }
  return true;
}
