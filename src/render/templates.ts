// An agency's template folder over the built-in templates/: one lookup order, the folder first and then the
// built-in file of the same relative path, so a folder holds only what it changes. Two additions only:
// assets/extra.css (and extra-index.css) after the built-in styles, and locale files holding only the keys they
// change. Everything the folder brings is parsed and checked here, before any request is sent or Chromium starts:
// a problem names its file, line and column.
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { jsonErrorPosition, LANGUAGES, loadLocales, type Locales } from '../i18n/locales.js';
import { BUILT_IN_HELPERS, HELPERS, type HelperResult } from './helpers.js';
import { checkTemplateNames } from './template-names.js';
import {
  formatProblem,
  positionOf,
  problemRecorder,
  TemplateError,
  type ParsedTemplate,
  type TemplateFile,
  type TemplateProblem,
} from './template-problems.js';
import { checkSandbox, checkUnescapedOutput, type InlineReference } from './template-sandbox.js';

export { formatProblem, TemplateError };
export type { TemplateFile, TemplateProblem };

/** Where the built-in templates live (the package's templates/). */
export const BUILT_IN_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** The files a template folder may hold, by their path inside it. */
export const TEMPLATE_LAYOUT = {
  report: 'report.hbs',
  index: 'index.hbs',
  /** The published site's pages (`geo-reports publish`): a client's page, and the root (also the 404 page). */
  client: 'site/client.hbs',
  root: 'site/root.hbs',
  /** The message that carries a report (`geo-reports send`). */
  email: 'email.hbs',
  partials: 'partials',
  assets: 'assets',
  locales: 'locales',
  /** The built-in stylesheets, each replaced by a file of the same name. */
  styles: ['common.css', 'report.css', 'index.css', 'site.css'],
  /** Added after the built-in styles of the report, of the agency index, and of the site's pages. */
  extraReport: 'extra.css',
  extraIndex: 'extra-index.css',
  extraSite: 'extra-site.css',
} as const;

/** Largest image or font a template may inline: every report carries it. */
export const MAX_INLINE_BYTES = 2 * 1024 * 1024;

/** The files a report and the agency index are made from, each looked up in the agency folder first. */
export interface TemplateSet {
  builtInDir: string;
  /** Absolute, real path of the agency folder; null for the built-in templates alone. */
  agencyDir: string | null;
  /** null in a set read for the agency index alone (`pages: 'index'`, no agency folder). */
  report: TemplateFile | null;
  index: TemplateFile;
  /** The published site's pages; null in a set read for the agency index alone. */
  site: { client: TemplateFile; root: TemplateFile } | null;
  /** The report's message (email.hbs): read by every set, `send` writes it. */
  email: TemplateFile;
  /** By partial name (the file name without .hbs). */
  partials: ReadonlyMap<string, TemplateFile>;
  styles: {
    common: TemplateFile;
    report: TemplateFile | null;
    index: TemplateFile;
    site: TemplateFile | null;
    extraReport: TemplateFile | null;
    extraIndex: TemplateFile | null;
    extraSite: TemplateFile | null;
  };
  /** The agency's locale files, by language. */
  locales: ReadonlyMap<string, TemplateFile>;
  /** Files of the agency folder nothing reads (a misplaced or misspelt name). */
  stray: readonly string[];
  /** Names in the agency folder that lead outside it (a link): not read. */
  outside: readonly string[];
}

/** A template set ready to compile: images and fonts inlined, the phrases laid over the built-in ones. */
export interface PreparedTemplates {
  set: TemplateSet;
  /** Template text by file name (`report.hbs`, `partials/cover.hbs`…), after inlining. */
  texts: ReadonlyMap<string, string>;
  /** The report's, the index's and the site's stylesheet, built-in first, then extra.css / extra-index.css / extra-site.css. */
  css: { report: string; index: string; site: string };
  locales: Locales;
  /** What does not stop a run but deserves a look: unescaped output, files nothing reads… (a missing name or phrase is an error). */
  warnings: readonly TemplateProblem[];
}

/** What the folder is; a TemplateError (exit 2) naming `source` when it is not a folder that can be read. */
async function agencyFolder(dir: string, source: string): Promise<string> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TemplateError(
      missing ? `${source}: the template folder ${dir} does not exist.` : `${source}: cannot read the template folder ${dir} (${(error as Error).message}).`,
      [],
      { hint: missing ? `Create it with \`geo-reports template init ${dir}\`, or correct the path.` : 'Check its permissions.' },
    );
  }
  if (!info.isDirectory()) {
    throw new TemplateError(`${source}: ${dir} is a file, not a template folder.`, [], {
      hint: 'Give the folder that holds report.hbs, partials/, assets/ and locales/ (`geo-reports template init DIR` makes one).',
    });
  }
  return realpath(dir);
}

