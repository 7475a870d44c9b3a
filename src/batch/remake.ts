// A done report made again from its data.json by the print steps, at no request: one whose HTML or PDF is gone (a
// fresh machine that restored the period's state, manifest and data.json, from the history branch), or every done
// report of the period after a change of templates or config (`run --remake`). A report already sent is made as a
// new version beside it (`report-v2.pdf`…): what the client received is never written over.
import { readFile } from 'node:fs/promises';
import type { Project, Report } from '../api/schemas.js';
import { readStats } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import { readReport } from '../content/report.js';
import { ConfigError, GeoReportsError } from '../errors.js';
import { insideRoot, nextVersion, wasSent, type Manifest, type ProjectEntry, type ReportVersion } from '../output/store.js';
import { parsePeriodData } from '../report/period-data.js';
import type { Lane, ProjectWork, RenderContext } from './pipeline.js';
import { writesDone } from './pipeline.js';
import type { Plan, Selection } from './plan.js';
import { inShard } from './shard.js';
import { assemble } from './steps/assemble.js';
import { printPdf } from './steps/print-pdf.js';
import { renderHtml } from './steps/render-html.js';
import type { MonthPeriod } from '../period.js';

/** Done entries with their data.json on disk: what `run --remake` makes again. */
export async function entriesWithData(periodDir: string, entries: readonly ProjectEntry[]): Promise<ProjectEntry[]> {
  const withData: ProjectEntry[] = [];
  for (const entry of entries) if (entry.status === 'done' && (await present(periodDir, entry.files.data))) withData.push(entry);
  return withData;
}

/** The templates a done report was last made with (its newest version's, else its own); undefined when not kept. */
export function lastMadeWith(entry: ProjectEntry): string | undefined {
  return entry.versions?.at(-1)?.madeWith ?? entry.madeWith;
}

async function present(periodDir: string, file: string | null): Promise<boolean> {
  return (
    file !== null &&
    (await readFile(insideRoot(periodDir, file)).then(
      () => true,
      () => false,
    ))
  );
}

/** Done entries with a data.json on disk and their HTML or PDF missing. */
export async function entriesToRemake(periodDir: string, entries: readonly ProjectEntry[]): Promise<ProjectEntry[]> {
  const missing: ProjectEntry[] = [];
  for (const entry of await entriesWithData(periodDir, entries)) {
    if (!(await present(periodDir, entry.files.html)) || !(await present(periodDir, entry.files.pdf))) missing.push(entry);
  }
  return missing;
}

/**
 * Makes the entry's report.html and report.pdf again from its data.json, as it was made: the same answers, the
 * same comparison data, the same time of making, with the renderer's templates. The entry keeps its state (held,
 * released, deliveries). A sent report (`sent`) is made as its next version, returned for the entry to record;
 * otherwise its files are written over and null is returned.
 */
export async function remakeFromData(
  entry: ProjectEntry,
  ctx: RenderContext,
  lane: Lane,
  options: { keepSent?: boolean } = {},
): Promise<Omit<ReportVersion, 'madeAt'> | null> {
  const version = options.keepSent === true && wasSent(entry) ? nextVersion(entry) : null;
  const path = insideRoot(ctx.periodDir, entry.files.data as string);
  const data = parsePeriodData(JSON.parse(await readFile(path, 'utf8')));
  if (data === null) throw new GeoReportsError(`${path} is not the data.json of a report (unknown form or version): its report cannot be made again.`);
  const fields = ctx.config.api.fields;
  const reading = new Reading(fields);
  const answer = data.report as Report;
  const work: ProjectWork = {
    project: data.project,
    entry: { ...entry },
    notes: [],
    files: { ...entry.files },
    writes: [],
    ...(version === null ? {} : { version }),
    report: { answer, content: readReport(answer, fields, reading), reading },
    // The period's scan as first read: the scan sections are made again as they were shown.
    scan: data.scan ?? null,
  };
  const ranking = data.ranking;
  const own: RenderContext = {
    ...ctx,
    shared: {
      competitors: ranking === null ? null : { benchmark: ranking.benchmark, rows: ranking.row === null ? [] : [ranking.row] },
      statsData: data.stats,
      stats: data.stats === null || data.stats === undefined ? null : readStats(data.stats, fields),
    },
    clock: () => new Date(data.fetchedAt),
  };
  await lane(async () => {
    try {
      for (const step of [assemble, renderHtml, printPdf]) await step.run(work, own);
    } finally {
      await writesDone(work);
    }
  });
  const madeWith = ctx.renderer.reportFingerprint;
  if (version !== null) return { version, files: { ...work.files }, reason: 'remake', madeWith, held: work.model?.held ?? [] };
  entry.files = { ...entry.files, html: work.files.html, pdf: work.files.pdf };
  entry.madeWith = madeWith;
  // The page made again is the one checked now; a page made before the check was recorded is checked by publish.
  if (work.checkedPage === undefined) delete entry.checkedPage;
  else entry.checkedPage = work.checkedPage;
  return null;
}

/**
 * The plan of `run --remake`: the done reports of the period that the selection keeps (--project, the listed
 * clients, the shard), with their saved data; nothing to ask the service, not even the list of projects.
 */
export async function remakePlan(periodDir: string, manifest: Manifest | null, period: MonthPeriod, selection: Selection): Promise<Plan> {
  if (manifest === null) {
    throw new ConfigError(`There are no reports of ${period} in ${periodDir} to make again.`, {
      hint: `Run \`geo-reports run --period ${period}\` first: --remake makes again the reports a run made, from their saved data.`,
    });
  }
  const wanted = new Set(selection.projectIds);
  const listed = selection.listed ?? null;
  const kept = manifest.projects.filter((e) => (wanted.size > 0 ? wanted.has(e.id) : listed === null || listed.has(e.id)) && inShard(e.id, selection.shard));
  const selected: Project[] = [];
  for (const entry of await entriesWithData(periodDir, kept)) {
    const data = parsePeriodData(JSON.parse(await readFile(insideRoot(periodDir, entry.files.data as string), 'utf8')));
    if (data !== null) selected.push(data.project);
  }
  const known = new Set(manifest.projects.map((e) => e.id));
  return {
    period,
    selected,
    toDo: [],
    alreadyDone: selected.length,
    unknownIds: [...wanted].filter((id) => !known.has(id)),
    chosenBy: { rule: wanted.size > 0 ? 'projects' : listed !== null ? 'listed' : 'statuses', statuses: selection.statuses, listed: listed?.size ?? 0 },
    leftOut: manifest.projects.length - selected.length,
    listRequests: 0,
    floor: 0,
    scanRequests: 0,
    scanRetries: 0,
    remainingToday: 0,
    reportsToday: 0,
    reportsLater: 0,
  };
}
