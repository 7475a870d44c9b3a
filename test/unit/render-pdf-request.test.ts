// The printer sends Page.printToPDF itself (to read the PDF back in small chunks): its request must carry the
// very numbers Puppeteer's page.pdf() derives from the same options, so both print the same pages.
import { describe, expect, it } from 'vitest';
import { parsePDFOptions } from 'puppeteer-core/internal/common/util.js';
import { pdfOptions, printToPdfRequest } from '../../src/render/print/printer.js';

describe('printToPdfRequest', () => {
  it('matches what page.pdf(pdfOptions(job)) sends, field by field', () => {
    const job = { footerText: 'Northwind · Atelier Verdant · October 2026', pageLabel: 'Page {page} of {pages}', language: 'en' as const };
    const parsed = parsePDFOptions(pdfOptions(job));
    expect(printToPdfRequest(job)).toEqual({
      transferMode: 'ReturnAsStream',
      landscape: parsed.landscape,
      displayHeaderFooter: parsed.displayHeaderFooter,
      headerTemplate: parsed.headerTemplate,
      footerTemplate: parsed.footerTemplate,
      printBackground: parsed.printBackground,
      scale: parsed.scale,
      paperWidth: parsed.width,
      paperHeight: parsed.height,
      marginTop: parsed.margin.top,
      marginBottom: parsed.margin.bottom,
      marginLeft: parsed.margin.left,
      marginRight: parsed.margin.right,
      pageRanges: parsed.pageRanges,
      preferCSSPageSize: parsed.preferCSSPageSize,
      generateTaggedPDF: parsed.tagged,
      generateDocumentOutline: parsed.outline,
    });
    expect(printToPdfRequest(job).generateTaggedPDF).toBe(true);
  });
});
