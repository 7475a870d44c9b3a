// How far down each page of a PDF its content reaches, measured on the pages as printed: each page is rasterised
// by pdftoppm and the lowest row holding a pixel unlike the page's background (read at its top-left corner) is
// found above the footer band, where Chromium draws the running footer.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The report's bottom page margin (report.css `@page`, render/print/printer.ts): the footer band, left out of the measure. */
export const FOOTER_BAND_MM = 18;
const A4_HEIGHT_MM = 297;
/** A pixel is content when one of its channels differs from the background's by more than this. */
const TOLERANCE = 24;

export interface PageFill {
  /** 1-based page number. */
  page: number;
  /** Lowest content row above the footer band, as a share of the page's height (0 for an empty page). */
  bottom: number;
}

/** Each page's fill, rasterised at `dpi` (30 is enough to tell a row of text from blank paper). */
export async function pageFills(pdfPath: string, dpi = 30): Promise<PageFill[]> {
  const dir = await mkdtemp(join(tmpdir(), 'geo-page-fill-'));
  try {
    await run('pdftoppm', ['-r', String(dpi), pdfPath, join(dir, 'p')], { maxBuffer: 16 * 1024 * 1024 });
    // pdftoppm pads the page number to the width of the last one: a name order is the page order.
    const files = (await readdir(dir)).filter((name) => name.endsWith('.ppm')).sort();
    const fills: PageFill[] = [];
    for (const [index, name] of files.entries()) {
      fills.push({ page: index + 1, bottom: lowestContentRow(parsePpm(await readFile(join(dir, name)))) });
    }
    return fills;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pages, neither the cover (first) nor the last, whose content ends above `share` of the page's height. */
export function shortMiddlePages(fills: readonly PageFill[], share = 0.55): PageFill[] {
  return fills.slice(1, -1).filter((fill) => fill.bottom < share);
}

interface Raster {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, row after row. */
  pixels: Buffer;
}

/** A binary PPM (P6, 8 bits a channel), as pdftoppm writes it. */
export function parsePpm(data: Buffer): Raster {
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(data.subarray(0, 64).toString('latin1'));
  if (header === null || header[3] !== '255') throw new Error('not an 8-bit binary PPM (P6)');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const pixels = data.subarray(header[0].length);
  if (pixels.length < width * height * 3) throw new Error(`PPM of ${width}×${height} holds ${pixels.length} bytes`);
  return { width, height, pixels };
}

/** The lowest row above the footer band with a pixel unlike the top-left one, as a share of the height. */
export function lowestContentRow({ width, height, pixels }: Raster): number {
  const background = [pixels[0] ?? 255, pixels[1] ?? 255, pixels[2] ?? 255];
  const above = Math.floor(height * (1 - FOOTER_BAND_MM / A4_HEIGHT_MM));
  for (let y = above - 1; y >= 0; y -= 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 3;
      for (let channel = 0; channel < 3; channel += 1) {
        if (Math.abs((pixels[at + channel] ?? 0) - (background[channel] ?? 0)) > TOLERANCE) return (y + 1) / height;
      }
    }
  }
  return 0;
}
