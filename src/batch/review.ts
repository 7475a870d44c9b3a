// `run --period 2026-Q3` (or `2026`): every selected client's review of a quarter or a year, made from the months
// already saved in the output folder (restore the history branch into it first: `geo-reports history restore`),
// with no request to the service. Each month's figures are the ones its report showed (its data.json's fact
// table); the review's page is the last month's report assembled against the previous period's last month, so that
// its goals, its recommendations resolved and opened and its annotations span the period. A month of the period
// that was never made is named, with the command that makes it: no review is made without it.
import { readFile } from 'node:fs/promises';
import type { Project } from '../api/schemas.js';
import { readStats } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import { readReport } from '../content/report.js';
import { errorMessage, UsageError } from '../errors.js';
import type { Config } from '../config/schema.js';
import { writePeriodIndex } from '../output/period-index.js';
import { ensureDir, insideRoot, lockFolder, readManifest, writeFileAtomic, writeManifest, type Manifest, type ProjectEntry } from '../output/store.js';
import { addMonths, folderName, lastMonth, monthsOf, periodBefore, yearBefore, type MonthPeriod, type ReviewPeriod } from '../period.js';
import type { Branding } from '../report/model.js';
import { parsePeriodData, type PeriodData } from '../report/period-data.js';
import { reviewFigures, type SavedMonths } from '../report/review.js';
import { reviewModel } from '../report/review-model.js';
import type { HtmlRenderer } from '../render/html.js';
import type { PdfPrinter } from '../render/print/printer.js';
import { goalLookback } from '../report/goals.js';
import type { Fact } from '../report/facts.js';
import { newEntry, doneEntry } from './report-entry.js';
import { writesDone, type ProjectWork, type RenderContext } from './pipeline.js';
import { formatShard, inShard, type Shard } from './shard.js';
import { assemble } from './steps/assemble.js';
import { printPdf } from './steps/print-pdf.js';
import { renderHtml } from './steps/render-html.js';

/** What a review's data.json holds: the figures it showed (its fact table) and the months it was made from. */
export const REVIEW_DATA_KIND = 'review';

export interface ReviewData {
  kind: typeof REVIEW_DATA_KIND;
  schemaVersion: 1;
  period: ReviewPeriod;
  madeAt: string;
  project: Project;
  /** The saved month each figure was read from, by month (YYYY-MM → its data.json's fetchedAt). */
  months: Record<string, string>;
  facts: Fact[];
}

export interface ReviewOptions {
  config: Config;
  period: ReviewPeriod;
  /** The output folder, absolute. */
  outDir: string;
  selection: { projectIds: readonly number[]; listed?: ReadonlySet<number> | null; shard?: Shard };
  renderer: HtmlRenderer;
  printer: () => Promise<PdfPrinter>;
  branding: Branding;
  clock: () => Date;
  pdfPassword?: string;
  log: (line: string) => void;
}

export interface ReviewOutcome {
  periodDir: string;
  made: number;
  /** Reviews already made by an earlier run, kept as they are. */
  kept: number;
  /** Clients whose review could not be made, with the reason (a month never made for them, an unreadable file). */
  failed: Array<{ id: number; name: string; reason: string }>;
}

/** Reads a client's saved months (manifest, then data.json) from the output folder; each once. */
class SavedMonthsReader {
  readonly #manifests = new Map<MonthPeriod, Promise<Manifest | null>>();
  constructor(private readonly outDir: string) {}

  manifest(month: MonthPeriod): Promise<Manifest | null> {
    let manifest = this.#manifests.get(month);
    if (manifest === undefined) {
      manifest = readManifest(insideRoot(this.outDir, folderName(month))).catch(() => null);
      this.#manifests.set(month, manifest);
    }
    return manifest;
  }

  async data(projectId: number, month: MonthPeriod): Promise<PeriodData | null> {
    const entry = (await this.manifest(month))?.projects.find((e) => e.id === projectId);
    if (entry === undefined || entry.status !== 'done' || entry.files.data === null) return null;
    try {
      return parsePeriodData(JSON.parse(await readFile(insideRoot(this.outDir, folderName(month), entry.files.data), 'utf8')));
    } catch {
      return null;
    }
  }
}

