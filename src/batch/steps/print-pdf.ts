// Step: report.pdf, printed from report.html by the pooled, sealed Chromium, as a book (a contents page when the
// report is long enough) and finished for readers and archives (src/render/print/book.ts).
import { insideRoot } from '../../output/store.js';
import { printBook } from '../../render/print/book.js';
import { footerText, pageLabel } from '../../render/print/footer.js';
import { protectPdf } from '../../render/print/protect.js';
import type { ReportModel } from '../../report/model.js';
import { disagreementMessage, disagreements, pdfText, shownInPdfText } from '../../report/view-check.js';
import { inBackground, need, reportFile, type ProjectStep, type ProjectWork, type RenderContext } from '../pipeline.js';

/** The pages the score cards are printed on (their section's first and the next); null: the whole report. */
function pagesOfScores(contents: ReadonlyMap<string, number> | null, pageCount: number): { first: number; last: number } | null {
  const first = contents?.get('scores-title');
  return first === undefined ? null : { first, last: Math.min(first + 1, pageCount) };
}

/**
 * The printed PDF read back (poppler's pdftotext, on the pages of the headline figures): a score it prints that is
 * not its fact's figure holds the report, with the fact named in the agency's language.
 */
async function checkPrintedFacts(
  work: ProjectWork,
  ctx: RenderContext,
  model: ReportModel,
  pdf: Uint8Array,
  pages: { first: number; last: number } | null,
): Promise<void> {
  const text = await pdfText(pdf, pages);
  if (text === null) {
    work.notes.push('The printed PDF was not read back to check its figures: pdftotext (poppler-utils) is not installed.');
    return;
  }
  const found = disagreements('pdf', model.facts, shownInPdfText(text, ctx.renderer.locales.phrases(model.meta.language)));
  const agency = ctx.renderer.locales.phrases(ctx.config.report.language);
  for (const disagreement of found) model.held.push(disagreementMessage(disagreement, agency));
}

export const printPdf: ProjectStep<RenderContext> = {
  name: 'print PDF',
  lane: 'print',
  async run(work, ctx) {
    const model = need(work, 'model', 'print PDF');
    const language = need(work, 'language', 'print PDF');
    const printer = await ctx.printer();
    const phrases = ctx.renderer.locales.phrases(language);
    const { pdf, contents, pageCount } = await printBook(
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
    // Read back while the next report prints: the lane is not held for it; the record waits for it (writesDone).
    inBackground(work, checkPrintedFacts(work, ctx, model, pdf, pagesOfScores(contents, pageCount)));
    const bytes = ctx.pdfPassword === undefined ? Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength) : await protectPdf(pdf, ctx.pdfPassword);
    // Written whole or not at all, and flushed before the manifest says done, while the page prints the next report.
    const file = reportFile(work, 'report.pdf');
    inBackground(work, ctx.writeFile(insideRoot(ctx.periodDir, file), [bytes]));
    work.files.pdf = file;
    return true;
  },
};
