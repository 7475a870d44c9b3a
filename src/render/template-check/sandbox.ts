// The sandbox of an agency's templates and stylesheets: what their HTML and CSS may hold and reference. No script,
// no event handler, no remote resource, nothing written without escaping unnoticed; each image and font they point
// at is listed for inlining (load.ts reads it into a data: URI), so a report loads nothing. The rendered page
// is checked again, parsed as a browser parses it (page-check.ts): this check names the place in the template.
// The AST types are Handlebars' global `hbs` namespace, declared by its package.
import type {} from 'handlebars';
import type { HelperResult } from '../helpers.js';
import { FORBIDDEN_ELEMENTS, isEventHandler, SCRIPT_SCHEMES, URL_ATTRIBUTES } from '../page-check.js';
import { simpleName } from './names.js';
import { eachStatement, nodePosition, positionOf, type ParsedTemplate, type RecordProblem, type TemplateFile, type TemplateProblem } from './problems.js';

/** A file the agency's template or stylesheet points at (an image, a font), to be inlined as a data: URI. */
export interface InlineReference {
  file: TemplateFile;
  /** Where the path is written in the file's text. */
  offset: number;
  written: string;
  /** A stylesheet's paths are relative to the stylesheet, a template's to the folder. */
  relativeTo: 'folder' | 'file';
  /** Fonts may be referenced from CSS (@font-face), images from both. */
  fonts: boolean;
}

/** What a mustache's characters read as in masked text: a value the markup cannot know. */
const MASK = '\uE000';

/** Every {{{…}}} or {{&…}} of an agency template that writes a value, where only markup made by design may be. */
export function checkUnescapedOutput(
  templates: readonly ParsedTemplate[],
  helpers: ReadonlyMap<string, HelperResult | 'built-in'>,
  record: RecordProblem,
): void {
  for (const template of templates) {
    if (!template.file.fromAgency) continue;
    eachStatement(template.ast, (node) => {
      if (node.type !== 'MustacheStatement') return;
      const mustache = node as hbs.AST.MustacheStatement;
      if (mustache.escaped || writesMarkup(mustache, helpers)) return;
      record(
        template.file,
        'error',
        nodePosition(node),
        "writes a value without escaping ({{{…}}} or {{&…}}): a value from the API or the config (a client's name) could put markup, a script, in the page; use {{…}} (only {{styles}} and the helpers that draw markup, such as {{historyChart …}}, write HTML, and they need no {{{…}}})",
      );
    });
  }
}

/** Whether an unescaped mustache writes what is HTML by design: {{{styles}}}, or a helper that draws markup. */
function writesMarkup(mustache: hbs.AST.MustacheStatement, helpers: ReadonlyMap<string, HelperResult | 'built-in'>): boolean {
  if (mustache.path.type !== 'PathExpression') return false;
  const name = simpleName(mustache.path as hbs.AST.PathExpression);
  if (name === null) return false;
  if (name === 'styles' && mustache.params.length === 0) return true;
  return helpers.get(name) === 'markup';
}

/**
 * The markup and CSS of the agency's templates and stylesheets: each problem goes to `record`; the images and fonts
 * they reference come back, to be inlined.
 */
export function checkSandbox(templates: readonly ParsedTemplate[], styles: readonly TemplateFile[], record: RecordProblem): InlineReference[] {
  const references: InlineReference[] = [];
  for (const template of templates) {
    if (template.file.fromAgency) checkMarkup(template.file, record, references);
  }
  for (const style of styles) {
    if (style.fromAgency) checkCss(style, style.text, 0, record, references, 'file');
  }
  return references;
}

/**
 * The text with every mustache, Handlebars comment and HTML comment blanked out, at the same offsets (line
 * breaks kept), so that the markup around them can be read for what the browser would make of it.
 */
function maskMustaches(text: string): string {
  return text.replace(/\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{\{\{[\s\S]*?\}\}\}\}|\{\{\{[\s\S]*?\}\}\}|\{\{[\s\S]*?\}\}|<!--[\s\S]*?-->/g, (span) =>
    span.startsWith('<!--') ? span.replace(/[^\n]/g, ' ') : span.replace(/[^\n]/g, MASK),
  );
}

