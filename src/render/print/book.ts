// A report printed as a book: the contents page after the cover with the page each section starts on, then the
// finishing (metadata, RoleMap, figures). The numbers are read from a print, not guessed: print with the numbers
// blank, read the page of each heading from the PDF's named destinations, print again with them, and check that the
// second print put every section where its number says (a number that moved the layout is printed once more).
import { PdfPrintError } from './errors.js';
import { planContents, withContents, type ContentsPhrases } from './contents.js';
import { PrintedPdf, type PdfFacts } from './finish.js';
import type { PrintJob } from './printer.js';

/** Prints beyond the first that may pass before the numbers settle; in practice the second print confirms them. */
const MAX_PRINTS = 4;

export interface BookOptions {
  facts: PdfFacts;
  /**
   * A report that prints to fewer pages than this (its contents page counted) is printed without one; false: never.
   * @default 6
   */
  contentsFromPages: number | false;
  phrases: ContentsPhrases;
}

export interface BookPrinter {
  printToMemory(job: Omit<PrintJob, 'pdfPath'>): Promise<{ pdf: Buffer[]; blockedRequests: string[] }>;
}

export interface PrintedBook {
  pdf: Uint8Array;
  pageCount: number;
  /** The page each listed section starts on; null when the report has no contents page. */
  contents: ReadonlyMap<string, number> | null;
  blockedRequests: string[];
  /** Chromium's prints this report took (1 without a contents page, 2 as a rule with one). */
  prints: number;
}

type BookJob = Omit<PrintJob, 'pdfPath' | 'html'> & { html: string };

export async function printBook(printer: BookPrinter, job: BookJob, options: BookOptions): Promise<PrintedBook> {
  const blockedRequests: string[] = [];
  let prints = 0;
  const print = async (html: string): Promise<PrintedPdf> => {
    const printed = await printer.printToMemory({ ...job, html });
    prints += 1;
    for (const request of printed.blockedRequests) if (!blockedRequests.includes(request)) blockedRequests.push(request);
    return PrintedPdf.read(printed.pdf);
  };
  const finished = async (pdf: PrintedPdf, contents: ReadonlyMap<string, number> | null): Promise<PrintedBook> => ({
    pdf: await pdf.finish(options.facts),
    pageCount: pdf.pageCount,
    contents,
    blockedRequests,
    prints,
  });

  const plan = options.contentsFromPages === false ? null : planContents(job.html);
  if (plan === null) return finished(await print(job.html), null);
  let numbers: Map<string, number> | null = null;
  while (prints < MAX_PRINTS) {
    const pdf = await print(withContents(job.html, plan, options.phrases, numbers));
    if (numbers === null && pdf.pageCount < (options.contentsFromPages as number)) return finished(await print(job.html), null);
    const destinations = pdf.destinationPages();
    const landed = new Map<string, number>();
    for (const entry of plan.entries) {
      const page = destinations.get(entry.id);
      if (page === undefined) {
        throw new PdfPrintError(`Printing ${job.htmlPath}: the section "${entry.title}" (#${entry.id}) has no place in the printed PDF.`, {
          hint: 'A section the contents page lists must be printed: check that the template does not hide it in print, or set report.pdf.contentsFromPages to false.',
        });
      }
      landed.set(entry.id, page);
    }
    if (numbers !== null && sameNumbers(numbers, landed)) return finished(pdf, landed);
    numbers = landed;
  }
  throw new PdfPrintError(`Printing ${job.htmlPath}: the contents page's numbers moved the sections at each of ${MAX_PRINTS} prints.`, {
    hint: 'Set report.pdf.contentsFromPages to false for this report, or give .contents__page a fixed width in extra.css.',
  });
}

function sameNumbers(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([id, page]) => b.get(id) === page);
}
