// A written PDF's text as pdf.js reads it (the library of Firefox's viewer and of many web viewers): each page's
// pieces of text with their place on the page and whether they belong to the structure tree (drawn inside marked
// content with an MCID) or stand outside it, as the running header and footer do.
import { readFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfTextPiece {
  text: string;
  /** From the page's left edge, in points. */
  x: number;
  /** Of the text's baseline, from the page's top edge, in points. */
  y: number;
  height: number;
  /** Drawn inside marked content that the structure tree points at (an MCID). */
  tagged: boolean;
  /** Drawn inside marked content named Artifact: page furniture (a running header or footer). */
  artifact: boolean;
}

export interface PdfTextPage {
  number: number;
  height: number;
  pieces: PdfTextPiece[];
}

export async function pdfTextPages(path: string): Promise<PdfTextPage[]> {
  const doc = await getDocument({ data: new Uint8Array(await readFile(path)), verbosity: 0 }).promise;
  try {
    const pages: PdfTextPage[] = [];
    for (let number = 1; number <= doc.numPages; number += 1) {
      const page = await doc.getPage(number);
      const [, , , top = 0] = page.view;
      const content = await page.getTextContent({ includeMarkedContent: true });
      const open: Array<{ tagged: boolean; artifact: boolean }> = [];
      const pieces: PdfTextPiece[] = [];
      for (const item of content.items) {
        if ('type' in item) {
          if (item.type === 'beginMarkedContentProps' || item.type === 'beginMarkedContent') {
            // pdf.js gives the tag, and null for marked content without an MCID, whatever its types say.
            const { id, tag } = item as { id: unknown; tag?: unknown };
            open.push({ tagged: typeof id === 'string' && id !== '', artifact: tag === 'Artifact' });
          } else if (item.type === 'endMarkedContent') open.pop();
          continue;
        }
        if (item.str.trim() === '') continue;
        pieces.push({
          text: item.str,
          x: item.transform[4] ?? 0,
          y: top - (item.transform[5] ?? 0),
          height: item.height,
          tagged: open.some((mark) => mark.tagged),
          artifact: open.some((mark) => mark.artifact),
        });
      }
      pages.push({ number, height: top, pieces });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
