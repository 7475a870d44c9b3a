// The reports already on disk, period by period: each period folder's manifest, each done report's data.json,
// read into the values the report showed, by the report's own assembly (with the month before's data for the
// changes, as the batch does). No request to the API; one period's data in memory at a time, so any number of months reads
// in the same memory.
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { REPORT_SECTIONS, type ReportSection } from '../api/schemas.js';
import type { Config } from '../config/schema.js';
import { readReport, type ReportContent } from '../content/report.js';
import { ConfigError } from '../errors.js';
import { LANGUAGES, loadLocales, type Language } from '../i18n/locales.js';
import { configuredLanguage } from '../output/report-as-made.js';
import { insideRoot, readManifest, type ProjectEntry } from '../output/store.js';
import { isAnyPeriod, isMonth, lastMonth, periodBefore, type MonthPeriod, type Period } from '../period.js';
import { reportValues, type PreviousContent, type ReportValues } from '../report/assemble.js';
import { figureOf, shownFigure, type Fact } from '../report/facts.js';
import { reviewRows, type ExportRow } from './rows.js';
import { parsePeriodData, type PeriodData } from '../report/period-data.js';
import { readScanVisibility, type ScanVisibility } from '../report/scan-visibility.js';
import { SECTIONS } from '../sections/index.js';

/** The sections whose figures the export reads from the saved fact table: the scan's (made from a scan it does not read again) and the goals. */
const SAVED_SECTIONS = [...SECTIONS.map((section) => section.name), 'goals'];

/** Every section on: what a report left out, its data.json does not hold (the batch asks only for the sections shown). */
const ALL_SECTIONS = Object.fromEntries(REPORT_SECTIONS.map((section) => [section, true])) as Record<ReportSection, boolean>;

export interface ExportSourceOptions {
  /** The output folder of the monthly runs. */
  outDir: string;
  /** A checkout of the history branch: its periods that the output folder lacks are read there. */
  history?: string;
  /** Only these periods (months, quarters, years); every period folder when empty. */
  periods: readonly Period[];
  /** The field map and the clients' languages and names, for reports whose manifest entry does not record them. */
  config: Config;
  /** The day the values are computed on (a score measured before its period is shown as of it; not exported). */
  clock: () => Date;
  /** A client's report that cannot be read: said, and the export goes on without it. */
  onSkip?: (message: string) => void;
  signal?: AbortSignal;
  /** Only these clients (report.clients "listed"; an array, as a thread receives it); null or absent: every one. */
  listed?: readonly number[] | null;
}

/** A share of the clients, to read in a thread of its own: those whose project id is `index` modulo `count`. */
export interface ClientShare {
  index: number;
  count: number;
}

/** One client's report of one period, with its place in the export: the period's, then the manifest entry's. */
export type PlacedValues =
  | { period: number; entry: number; values: ReportValues }
  /** A quarterly or yearly review: its rows, from the figures it showed. */
  | { period: number; entry: number; rows: ExportRow[] };

/** Period → its folder: those of `outDir` (months, quarters, years), then those only the history checkout has. */
export async function periodFolders(outDir: string, history?: string): Promise<Map<Period, string>> {
  const folders = new Map<Period, string>();
  for (const root of history === undefined ? [outDir] : [outDir, history]) {
    let names: string[];
    try {
      names = await readdir(root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ConfigError(`The ${root === outDir ? 'output' : 'history'} folder ${root} does not exist.`, {
          hint:
            root === outDir
              ? 'Give the folder the monthly run writes with --out (or output.dir in the config).'
              : 'Give --history a checkout of the history branch (git worktree add DIR reports-history).',
        });
      }
      throw error;
    }
    for (const name of names.filter(isAnyPeriod).sort()) if (!folders.has(name)) folders.set(name, insideRoot(root, name));
  }
  return folders;
}

/** A period's place in the export: by the month it ends with, a month before the quarter it ends, the quarter before the year. */
const exportOrder = (period: Period): string => `${lastMonth(period)}${isMonth(period) ? 0 : period.includes('Q') ? 1 : 2}`;

/** The periods to export, oldest first (a review after its last month): `wanted` (each must have a folder), or every one found. */
export async function exportPeriods(outDir: string, wanted: readonly Period[], history?: string): Promise<Period[]> {
  const found = [...(await periodFolders(outDir, history)).keys()].sort((a, b) => exportOrder(a).localeCompare(exportOrder(b)));
  const missing = wanted.filter((period) => !found.includes(period));
  if (missing.length > 0) {
    throw new ConfigError(`${outDir}${history === undefined ? '' : ` (with ${history})`} has no period folder ${missing.join(', ')}.`, {
      hint: `Its periods: ${found.join(', ') || 'none'}. Run the month first, or give another --out.`,
    });
  }
  return wanted.length === 0 ? found : found.filter((period) => wanted.includes(period));
}

