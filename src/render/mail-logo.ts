// The logo as a mail carries it: Gmail on the web and Outlook 2007–2016 show no SVG (their readers would see the alt
// text where the logo should be), so an SVG logo is drawn once as a PNG, twice its size in the mail for sharp
// screens, and kept by the hash of what it was drawn from: the next send (or the send after the run that drew it)
// reads it back without a browser. A raster logo goes as it is.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorMessage } from '../errors.js';

/** How the mail shows its logo: email.hbs sets this height, and at most this width. */
export const MAIL_LOGO_BOX = { height: 40, maxWidth: 220 } as const;
/** Device pixels per CSS pixel of the drawing: 2, as phones and most laptops have. */
export const MAIL_LOGO_SCALE = 2;

/** Draws an element of a self-contained page as a PNG (the run's browser: PdfPrinter.picture). */
export type DrawPicture = (job: { label: string; html: string; selector: string; scale: number }) => Promise<Buffer>;

export interface MailLogoOptions {
  /** Where drawings are kept by content hash (`<output>/.cache`); null keeps none. */
  cacheDir: string | null;
  /** The browser that draws an SVG logo not drawn before; called at most once per logo. */
  draw: () => Promise<DrawPicture>;
}

/** The logo for the mail: a PNG (or JPEG, GIF, WebP) data: URI, or null when an SVG logo could not be drawn. */
export interface MailLogo {
  dataUri: string | null;
  /** Why an SVG logo goes without its image (the agency's name is set in its place); null when all went well. */
  problem: string | null;
}

const SVG_DATA_URI = /^data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)$/;

/** True for a logo a mail cannot carry as it is. */
export function isSvgLogo(logoDataUri: string | undefined): boolean {
  return logoDataUri !== undefined && SVG_DATA_URI.test(logoDataUri);
}

/** The file an SVG's drawing is kept in: named by the hash of the SVG and of how it is drawn. Pure. */
export function mailLogoFileName(svg: Buffer): string {
  const hash = createHash('sha256').update(`${MAIL_LOGO_BOX.height}x${MAIL_LOGO_BOX.maxWidth}@${MAIL_LOGO_SCALE}\n`).update(svg).digest('hex').slice(0, 32);
  return `mail-logo-${hash}@${MAIL_LOGO_SCALE}x.png`;
}

/** The page an SVG logo is drawn from: the image alone, at the mail's height (the width follows its proportions). Pure. */
export function mailLogoPage(svgDataUri: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>logo</title>' +
    '<style>html,body{margin:0;padding:0;background:transparent}' +
    `img{display:block;height:${MAIL_LOGO_BOX.height}px;width:auto;max-width:${MAIL_LOGO_BOX.maxWidth}px;object-fit:contain}</style>` +
    `</head><body><img id="logo" alt="" src="${svgDataUri}"></body></html>`
  );
}

/** The logo the mail carries: a raster logo as it is; an SVG one drawn as a PNG (kept), or none when it cannot be. */
export async function mailLogo(logoDataUri: string | undefined, options: MailLogoOptions): Promise<MailLogo> {
  if (logoDataUri === undefined) return { dataUri: null, problem: null };
  const svg = SVG_DATA_URI.exec(logoDataUri);
  if (svg === null) return { dataUri: logoDataUri, problem: null };
  const bytes = Buffer.from(svg[1] ?? '', 'base64');
  const kept = options.cacheDir === null ? null : join(options.cacheDir, mailLogoFileName(bytes));
  if (kept !== null) {
    const png = await readFile(kept).catch(() => null);
    if (png !== null && isPng(png)) return { dataUri: pngDataUri(png), problem: null };
  }
  let png: Buffer;
  try {
    const draw = await options.draw();
    png = await draw({ label: "the mail's logo", html: mailLogoPage(logoDataUri), selector: '#logo', scale: MAIL_LOGO_SCALE });
    if (!isPng(png)) throw new Error('the browser returned no PNG');
  } catch (error) {
    return {
      dataUri: null,
      problem: `the SVG logo could not be drawn as a PNG for the mail (${errorMessage(error)}), so the mail shows the agency's name in its place; give agency.logo as PNG, or check the browser`,
    };
  }
  if (kept !== null) {
    // A drawing not kept is drawn again next time: nothing is lost.
    await keep(kept, png).catch(() => undefined);
  }
  return { dataUri: pngDataUri(png), problem: null };
}

/** Written beside then renamed: a send reading it meanwhile never meets half a PNG. */
async function keep(path: string, png: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, png);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Where an output folder keeps the drawings of its logos (mail-logo-<hash>@2x.png). */
export function mailLogoCache(outDir: string): string {
  return join(outDir, '.cache');
}

function pngDataUri(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(bytes: Buffer): boolean {
  return bytes.length > 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
}

/**
 * The size in CSS pixels the mail shows a PNG logo at, for its `width` and `height` attributes (Outlook sizes an
 * image by its attributes, not its style: a drawing at twice the size would show twice as large): the mail's
 * height, or less for a logo wider than the mail's widest, in the image's proportions. Null for another format,
 * or a PNG that does not say its size. Pure.
 */
export function mailLogoSize(logoDataUri: string | null): { width: number; height: number } | null {
  const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(logoDataUri ?? '');
  if (match === null) return null;
  const png = Buffer.from(match[1] ?? '', 'base64');
  if (!isPng(png) || png.toString('ascii', 12, 16) !== 'IHDR') return null;
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width === 0 || height === 0) return null;
  const { height: boxHeight, maxWidth } = MAIL_LOGO_BOX;
  if (boxHeight * width <= maxWidth * height) return { width: Math.max(1, Math.round((boxHeight * width) / height)), height: boxHeight };
  return { width: maxWidth, height: Math.max(1, Math.round((maxWidth * height) / width)) };
}
