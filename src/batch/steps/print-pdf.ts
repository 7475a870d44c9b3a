// Step: report.pdf, printed from report.html by the pooled, sealed Chromium, as a book (a contents page when the
// report is long enough) and finished for readers and archives (src/render/print/book.ts).
import { insideRoot } from '../../output/store.js';
import { printBook } from '../../render/print/book.js';
import { footerText, pageLabel } from '../../render/print/footer.js';
import { protectPdf } from '../../render/print/protect.js';
import { inBackground, need, reportFile, type ProjectStep, type RenderContext } from '../pipeline.js';

export const printPdf: ProjectStep<RenderContext> = {
  name: 'print PDF',
  lane: 'print',
  async run(work, ctx) {
    const model = need(work, 'model', 'print PDF');
    const language = need(work, 'language', 'print PDF');
    const printer = await ctx.printer();
    const phrases = ctx.renderer.locales.phrases(language);
    const { pdf } = await printBook(
      printer,
      {
        htmlPath: need(work, 'htmlPath', 'print PDF'),
        html: need(work, 'html', 'print PDF'),
        ...(work.printAssets === undefined ? {} : { assets: work.printAssets }),
        language,
        footerText: footerText(model.branding, model),
        pageLabel: pageLabel(phrases),
      },
      {
        facts: {
          title: model.meta.title,
          author: model.branding.agencyName,
          subject: `${phrases['report.subtitle'] ?? 'GEO & SEO report'} — ${model.client.name} — ${model.meta.periodLabel}`,
          language,
        },
        contentsFromPages: ctx.config.report.pdf.contentsFromPages,
        phrases: { title: phrases['print.contents'] ?? 'Contents', page: phrases['print.contentsPage'] ?? 'Page' },
      },
    );
    const bytes = ctx.pdfPassword === undefined ? Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength) : await protectPdf(pdf, ctx.pdfPassword);
    // Written whole or not at all, and flushed before the manifest says done, while the page prints the next report.
    const file = reportFile(work, 'report.pdf');
    inBackground(work, ctx.writeFile(insideRoot(ctx.periodDir, file), [bytes]));
    work.files.pdf = file;
    return true;
  },
};