const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s=>/]+)(?:\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const REMOTE = /^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i;
const SCHEME = /^\s*([a-z][a-z0-9+.-]*):/i;

/** The markup of an agency template: no element that runs or loads anything, no handler, no remote URL. */
function checkMarkup(file: TemplateFile, record: RecordProblem, references: InlineReference[]): void {
  const text = file.text;
  const masked = maskMustaches(text);
  const problem = (offset: number, severity: TemplateProblem['severity'], message: string): void => record(file, severity, positionOf(text, offset), message);

  for (const tag of masked.matchAll(TAG)) {
    const [, closing, rawName = '', attributes = ''] = tag;
    const tagName = rawName.toLowerCase();
    const tagOffset = tag.index;
    if (closing === '/') continue;
    const why = FORBIDDEN_ELEMENTS.get(tagName)?.template;
    if (why != null) {
      // One error per element: its attributes do not matter, it goes.
      problem(tagOffset, 'error', `<${tagName}> is not allowed: ${why}`);
      continue;
    }
    const attributesOffset = tagOffset + 1 + rawName.length;
    for (const attribute of attributes.matchAll(ATTRIBUTE)) {
      const name = (attribute[1] ?? '').toLowerCase();
      const value = attribute[3] ?? attribute[4] ?? attribute[5];
      const nameOffset = attributesOffset + attribute.index;
      if (name.includes(MASK)) continue;
      if (isEventHandler(name)) {
        problem(nameOffset, 'error', `the event handler ${name}="…" is not allowed: a client report runs no script`);
        continue;
      }
      if (tagName === 'meta' && name === 'http-equiv') problem(nameOffset, 'error', '<meta http-equiv> is not allowed: it can reload or redirect the report');
      if (value === undefined) continue;
      const valueOffset = attributesOffset + attribute.index + attribute[0].length - value.length - (attribute[5] === undefined ? 1 : 0);
      const original = text.slice(valueOffset, valueOffset + value.length);
      const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
      if (scheme !== undefined && SCRIPT_SCHEMES.has(scheme)) {
        problem(valueOffset, 'error', `a ${scheme}: URL is not allowed: a client report runs no script`);
        continue;
      }
      if (name === 'style') {
        checkCss(file, original, valueOffset, record, references, 'folder', masked.slice(valueOffset, valueOffset + value.length));
        continue;
      }
      if (!URL_ATTRIBUTES.has(name)) continue;
      if (REMOTE.test(value) || (scheme !== undefined && scheme !== 'data' && scheme !== 'mailto' && scheme !== 'tel')) {
        problem(
          valueOffset,
          'error',
          `${name}="${value.trim()}" points outside the report: a client report loads nothing from the network; put the file in the template folder and write its path (it is inlined), or write an address as text`,
        );
        continue;
      }
      if (scheme === 'data' || value.trim().startsWith('#') || value.trim() === '') continue;
      const dynamic = value.includes(MASK);
      // An SVG <image> loads its href: an image to inline; any other href is a link.
      if ((name === 'href' || name === 'xlink:href') && tagName !== 'image') {
        if (!dynamic) problem(valueOffset, 'warning', `href="${value}" leads nowhere in the PDF: only #anchors inside the report work`);
        continue;
      }
      if (name === 'srcset') {
        problem(valueOffset, 'error', 'srcset is not supported in a report: use src with one image (it is inlined)');
        continue;
      }
      if (dynamic) {
        if (/^\s*\{\{\s*(?:logo|safeImage\b[^}]*)\s*\}\}\s*$/.test(original)) continue;
        if (value.replace(new RegExp(MASK, 'g'), '').trim() === '') {
          problem(
            valueOffset,
            'warning',
            `${name}="${original}" takes a value of the page: only an inline (data:) image prints, anything else is blocked; write {{safeImage …}}`,
          );
        } else {
          problem(
            valueOffset,
            'error',
            `${name}="${original}" builds a path from a value: write the path of the file in full (it is inlined), e.g. ${name}="images/team.png"`,
          );
        }
        continue;
      }
      references.push({ file, offset: valueOffset + (value.length - value.trimStart().length), written: value.trim(), relativeTo: 'folder', fonts: false });
    }
  }
  // A <style> element of the template: its rules as those of a stylesheet.
  for (const style of masked.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) {
    const body = style[1] ?? '';
    const offset = style.index + style[0].indexOf(body);
    checkCss(file, text.slice(offset, offset + body.length), offset, record, references, 'folder', body);
  }
}

/**
 * CSS of an agency file (a stylesheet, a <style> element, a style attribute): no @import, no remote url(), and
 * each relative url() listed for inlining. `masked` is the same text with mustaches blanked out, when it has any.
 */
function checkCss(
  file: TemplateFile,
  css: string,
  base: number,
  record: RecordProblem,
  references: InlineReference[],
  relativeTo: InlineReference['relativeTo'],
  masked: string = css,
): void {
  const problem = (offset: number, message: string): void => record(file, 'error', positionOf(file.text, base + offset), message);
  // Comments read as blanks, at the same offsets.
  const text = masked.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '));
  for (const rule of text.matchAll(/@import\b/gi))
    problem(rule.index, '@import is not allowed: a report loads no stylesheet; write the rules in assets/extra.css');
  for (const url of text.matchAll(/url\(\s*(["']?)([^"')]*)\1\s*\)/gi)) {
    const target = url[2] ?? '';
    const offset = url.index + url[0].indexOf(target, 4);
    const trimmed = target.trim();
    if (trimmed === '' || trimmed.startsWith('#') || /^data:/i.test(trimmed)) continue;
    if (target.includes(MASK)) {
      problem(offset, 'url() built from a value is not allowed: write the path of a file in the template folder (it is inlined)');
      continue;
    }
    if (REMOTE.test(trimmed) || SCHEME.test(trimmed)) {
      problem(
        offset,
        `url(${trimmed}) points outside the report: a client report loads nothing from the network; put the file in the template folder and write its path (it is inlined)`,
      );
      continue;
    }
    references.push({ file, offset: base + offset, written: trimmed, relativeTo, fonts: true });
  }
}
