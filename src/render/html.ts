// ReportModel / IndexModel → one self-contained HTML file each: styles and fonts inline, the chart as SVG,
// every data string escaped by Handlebars, no script and no remote resource in client reports. The templates are
// the built-in ones, or an agency's folder over them (./template-check/load.ts reads and checks it).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import Handlebars from 'handlebars';
import { GeoReportsError } from '../errors.js';
import type { Locales } from '../i18n/locales.js';
import type { IndexModel, IndexRow, Language, ReportModel } from '../report/model.js';
import type { EmailModel } from '../report/email-model.js';
import type { ClientPageModel, RootPageModel } from '../report/site-model.js';
import { SECTIONS } from '../sections/index.js';
import { ensureContrast, readableTextOn, safeColor, safeFontFamily, safeImageDataUri } from './format.js';
import { DEFAULT_COLORS, registerHelpers, translate } from './helpers.js';
import { pageProblems, sealPage as sealWrittenPage, UnsafePageError, withoutPolicyMeta } from './page-check.js';
import type { SourceMarks } from './template-check/balance.js';
import { SORT_ORDERS } from './template-check/values.js';
import { BUILT_IN_TEMPLATES_DIR, loadTemplates, type PreparedTemplates } from './template-check/load.js';
import { outgoingText } from '../outgoing-text.js';

/** Where the templates live when the caller does not say (the package's templates/). */
export const DEFAULT_TEMPLATES_DIR = BUILT_IN_TEMPLATES_DIR;

/** A file the printer serves to its pages from memory, at a URL that never reaches a network. */
export interface PrintAsset {
  body: Uint8Array;
  contentType: string;
}

/** A report in two parts around its fonts' CSS: `before + fonts + after` is the whole page. */
export interface ReportParts {
  before: string;
  after: string;
}

/** The Inter faces every page uses, in the two forms a page can carry them. */
export interface EmbeddedFonts {
  /** @font-face rules with the fonts inline as data: URIs: what report.html holds. */
  embedded: string;
  /** `embedded` as UTF-8, made once for every report file. */
  embeddedBytes: Uint8Array;
  /** The same rules pointing at `assets`: what the printer's pages load, once per page rather than once per report. */
  linked: string;
  /** The font files `linked` points at, by URL. */
  assets: ReadonlyMap<string, PrintAsset>;
  /**
   * The faces the site's pages carry inline: the Latin subset alone (about 95 KB rather than 240), read on a phone
   * at every visit; a letter beyond it is drawn in the phone's own font.
   */
  site: string;
}

export interface HtmlRenderer {
  renderReport(model: ReportModel): string;
  /** renderReport split around the fonts, so the fonts' 240 KB are neither copied nor re-sent for every report. */
  renderReportParts(model: ReportModel): ReportParts;
  readonly fonts: EmbeddedFonts;
  renderIndex(model: IndexModel): string;
  /** A client's page of the published site (site/client.hbs). */
  renderClientPage(model: ClientPageModel): string;
  /** The published site's root, or its 404 page (site/root.hbs). */
  renderRootPage(model: RootPageModel): string;
  /** The HTML part of the message that carries a report (email.hbs); `logo` is the cid: address of its inline part. */
  /** `logoSize`: the size the logo is shown at (its width and height attributes), when known. */
  renderEmail(model: EmailModel, logo: string | null, logoSize?: { width: number; height: number } | null): string;
  /** The phrases every page is written with, loaded once; the PDF footer and the report text use the same. */
  readonly locales: Locales;
  /**
   * What the report's look is made of (its templates, stylesheet and the agency's phrases), as a short hash: a
   * report made with another one was made with other templates (`run --remake` makes it again).
   */
  readonly reportFingerprint: string;
}

