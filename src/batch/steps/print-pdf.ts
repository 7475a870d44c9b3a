// Step: report.pdf, printed from report.html by the pooled, sealed Chromium.
import { insideRoot } from '../../output/store.js';
import { footerText, pageLabel } from '../../render/print/footer.js';
import { inBackground, need, reportFile, type ProjectStep, type RenderContext } from '../pipeline.js';

export const printPdf: ProjectStep<RenderContext> = {
  name: 'print PDF',
  lane: 'print',
  async run(work, ctx) {
    const model = need(work, 'model', 'print PDF');
    const language = need(work, 'language', 'print PDF');
    const printer = await ctx.printer();
    const { pdf } = await printer.printToMemory({
      htmlPath: need(work, 'htmlPath', 'print PDF'),
      html: need(work, 'html', 'print PDF'),
      ...(work.printAssets === undefined ? {} : { assets: work.printAssets }),
      language,
      footerText: footerText(model.branding, model),
      pageLabel: pageLabel(ctx.renderer.locales.phrases(language)),
    });
    // Written whole or not at all, and flushed before the manifest says done, while the page prints the next report.
    const file = reportFile(work, 'report.pdf');
    inBackground(work, ctx.writeFile(insideRoot(ctx.periodDir, file), pdf));
    work.files.pdf = file;
    return true;
  },
};
