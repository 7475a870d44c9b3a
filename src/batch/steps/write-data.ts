// Step: data.json, the raw API data the report was made from, with its notes (next month's comparison reads it).
import { join } from 'node:path';
import { ensureDir, insideRoot } from '../../output/store.js';
import { buildPeriodData } from '../../report/period-data.js';
import { inBackground, need, type ProjectStep } from '../pipeline.js';

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
    const dir = insideRoot(ctx.periodDir, work.entry.slug);
    await ensureDir(dir);
    inBackground(work, ctx.writeFile(join(dir, 'data.json'), `${JSON.stringify(periodData, null, 2)}\n`));
    work.files.data = `${work.entry.slug}/data.json`;
    return true;
  },
};