export interface HtmlRendererOptions {
  /** The templates, read and checked: an agency's folder over the built-in set. @default the built-in set alone */
  templates?: PreparedTemplates;
  /** Phrases of every language. @default the templates' own: the built-in files, with the agency's laid over them */
  locales?: Locales;
  /** Reads the Inter font files (woff2). @default the files of the installed @fontsource/inter package */
  readFont?: (file: string) => Promise<Buffer>;
  /** The fonts, when another renderer already read them (the preview makes a renderer at every save). */
  fonts?: EmbeddedFonts;
  /** What earlier renderers of the session compiled; a renderer using it replaces their partials. @default a new one */
  compiler?: TemplateCompiler;
  /**
   * The pages it makes, when it reads the built-in templates itself: `index` for a command that only rewrites the
   * agency index (send, merge), which then reads no report template. @default 'all'
   */
  pages?: 'all' | 'index';
}

/** Inter faces embedded in every page, with the Unicode ranges Fontsource ships them for. */
const INTER_FACES = [
  {
    subset: 'latin',
    unicodeRange:
      'U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD',
  },
  {
    subset: 'latin-ext',
    unicodeRange:
      'U+0100-02BA,U+02BD-02C5,U+02C7-02CC,U+02CE-02D7,U+02DD-02FF,U+0304,U+0308,U+0329,U+1D00-1DBF,U+1E00-1E9F,U+1EF2-1EFF,U+2020,U+20A0-20AB,U+20AD-20C0,U+2113,U+2C60-2C7F,U+A720-A7FF',
  },
] as const;
const INTER_WEIGHTS = [400, 600, 700] as const;

const DEFAULT_FONT = "Inter, 'DejaVu Sans', Arial, sans-serif";

const readInstalledFont = (file: string): Promise<Buffer> => readFile(createRequire(import.meta.url).resolve(`@fontsource/inter/files/${file}`));

/** Where the printer's pages find the fonts: a reserved name (RFC 2606) the printer answers itself. */
export const PRINT_ASSETS_ORIGIN = 'https://assets.geo-reports.invalid';

async function embeddedFonts(readFont: (file: string) => Promise<Buffer>): Promise<EmbeddedFonts> {
  const embedded: string[] = [];
  const linked: string[] = [];
  const site: string[] = [];
  const assets = new Map<string, PrintAsset>();
  for (const face of INTER_FACES) {
    for (const weight of INTER_WEIGHTS) {
      const file = `inter-${face.subset}-${weight}-normal.woff2`;
      const font = await readFont(file);
      const rule = (src: string): string =>
        `@font-face{font-family:'Inter';font-style:normal;font-weight:${weight};font-display:block;` +
        `src:url(${src}) format('woff2');unicode-range:${face.unicodeRange};}`;
      embedded.push(rule(`data:font/woff2;base64,${font.toString('base64')}`));
      if (face.subset === 'latin') site.push(rule(`data:font/woff2;base64,${font.toString('base64')}`));
      linked.push(rule(`${PRINT_ASSETS_ORIGIN}/${file}`));
      assets.set(`${PRINT_ASSETS_ORIGIN}/${file}`, { body: font, contentType: 'font/woff2' });
    }
  }
  const css = embedded.join('\n');
  return { embedded: css, embeddedBytes: Buffer.from(css), linked: linked.join('\n'), assets, site: site.join('\n') };
}

/** Stands for the fonts in a rendered page; data is escaped, so no report text can produce it. */
const FONTS_SLOT = '<!--geo-reports:fonts-->';

/**
 * The printer's copy of a report's first part, without the page's policy: the printer seals its pages itself (no
 * script, offline, every request filtered) and serves the fonts from its reserved origin, which the policy forbids.
 */
export const printerCopy = (before: string): string => withoutPolicyMeta(before);

/** The brand colours, each value checked (and made readable) before it enters a stylesheet or a message. */
function checkedColors(branding: ReportModel['branding']): Record<'primary' | 'primaryInk' | 'onPrimary' | 'accent' | 'text' | 'muted' | 'background', string> {
  const background = safeColor(branding.colors.background, DEFAULT_COLORS.background);
  const primary = safeColor(branding.colors.primary, DEFAULT_COLORS.primary);
  const text = ensureContrast(safeColor(branding.colors.text, DEFAULT_COLORS.text), background, DEFAULT_COLORS.text);
  return {
    primary,
    primaryInk: ensureContrast(primary, background, text),
    onPrimary: readableTextOn(primary),
    accent: safeColor(branding.colors.accent, DEFAULT_COLORS.accent),
    text,
    muted: ensureContrast(safeColor(branding.colors.muted, DEFAULT_COLORS.muted), background, text),
    background,
  };
}