/** Makes the period's reviews; a month never run for the whole account is a UsageError naming it and its command. */
export async function makeReviews(options: ReviewOptions): Promise<ReviewOutcome> {
  const { period, outDir, config } = options;
  const months = monthsOf(period);
  const reader = new SavedMonthsReader(outDir);
  const never: MonthPeriod[] = [];
  for (const month of months) if ((await reader.manifest(month)) === null) never.push(month);
  if (never.length > 0) {
    throw new UsageError(
      `The review of ${period} is made from the reports of its months, and ${never.join(', ')} ${never.length === 1 ? 'was' : 'were'} never run in ${outDir}.`,
      {
        hint: `Run ${never.map((m) => `\`geo-reports run --period ${m}\``).join(', ')} first (or bring the months back with \`geo-reports history restore\`), then this command again.`,
      },
    );
  }
  const last = lastMonth(period);
  const lastManifest = (await reader.manifest(last)) as Manifest;
  const wanted = new Set(options.selection.projectIds);
  const listed = options.selection.listed ?? null;
  const selected = lastManifest.projects.filter(
    (e) => (wanted.size > 0 ? wanted.has(e.id) : listed === null || listed.has(e.id)) && inShard(e.id, options.selection.shard),
  );
  const periodDir = insideRoot(outDir, folderName(period));
  await ensureDir(periodDir);
  const unlock = await lockFolder(periodDir);
  try {
    const now = options.clock().toISOString();
    const before = await readManifest(periodDir);
    const manifest: Manifest = before ?? {
      period,
      status: 'partial',
      startedAt: now,
      updatedAt: now,
      runs: 0,
      projects: [],
      requests: { total: 0, byToken: {} },
    };
    manifest.runs += 1;
    // A shard's folder says so, as a monthly run's does: `geo-reports merge` combines the shards' reviews.
    if (options.selection.shard !== undefined) manifest.shard = formatShard(options.selection.shard);
    const outcome: ReviewOutcome = { periodDir, made: 0, kept: 0, failed: [] };
    for (const monthEntry of selected) {
      const existing = manifest.projects.find((e) => e.id === monthEntry.id);
      if (existing?.status === 'done') {
        outcome.kept += 1;
        continue;
      }
      let entry: ProjectEntry;
      try {
        entry = await makeReview(monthEntry, existing, reader, options, periodDir);
        outcome.made += 1;
      } catch (error) {
        const reason = errorMessage(error);
        outcome.failed.push({ id: monthEntry.id, name: monthEntry.displayName ?? monthEntry.name, reason });
        entry = { ...(existing ?? { ...monthEntry, files: { html: null, pdf: null, data: null } }), status: 'failed', error: reason, updatedAt: now };
        delete entry.deliveries;
      }
      const at = manifest.projects.findIndex((e) => e.id === entry.id);
      if (at === -1) manifest.projects.push(entry);
      else manifest.projects[at] = entry;
      options.log(entry.status === 'done' ? `  ${entry.displayName ?? entry.name}: review made (${entry.files.pdf})` : `  ${entry.name}: ${entry.error}`);
    }
    manifest.status = manifest.projects.every((e) => e.status === 'done')
      ? manifest.projects.some((e) => e.held.length > 0 && !e.released)
        ? 'held'
        : 'complete'
      : 'partial';
    manifest.updatedAt = options.clock().toISOString();
    await writeManifest(periodDir, manifest);
    const language = config.report.language;
    await writePeriodIndex({
      periodDir,
      manifest,
      page: { renderIndex: (m) => options.renderer.renderIndex(m), language, branding: options.branding, phrases: options.renderer.locales.phrases(language) },
      generatedAt: manifest.updatedAt,
    });
    return outcome;
  } finally {
    await unlock();
  }
}

