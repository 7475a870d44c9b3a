// A report printed as a book: the contents page after the cover with the page each section starts on, then the
// finishing (metadata, RoleMap, figures). The numbers are read from a print, never trusted untried: the report is
// printed with the numbers the session's earlier books of the same sections had (an agency's reports are alike),
// the page of each heading read back from the PDF's named destinations, and the print kept when every section landed
// where its number says. Otherwise (no earlier book alike, or one that paged differently) it is printed again with
// the numbers read, until a print confirms its own numbers.
import { PdfPrintError } from './errors.js';
import { planContents, withContents, type ContentsPlan, type ContentsPhrases, type SectionMeasure } from './contents.js';
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
  /** Chromium's prints this report took: 1 without a contents page, and with one when the guessed numbers held. */
  prints: number;
}

/** How this process printed its books with sections to list, for the benchmark: books, prints, guesses that held. */
export interface BookCounts {
  books: number;
  prints: number;
  guessed: number;
  held: number;
}

const counts: BookCounts = { books: 0, prints: 0, guessed: 0, held: 0 };

export const bookCounts = (): BookCounts => ({ ...counts });

/** Books remembered per list of sections, the most recent kept. */
const BOOKS_KEPT = 64;
/** Lists of sections remembered per printer (an agency's reports have a few: languages, sections switched off). */
const LISTS_KEPT = 16;
/** Characters of text worth one block in the distance between two books (a line of a table is about as tall). */
const CHARACTERS_PER_BLOCK = 80;

interface RememberedBook {
  /** What the sections before each entry hold (reachOf). */
  reach: readonly number[];
  numbers: ReadonlyMap<string, number>;
}

/**
 * The numbers a printer's earlier books settled on, by their list of sections (ids and titles). A section's page
 * follows from how much the sections before it hold: each number is guessed from the earlier book whose sections
 * up to that one held the most nearly as much (the most recent among equals).
 */
class ContentsGuesses {
  private readonly lists = new Map<string, RememberedBook[]>();

  guess(plan: ContentsPlan): Map<string, number> | null {
    const books = this.lists.get(listKey(plan));
    if (books === undefined || books.length === 0) return null;
    const here = reachOf(plan.measures);
    const numbers = new Map<string, number>();
    plan.entries.forEach((entry, index) => {
      let best: number | undefined;
      let bestDistance = Number.POSITIVE_INFINITY;
      for (let i = books.length - 1; i >= 0; i -= 1) {
        const book = books[i] as RememberedBook;
        const distance = Math.abs((book.reach[index] ?? 0) - (here[index] ?? 0));
        if (distance < bestDistance) [best, bestDistance] = [book.numbers.get(entry.id), distance];
      }
      if (best !== undefined) numbers.set(entry.id, best);
    });
    return numbers;
  }

  record(plan: ContentsPlan, numbers: ReadonlyMap<string, number>): void {
    const key = listKey(plan);
    let books = this.lists.get(key);
    if (books === undefined) {
      if (this.lists.size >= LISTS_KEPT) this.lists.delete(this.lists.keys().next().value as string);
      books = [];
      this.lists.set(key, books);
    }
    if (books.length >= BOOKS_KEPT) books.shift();
    books.push({ reach: reachOf(plan.measures), numbers: new Map(numbers) });
  }
}

/** What the sections before each one hold, in blocks (text counted as blocks of 80 characters). */
function reachOf(measures: readonly SectionMeasure[]): number[] {
  let sum = 0;
  return measures.map((measure) => {
    const before = sum;
    sum += measure.blocks + measure.text / CHARACTERS_PER_BLOCK;
    return before;
  });
}

const listKey = (plan: ContentsPlan): string => JSON.stringify(plan.entries.map((entry) => [entry.id, entry.title]));

/** One memory per printer, so per session: it goes with the printer. */
const guessesOf = new WeakMap<BookPrinter, ContentsGuesses>();

type BookJob = Omit<PrintJob, 'pdfPath' | 'html'> & { html: string };

export async function printBook(printer: BookPrinter, job: BookJob, options: BookOptions): Promise<PrintedBook> {
  const plan = options.contentsFromPages === false ? null : planContents(job.html);
  const blockedRequests: string[] = [];
  let prints = 0;
  const print = async (html: string): Promise<PrintedPdf> => {
    const printed = await printer.printToMemory({ ...job, html });
    prints += 1;
    if (plan !== null) counts.prints += 1;
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

  if (plan === null) return finished(await print(job.html), null);
  counts.books += 1;
  let guesses = guessesOf.get(printer);
  if (guesses === undefined) {
    guesses = new ContentsGuesses();
    guessesOf.set(printer, guesses);
  }
  // The numbers printed: the guess first (blank without one: they take no room the layout depends on), then those read.
  let numbers = guesses.guess(plan);
  const guessed = numbers !== null;
  if (guessed) counts.guessed += 1;
  while (prints < MAX_PRINTS) {
    const pdf = await print(withContents(job.html, plan, options.phrases, numbers));
    if (prints === 1 && pdf.pageCount < (options.contentsFromPages as number)) return finished(await print(job.html), null);
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
    if (numbers !== null && sameNumbers(numbers, landed)) {
      if (guessed && prints === 1) counts.held += 1;
      guesses.record(plan, landed);
      return finished(pdf, landed);
    }
    numbers = landed;
  }
  throw new PdfPrintError(`Printing ${job.htmlPath}: the contents page's numbers moved the sections at each of ${MAX_PRINTS} prints.`, {
    hint: 'Set report.pdf.contentsFromPages to false for this report, or give .contents__page a fixed width in extra.css.',
  });
}

function sameNumbers(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([id, page]) => b.get(id) === page);
}