/** CSS custom properties from the agency's branding. */
function brandingCss(branding: ReportModel['branding']): string {
  const c = checkedColors(branding);
  const font = safeFontFamily(branding.fontFamily, DEFAULT_FONT);
  return (
    `:root{--brand-primary:${c.primary};--brand-primary-ink:${c.primaryInk};--brand-on-primary:${c.onPrimary};` +
    `--brand-accent:${c.accent};--brand-text:${c.text};--brand-muted:${c.muted};--brand-background:${c.background};` +
    `--brand-font:${font}, 'DejaVu Sans', sans-serif;}`
  );
}

/** What every mail client has: the brand font first when the reader's system has it, these otherwise. */
const MAIL_FONT = 'Arial, Helvetica, sans-serif';

type SortOrder = (typeof SORT_ORDERS)[number];

const byName = (language: Language) => {
  const collator = new Intl.Collator(language, { sensitivity: 'base', numeric: true });
  return (a: IndexRow, b: IndexRow): number => collator.compare(a.name, b.name) || a.projectId - b.projectId;
};

/** The index rows in each order the agency can switch between (pre-rendered: the page needs no script). */
export function sortIndexRows(rows: IndexRow[], order: SortOrder, language: Language): IndexRow[] {
  const names = byName(language);
  const nullsLast = (a: number | null, b: number | null, descending: boolean): number => {
    if (a === null && b === null) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return descending ? b - a : a - b;
  };
  const copy = [...rows];
  switch (order) {
    case 'drop':
      return copy.sort((a, b) => nullsLast(a.change?.value ?? null, b.change?.value ?? null, false) || names(a, b));
    case 'name':
      return copy.sort(names);
    case 'geo':
      return copy.sort((a, b) => nullsLast(a.geo, b.geo, true) || names(a, b));
    case 'critical':
      return copy.sort((a, b) => b.openCritical - a.openCritical || names(a, b));
  }
}

/**
 * A copy of the model cleaned by the one sanitiser of text leaving the tool (outgoing-text.ts): control characters
 * are invalid in HTML text and reach the PDF as garbage, and a U+202E from the service turns the report's text round.
 * Depth-bounded like the model.
 */
export function withoutControlCharacters<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return outgoingText(value) as T;
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutControlCharacters(item, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = withoutControlCharacters(item, depth + 1);
  return copy as T;
}

const COMPILE_OPTIONS = { noEscape: false, strict: false, preventIndent: true } as const;
/** Compiled pages kept by a compiler; beyond, the oldest go (a long preview session saves many versions). */
const MAX_COMPILED_PAGES = 32;

interface CompiledPages {
  report: HandlebarsTemplateDelegate | null;
  index: HandlebarsTemplateDelegate;
  site: { client: HandlebarsTemplateDelegate; root: HandlebarsTemplateDelegate } | null;
  email: HandlebarsTemplateDelegate;
}

/**
 * One Handlebars instance with the helpers, and what it compiled, kept from one renderer to the next: a preview
 * makes a renderer at every save, and only the templates whose text changed are compiled again. Partials are
 * compiled by Handlebars at their first use and kept while their text stays the same.
 */
export class TemplateCompiler {
  readonly hbs = Handlebars.create();
  readonly #partials = new Map<string, string>();
  readonly #pages = new Map<string, HandlebarsTemplateDelegate>();
  /**
   * With marks, every template is compiled with a mark before each run of its text (template check's balance of the
   * pages): such pages are for that check alone, and are not judged or sealed as pages to write.
   */
  readonly marks: SourceMarks | undefined;

  constructor(options: { marks?: SourceMarks } = {}) {
    this.marks = options.marks;
    registerHelpers(this.hbs);
  }

