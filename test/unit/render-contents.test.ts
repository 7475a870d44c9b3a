// The contents page's HTML and the XMP packet, as pure transforms: which sections are listed, where the page goes,
// what a number and a hostile title become.
import { describe, expect, it } from 'vitest';
import { planContents, runningHeaders, withContents } from '../../src/render/print/contents.js';
import { xmpPacket } from '../../src/render/print/finish.js';

const PAGE = `<!doctype html><html lang="en"><head><title>t</title></head><body>
<header class="cover"><h1>Report</h1></header>
<main class="report">
<section aria-labelledby="summary-title"><h2 id="summary-title">Summary</h2><p>Text</p></section>
<section aria-labelledby="scan-title"><h2 id="scan-title">Keyword <em>rankings</em></h2>
  <section aria-labelledby="card-title"><h3 id="card-title">A card inside</h3></section>
</section>
<section><h2>No label</h2></section>
<section aria-labelledby="missing"><h2>Label to nothing</h2></section>
<section aria-labelledby="x-title"><h2 id="x-title">&lt;b&gt;x&lt;/b&gt; &amp; "y"</h2></section>
</main></body></html>`;

const PHRASES = { title: 'Sommaire', page: 'Page' };

describe('the contents page', () => {
  it('lists the labelled sections of <main> in order, a section inside a listed one left out', () => {
    const plan = planContents(PAGE);
    expect(plan?.entries).toEqual([
      { id: 'summary-title', title: 'Summary' },
      { id: 'scan-title', title: 'Keyword rankings' },
      { id: 'x-title', title: '<b>x</b> & "y"' },
    ]);
    expect(PAGE.slice(plan?.offset ?? 0).startsWith('<main class="report">')).toBe(true);
  });

  it('is none without a <main> or a labelled section', () => {
    expect(planContents('<html><body><section aria-labelledby="a"><h2 id="a">A</h2></section></body></html>')).toBeNull();
    expect(planContents('<html><body><main><p>Nothing</p></main></body></html>')).toBeNull();
  });

  it('goes before <main>, each entry a link to its heading, numbers only once they are known', () => {
    const plan = planContents(PAGE);
    if (plan === null) throw new Error('no plan');
    const blank = withContents(PAGE, plan, PHRASES, null);
    expect(blank.indexOf('<nav class="contents"')).toBeLessThan(blank.indexOf('<main'));
    expect(blank).toContain('<h2 class="contents__heading" id="contents-title">Sommaire</h2>');
    expect(blank).toContain(
      '<a class="contents__link" href="#summary-title"><span class="contents__title">Summary</span><span class="contents__page" data-contents-page="summary-title"></span></a>',
    );
    const numbered = withContents(
      PAGE,
      plan,
      PHRASES,
      new Map([
        ['summary-title', 3],
        ['scan-title', 5],
        ['x-title', 7],
      ]),
    );
    expect(numbered).toContain('data-contents-page="scan-title"><span class="visually-hidden">Page </span>5</span>');
    expect(numbered).toContain('&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;');
    expect(numbered).not.toContain('<b>x</b>');
    // The running headers come with the numbers, at the end of <head>; everything else is the page as it was.
    expect(blank).not.toContain('@counter-style');
    expect(numbered).toMatch(/<style>@counter-style geo-running-header[^<]*<\/style><\/head>/);
    expect(numbered.replace(/<nav class="contents"[\s\S]*?<\/nav>\n/, '').replace(/<style>@counter-style[\s\S]*?<\/style>/, '')).toBe(PAGE);
  });
});

describe('the running headers', () => {
  it('name, for each page, the section that starts on it (the first of several), else the one it continues', () => {
    const style = runningHeaders(
      [
        { id: 'a', title: 'Summary' },
        { id: 'b', title: 'Scores' },
        { id: 'c', title: 'History' },
        { id: 'd', title: 'Glossary' },
      ],
      new Map([
        ['a', 3],
        ['b', 5],
        ['c', 5],
        ['d', 7],
      ]),
    );
    // Cover and contents blank; page 6 continues History, the last to start on page 5; past page 7, Glossary.
    expect(style).toContain('symbols:"" "" "Summary" "Summary" "Scores" "History" "Glossary";');
    expect(style).toContain('@counter-style geo-running-header-last{system:cyclic;symbols:"Glossary"}');
    expect(style).toContain('@page{@top-left{content:counter(page,geo-running-header);');
  });

  it('escapes what could end the string or the <style>, and is empty when no section has a page', () => {
    const style = runningHeaders([{ id: 'x', title: '</style><b>"q"\\' }], new Map([['x', 3]]));
    expect(style).toContain('"\\3c /style\\3e \\3c b\\3e \\22 q\\22 \\5c "');
    expect(style.match(/<\/style>/g)).toHaveLength(1);
    expect(runningHeaders([{ id: 'x', title: 'X' }], new Map())).toBe('');
  });
});

describe('the XMP packet', () => {
  it('names the title, the agency, the language and PDF/UA part 1, escaped', () => {
    const xmp = xmpPacket(
      { title: 'Café & <Co> — octobre 2026', author: 'Northwind "Digital"', subject: 'Rapport', language: 'fr' },
      { created: new Date('2026-11-04T06:00:00.123Z'), producer: 'Skia/PDF m156' },
    );
    expect(xmp).toContain('<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Café &amp; &lt;Co&gt; — octobre 2026</rdf:li></rdf:Alt></dc:title>');
    expect(xmp).toContain('<dc:creator><rdf:Seq><rdf:li>Northwind &quot;Digital&quot;</rdf:li></rdf:Seq></dc:creator>');
    expect(xmp).toContain('<dc:language><rdf:Bag><rdf:li>fr</rdf:li></rdf:Bag></dc:language>');
    expect(xmp).toContain('<pdfuaid:part>1</pdfuaid:part>');
    expect(xmp).toContain('<xmp:CreateDate>2026-11-04T06:00:00Z</xmp:CreateDate>');
    expect(xmp.startsWith('<?xpacket begin="\uFEFF"')).toBe(true);
    expect(xmp.endsWith('<?xpacket end="w"?>')).toBe(true);
  });
});
