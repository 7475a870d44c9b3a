import { describe, expect, it } from 'vitest';
import { CLEAR_LINE, outgoingStream, outgoingText, unlinkedHosts } from '../../src/outgoing-text.js';

describe('outgoingText', () => {
  it('drops controls, non-characters, lone surrogates and bidi overrides; keeps tab, line feed and every other character', () => {
    const text = 'a\u0000b\u001b[31mc\rd\u202Ee\u2066f\uFFFFg\uFFFEh\uFDD0i\uD800j\u0085k\u{1F600}l\u{10FFFF}m\tn\no\u00e9\u200D';
    expect(outgoingText(text)).toBe('ab[31mcdefghijk\u{1F600}lm\tn\no\u00e9\u200D');
  });

  it('on one line: tabs and line breaks become one space', () => {
    expect(outgoingText('Acme\r\n\tBakery\nLtd', { oneLine: true })).toBe('Acme Bakery Ltd');
  });
});

describe('unlinkedHosts', () => {
  it("holds a hostname's last dot apart with a zero-width joiner; numbers and file names stay whole", () => {
    expect(unlinkedHosts('named example-rival.com and www.cityguide.example instead; robots.txt; 4.5 of 10.')).toBe(
      'named example-rival.\u200Dcom and www.cityguide.\u200Dexample instead; robots.txt; 4.5 of 10.',
    );
  });
});

describe('outgoingStream', () => {
  it("cleans every write but the tool's own line clearing, written alone", () => {
    const written: string[] = [];
    const stream = outgoingStream({ write: (text) => written.push(text) > 0, isTTY: true });
    stream.write(CLEAR_LINE);
    stream.write(`name\u001b]0;title\u0007 \u202Eevil\n`);
    expect(written).toEqual([CLEAR_LINE, 'name]0;title evil\n']);
    expect(stream.isTTY).toBe(true);
  });
});