async function readText(path: string, name: string, fromAgency: boolean): Promise<TemplateFile> {
  try {
    return { name, path, text: await readFile(path, 'utf8'), fromAgency };
  } catch (error) {
    throw new TemplateError(`Cannot read the template file ${path} (${(error as Error).message}).`, [
      { severity: 'error', file: path, message: `cannot be read: ${(error as Error).message}` },
    ]);
  }
}

/** The real path of `name` inside `root`, or null when it is not a file there (a link leading out of it is not). */
async function fileInside(root: string, name: string): Promise<string | null> {
  const path = resolve(root, name);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return null;
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  try {
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() || e.isSymbolicLink())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

export interface ReadTemplateSetOptions {
  /** The agency's folder; null or absent for the built-in templates alone. */
  agencyDir?: string | null;
  /** Says where the folder was given, for errors: `--templates`, `report.templates`. @default 'the template folder' */
  source?: string;
  /** @default the package's templates/ */
  builtInDir?: string;
  /**
   * `index` for a command that only writes the agency index (send, merge): without an agency folder, no report
   * template, partial, site page or their stylesheets are read. An agency folder is read whole, so it is checked
   * whole. @default 'all'
   */
  pages?: 'all' | 'index';
}

/** Reads every file of the set: the agency's where it has one, the built-in one otherwise. */
export async function readTemplateSet(options: ReadTemplateSetOptions = {}): Promise<TemplateSet> {
  const builtInDir = options.builtInDir ?? BUILT_IN_TEMPLATES_DIR;
  const agencyDir = options.agencyDir == null ? null : await agencyFolder(options.agencyDir, options.source ?? 'the template folder');
  const used = new Set<string>();
  const outside: string[] = [];

  /** The agency's file of that name when it has one, else the built-in one; null when neither has it. */
  const lookUp = async (name: string, builtIn: boolean): Promise<TemplateFile | null> => {
    if (agencyDir !== null) {
      const own = await fileInside(agencyDir, name);
      if (own !== null) {
        used.add(name);
        return readText(own, name, true);
      }
      // There, but not a file inside the folder (a link out of it): refused, never read.
      if (
        await lstat(join(agencyDir, name)).then(
          () => true,
          () => false,
        )
      ) {
        used.add(name);
        outside.push(name);
      }
    }
    return builtIn ? readText(join(builtInDir, name), name, false) : null;
  };
  const required = async (name: string): Promise<TemplateFile> => (await lookUp(name, true)) as TemplateFile;

  const reports = options.pages !== 'index' || agencyDir !== null;
  const partials = new Map<string, TemplateFile>();
  const isTemplate = (file: string): boolean => extname(file) === '.hbs';
  // The built-in index uses no partial: a set for the index alone reads none.
  const builtInPartials = new Set(reports ? (await listFiles(join(builtInDir, TEMPLATE_LAYOUT.partials))).filter(isTemplate) : []);
  const agencyPartials = agencyDir === null ? [] : (await listFiles(join(agencyDir, TEMPLATE_LAYOUT.partials))).filter(isTemplate);
  for (const file of [...new Set([...builtInPartials, ...agencyPartials])].sort()) {
    const partial = await lookUp(`${TEMPLATE_LAYOUT.partials}/${file}`, builtInPartials.has(file));
    if (partial !== null) partials.set(file.slice(0, -'.hbs'.length), partial);
  }
  const asset = (file: string): string => `${TEMPLATE_LAYOUT.assets}/${file}`;
  const styles = {
    common: await required(asset('common.css')),
    report: reports ? await required(asset('report.css')) : null,
    index: await required(asset('index.css')),
    site: reports ? await required(asset('site.css')) : null,
    extraReport: await lookUp(asset(TEMPLATE_LAYOUT.extraReport), false),
    extraIndex: await lookUp(asset(TEMPLATE_LAYOUT.extraIndex), false),
    extraSite: await lookUp(asset(TEMPLATE_LAYOUT.extraSite), false),
  };
  const locales = new Map<string, TemplateFile>();
  if (agencyDir !== null) {
    for (const language of LANGUAGES) {
      const file = await lookUp(`${TEMPLATE_LAYOUT.locales}/${language}.json`, false);
      if (file !== null) locales.set(language, file);
    }
  }
  const set: TemplateSet = {
    builtInDir,
    agencyDir,
    report: reports ? await required(TEMPLATE_LAYOUT.report) : null,
    index: await required(TEMPLATE_LAYOUT.index),
    site: reports ? { client: await required(TEMPLATE_LAYOUT.client), root: await required(TEMPLATE_LAYOUT.root) } : null,
    email: await required(TEMPLATE_LAYOUT.email),
    partials,
    styles,
    locales,
    stray: agencyDir === null ? [] : await strayFiles(agencyDir, used),
    outside,
  };
  return set;
}

/** Templates, styles and locale files of the folder that nothing reads: a file in the wrong place, a misspelt name. */
async function strayFiles(agencyDir: string, used: ReadonlySet<string>): Promise<string[]> {
  const stray: string[] = [];
  const look = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(agencyDir, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const name = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory() && depth < 3 && !entry.name.startsWith('.') && entry.name !== 'node_modules') await look(name, depth + 1);
      else if (/\.(hbs|handlebars|css|json)$/.test(entry.name) && !used.has(name)) stray.push(name);
    }
  };
  await look('', 0);
  return stray.sort();
}

