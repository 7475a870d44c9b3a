// The PDF's finishing, after Chromium printed it: what a screen reader, an archive and a PDF/UA checker look for
// and Chromium does not write (XMP metadata with pdfuaid, the author and subject, a RoleMap for the structure types
// it invents, alternative text where a figure only groups others), and the places where each section landed, read
// back for the contents page. One parse and one write per report; the tags, links and outline are kept as printed.
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFInvalidObject,
  PDFName,
  PDFRef,
  PDFStream,
  PDFString,
  PDFHexString,
  type PDFContext,
  type PDFObject,
} from 'pdf-lib';
import { markArtifacts } from './artifacts.js';

/** What the finished PDF says about itself. */
export interface PdfFacts {
  title: string;
  /** The agency: the document's author, as a client's PDF reader shows it. */
  author: string;
  subject: string;
  /** BCP 47, as the report's <html lang>. */
  language: string;
}

/** The structure types of PDF 1.7 (ISO 32000-1, 14.8.4): PDF/UA wants every other type mapped to one of these. */
const STANDARD_TYPES = new Set([
  'Document', 'Part', 'Art', 'Sect', 'Div', 'BlockQuote', 'Caption', 'TOC', 'TOCI', 'Index', 'NonStruct', 'Private',
  'P', 'H', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'L', 'LI', 'Lbl', 'LBody', 'Table', 'THead', 'TBody', 'TFoot', 'TR',
  'TH', 'TD', 'Span', 'Quote', 'Note', 'Reference', 'BibEntry', 'Code', 'Link', 'Annot', 'Ruby', 'RB', 'RT', 'RP',
  'Warichu', 'WT', 'WP', 'Figure', 'Formula', 'Form',
]); // prettier-ignore

/** PDF 2.0 types Chromium writes (from <strong>, <aside>…), each to its nearest PDF 1.7 type; any other to Div. */
const NEAREST_STANDARD: Readonly<Record<string, string>> = {
  Strong: 'Span',
  Em: 'Span',
  Sub: 'Span',
  Mark: 'Span',
  Aside: 'Div',
  Title: 'H',
  FENote: 'Note',
  DocumentFragment: 'Part',
  Artifact: 'NonStruct',
};

const NAME = {
  S: PDFName.of('S'),
  K: PDFName.of('K'),
  Alt: PDFName.of('Alt'),
  RoleMap: PDFName.of('RoleMap'),
  StructTreeRoot: PDFName.of('StructTreeRoot'),
  Metadata: PDFName.of('Metadata'),
  Version: PDFName.of('Version'),
  Dests: PDFName.of('Dests'),
  Names: PDFName.of('Names'),
  Kids: PDFName.of('Kids'),
  D: PDFName.of('D'),
} as const;

/** A printed PDF, parsed once: read where sections landed, then finish and write it. */
export class PrintedPdf {
  private constructor(private readonly doc: PDFDocument) {}

