// The images and fonts an agency's files reference, read from inside its folder into data: URIs, so that a report
// carries them and loads nothing.
import { lstat, readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { positionOf, type TemplateFile, type TemplateProblem } from './problems.js';
import type { InlineReference } from './sandbox.js';
import { fileInside } from './set.js';

/** Largest image or font a template may inline: every report carries it. */
export const MAX_INLINE_BYTES = 2 * 1024 * 1024;

/** What each file type allowed inline is, and whether it is a font. */
const INLINE_TYPES: Readonly<Record<string, { type: string; font: boolean }>> = {
  '.png': { type: 'image/png', font: false },
  '.jpg': { type: 'image/jpeg', font: false },
  '.jpeg': { type: 'image/jpeg', font: false },
  '.gif': { type: 'image/gif', font: false },
  '.webp': { type: 'image/webp', font: false },
  '.svg': { type: 'image/svg+xml', font: false },
  '.woff2': { type: 'font/woff2', font: true },
  '.woff': { type: 'font/woff', font: true },
  '.ttf': { type: 'font/ttf', font: true },
  '.otf': { type: 'font/otf', font: true },
};

/** The file a reference points at, as a data: URI; a problem at the reference when it cannot be inlined. */
async function inlineReference(agencyDir: string, reference: InlineReference, problems: TemplateProblem[]): Promise<string | null> {
  const at = { file: reference.file.path, ...positionOf(reference.file.text, reference.offset) };
  const fail = (message: string): null => {
    problems.push({ severity: 'error', ...at, message });
    return null;
  };
  let written: string;
  try {
    written = decodeURI(reference.written.replace(/[?#].*$/, ''));
  } catch {
    return fail(`"${reference.written}" is not a valid path`);
  }
  const kind = INLINE_TYPES[extname(written).toLowerCase()];
  const allowed = reference.fonts ? 'an image (PNG, JPEG, GIF, WebP, SVG) or a font (WOFF2, WOFF, TTF, OTF)' : 'an image (PNG, JPEG, GIF, WebP, SVG)';
  if (kind === undefined || (kind.font && !reference.fonts)) return fail(`"${reference.written}" must be ${allowed}`);
  // In a stylesheet, as in CSS, relative to the file; in a template, relative to the folder (the page's place).
  const wanted = resolve(reference.relativeTo === 'file' ? dirname(reference.file.path) : agencyDir, written);
  const inside = relative(agencyDir, wanted);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    return fail(`"${reference.written}" is outside the template folder; only files inside ${agencyDir} can be used`);
  }
  const real = await fileInside(agencyDir, inside);
  if (real === null) {
    const exists = await lstat(wanted).then(
      () => true,
      () => false,
    );
    return fail(
      exists
        ? `"${reference.written}" leads outside the template folder (a link); only files inside ${agencyDir} can be used`
        : `"${reference.written}" does not exist (looked for ${wanted})`,
    );
  }
  const bytes = await readFile(real);
  if (bytes.length > MAX_INLINE_BYTES) {
    return fail(
      `"${reference.written}" weighs ${Math.round(bytes.length / 1024)} KB; every report carries it, so it must stay under ${MAX_INLINE_BYTES / 1024 / 1024} MB`,
    );
  }
  return `data:${kind.type};base64,${bytes.toString('base64')}`;
}

/** `text` with each reference replaced by its data: URI. */
export function applyInlining(text: string, replacements: readonly Replacement[]): string {
  let result = text;
  for (const r of [...replacements].sort((a, b) => b.offset - a.offset)) {
    result = result.slice(0, r.offset) + r.uri + result.slice(r.offset + r.length);
  }
  return result;
}

/** Where a reference is written in its file, and the data: URI that replaces it. */
export interface Replacement {
  offset: number;
  length: number;
  uri: string;
}

/** Each file's references read into data: URIs; a problem at each reference that cannot be inlined. */
export async function inlineReferences(
  agencyDir: string,
  references: readonly InlineReference[],
  problems: TemplateProblem[],
): Promise<Map<TemplateFile, Replacement[]>> {
  const replacements = new Map<TemplateFile, Replacement[]>();
  for (const reference of references) {
    const uri = await inlineReference(agencyDir, reference, problems);
    if (uri === null) continue;
    const list = replacements.get(reference.file) ?? [];
    list.push({ offset: reference.offset, length: reference.written.length, uri });
    replacements.set(reference.file, list);
  }
  return replacements;
}
