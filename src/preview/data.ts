// Where the preview's reports come from: a finished period's saved data (each client's data.json, as the batch
// wrote it), or the simulator's sample account when the period has none. Never the API: nothing here sends a
// request, and the steps that follow (assemble, render, print) are the batch's own.
import { readFile } from 'node:fs/promises';
import { Project, type Report } from '../api/schemas.js';
import { REPORT_SECTIONS } from '../spec/vocabulary.js';
import { EarlierPeriods } from '../batch/earlier-periods.js';
import type { ProjectWork } from '../batch/pipeline.js';
import { sectionSwitches } from '../batch/sections.js';
import type { SharedData } from '../batch/shared.js';
import type { Config } from '../config/schema.js';
import { readCompetitors, readStats } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import { answerAsKept, readReport } from '../content/report.js';
import { GeoReportsError } from '../errors.js';
import { insideRoot, projectSlug, ProjectEntry, readManifest } from '../output/store.js';
import { periodBefore, type MonthPeriod } from '../period.js';
import type { Language } from '../report/model.js';
import { buildPeriodData, parsePeriodData, type PeriodData } from '../report/period-data.js';
import { sampleAccount } from '../simulator/sample.js';

export interface PreviewProject {
  id: number;
  name: string;
}

/** What the render steps need for one project: its work (project, manifest entry, report read), shared data, earlier periods. */
export interface ProjectData {
  work: ProjectWork;
  shared: SharedData;
  earlier: Pick<EarlierPeriods, 'last' | 'data'>;
}

export interface PreviewData {
  kind: 'saved' | 'sample';
  /** Where the data comes from, in words for the terminal and the toolbar. */
  description: string;
  period: MonthPeriod;
  projects: readonly PreviewProject[];
  /** The project's data, read with the config's field map (read again at every call: the config may have changed). */
  load(projectId: number, config: Config): Promise<ProjectData>;
}

/**
 * The config with every client's report written in `language` (the preview's language switch, the sample check): the
 * clients the config lists and every other one, whatever language the service gives its project.
 */
export function configInLanguage(config: Config, language: Language): Config {
  const clients = Object.fromEntries(Object.entries(config.clients).map(([id, client]) => [id, { ...client, language }]));
  return { ...config, report: { ...config.report, language, followProjectLanguage: false }, clients };
}

/** A project the preview has no data for. */
export class PreviewDataError extends GeoReportsError {}

function newEntry(id: number, name: string, updatedAt: string): ProjectEntry {
  return ProjectEntry.parse({ id, name, slug: projectSlug(id, name), status: 'pending', files: { html: null, pdf: null, data: null }, updatedAt });
}

function readAnswer(answer: Report, config: Config): NonNullable<ProjectWork['report']> {
  const reading = new Reading(config.api.fields);
  const content = readReport(answer, config.api.fields, reading);
  return { answer: answerAsKept(answer, content), content, reading };
}

function sharedFrom(competitors: SharedData['competitors'], statsData: unknown, config: Config): SharedData {
  return { competitors, statsData, stats: statsData === null || statsData === undefined ? null : readStats(statsData, config.api.fields) };
}

/**
 * The saved data of `<outDir>/<period>/` when the period has reports with their data.json, else the sample
 * account of the simulator for that period.
 */
export async function openPreviewData(options: { outDir: string; period: MonthPeriod; clock?: () => Date }): Promise<PreviewData> {
  const periodDir = insideRoot(options.outDir, options.period);
  const manifest = await readManifest(periodDir);
  const saved = (manifest?.projects ?? []).filter((entry) => entry.files.data !== null).sort((a, b) => a.id - b.id);
  if (saved.length === 0) return sampleData(options.period, options.clock);
  return {
    kind: 'saved',
    description: `the saved data of ${options.period} in ${periodDir}`,
    period: options.period,
    projects: saved.map(({ id, name }) => ({ id, name })),
    async load(projectId, config) {
      const entry = saved.find((e) => e.id === projectId);
      if (entry === undefined || entry.files.data === null) throw new PreviewDataError(`Project ${projectId} has no saved data in ${periodDir}.`);
      const path = insideRoot(periodDir, entry.files.data);
      let data: PeriodData | null;
      try {
        data = parsePeriodData(JSON.parse(await readFile(path, 'utf8')));
      } catch (error) {
        throw new PreviewDataError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
      }
      if (data === null) throw new PreviewDataError(`${path} is not the data.json of a report (unknown form or version).`);
      const ranking = data.ranking;
      return {
        work: {
          project: data.project,
          entry: { ...entry, files: { html: null, pdf: null, data: null } },
          notes: [],
          files: { html: null, pdf: null, data: null },
          writes: [],
          report: readAnswer(data.report as Report, config),
          // The period's scan as the run kept it: the preview shows the scan sections the report showed.
          scan: data.scan ?? null,
        },
        shared: sharedFrom(ranking === null ? null : { benchmark: ranking.benchmark, rows: ranking.row === null ? [] : [ranking.row] }, data.stats, config),
        // Earlier periods' data.json, as the batch reads them; their warnings say only that there is no comparison.
        earlier: new EarlierPeriods(options.outDir, options.period, () => undefined),
      };
    },
  };
}

/** The simulator's sample account for `period`: its active projects, with last period's data for the comparisons. */
export function sampleData(period: MonthPeriod, clock: () => Date = () => new Date()): PreviewData {
  const account = sampleAccount({ period });
  const projects = account
    .projects()
    .map((raw) => Project.parse(raw))
    .filter((project) => project.status === 'active')
    .map((project) => ({ project, name: project.name ?? `Project ${project.id}` }));
  return {
    kind: 'sample',
    description: `the simulator's sample data for ${period} (no saved report of that period)`,
    period,
    projects: projects.map(({ project, name }) => ({ id: project.id, name })),
    async load(projectId, config) {
      const found = projects.find(({ project }) => project.id === projectId);
      if (found === undefined) throw new PreviewDataError(`Project ${projectId} is not in the sample data.`);
      const switches = sectionSwitches(config, projectId);
      const include = REPORT_SECTIONS.filter((section) => switches[section]);
      const answers = account.answers(projectId, { include: include.length > 0 ? include : ['scores'] });
      const before = periodBefore(period);
      const previousAnswer = account.answers(projectId, { period: before }).report;
      const previous: PeriodData = buildPeriodData({
        period: before,
        fetchedAt: clock().toISOString(),
        project: found.project,
        report: previousAnswer,
        content: readReport(previousAnswer, config.api.fields),
        ranking: null,
        stats: null,
        notes: [],
        previous: null,
      });
      const competitors = readCompetitors(answers.competitors, config.api.fields);
      return {
        work: {
          project: found.project,
          entry: newEntry(projectId, found.name, clock().toISOString()),
          notes: [],
          files: { html: null, pdf: null, data: null },
          writes: [],
          report: readAnswer(answers.report, config),
        },
        shared: sharedFrom(competitors, answers.stats, config),
        // The sample account's month before; the goals' trend gets the report's own history on top.
        earlier: { last: async (id) => (id === projectId ? previous : null), data: async () => null },
      };
    },
  };
}