  static async read(pdf: Uint8Array | readonly Uint8Array[]): Promise<PrintedPdf> {
    const bytes = pdf instanceof Uint8Array ? pdf : Buffer.concat(pdf);
    // Parsed in one go: not spread over timer turns (parseSpeed), which only made the report wait under load.
    return new PrintedPdf(await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: Number.POSITIVE_INFINITY }));
  }

  get pageCount(): number {
    return this.doc.getPageCount();
  }

  /**
   * The page (from 1) of each named destination: Chromium writes one for every element a link of the report
   * points at (`href="#id"`), named by its id, so a contents entry reads the page its heading was printed on.
   */
  destinationPages(): Map<string, number> {
    const pageOf = new Map(this.doc.getPages().map((page, index) => [page.ref.toString(), index + 1]));
    const found = new Map<string, number>();
    const record = (name: PDFObject | undefined, target: PDFObject | undefined): void => {
      const text = nameText(name);
      let dest = this.resolve(target);
      if (dest instanceof PDFDict) dest = this.resolve(dest.get(NAME.D));
      const first = dest instanceof PDFArray ? dest.get(0) : undefined;
      const page = first instanceof PDFRef ? pageOf.get(first.toString()) : undefined;
      if (text !== null && page !== undefined) found.set(text, page);
    };
    // PDF 1.1 style: a dictionary of names in the catalog.
    const dests = this.resolve(this.doc.catalog.get(NAME.Dests));
    if (dests instanceof PDFDict) for (const [key, value] of dests.entries()) record(key, value);
    // PDF 1.2 style: a name tree under /Names /Dests.
    const names = this.resolve(this.doc.catalog.get(NAME.Names));
    const tree = names instanceof PDFDict ? this.resolve(names.get(NAME.Dests)) : undefined;
    const walk = (node: PDFObject | undefined, depth: number): void => {
      const dict = this.resolve(node);
      if (!(dict instanceof PDFDict) || depth > 32) return;
      const pairs = this.resolve(dict.get(NAME.Names));
      if (pairs instanceof PDFArray) for (let i = 0; i + 1 < pairs.size(); i += 2) record(pairs.get(i), pairs.get(i + 1));
      const kids = this.resolve(dict.get(NAME.Kids));
      if (kids instanceof PDFArray) for (const kid of kids.asArray()) walk(kid, depth + 1);
    };
    walk(tree, 0);
    return found;
  }

  /** The finished PDF's bytes: metadata, RoleMap and figures fixed, written with object streams (a third smaller). */
  async finish(facts: PdfFacts): Promise<Uint8Array> {
    const { doc } = this;
    const created = doc.getCreationDate() ?? new Date(0);
    const producer = doc.getProducer() ?? 'Chromium';
    doc.setTitle(facts.title, { showInWindowTitleBar: true });
    doc.setAuthor(facts.author);
    doc.setSubject(facts.subject);
    doc.setCreator('geo-reports');
    doc.setProducer(producer);
    doc.setLanguage(facts.language);
    doc.setModificationDate(created);
    const xmp = xmpPacket(facts, { created, producer });
    const metadata = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML', Length: Buffer.byteLength(xmp) });
    doc.catalog.set(NAME.Metadata, doc.context.register(metadata));
    // Object streams are PDF 1.5; PDF/UA-1 is read against PDF 1.7 (compactPdf writes a 1.7 header).
    doc.catalog.set(NAME.Version, PDFName.of('1.7'));
    this.fixStructure();
    // The running header and footer, drawn outside marked content, marked as page furniture (PDF/UA 7.1).
    markArtifacts(doc);
    return compactPdf(doc.context);
  }

  /** A RoleMap entry for each non-standard type in the tree, and no Figure left without alternative text. */
  private fixStructure(): void {
    const root = this.resolve(this.doc.catalog.get(NAME.StructTreeRoot));
    if (!(root instanceof PDFDict)) return;
    const types = new Set<string>();
    this.visit(root.get(NAME.K), 0, (element) => {
      const type = element.get(NAME.S);
      if (type instanceof PDFName) types.add(type.decodeText());
    });
    const existing = this.resolve(root.get(NAME.RoleMap));
    const roleMap = existing instanceof PDFDict ? existing : this.doc.context.obj({});
    for (const type of types) {
      if (STANDARD_TYPES.has(type) || roleMap.has(PDFName.of(type))) continue;
      roleMap.set(PDFName.of(type), PDFName.of(NEAREST_STANDARD[type] ?? 'Div'));
    }
    if (roleMap.keys().length > 0) root.set(NAME.RoleMap, roleMap);
  }

  /**
   * Walks the structure elements under `node`, children before their parent's figure check: a Figure without
   * alternative text that holds described figures (the history chart's <figure>: two drawings and the annotations)
   * groups them, so it becomes a Div, which keeps the caption readable; a reader skips a Figure's content for its Alt.
   * Returns whether a described figure was found below.
   */
  private visit(node: PDFObject | undefined, depth: number, each: (element: PDFDict) => void): boolean {
    const value = this.resolve(node);
    if (depth > 256) return false;
    if (value instanceof PDFArray) return value.asArray().reduce<boolean>((found, kid) => this.visit(kid, depth + 1, each) || found, false);
    if (!(value instanceof PDFDict) || !(value.get(NAME.S) instanceof PDFName)) return false;
    const describedBelow = this.visit(value.get(NAME.K), depth + 1, each);
    const isFigure = (value.get(NAME.S) as PDFName).decodeText() === 'Figure';
    const alt = value.get(NAME.Alt);
    const described = isFigure && (alt instanceof PDFString || alt instanceof PDFHexString) && alt.decodeText().trim() !== '';
    if (isFigure && !described && describedBelow) value.set(NAME.S, PDFName.of('Div'));
    each(value);
    return described || describedBelow;
  }

  private resolve(object: PDFObject | undefined): PDFObject | undefined {
    return object instanceof PDFRef ? this.doc.context.lookup(object) : object;
  }
}

/** Objects per object stream, as pdf-lib writes them. */
const OBJECTS_PER_STREAM = 50;

/**
 * The document written as pdf-lib's save({ useObjectStreams: true }) writes it — streams as they are, every other
 * object in compressed object streams, a cross-reference stream — but compressed by Node's zlib rather than pako's
 * JavaScript deflate, and in one go: a third of the CPU of that save.
 */
