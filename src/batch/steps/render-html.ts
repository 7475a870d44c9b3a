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
    const { before, after, linkable } = ctx.renderer.renderReportParts(model);
    const shared = ctx.renderer.reportStyles;
    // Self-contained on disk (fonts and styles inline, from bytes made once), written while Chromium prints.
    inBackground(work, writeFileAtomic(htmlPath, [before, shared.embeddedBytes, after]));
    // The same page for the printer with its fonts and stylesheet loaded by URL: decoded and parsed once by the
    // printer's pages, and neither copied nor sent to Chromium for every report.
    if (linkable) {
      work.html = `${before}${shared.linked}${after}`;
      work.printAssets = shared.assets;
    } else {
      work.html = `${before}${shared.embedded}${after}`;
    }
    work.htmlPath = htmlPath;
    work.files.html = `${work.entry.slug}/report.html`;
    return true;
  },
};
