// Measures of a page as a real Chromium lays it out (not its CSS): words cut by a line break, sideways scroll,
// the size SVG text is drawn at, the width of a hyphen. Each runs in the page through page.evaluate.
import type { Page } from 'puppeteer-core';

/** How far the page scrolls sideways (0 = not at all). */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The words inside the elements matching `selector` that a line break cuts in two ("RATIN G", "Don / e"). */
export function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const broken: string[] = [];
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          // One box per line the word is laid out on; an element not shown has none.
          const lines = new Set(
            Array.from(range.getClientRects())
              .filter((rect) => rect.width > 0)
              .map((rect) => Math.round(rect.top)),
          );
          if (lines.size > 1) broken.push(word[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** The size, in CSS pixels on the screen, each shown SVG text under `selector` is drawn at. */
export function svgTextSizes(page: Page, selector: string): Promise<Array<{ text: string; px: number }>> {
  return page.evaluate((selector) => {
    const sizes: Array<{ text: string; px: number }> = [];
    for (const text of Array.from(document.querySelectorAll<SVGTextElement>(`${selector} svg text`))) {
      const matrix = text.getScreenCTM();
      if (matrix === null || text.getBoundingClientRect().width === 0) continue;
      // The font size in the SVG's units times the SVG's scale on the screen.
      sizes.push({ text: text.textContent, px: parseFloat(getComputedStyle(text).fontSize) * Math.hypot(matrix.a, matrix.b) });
    }
    return sizes;
  }, selector);
}

/**
 * Each hyphen between two letters in the text under `selector`, with its width and the width of a hyphen in the
 * same place with the font's default features: the two are equal when a hyphen prints as a hyphen.
 */
export function hyphenWidths(page: Page, selector: string): Promise<Array<{ word: string; width: number; plain: number }>> {
  return page.evaluate((selector) => {
    const found: Array<{ word: string; width: number; plain: number }> = [];
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) nodes.push(node as Text);
      for (const node of nodes) {
        for (const match of node.data.matchAll(/\p{L}+-\p{L}+/gu)) {
          const at = match.index + match[0].indexOf('-');
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + 1);
          const width = range.getBoundingClientRect().width;
          const probe = document.createElement('span');
          probe.style.cssText = 'font-variant-numeric: normal; font-feature-settings: normal; letter-spacing: inherit';
          probe.textContent = '-';
          node.parentNode?.insertBefore(probe, node.nextSibling);
          const plain = probe.getBoundingClientRect().width;
          probe.remove();
          found.push({ word: match[0], width, plain });
        }
      }
    }
    return found;
  }, selector);
}

/**
 * Every shown piece of text under `selector` drawn smaller than `minPx` CSS pixels on the screen: the computed font
 * size of its element (times the scale of an SVG it is in), for each text node with something besides spaces that
 * has a box on the page. Hidden text (display: none, a zero box, clipped to one pixel for screen readers) is not seen.
 */
export function textSmallerThan(page: Page, selector: string, minPx: number): Promise<Array<{ text: string; px: number; element: string }>> {
  return page.evaluate(
    (selector, minPx) => {
      const small: Array<{ text: string; px: number; element: string }> = [];
      for (const root of Array.from(document.querySelectorAll(selector))) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const text = (node.textContent ?? '').trim();
          const element = node.parentElement;
          if (text === '' || element === null) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const boxes = Array.from(range.getClientRects()).filter((rect) => rect.width > 1 && rect.height > 1);
          if (boxes.length === 0) continue;
          const style = getComputedStyle(element);
          if (style.visibility === 'hidden' || style.display === 'none') continue;
          let px = parseFloat(style.fontSize);
          // SVG text is drawn at its font size times the drawing's scale on the screen.
          if (element instanceof SVGGraphicsElement) {
            const matrix = element.getScreenCTM();
            if (matrix !== null) px *= Math.hypot(matrix.a, matrix.b);
          }
          if (px < minPx) {
            const classes = typeof element.className === 'string' ? element.className : '';
            small.push({
              text: text.slice(0, 40),
              px: Math.round(px * 100) / 100,
              element: `${element.tagName.toLowerCase()}${classes === '' ? '' : `.${classes.split(/\s+/).join('.')}`}`,
            });
          }
        }
      }
      return small;
    },
    selector,
    minPx,
  );
}
