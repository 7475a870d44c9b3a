// The running header and footer marked as artifacts: which text objects of a content stream stand outside marked
// content, read token by token (strings and names that look like operators are not operators), and how they are
// wrapped; a whole PDF made with pdf-lib marked and read back.
import { inflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream, PDFRef, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { markArtifacts, untaggedTextObjects, wrapAsArtifacts } from '../../src/render/print/artifacts.js';

const bytes = (text: string): Uint8Array => Buffer.from(text, 'latin1');

describe('the text objects outside marked content', () => {
  it('are found by their BT and ET, the ones inside BDC or BMC left alone', () => {
    const content = 'q BT /F1 8 Tf <0041> Tj ET Q\n/P <</MCID 0>> BDC BT (body) Tj ET EMC\n/Span BMC BT (x) Tj ET EMC BT (foot) Tj ET';
    const found = untaggedTextObjects(bytes(content));
    expect(found?.depthAfter).toBe(0);
    const spans = found?.spans.map(([start, end]) => content.slice(start, end));
    expect(spans).toEqual(['BT /F1 8 Tf <0041> Tj ET', 'BT (foot) Tj ET']);
    expect(Buffer.from(wrapAsArtifacts(bytes(content), found?.spans ?? [])).toString('latin1')).toBe(
      'q /Artifact BMC\nBT /F1 8 Tf <0041> Tj ET\nEMC Q\n/P <</MCID 0>> BDC BT (body) Tj ET EMC\n/Span BMC BT (x) Tj ET EMC /Artifact BMC\nBT (foot) Tj ET\nEMC',
    );
  });

  it('reads strings, names and comments as such: "BT", "EMC" or "(" inside them change nothing', () => {
    const content = '/P <</MCID 1>> BDC BT (EMC \\) ET (BT) EMC) Tj ET /EMC gs % EMC ET\nEMC BT <454d43> Tj ET';
    const found = untaggedTextObjects(bytes(content));
    expect(found?.spans.map(([start, end]) => content.slice(start, end))).toEqual(['BT <454d43> Tj ET']);
  });

  it('carries the depth of marked content from one stream of a page to the next, and gives up on inline images', () => {
    expect(untaggedTextObjects(bytes('/P <</MCID 0>> BDC BT (a) Tj ET'))?.depthAfter).toBe(1);
    expect(untaggedTextObjects(bytes('BT (b) Tj ET EMC'), 1)?.spans).toEqual([]);
    expect(untaggedTextObjects(bytes('BI /W 1 /H 1 ID \x00BT\xff EI'))).toBeNull();
  });
});

describe('a PDF marked', () => {
  it('has its untagged text in /Artifact marked content, page by page, and says how many it marked', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const label of ['one', 'two']) doc.addPage().drawText(`Page ${label}`, { x: 40, y: 40, size: 8, font });
    // Read back as a printed PDF is: its content streams as written, compressed.
    const printed = await PDFDocument.load(await doc.save());
    expect(markArtifacts(printed)).toBe(2);
    const reread = await PDFDocument.load(await printed.save());
    for (const page of reread.getPages()) {
      const contents = page.node.get(PDFName.of('Contents'));
      const refs = contents instanceof PDFRef ? [contents] : (reread.context.lookup(contents) as unknown as { asArray(): PDFRef[] }).asArray();
      const text = refs
        .map((ref) => reread.context.lookup(ref) as PDFRawStream)
        .map((stream) => (stream.dict.get(PDFName.of('Filter')) === undefined ? Buffer.from(stream.contents) : inflateSync(stream.contents)).toString('latin1'))
        .join('\n');
      expect(text).toMatch(/\/Artifact BMC\nBT[\s\S]*ET\nEMC/);
    }
    expect(markArtifacts(reread)).toBe(0);
  });
});
