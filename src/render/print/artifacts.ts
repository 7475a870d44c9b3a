// The running header and footer as artifacts: Chromium draws them (the @page margin boxes, the footer template)
// outside any marked content, which PDF/UA reads as content left untagged. Each text object drawn outside marked
// content is wrapped in `/Artifact BMC … EMC`, so a checker, and a reader that follows marked content, knows it for
// page furniture. The body's text, already inside marked content the structure tree points at, is not touched.
import { deflateSync, inflateSync } from 'node:zlib';
import { PDFArray, PDFName, PDFRawStream, PDFRef, type PDFDocument, type PDFObject } from 'pdf-lib';

const OPEN = Buffer.from('/Artifact BMC\n', 'latin1');
const CLOSE = Buffer.from('\nEMC', 'latin1');

/** The bytes that end a token of a content stream (PDF 32000-1, 7.2.2): 1 white space, 2 a delimiter. */
const KIND = new Uint8Array(256);
for (const byte of [0x20, 0x0a, 0x0d, 0x09, 0x0c, 0x00]) KIND[byte] = 1;
for (const char of '()<>[]{}/%') KIND[char.charCodeAt(0)] = 2;
const isSpace = (byte: number): boolean => KIND[byte] === 1;
const ends = (byte: number): boolean => KIND[byte] !== 0;
const B = 0x42;
const C = 0x43;
const D = 0x44;
const E = 0x45;
const I = 0x49;
const M = 0x4d;
const T = 0x54;

/** Where the text objects drawn outside marked content start and end: [start of BT, end of ET] pairs. */
export function untaggedTextObjects(content: Uint8Array, depthBefore = 0): { spans: Array<[number, number]>; depthAfter: number } | null {
  const spans: Array<[number, number]> = [];
  let depth = depthBefore;
  let textStart: number | null = null;
  let i = 0;
  const n = content.length;
  while (i < n) {
    const byte = content[i] ?? 0;
    if (isSpace(byte)) {
      i += 1;
    } else if (byte === 0x25 /* % */) {
      while (i < n && content[i] !== 0x0a && content[i] !== 0x0d) i += 1;
    } else if (byte === 0x28 /* ( */) {
      // A literal string: balanced parentheses, backslash escapes.
      let nesting = 0;
      while (i < n) {
        const c = content[i];
        if (c === 0x5c) i += 2;
        else {
          if (c === 0x28) nesting += 1;
          else if (c === 0x29) nesting -= 1;
          i += 1;
          if (nesting === 0) break;
        }
      }
    } else if (byte === 0x3c /* < */) {
      if (content[i + 1] === 0x3c) i += 2;
      else {
        while (i < n && content[i] !== 0x3e) i += 1;
        i += 1;
      }
    } else if (byte === 0x3e /* > */ || byte === 0x5b || byte === 0x5d || byte === 0x7b || byte === 0x7d) {
      i += 1;
    } else {
      const start = i;
      i += 1;
      while (i < n && !ends(content[i] ?? 0)) i += 1;
      // Only the operators that open or close marked content and text objects matter; numbers and names do not.
      if (byte !== B && byte !== E) continue;
      const second = content[start + 1];
      const length = i - start;
      if (length === 3 && content[start + 2] === C && (second === D || second === M) && byte === B) depth += 1;
      else if (length === 3 && byte === E && second === M && content[start + 2] === C) depth = Math.max(0, depth - 1);
      else if (length === 2 && second === T) {
        if (byte === B && depth === 0) textStart = start;
        else if (byte === E && textStart !== null) {
          spans.push([textStart, i]);
          textStart = null;
        }
      } else if (length === 2 && byte === B && second === I) return null; // inline image data is binary: left as it is
    }
  }
  return { spans, depthAfter: depth };
}

/** `content` with each span wrapped as an artifact. */
export function wrapAsArtifacts(content: Uint8Array, spans: ReadonlyArray<readonly [number, number]>): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(Buffer.from(content.subarray(at, start)), OPEN, Buffer.from(content.subarray(start, end)), CLOSE);
    at = end;
  }
  parts.push(Buffer.from(content.subarray(at)));
  return Buffer.concat(parts);
}

/**
 * Marks, on every page, the text drawn outside marked content as an artifact. Pages whose content streams are not
 * plain or Flate-compressed (none that Chromium writes) are left as printed. Returns the number of text objects marked.
 */
export function markArtifacts(doc: PDFDocument): number {
  let marked = 0;
  for (const page of doc.getPages()) {
    const contents = page.node.get(PDFName.of('Contents'));
    const refs: PDFObject[] = contents instanceof PDFArray ? contents.asArray() : contents === undefined ? [] : [contents];
    let depth = 0;
    for (const ref of refs) {
      if (!(ref instanceof PDFRef)) break;
      const stream = doc.context.lookup(ref);
      if (!(stream instanceof PDFRawStream)) break;
      const filter = stream.dict.get(PDFName.of('Filter'));
      const flate = filter === PDFName.of('FlateDecode');
      if (filter !== undefined && !flate) break;
      const content = flate ? inflateSync(stream.contents) : Buffer.from(stream.contents);
      const found = untaggedTextObjects(content, depth);
      if (found === null) break;
      depth = found.depthAfter;
      if (found.spans.length === 0) continue;
      marked += found.spans.length;
      const wrapped = wrapAsArtifacts(content, found.spans);
      const dict = stream.dict.clone(doc.context);
      dict.delete(PDFName.of('DecodeParms'));
      dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
      const bytes = deflateSync(wrapped);
      dict.set(PDFName.of('Length'), doc.context.obj(bytes.length));
      doc.context.assign(ref, PDFRawStream.of(dict, bytes));
    }
  }
  return marked;
}
