// ReportModel / IndexModel → one self-contained HTML file each: styles and fonts inline, the chart as SVG,
// every data string escaped by Handlebars, no script and no remote resource in client reports.
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, extname, join } from 'node:path';
import Handlebars from 'handlebars';
import type { HelperOptions } from 'handlebars';
import { GeoReportsError } from '../errors.js';
import type { Delta, IndexModel, IndexRow, Language, ReportModel } from '../report/model.js';
import { historyChartSvg } from './charts.js';
import {
  NO_VALUE,
  barWidth,
  ensureContrast,
  formatDelta,
  formatPercent,
  formatScore,
  formatSigned,
  percentileBand,
  readableTextOn,
  safeColor,
  safeFontFamily,
  safeImageDataUri,
  safeRelativeHref,
} from './format.js';
import { fileURLToPath } from 'node:url';
import { formatDate, formatNumber, phrase, pluralPhrase } from '../i18n/format.js';
import { loadLocales, type Locales, type Phrases } from '../i18n/locales.js';
import { changeDirection } from '../report/deltas.js';

/** Where the templates live when the caller does not say (the package's templates/). */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

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
}

export interface HtmlRenderer {
  renderReport(model: ReportModel): string;
  /** renderReport split around the fonts, so the fonts' 240 KB are neither copied nor re-sent for every report. */
  renderReportParts(model: ReportModel): ReportParts;
  readonly fonts: EmbeddedFonts;
  renderIndex(model: IndexModel): string;
  /** The phrases every page is written with, loaded once; the PDF footer and the report text use the same. */
  readonly locales: Locales;
}

export interface HtmlRendererOptions {
  /** Folder holding report.hbs, index.hbs, partials/ and assets/. @default <package>/templates */
  templatesDir?: string;
  /** Phrases of every language. @default loadLocales() from `<templatesDir>/locales` */
  locales?: Locales;
  /** Reads the Inter font files (woff2). @default the files of the installed @fontsource/inter package */
  readFont?: (file: string) => Promise<Buffer>;
  /**
   * The pages it makes: `index` for a command that only rewrites the agency index (send, merge), which then reads
   * no report template. @default 'all'
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

const DEFAULT_COLORS = { primary: '#1e3a8a', accent: '#0f766e', text: '#111827', muted: '#4b5563', background: '#ffffff' };
const DEFAULT_FONT = "Inter, 'DejaVu Sans', Arial, sans-serif";

const readInstalledFont = (file: string): Promise<Buffer> =>
  readFile(createRequire(import.meta.url).resolve(`@fontsource/inter/files/${file}`));

/** Where the printer's pages find the fonts: a reserved name (RFC 2606) the printer answers itself. */
export const PRINT_ASSETS_ORIGIN = 'https://assets.geo-reports.invalid';

async function embeddedFonts(readFont: (file: string) => Promise<Buffer>): Promise<EmbeddedFonts> {
  const embedded: string[] = [];
  const linked: string[] = [];
  const assets = new Map<string, PrintAsset>();
  for (const face of INTER_FACES) {
    for (const weight of INTER_WEIGHTS) {
      const file = `inter-${face.subset}-${weight}-normal.woff2`;
      const font = await readFont(file);
      const rule = (src: string): string =>
        `@font-face{font-family:'Inter';font-style:normal;font-weight:${weight};font-display:block;` +
        `src:url(${src}) format('woff2');unicode-range:${face.unicodeRange};}`;
      embedded.push(rule(`data:font/woff2;base64,${font.toString('base64')}`));
      linked.push(rule(`${PRINT_ASSETS_ORIGIN}/${file}`));
      assets.set(`${PRINT_ASSETS_ORIGIN}/${file}`, { body: font, contentType: 'font/woff2' });
    }
  }
  const css = embedded.join('\n');
  return { embedded: css, embeddedBytes: Buffer.from(css), linked: linked.join('\n'), assets };
}

/** Stands for the fonts in a rendered page; data is escaped, so no report text can produce it. */
const FONTS_SLOT = '<!--geo-reports:fonts-->';

/** CSS custom properties from the agency's branding, each value checked before it enters a stylesheet. */
function brandingCss(branding: ReportModel['branding']): string {
  const background = safeColor(branding.colors.background, DEFAULT_COLORS.background);
  const primary = safeColor(branding.colors.primary, DEFAULT_COLORS.primary);
  const accent = safeColor(branding.colors.accent, DEFAULT_COLORS.accent);
  const text = ensureContrast(safeColor(branding.colors.text, DEFAULT_COLORS.text), background, DEFAULT_COLORS.text);
  const muted = ensureContrast(safeColor(branding.colors.muted, DEFAULT_COLORS.muted), background, text);
  const primaryInk = ensureContrast(primary, background, text);
  const font = safeFontFamily(branding.fontFamily, DEFAULT_FONT);
  return (
    `:root{--brand-primary:${primary};--brand-primary-ink:${primaryInk};--brand-on-primary:${readableTextOn(primary)};` +
    `--brand-accent:${accent};--brand-text:${text};--brand-muted:${muted};--brand-background:${background};` +
    `--brand-font:${font}, 'DejaVu Sans', sans-serif;}`
  );
}

interface RenderData {
  phrases: Phrases;
  language: Language;
}

function renderData(options: HelperOptions): RenderData {
  const data = options.data as { root?: unknown; phrases?: Phrases; language?: Language };
  if (data.phrases === undefined || data.language === undefined) {
    throw new Error('Template rendered without phrases: call it through the HtmlRenderer.');
  }
  return { phrases: data.phrases, language: data.language };
}

/** Handlebars passes its options object last; everything before it is a helper argument. */
function splitArgs(args: unknown[]): { params: unknown[]; options: HelperOptions } {
  const options = args[args.length - 1] as HelperOptions;
  return { params: args.slice(0, -1), options };
}

/** A phrase of the templates; with a numeric `count`, its plural form and the count written in the language. */
function translate(phrases: Phrases, language: Language, key: string, params: Record<string, string | number> = {}): string {
  const count = params['count'];
  if (typeof count !== 'number') return phrase(phrases, key, params);
  return pluralPhrase(phrases, language, key, count, { ...params, count: formatNumber(count, language) });
}

function hashParams(options: HelperOptions, language: Language): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(options.hash as Record<string, unknown>)) {
    if (typeof value === 'number') params[name] = name === 'count' ? value : formatNumber(value, language);
    else if (typeof value === 'string') params[name] = value;
    else if (value === null || value === undefined) params[name] = NO_VALUE;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a template's value (a boolean, say) as text
    else params[name] = String(value);
  }
  return params;
}

