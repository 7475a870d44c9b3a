// Step: report.html, self-contained (styles, fonts, logo and charts inline).
import { createHash } from 'node:crypto';
import { ensureDir, insideRoot } from '../../output/store.js';
import { printerCopy } from '../../render/html.js';
import { inBackground, need, reportFile, type ProjectStep, type RenderContext } from '../pipeline.js';

export const renderHtml: ProjectStep<RenderContext> = {
  name: 'render HTML',
  lane: 'print',
  async run(work, ctx) {
    const model = need(work, 'model', 'render HTML');
    await ensureDir(insideRoot(ctx.periodDir, work.entry.slug));
    const file = reportFile(work, 'report.html');
    const htmlPath = insideRoot(ctx.periodDir, file);
    // Checked as it is made (an UnsafePageError when it breaks the pages' rules).
    const { before, after } = ctx.renderer.renderReportParts(model);
    const { fonts } = ctx.renderer;
    // Self-contained on disk (fonts inline, from bytes made once), written while Chromium prints.
    inBackground(work, ctx.writeFile(htmlPath, [before, fonts.embeddedBytes, after]));
    // The bytes the check passed, for publish: it checks a page again only when its bytes are not these.
    work.checkedPage = createHash('sha256').update(before).update(fonts.embeddedBytes).update(after).digest('hex');
    // The same page for the printer with its fonts loaded by URL: decoded once by the printer's pages, and the
    // 240 KB of inline fonts neither copied nor sent to Chromium for every report.
    work.html = `${printerCopy(before)}${fonts.linked}${after}`;
    work.printAssets = fonts.assets;
    work.htmlPath = htmlPath;
    work.files.html = file;
    return true;
  },
};