export function compactPdf(context: PDFContext): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const push = (bytes: Uint8Array): void => {
    parts.push(bytes);
    size += bytes.length;
  };
  const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
  const bytesOf = (object: PDFObject): Uint8Array => {
    const bytes = new Uint8Array(object.sizeInBytes());
    object.copyBytesInto(bytes, 0);
    return bytes;
  };
  // Each object's place: [1, offset, generation] written as is, [2, object stream, index] inside an object stream.
  const entries = new Map<number, [number, number, number]>();
  push(latin1('%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n'));
  let next = context.largestObjectNumber + 1;
  const chunks: Array<Array<[PDFRef, PDFObject]>> = [];
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (object instanceof PDFStream || object instanceof PDFInvalidObject || ref.generationNumber !== 0) {
      entries.set(ref.objectNumber, [1, size, ref.generationNumber]);
      push(latin1(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
      push(bytesOf(object));
      push(latin1('\nendobj\n\n'));
      continue;
    }
    let chunk = chunks[chunks.length - 1];
    if (chunk === undefined || chunk.length === OBJECTS_PER_STREAM) chunks.push((chunk = []));
    chunk.push([ref, object]);
  }
  for (const chunk of chunks) {
    const number = next++;
    const bodies = chunk.map(([, object]) => bytesOf(object));
    let offset = 0;
    const index = chunk.map(([ref], i) => {
      const pair = `${ref.objectNumber} ${offset}`;
      offset += (bodies[i] as Uint8Array).length + 1;
      entries.set(ref.objectNumber, [2, number, i]);
      return pair;
    });
    const head = latin1(`${index.join(' ')}\n`);
    const content = deflateSync(Buffer.concat([head, ...bodies.flatMap((body) => [body, latin1('\n')])]));
    entries.set(number, [1, size, 0]);
    push(
      latin1(`${number} 0 obj\n<<\n/Type /ObjStm\n/N ${chunk.length}\n/First ${head.length}\n/Length ${content.length}\n/Filter /FlateDecode\n>>\nstream\n`),
    );
    push(content);
    push(latin1('\nendstream\nendobj\n\n'));
  }
  const xrefNumber = next++;
  const xrefOffset = size;
  entries.set(xrefNumber, [1, xrefOffset, 0]);
  // Rows of 1 + 4 + 2 bytes: type, offset (or object stream), generation (or index); object 0 heads the free list.
  const rows = Buffer.alloc(next * 7);
  rows.writeUInt16BE(65535, 5);
  for (const [number, [type, field, extra]] of entries) {
    rows.writeUInt8(type, number * 7);
    rows.writeUInt32BE(field, number * 7 + 1);
    rows.writeUInt16BE(extra, number * 7 + 5);
  }
  const xref = deflateSync(rows);
  const { Root, Info, ID } = context.trailerInfo;
  const trailer = [
    `/Type /XRef`,
    `/Size ${next}`,
    ...(Root === undefined ? [] : [`/Root ${Root.toString()}`]),
    ...(Info === undefined ? [] : [`/Info ${Info.toString()}`]),
    ...(ID === undefined ? [] : [`/ID ${ID.toString()}`]),
    `/W [ 1 4 2 ]`,
    `/Length ${xref.length}`,
    `/Filter /FlateDecode`,
  ];
  push(latin1(`${xrefNumber} 0 obj\n<<\n${trailer.join('\n')}\n>>\nstream\n`));
  push(xref);
  push(latin1(`\nendstream\nendobj\n\nstartxref\n${xrefOffset}\n%%EOF`));
  return Buffer.concat(parts);
}

function nameText(name: PDFObject | undefined): string | null {
  if (name instanceof PDFName) return name.decodeText();
  if (name instanceof PDFString || name instanceof PDFHexString) return name.decodeText();
  return null;
}

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The XMP packet: Dublin Core title, creator, description and language; the PDF/UA part; dates as in the Info dictionary. */
export function xmpPacket(facts: PdfFacts, made: { created: Date; producer: string }): string {
  const date = made.created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const alt = (text: string): string => `<rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(text)}</rdf:li></rdf:Alt>`;
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"' +
      ' xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">',
    '<dc:format>application/pdf</dc:format>',
    `<dc:title>${alt(facts.title)}</dc:title>`,
    `<dc:creator><rdf:Seq><rdf:li>${escapeXml(facts.author)}</rdf:li></rdf:Seq></dc:creator>`,
    `<dc:description>${alt(facts.subject)}</dc:description>`,
    `<dc:language><rdf:Bag><rdf:li>${escapeXml(facts.language)}</rdf:li></rdf:Bag></dc:language>`,
    `<pdf:Producer>${escapeXml(made.producer)}</pdf:Producer>`,
    '<xmp:CreatorTool>geo-reports</xmp:CreatorTool>',
    `<xmp:CreateDate>${date}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${date}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${date}</xmp:MetadataDate>`,
    '<pdfuaid:part>1</pdfuaid:part>',
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}