function registerHelpers(hbs: typeof Handlebars): void {
  /** {{t "priority" priority count=n}}: key parts joined with dots, hash values as {placeholders}. */
  hbs.registerHelper('t', (...args: unknown[]) => {
    const { params, options } = splitArgs(args);
    const { phrases, language } = renderData(options);
    const key = params.map(String).join('.');
    return translate(phrases, language, key, hashParams(options, language));
  });
  hbs.registerHelper('number', (...args: unknown[]) => {
    const { params, options } = splitArgs(args);
    const [value, digits] = params;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what the template gave instead of a number, as text
    if (typeof value !== 'number') return value === null || value === undefined ? NO_VALUE : String(value);
    return formatNumber(value, renderData(options).language, { maximumFractionDigits: typeof digits === 'number' ? digits : 1 });
  });
  hbs.registerHelper('score', (value: unknown, options: HelperOptions) =>
    formatScore(typeof value === 'number' ? value : null, renderData(options).language),
  );
  hbs.registerHelper('percent', (value: unknown, options: HelperOptions) =>
    formatPercent(typeof value === 'number' ? value : null, renderData(options).language),
  );
  hbs.registerHelper('delta', (delta: Delta | null | undefined, options: HelperOptions) =>
    formatDelta(delta ?? null, renderData(options).language),
  );
  hbs.registerHelper('signed', (value: unknown, options: HelperOptions) =>
    formatSigned(typeof value === 'number' ? value : null, renderData(options).language),
  );
  hbs.registerHelper('deltaClass', (delta: Delta | null | undefined) => `delta delta--${delta?.direction ?? 'none'}`);
  hbs.registerHelper('signedClass', (value: unknown) => {
    if (typeof value !== 'number') return 'delta delta--none';
    return `delta delta--${changeDirection(value)}`;
  });
  hbs.registerHelper('date', (iso: unknown, style: unknown, options: HelperOptions) => {
    if (typeof iso !== 'string') return NO_VALUE;
    return formatDate(iso, renderData(options).language, style === 'month' ? 'month' : 'long');
  });
  hbs.registerHelper('percentileWords', (percentile: unknown, options: HelperOptions) => {
    const { phrases, language } = renderData(options);
    if (typeof percentile !== 'number') return translate(phrases, language, 'percentile.unknown');
    const band = percentileBand(percentile);
    return translate(phrases, language, band.key, { share: formatNumber(band.share, language) });
  });
  hbs.registerHelper('barWidth', (value: unknown) => String(barWidth(typeof value === 'number' ? value : null)));
  /** A scalar of a key/value list: numbers localised, booleans as words, null as a dash. */
  hbs.registerHelper('scalar', (value: unknown, options: HelperOptions) => {
    const { phrases, language } = renderData(options);
    if (value === null || value === undefined) return NO_VALUE;
    if (typeof value === 'boolean') return translate(phrases, language, value ? 'value.yes' : 'value.no');
    if (typeof value === 'number') return formatNumber(value, language, { maximumFractionDigits: 2 });
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar of the answer as text
    return String(value);
  });
  hbs.registerHelper('isNumber', (value: unknown) => typeof value === 'number' && Number.isFinite(value));
  /** A section is left out when null; an empty one still shows its heading and a "nothing yet" line. */
  hbs.registerHelper('isPresent', (value: unknown) => value !== null && value !== undefined);
  hbs.registerHelper('isList', (value: unknown) => Array.isArray(value));
  hbs.registerHelper('isEmptyList', (value: unknown) => Array.isArray(value) && value.length === 0);
  hbs.registerHelper('hasItems', (value: unknown) => Array.isArray(value) && value.length > 0);
  hbs.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  hbs.registerHelper('or', (...args: unknown[]) => splitArgs(args).params.some(Boolean));
  hbs.registerHelper('and', (...args: unknown[]) => splitArgs(args).params.every(Boolean));
  hbs.registerHelper('not', (value: unknown) => !value);
  hbs.registerHelper('gt', (a: unknown, b: unknown) => typeof a === 'number' && typeof b === 'number' && a > b);
  // The summary page lists only the first items of a long list; the full list follows in its section.
  hbs.registerHelper('take', (list: unknown, count: unknown) => (Array.isArray(list) ? (list as unknown[]).slice(0, Number(count)) : []));
  hbs.registerHelper('beyond', (list: unknown, count: unknown) => (Array.isArray(list) ? Math.max(0, list.length - Number(count)) : 0));
  hbs.registerHelper('safeImage', (uri: unknown) => safeImageDataUri(typeof uri === 'string' ? uri : undefined));
  hbs.registerHelper('safeHref', (href: unknown) => safeRelativeHref(typeof href === 'string' ? href : null));
  hbs.registerHelper('historyChart', (history: ReportModel['history'], options: HelperOptions) => {
    const { phrases, language } = renderData(options);
    const root = (options.data as { root: ReportModel }).root;
    const colors = root.branding.colors;
    const svg = historyChartSvg(history ?? [], {
      labels: { geo: translate(phrases, language, 'scores.geoShort'), seo: translate(phrases, language, 'scores.seoShort') },
      colors: {
        geo: ensureContrast(safeColor(colors.primary, DEFAULT_COLORS.primary), '#ffffff', DEFAULT_COLORS.primary, 3),
        seo: ensureContrast(safeColor(colors.accent, DEFAULT_COLORS.accent), '#ffffff', DEFAULT_COLORS.accent, 3),
      },
      language,
      title: translate(phrases, language, 'history.chart'),
      textColor: '#374151',
      fontFamily: "Inter, 'DejaVu Sans', sans-serif",
    });
    // The SVG is generated here from numbers and locale labels (charts.ts escapes its text), never from raw data.
    return new hbs.SafeString(svg);
  });
}

