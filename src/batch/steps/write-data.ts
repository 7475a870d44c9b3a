// Step: data.json, the raw API data the report was made from, with its notes (next month's comparison reads it).
import { ensureDir, insideRoot } from '../../output/store.js';
import { buildPeriodData } from '../../report/period-data.js';
import { inBackground, need, reportFile, type ProjectStep } from '../pipeline.js';

export const writeData: ProjectStep = {
  name: 'write data',
  lane: 'print',
  async run(work, ctx) {
    const report = need(work, 'report', 'write data');
    const model = need(work, 'model', 'write data');
    const periodData = buildPeriodData({
      period: ctx.period,
      fetchedAt: model.meta.generatedAt,
      project: work.project,
      report: report.answer,
      content: report.content,
      ranking: work.ranking ?? null,
      stats: ctx.shared.statsData,
      notes: work.notes,
      previous: work.previous ?? null,
      scan: work.scan ?? null,
      facts: model.facts,
    });
    await ensureDir(insideRoot(ctx.periodDir, work.entry.slug));
    const file = reportFile(work, 'data.json');
    inBackground(work, ctx.writeFile(insideRoot(ctx.periodDir, file), `${JSON.stringify(periodData, null, 2)}\n`));
    work.files.data = file;
    return true;
  },
};