/** The helpers a template may call, with what each gives back. */
function knownHelpers(): ReadonlyMap<string, HelperResult | 'built-in'> {
  const helpers = new Map<string, HelperResult | 'built-in'>(BUILT_IN_HELPERS.map((name) => [name, 'built-in']));
  for (const [name, helper] of Object.entries(HELPERS)) helpers.set(name, helper.result);
  return helpers;
}

/** Parses one template without whitespace processing, so every position is the file's own. */
function parseTemplate(file: TemplateFile, problems: TemplateProblem[]): ParsedTemplate | null {
  try {
    return { file, ast: Handlebars.parseWithoutProcessing(file.text) };
  } catch (error) {
    const message = (error as Error).message;
    // The parser's lexer still holds the token it stopped at (parsing is synchronous; nothing ran since).
    const where = (Handlebars as unknown as { Parser: { lexer: { yylloc?: { first_line: number; first_column: number } } } }).Parser.lexer.yylloc;
    const own = error as { lineNumber?: number; column?: number };
    const line = own.lineNumber ?? where?.first_line;
    const column = own.lineNumber !== undefined ? own.column : where?.first_column;
    const plain = plainSyntaxError(file.text, message, line === undefined ? null : { line, column: (column ?? 0) + 1 });
    problems.push({ severity: 'error', file: file.path, ...(plain.at ?? {}), message: `Handlebars syntax error: ${plain.message}` });
    return null;
  }
}

/** What the parser's token names stand for, as they are written in a template. */
const TOKEN_WORDS: Readonly<Record<string, string>> = {
  CLOSE: '}}',
  CLOSE_UNESCAPED: '}}}',
  CLOSE_RAW_BLOCK: '}}}}',
  ID: 'a name',
  STRING: 'a "text"',
  NUMBER: 'a number',
  OPEN_ENDBLOCK: '{{/…}}',
  INVERSE: '{{else}}',
  OPEN_INVERSE_CHAIN: '{{else …}}',
  OPEN_SEXPR: '(',
  CLOSE_SEXPR: ')',
  EOF: 'the end of the file',
  INVALID: 'a character that cannot be there',
  EQUALS: '=',
};

/** Offset in `text` of a 1-based line and column. */
function offsetOf(text: string, at: { line: number; column: number }): number {
  let offset = 0;
  for (let line = 1; line < at.line; line += 1) offset = text.indexOf('\n', offset) + 1;
  return offset + at.column - 1;
}