/** One client's review: its saved months read, its page assembled, written and printed; its done entry. */
async function makeReview(
  monthEntry: ProjectEntry,
  existing: ProjectEntry | undefined,
  reader: SavedMonthsReader,
  options: ReviewOptions,
  periodDir: string,
): Promise<ProjectEntry> {
  const { period, config } = options;
  const id = monthEntry.id;
  const months = monthsOf(period);
  const last = lastMonth(period);
  const previousLast = lastMonth(periodBefore(period));
  // The months the review reads: its own, the two it compares with (and the month after each, whose report told
  // it as "last month"), and the goals' trend before the last month.
  const reach = new Set<MonthPeriod>([
    ...months,
    previousLast,
    lastMonth(yearBefore(period)),
    addMonths(lastMonth(yearBefore(period)), 1),
    ...goalLookback(last),
  ]);
  const data = new Map<MonthPeriod, PeriodData>();
  for (const month of reach) {
    const read = await reader.data(id, month);
    if (read !== null) data.set(month, read);
  }
  const missing = months.filter((m) => !data.has(m));
  if (missing.length > 0) {
    throw new UsageError(
      `no report of ${missing.join(', ')} for this client: its review of ${period} is made from the report of every month. Run ${missing.map((m) => `\`geo-reports run --period ${m} --project ${id}\``).join(', ')} first.`,
    );
  }
  const saved: SavedMonths = new Map([...data].map(([month, d]) => [month, d.facts]));
  const figures = reviewFigures(period, saved);
  const lastData = data.get(last) as PeriodData;
  // Recommendations resolved and opened over the period: against the previous period's last month, else its first month.
  const baseline = data.get(previousLast) ?? (months[0] === last ? null : (data.get(months[0] as MonthPeriod) ?? null));
  const fields = config.api.fields;
  const reading = new Reading(fields);
  const answer = lastData.report as never;
  const entry: ProjectEntry =
    existing === undefined ? { ...newEntry(lastData.project, options.clock().toISOString()), slug: monthEntry.slug } : { ...existing };
  const work: ProjectWork = {
    project: lastData.project,
    entry,
    notes: [],
    files: { html: null, pdf: null, data: null },
    writes: [],
    report: { answer, content: readReport(answer, fields, reading), reading },
    scan: lastData.scan ?? null,
  };
  const ranking = lastData.ranking;
  const ctx: RenderContext = {
    config,
    period: last,
    periodDir,
    shared: {
      competitors: ranking === null ? null : { benchmark: ranking.benchmark, rows: ranking.row === null ? [] : [ranking.row] },
      statsData: lastData.stats,
      stats: lastData.stats === null || lastData.stats === undefined ? null : readStats(lastData.stats, fields),
    },
    earlier: {
      last: () => Promise.resolve(baseline),
      data: (_projectId, month) => Promise.resolve(month < last ? (data.get(month) ?? null) : null),
    },
    renderer: options.renderer,
    printer: options.printer,
    branding: options.branding,
    clock: options.clock,
    writeFile: writeFileAtomic,
    ...(options.pdfPassword === undefined ? {} : { pdfPassword: options.pdfPassword }),
  };
  try {
    await assemble.run(work, ctx);
    const language = work.language as NonNullable<ProjectWork['language']>;
    const model = reviewModel({
      month: work.model as NonNullable<ProjectWork['model']>,
      figures,
      language,
      phrases: options.renderer.locales.phrases(language),
    });
    work.model = model;
    await ensureDir(insideRoot(periodDir, entry.slug));
    const reviewData: ReviewData = {
      kind: REVIEW_DATA_KIND,
      schemaVersion: 1,
      period,
      madeAt: model.meta.generatedAt,
      project: lastData.project,
      months: Object.fromEntries([...data].filter(([m]) => months.includes(m)).map(([m, d]) => [m, d.fetchedAt])),
      facts: model.facts,
    };
    const dataFile = `${entry.slug}/data.json`;
    await writeFileAtomic(insideRoot(periodDir, dataFile), `${JSON.stringify(reviewData, null, 2)}\n`);
    work.files.data = dataFile;
    await renderHtml.run(work, ctx);
    await printPdf.run(work, ctx);
  } finally {
    await writesDone(work);
  }
  const done = doneEntry(
    { ...entry, files: { ...work.files } },
    {
      model: work.model,
      notes: work.notes,
      displayName: work.displayName ?? null,
      ...(work.checkedPage === undefined ? {} : { checkedPage: work.checkedPage }),
    },
    options.clock().toISOString(),
  );
  return { ...done, madeWith: options.renderer.reportFingerprint };
}