const SORT_ORDERS = ['drop', 'name', 'geo', 'critical'] as const;
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

// C0 controls (NUL, escape…) are invalid in HTML text and would reach the PDF as garbage.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** A copy of the model with control characters removed from every string (depth-bounded like the model). */
export function withoutControlCharacters<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return value.replace(CONTROL_CHARACTERS, '') as T;
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutControlCharacters(item, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = withoutControlCharacters(item, depth + 1);
  return copy as T;
}

async function readTemplate(dir: string, name: string): Promise<string> {
  return readFile(join(dir, name), 'utf8');
}

/** The report's template with its partials, and its own styles. */
async function loadReportPage(
  hbs: typeof Handlebars,
  templatesDir: string,
  compileOptions: Parameters<typeof Handlebars.compile>[1],
  commonCss: string,
): Promise<{ template: HandlebarsTemplateDelegate; css: string }> {
  const partialsDir = join(templatesDir, 'partials');
  for (const file of (await readdir(partialsDir)).sort()) {
    if (extname(file) !== '.hbs') continue;
    hbs.registerPartial(basename(file, '.hbs'), await readTemplate(partialsDir, file));
  }
  const template = hbs.compile(await readTemplate(templatesDir, 'report.hbs'), compileOptions);
  return { template, css: `${commonCss}\n${await readTemplate(join(templatesDir, 'assets'), 'report.css')}` };
}