/** One done report of a period: its manifest entry (and its place among the done ones), its data and its report as read. */
interface SavedReport {
  index: number;
  entry: ProjectEntry;
  data: PeriodData;
  content: ReportContent;
}

/** The values of every done report of the chosen periods (of a share of the clients), oldest period first, in the manifest's order. */
export async function* exportValues(options: ExportSourceOptions, share: ClientShare = { index: 0, count: 1 }): AsyncGenerator<PlacedValues> {
  const { config } = options;
  const listed = options.listed == null ? null : new Set(options.listed);
  const mine = (id: number): boolean => ((id % share.count) + share.count) % share.count === share.index && (listed === null || listed.has(id));
  // What is wrong with a period folder is said once, by the first share.
  const folderSkip = share.index === 0 ? options.onSkip : undefined;
  const skip = options.onSkip ?? (() => undefined);
  const locales = loadLocales({ languages: [...LANGUAGES] });
  const periods = await exportPeriods(options.outDir, options.periods, options.history);
  const folders = await periodFolders(options.outDir, options.history);
  const folderOf = (period: Period): string => folders.get(period) ?? insideRoot(options.outDir, period);
  // The month before's reports as read: the changes (each report is read once, as this month and as next month's before).
  let before: { period: MonthPeriod; reports: Map<number, PreviousContent>; scans: Map<number, ScanVisibility | null> } | null = null;
  for (const [periodIndex, period] of periods.entries()) {
    options.signal?.throwIfAborted();
    if (!isMonth(period)) {
      yield* readReviews(folderOf(period), period, periodIndex, mine, { report: skip, ...(folderSkip !== undefined ? { folder: folderSkip } : {}) });
      continue;
    }
    const wanted = periodBefore(period);
    const { reports: previousReports, scans: previousScans } =
      before?.period === wanted ? before : await collect(readPeriod(folderOf(wanted), wanted, config, mine, { report: () => undefined }), config);
    // Only what next month compares with is kept: the report as read, not the raw answer.
    const reports = new Map<number, PreviousContent>();
    const scans = new Map<number, ScanVisibility | null>();
    for await (const saved of readPeriod(folderOf(period), period, config, mine, {
      report: skip,
      ...(folderSkip !== undefined ? { folder: folderSkip } : {}),
    })) {
      options.signal?.throwIfAborted();
      const { entry, data, content } = saved;
      reports.set(entry.id, comparable(saved));
      const visibility = readScanVisibility(data.scan, config.api.fields);
      scans.set(entry.id, visibility);
      const previous = previousReports.get(entry.id) ?? null;
      const override = config.clients[String(entry.id)];
      // The language and name the report was made with, as its manifest entry recorded them.
      const language: Language = entry.language ?? configuredLanguage(config, entry.id, entry.projectLanguage ?? data.project.language);
      const displayName = entry.displayName ?? override?.displayName;
      const values = reportValues({
        project: data.project,
        report: content,
        ranking: data.ranking,
        previous,
        period,
        // The month rule reads the day the report's data was read, as the report did, not the export's.
        generatedAt: data.fetchedAt,
        language,
        visibility: { scan: visibility, before: previousScans.get(entry.id) ?? null },
        phrases: locales.phrases(language),
        client: { ...(displayName !== undefined ? { displayName } : {}), sections: ALL_SECTIONS },
      });
      // The scan sections' and the goals' figures are those the report showed, read from its saved fact table.
      const shown = (data.facts ?? []).filter((fact) => SAVED_SECTIONS.some((section) => fact.key.startsWith(`${section}.`)));
      yield { period: periodIndex, entry: saved.index, values: { ...values, facts: [...values.facts, ...changesFromMonthBefore(shown, previous)] } };
    }
    before = { period, reports, scans };
  }
}

/**
 * A figure the report showed with its change (`<key>.change`) gets that change from the month before's report, like
 * every other row of the export: its figure minus the same fact's there; none when the export lacks that month.
 */