/** The blocks opened and not closed before `end`, innermost last: `{{#each items}}` with where it is. */
function openBlocks(text: string, end: number): Array<{ name: string; tag: string; offset: number }> {
  const open: Array<{ name: string; tag: string; offset: number }> = [];
  const tags = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{~?\s*([#^/])\s*(?:\*\s*)?(?:>\s*)?([^\s}~]+)[^}]*\}\}/g;
  for (const match of text.slice(0, end).matchAll(tags)) {
    const [tag, kind, name] = match;
    if (kind === undefined || name === undefined) continue;
    if (kind === '/') {
      const last = open.map((block) => block.name).lastIndexOf(name);
      if (last !== -1) open.splice(last);
    } else open.push({ name, tag, offset: match.index });
  }
  return open;
}

/**
 * A Handlebars parse error in plain words, at the place to look: the block left open (and where it opens), the tag
 * not closed, the block closed by another name; for anything else what was expected there, as it is written.
 */
export function plainSyntaxError(
  text: string,
  message: string,
  at: { line: number; column: number } | null,
): { message: string; at: { line: number; column: number } | null } {
  const mismatch = /^(\S+) doesn't match (\S+)/.exec(message);
  if (mismatch !== null) {
    const [, opener, closer] = mismatch;
    return {
      message: `{{/${closer}}} closes the block {{#${opener} …}} opened here: a block is closed by its own name, {{/${opener}}} (is a {{/${opener}}} missing, or misspelt?)`,
      at,
    };
  }
  const got = /got '(\w+)'/.exec(message)?.[1];
  const expected = [...(/Expecting (.*), got/.exec(message)?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1] as string);
  const offset = at === null ? text.length : Math.min(text.length, offsetOf(text, at));
  if (got === 'EOF') {
    const open = openBlocks(text, text.length).at(-1);
    if (open !== undefined) {
      return { message: `the block ${open.tag} is never closed: add {{/${open.name}}} where it ends`, at: positionOf(text, open.offset) };
    }
  }
  let tagStart = text.lastIndexOf('{{', offset);
  // `{{{name}}`: the tag starts at its first brace.
  while (tagStart > 0 && text[tagStart - 1] === '{') tagStart -= 1;
  const line = tagStart === -1 ? '' : (text.slice(tagStart, tagStart + 60).split('\n')[0] ?? '');
  const close = line.indexOf('}}');
  const tag = close === -1 ? line : line.slice(0, close + 2);
  const place = tagStart === -1 ? at : positionOf(text, tagStart);
  if (got === 'INVALID' || (got === 'EOF' && !tag.endsWith('}}'))) {
    return { message: `the tag ${tag.slice(0, 40)}… is not closed with }} (a brace missing?)`, at: place };
  }
  if (got === 'CLOSE' && expected.includes('CLOSE_UNESCAPED')) {
    return { message: `the tag ${tag} opens with three braces and closes with two: write {{{…}}} or {{…}}`, at: place };
  }
  if (got === 'INVERSE' || got === 'OPEN_INVERSE_CHAIN') {
    return { message: 'this {{else}} has no block to belong to (a second {{else}} in one block, or one outside any block)', at };
  }
  const words = [...new Set(expected.map((token) => TOKEN_WORDS[token]).filter((word) => word !== undefined))];
  return {
    message: `the tag ${tag === '' ? 'here' : tag} cannot be read: Handlebars expected ${words.length > 0 ? words.join(' or ') : 'something else'} where it found ${TOKEN_WORDS[got ?? ''] ?? got ?? 'this'}`,
    at: tagStart === -1 ? at : place,
  };
}

/** An agency locale file must be a JSON object of strings; each fault is a problem at its place. */
function checkLocaleFile(file: TemplateFile, problems: TemplateProblem[]): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(file.text);
  } catch (error) {
    const at = jsonErrorPosition(file.text, error);
    problems.push({ severity: 'error', file: file.path, ...(at ?? {}), message: `not valid JSON: ${(error as Error).message}` });
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push({ severity: 'error', file: file.path, line: 1, column: 1, message: 'must be a JSON object of "key": "text" pairs' });
    return;
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') continue;
    const offset = file.text.indexOf(JSON.stringify(key));
    problems.push({
      severity: 'error',
      file: file.path,
      ...(offset >= 0 ? positionOf(file.text, offset) : {}),
      message: `the value of "${key}" must be a text`,
    });
  }
}

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
function applyInlining(text: string, replacements: ReadonlyArray<{ offset: number; length: number; uri: string }>): string {
  let result = text;
  for (const r of [...replacements].sort((a, b) => b.offset - a.offset)) {
    result = result.slice(0, r.offset) + r.uri + result.slice(r.offset + r.length);
  }
  return result;
}

/** Every template and stylesheet of the set, in a stable order. */
function templateFiles(set: TemplateSet): TemplateFile[] {
  return [
    ...(set.report === null ? [] : [set.report]),
    set.index,
    ...(set.site === null ? [] : [set.site.client, set.site.root]),
    set.email,
    ...set.partials.values(),
  ];
}

function styleFiles(set: TemplateSet): TemplateFile[] {
  const { common, report, index, site, extraReport, extraIndex, extraSite } = set.styles;
  return [common, report, index, site, extraReport, extraIndex, extraSite].filter((file): file is TemplateFile => file !== null);
}

/**
 * Parses and checks the whole set and inlines what the agency's files reference. Every error of the set is
 * collected before a TemplateError is thrown, so one run shows them all; warnings come back with the result.
 */
export async function prepareTemplates(set: TemplateSet): Promise<PreparedTemplates> {
  const problems: TemplateProblem[] = [];
  for (const file of set.locales.values()) checkLocaleFile(file, problems);
  let locales: Locales | null = null;
  if (!problems.some((p) => p.severity === 'error')) {
    // The agency's files as read here, inside the folder: the locales never open a path of the folder themselves.
    locales = loadLocales({ dir: join(set.builtInDir, TEMPLATE_LAYOUT.locales), overlay: set.locales });
  }

  const parsed = new Map<string, ParsedTemplate>();
  for (const file of templateFiles(set)) {
    const template = parseTemplate(file, problems);
    if (template !== null) parsed.set(file.name, template);
  }
  const parsedOrNull = (file: TemplateFile | null | undefined): ParsedTemplate | null => (file == null ? null : (parsed.get(file.name) ?? null));
  const templates = [...parsed.values()];
  const helpers = knownHelpers();
  // Unescaped output first: of two problems at one place, it is the one listed first.
  const record = problemRecorder(problems);
  checkUnescapedOutput(templates, helpers, record);
  checkTemplateNames(
    {
      report: parsedOrNull(set.report),
      index: parsedOrNull(set.index),
      client: parsedOrNull(set.site?.client),
      root: parsedOrNull(set.site?.root),
      email: parsedOrNull(set.email),
      partials: new Map(
        [...set.partials].flatMap(([name, file]) => {
          const template = parsed.get(file.name);
          return template === undefined ? [] : [[name, template] as const];
        }),
      ),
      partialNames: new Set(set.partials.keys()),
      helpers,
      phrases: locales,
    },
    record,
  );
  const references = checkSandbox(templates, styleFiles(set), record);
  for (const name of set.outside) {
    problems.push({
      severity: 'error',
      file: join(set.agencyDir ?? '', name),
      message: `leads outside the template folder (a link, or not a file): nothing outside ${set.agencyDir ?? ''} is read`,
    });
  }
  for (const name of set.stray) {
    problems.push({
      severity: 'warning',
      file: join(set.agencyDir ?? '', name),
      message: `nothing reads this file: templates are ${TEMPLATE_LAYOUT.report}, ${TEMPLATE_LAYOUT.index}, ${TEMPLATE_LAYOUT.client}, ${TEMPLATE_LAYOUT.root}, ${TEMPLATE_LAYOUT.email} and partials/*.hbs, styles assets/${TEMPLATE_LAYOUT.styles.join(', assets/')}, assets/${TEMPLATE_LAYOUT.extraReport}, assets/${TEMPLATE_LAYOUT.extraIndex} and assets/${TEMPLATE_LAYOUT.extraSite}, phrases locales/${LANGUAGES.join('.json, locales/')}.json`,
    });
  }

  const replacements = new Map<TemplateFile, Array<{ offset: number; length: number; uri: string }>>();
  if (set.agencyDir !== null) {
    for (const reference of references) {
      const uri = await inlineReference(set.agencyDir, reference, problems);
      if (uri === null) continue;
      const list = replacements.get(reference.file) ?? [];
      list.push({ offset: reference.offset, length: reference.written.length, uri });
      replacements.set(reference.file, list);
    }
  }

  problems.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0 || locales === null) {
    throw new TemplateError(
      `The template folder ${set.agencyDir ?? set.builtInDir} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      problems,
      {
        hint: `Fix ${errors.length === 1 ? 'it' : 'them'}; \`geo-reports template check --templates ${set.agencyDir ?? set.builtInDir}\` lists every problem, warnings too.`,
      },
    );
  }
  const textOf = (file: TemplateFile): string => {
    const list = replacements.get(file);
    return list === undefined ? file.text : applyInlining(file.text, list);
  };
  const texts = new Map(templateFiles(set).map((file) => [file.name, textOf(file)]));
  const { common, report, index, site, extraReport, extraIndex, extraSite } = set.styles;
  // Without an extra file the stylesheet is exactly the built-in one.
  const stylesheet = (own: TemplateFile | null, extra: TemplateFile | null): string =>
    own === null ? '' : `${textOf(common)}\n${textOf(own)}${extra === null ? '' : `\n${textOf(extra)}`}`;
  const css = { report: stylesheet(report, extraReport), index: stylesheet(index, extraIndex), site: stylesheet(site, extraSite) };
  return { set, texts, css, locales, warnings: problems.filter((p) => p.severity === 'warning') };
}

/** Reads, checks and prepares the templates: the built-in set alone, or an agency's folder over it. */
export async function loadTemplates(options: ReadTemplateSetOptions = {}): Promise<PreparedTemplates> {
  return prepareTemplates(await readTemplateSet(options));
}