/** Loads templates, styles and fonts once; rendering is then synchronous and pure. */
export async function createHtmlRenderer(options: HtmlRendererOptions = {}): Promise<HtmlRenderer> {
  const templatesDir = options.templatesDir ?? DEFAULT_TEMPLATES_DIR;
  const hbs = Handlebars.create();
  registerHelpers(hbs);

  const compileOptions = { noEscape: false, strict: false, preventIndent: true } as const;
  const commonCss = await readTemplate(join(templatesDir, 'assets'), 'common.css');
  const reportPage = options.pages === 'index' ? null : await loadReportPage(hbs, templatesDir, compileOptions, commonCss);
  const indexTemplate = hbs.compile(await readTemplate(templatesDir, 'index.hbs'), compileOptions);
  const fonts = await embeddedFonts(options.readFont ?? readInstalledFont);
  const indexCss = `${commonCss}\n${await readTemplate(join(templatesDir, 'assets'), 'index.css')}`;

  const locales = options.locales ?? loadLocales({ dir: join(templatesDir, 'locales') });

  const renderReportParts = (input: ReportModel): ReportParts => {
    if (reportPage === null) throw new Error('This renderer was made for the agency index only (pages: "index").');
    const { template: reportTemplate, css: reportCss } = reportPage;
    const model = withoutControlCharacters(input);
    const language = model.meta.language;
    const styles = new hbs.SafeString(`${FONTS_SLOT}\n${brandingCss(model.branding)}\n${reportCss}`);
    const page = reportTemplate(
      { ...model, styles, logo: safeImageDataUri(model.branding.logoDataUri) },
      { data: { phrases: locales.phrases(language), language } },
    );
    // The styles come before any report text, so the first occurrence is the slot.
    const slot = page.indexOf(FONTS_SLOT);
    if (slot === -1) {
      throw new GeoReportsError(`The report template in ${templatesDir} does not print {{styles}}.`, {
        hint: 'Put <style>{{styles}}</style> in the <head> of report.hbs: it carries the fonts, the branding and the layout.',
      });
    }
    return { before: page.slice(0, slot), after: page.slice(slot + FONTS_SLOT.length) };
  };

  return {
    locales,
    fonts,
    renderReportParts,
    renderReport(input: ReportModel): string {
      const { before, after } = renderReportParts(input);
      return `${before}${fonts.embedded}${after}`;
    },
    renderIndex(input: IndexModel): string {
      const model = withoutControlCharacters(input);
      const language = model.language;
      const phrases = locales.phrases(language);
      const styles = new hbs.SafeString(`${fonts.embedded}
${brandingCss(model.branding)}
${indexCss}`);
      const orders = SORT_ORDERS.map((order, position) => ({
        order,
        checked: position === 0,
        label: translate(phrases, language, `index.sort.${order}`),
        rows: sortIndexRows(model.rows, order, language),
      }));
      return indexTemplate(
        { ...model, styles, orders, logo: safeImageDataUri(model.branding.logoDataUri) },
        { data: { phrases, language } },
      );
    },
  };
}