function changesFromMonthBefore(shown: readonly Fact[], previous: PreviousContent | null): Fact[] {
  const before = new Map((previous?.facts ?? []).map((fact) => [fact.key, fact]));
  const keys = new Set(shown.map((fact) => fact.key));
  return shown.flatMap((fact) => {
    if (!fact.key.endsWith('.change') || !keys.has(fact.key.slice(0, -'.change'.length))) return [fact];
    const now = shown.find((f) => f.key === fact.key.slice(0, -'.change'.length));
    const earlier = before.get(fact.key.slice(0, -'.change'.length));
    if (now === undefined || earlier === undefined) return [];
    const figure = figureOf(now.figure - earlier.figure, fact.unit);
    return [{ ...fact, value: figure, figure, shown: shownFigure(figure, fact.unit, 'en') }];
  });
}

function comparable({ data, content }: SavedReport): PreviousContent {
  return {
    period: data.period,
    report: content,
    recommendationsFirstSeen: data.recommendationsFirstSeen,
    ...(data.facts === undefined ? {} : { facts: data.facts }),
  };
}

async function collect(
  saved: AsyncIterable<SavedReport>,
  config: Config,
): Promise<{ reports: Map<number, PreviousContent>; scans: Map<number, ScanVisibility | null> }> {
  const reports = new Map<number, PreviousContent>();
  const scans = new Map<number, ScanVisibility | null>();
  for await (const one of saved) {
    reports.set(one.entry.id, comparable(one));
    scans.set(one.entry.id, readScanVisibility(one.data.scan, config.api.fields));
  }
  return { reports, scans };
}

/** The done reports of a period folder (of the clients `mine` takes), read and in the manifest's order; none when the folder or its manifest is absent. */
async function* readPeriod(
  dir: string,
  period: MonthPeriod,
  config: Config,
  mine: (id: number) => boolean,
  skip: { report: (message: string) => void; folder?: (message: string) => void },
): AsyncGenerator<SavedReport> {
  let manifest;
  try {
    manifest = await readManifest(dir);
  } catch (error) {
    skip.folder?.(`${period}: ${(error as Error).message}`);
    return;
  }
  const entries = (manifest?.projects ?? []).filter((entry) => entry.status === 'done' && entry.files.data !== null);
  for (const [index, entry] of entries.entries()) {
    if (!mine(entry.id)) continue;
    const path = join(dir, entry.files.data as string);
    let data: PeriodData | null;
    try {
      insideRoot(dir, entry.files.data as string);
      // Read at once: a small file from the page cache takes a fifth of what fs/promises' four trips through the thread pool take.
      data = parsePeriodData(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      skip.report(`${period}: project ${entry.id}: ${path} cannot be read (${(error as Error).message}); left out.`);
      continue;
    }
    if (data === null) {
      skip.report(`${period}: project ${entry.id}: ${path} is not the data.json of a report; left out.`);
      continue;
    }
    yield { index, entry, data, content: readReport(data.report, config.api.fields) };
  }
}

/** The done reviews of a quarter's or a year's folder (of the clients `mine` takes), as rows, in the manifest's order. */
async function* readReviews(
  dir: string,
  period: Period,
  periodIndex: number,
  mine: (id: number) => boolean,
  skip: { report: (message: string) => void; folder?: (message: string) => void },
): AsyncGenerator<PlacedValues> {
  let manifest;
  try {
    manifest = await readManifest(dir);
  } catch (error) {
    skip.folder?.(`${period}: ${(error as Error).message}`);
    return;
  }
  const entries = (manifest?.projects ?? []).filter((entry) => entry.status === 'done' && entry.files.data !== null);
  for (const [index, entry] of entries.entries()) {
    if (!mine(entry.id)) continue;
    const path = join(dir, entry.files.data as string);
    let data: { kind?: unknown; facts?: unknown; project?: { domain?: unknown; language?: unknown } };
    try {
      insideRoot(dir, entry.files.data as string);
      data = JSON.parse(readFileSync(path, 'utf8')) as typeof data;
    } catch (error) {
      skip.report(`${period}: project ${entry.id}: ${path} cannot be read (${(error as Error).message}); left out.`);
      continue;
    }
    if (data.kind !== 'review' || !Array.isArray(data.facts)) {
      skip.report(`${period}: project ${entry.id}: ${path} is not the data.json of a review; left out.`);
      continue;
    }
    const rows = reviewRows(
      {
        period,
        projectId: entry.id,
        client: entry.displayName ?? entry.name,
        domain: typeof data.project?.domain === 'string' ? data.project.domain : null,
        language: entry.language ?? 'en',
      },
      data.facts as Fact[],
    );
    yield { period: periodIndex, entry: index, rows };
  }
}
