// Step: data.json, the raw API data the report was made from (next month's comparison reads it).
import { join } from 'node:path';
import { ensureDir, insideRoot, writeFileAtomic } from '../../output/store.js';
import { need, type ProjectStep } from '../pipeline.js';

export const writeData: ProjectStep = {
  name: 'write data',
  lane: 'print',
  async run(work, ctx) {
    const periodData = need(work, 'periodData', 'write data');
    const dir = insideRoot(ctx.periodDir, work.entry.slug);
    await ensureDir(dir);
    await writeFileAtomic(join(dir, 'data.json'), `${JSON.stringify(periodData, null, 2)}\n`);
    work.files.data = `${work.entry.slug}/data.json`;
    return true;
  },
};
