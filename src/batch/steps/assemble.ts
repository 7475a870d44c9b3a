// Step: the report answer, the shared comparison data and last period's data → the ReportModel and data.json's content.
import type { Language, ReportModel } from '../../report/model.js';
import { assembleReport, type Ranking } from '../../report/assemble.js';
import { buildPeriodData, previousContent } from '../../report/period-data.js';
import { need, type ProjectStep } from '../pipeline.js';
import { sectionSwitches } from '../sections.js';
import { rankingOf, type SharedData } from '../shared.js';

export const assemble: ProjectStep = {
  name: 'assemble',
  lane: 'print',
  async run(work, ctx) {
    const { config, period } = ctx;
    const { project } = work;
    const report = need(work, 'report', 'assemble');
    const override = config.clients[String(project.id)];
    const language: Language = override?.language ?? config.report.language;
    const ranking = rankingOf(ctx.shared, project.id);
    const previousData = await ctx.lastPeriod.data(project.id);
    const previous = previousData === null ? null : previousContent(previousData, config.api.fields);
    const generatedAt = ctx.clock().toISOString();
    const model = assembleReport({
      project,
      report: report.content,
      ranking,
      previous,
      period,
      generatedAt,
      language,
      phrases: ctx.renderer.locales.phrases(language),
      branding: ctx.branding,
      client: {
        ...(override?.displayName !== undefined ? { displayName: override.displayName } : {}),
        ...(override?.note !== undefined ? { note: override.note } : {}),
        sections: sectionSwitches(config, project.id),
      },
      checks: { requiredSections: config.report.requiredSections, maxScoreDrop: config.report.maxScoreDrop },
    });
    work.notes.push(...report.reading.notes, ...rankingNotes(ctx.shared, ranking, model));
    // What the report is made of, as the API sent it: kept as data.json, read again next month.
    work.periodData = buildPeriodData({
      period,
      fetchedAt: generatedAt,
      project,
      report: report.answer,
      content: report.content,
      ranking,
      stats: ctx.shared.statsData,
      notes: work.notes,
      previous,
    });
    work.language = language;
    work.model = model;
    return true;
  },
};

/** What the agency should know about the comparison figures of one report. */
function rankingNotes(shared: SharedData, ranking: Ranking | null, model: ReportModel): string[] {
  if (model.scores === null) return [];
  if (shared.competitors === null) return ['Benchmark and percentile not available: the competitors answer could not be read.'];
  const notes: string[] = [];
  if (ranking?.row === null) notes.push('This project has no row in the competitors answer: percentile and gap to the benchmark not available.');
  else if (ranking?.row.percentile === null) notes.push("Percentile not found in this project's competitors row.");
  if (ranking?.benchmark.geo?.average == null) notes.push('Benchmark average (GEO) not found in the competitors answer.');
  return notes;
}
