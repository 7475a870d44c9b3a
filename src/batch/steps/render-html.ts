// Step: report.html, self-contained (styles, fonts, logo and charts inline).
import { join } from 'node:path';
import { ensureDir, insideRoot, writeFileAtomic } from '../../output/store.js';
import { inBackground, need, type ProjectStep } from '../pipeline.js';

export const renderHtml: ProjectStep = {
  name: 'render HTML',
  lane: 'print',
  async run(work, ctx) {
    const model = need(work, 'model', 'render HTML');
    const dir = insideRoot(ctx.periodDir, work.entry.slug);
    await ensureDir(dir);
    const htmlPath = join(dir, 'report.html');
    const html = ctx.renderer.renderReport(model);
    // Written (and flushed to disk) while Chromium prints the same bytes from memory.
    inBackground(work, writeFileAtomic(htmlPath, html));
    work.html = html;
    work.htmlPath = htmlPath;
    work.files.html = `${work.entry.slug}/report.html`;
    return true;
  },
};