  /** A template as compiled by this compiler: from its text, or from its marked syntax tree. */
  #compile(text: string, path: string): HandlebarsTemplateDelegate {
    if (this.marks === undefined) return this.hbs.compile(text, COMPILE_OPTIONS);
    return this.hbs.compile(
      this.marks.mark((source) => this.hbs.parse(source), path, text),
      COMPILE_OPTIONS,
    );
  }

  /** The set's partials registered (changed ones only, removed ones gone), and its pages compiled. */
  use(templates: PreparedTemplates): CompiledPages {
    const { set, texts } = templates;
    const textOf = (name: string): string => texts.get(name) ?? '';
    for (const name of [...this.#partials.keys()]) {
      if (set.partials.has(name)) continue;
      this.hbs.unregisterPartial(name);
      this.#partials.delete(name);
    }
    for (const [name, file] of set.partials) {
      const text = textOf(file.name);
      if (this.#partials.get(name) === text) continue;
      this.hbs.registerPartial(name, this.marks === undefined ? text : this.#compile(text, file.path));
      this.#partials.set(name, text);
    }
    // A scan section's own partial (src/sections), unless the agency's folder has one of the same name.
    for (const section of SECTIONS) {
      const name = `section-${section.name}`;
      if (set.partials.has(name)) continue;
      this.hbs.registerPartial(name, this.marks === undefined ? section.partial : this.#compile(section.partial, `the built-in ${section.name} section`));
    }
    const page = (file: { name: string; path: string }): HandlebarsTemplateDelegate => this.#page(textOf(file.name), file.path);
    return {
      report: set.report === null ? null : page(set.report),
      index: page(set.index),
      site: set.site === null ? null : { client: page(set.site.client), root: page(set.site.root) },
      email: page(set.email),
    };
  }

  #page(text: string, path: string): HandlebarsTemplateDelegate {
    let page = this.#pages.get(text);
    if (page === undefined) {
      page = this.#compile(text, path);
      if (this.#pages.size >= MAX_COMPILED_PAGES) this.#pages.delete(this.#pages.keys().next().value as string);
      this.#pages.set(text, page);
    }
    return page;
  }
}

/** The report's templates (report.hbs and the partials), its stylesheet and the agency's phrase files, hashed in a fixed order. */
function fingerprintOf(templates: PreparedTemplates): string {
  const hash = createHash('sha256');
  const add = (name: string, text: string): void => {
    hash.update(`${name}\0${text.length}\0${text}\0`);
  };
  // The index's, the site's and the message's own templates are not the report's look.
  const reportTexts = [...templates.texts].filter(([name]) => name === 'report.hbs' || name.startsWith('partials/'));
  for (const [name, text] of reportTexts.sort(([a], [b]) => a.localeCompare(b))) add(name, text);
  add('report.css', templates.css.report);
  for (const [name, file] of [...templates.set.locales].sort(([a], [b]) => a.localeCompare(b))) add(`locales/${name}`, file.text);
  return hash.digest('hex').slice(0, 16);
}

/** Compiles the templates and loads the fonts once; rendering is then synchronous and pure. */
export async function createHtmlRenderer(options: HtmlRendererOptions = {}): Promise<HtmlRenderer> {
  const templates = options.templates ?? (await loadTemplates(options.pages === undefined ? {} : { pages: options.pages }));
  const templatesDir = templates.set.agencyDir ?? templates.set.builtInDir;
  const compiler = options.compiler ?? new TemplateCompiler();
  const { hbs } = compiler;
  const { report: reportTemplate, index: indexTemplate, site: siteTemplates, email: emailTemplate } = compiler.use(templates);
  const fonts = options.fonts ?? (await embeddedFonts(options.readFont ?? readInstalledFont));
  const reportCss = templates.css.report;
  const indexCss = templates.css.index;
  const siteCss = templates.css.site;
  const locales = options.locales ?? templates.locales;
  // A marked page carries marks in its text and attributes: it is parsed for its balance, never written.
  const sealPage = compiler.marks === undefined ? sealWrittenPage : (html: string): string => html;
  const reportFingerprint = fingerprintOf(templates);

  const renderReportParts = (input: ReportModel): ReportParts => {
    if (reportTemplate === null) throw new GeoReportsError('This renderer was made for the agency index only (pages: "index").');
    const model = withoutControlCharacters(input);
    const language = model.meta.language;
    // The styles of the scan sections shown, only: a report without them keeps its bytes.
    const sectionCss = SECTIONS.filter((s) => model.sections?.[s.name] != null)
      .map((s) => `\n${s.styles}`)
      .join('');
    const styles = new hbs.SafeString(`${FONTS_SLOT}\n${brandingCss(model.branding)}\n${reportCss}${sectionCss}`);
    const page = reportTemplate(
      { ...model, styles, logo: safeImageDataUri(model.branding.logoDataUri) },
      { data: { phrases: locales.phrases(language), language } },
    );
    // Checked as printed, before the fonts (the tool's own) go in; the styles come before any report text, so the
    // first occurrence is the slot.
    const sealed = sealPage(page, 'The report page');
    const slot = sealed.indexOf(FONTS_SLOT);
    if (slot === -1) {
      throw new GeoReportsError(`The report template in ${templatesDir} does not print {{styles}}.`, {
        hint: 'Put <style>{{styles}}</style> in the <head> of report.hbs: it carries the fonts, the branding and the layout.',
      });
    }
    return { before: sealed.slice(0, slot), after: sealed.slice(slot + FONTS_SLOT.length) };
  };

  /** A page of the published site: the Latin fonts, the branding and the site's stylesheet, the logo checked. */
  const renderSitePage = (page: 'client' | 'root', input: ClientPageModel | RootPageModel): string => {
    if (siteTemplates === null) throw new GeoReportsError('This renderer was made for the agency index only (pages: "index").');
    const model = withoutControlCharacters(input);
    const styles = new hbs.SafeString(`${FONTS_SLOT}\n${brandingCss(model.branding)}\n${siteCss}`);
    const html = siteTemplates[page](
      { ...model, styles, logo: safeImageDataUri(model.branding.logoDataUri) },
      { data: { phrases: locales.phrases(model.language), language: model.language } },
    );
    return sealPage(html, page === 'client' ? "The client's page" : "The site's root page").replace(FONTS_SLOT, () => fonts.site);
  };

  return {
    locales,
    fonts,
    reportFingerprint,
    renderReportParts,
    renderClientPage: (model) => renderSitePage('client', model),
    renderRootPage: (model) => renderSitePage('root', model),
    renderEmail(input: EmailModel, logo: string | null, logoSize: { width: number; height: number } | null = null): string {
      const model = withoutControlCharacters(input);
      const colors = checkedColors(model.branding);
      const font = `${safeFontFamily(model.branding.fontFamily, MAIL_FONT)}, ${MAIL_FONT}`;
      const cid = logo !== null && /^cid:[\w.@-]+$/.test(logo) ? logo : null;
      const size =
        cid !== null && logoSize !== null
          ? { logoWidth: Math.round(logoSize.width), logoHeight: Math.round(logoSize.height) }
          : { logoWidth: null, logoHeight: null };
      const html = emailTemplate(
        { ...model, colors, font, logo: cid, ...size },
        { data: { phrases: locales.phrases(model.language), language: model.language } },
      );
      // A message is judged like a page, but for its own logo part and the button to the client's page.
      const problems = compiler.marks !== undefined ? [] : pageProblems(html, { links: model.button === null ? [] : [model.button.url], inlineParts: true });
      if (problems.length > 0) throw new UnsafePageError('The message', problems);
      return html;
    },
    renderReport(input: ReportModel): string {
      const { before, after } = renderReportParts(input);
      return `${before}${fonts.embedded}${after}`;
    },
    renderIndex(input: IndexModel): string {
      const model = withoutControlCharacters(input);
      const language = model.language;
      const phrases = locales.phrases(language);
      const styles = new hbs.SafeString(`${FONTS_SLOT}
${brandingCss(model.branding)}
${indexCss}`);
      const orders = SORT_ORDERS.map((order, position) => ({
        order,
        checked: position === 0,
        label: translate(phrases, language, `index.sort.${order}`),
        rows: sortIndexRows(model.rows, order, language),
      }));
      const html = indexTemplate({ ...model, styles, orders, logo: safeImageDataUri(model.branding.logoDataUri) }, { data: { phrases, language } });
      return sealPage(html, 'The agency index').replace(FONTS_SLOT, () => fonts.embedded);
    },
  };
}
