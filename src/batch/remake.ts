// A done report whose HTML or PDF is gone (a fresh machine that restored the period's state, manifest and
// data.json, from the history branch) is made again from its data.json by the print steps: no request.
import { readFile } from 'node:fs/promises';
import type { Report } from '../api/schemas.js';
import { readStats } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import { readReport } from '../content/report.js';
import { GeoReportsError } from '../errors.js';
import { insideRoot, type ProjectEntry } from '../output/store.js';
import { parsePeriodData } from '../report/period-data.js';
import type { Lane, ProjectWork, RenderContext } from './pipeline.js';
import { writesDone } from './pipeline.js';
import { assemble } from './steps/assemble.js';
import { printPdf } from './steps/print-pdf.js';
import { renderHtml } from './steps/render-html.js';

/** Done entries with a data.json on disk and their HTML or PDF missing. */
export async function entriesToRemake(periodDir: string, entries: readonly ProjectEntry[]): Promise<ProjectEntry[]> {
  const present = async (file: string | null): Promise<boolean> =>
    file !== null &&
    (await readFile(insideRoot(periodDir, file)).then(
      () => true,
      () => false,
    ));
  const missing: ProjectEntry[] = [];
  for (const entry of entries) {
    if (entry.status !== 'done' || !(await present(entry.files.data))) continue;
    if (!(await present(entry.files.html)) || !(await present(entry.files.pdf))) missing.push(entry);
  }
  return missing;
}

/**
 * Makes the entry's report.html and report.pdf again from its data.json, as it was made: the same answers, the
 * same comparison data, the same time of making. The entry keeps its state (held, released, deliveries).
 */
export async function remakeFromData(entry: ProjectEntry, ctx: RenderContext, lane: Lane): Promise<void> {
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
  entry.files = { ...entry.files, html: work.files.html, pdf: work.files.pdf };
  // The page made again is the one checked now; a page made before the check was recorded is checked by publish.
  if (work.checkedPage === undefined) delete entry.checkedPage;
  else entry.checkedPage = work.checkedPage;
}
