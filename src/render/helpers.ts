// The helpers every template can call ({{t …}}, {{score …}}, {{delta …}}…): each one's work and its reference,
// from which docs/templates.md is written and `template check` knows what a template may call.
import Handlebars from 'handlebars';
import type { HelperOptions } from 'handlebars';
import { formatDate, formatNumber, formatPointsChange, formatWithUnit, phrase, pluralPhrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { changeDirection } from '../report/deltas.js';
import type { Delta, Language, ReportModel } from '../report/model.js';
import { historyChartSvg } from './charts.js';
import {
  DELTA_ARROWS,
  NO_VALUE,
  barWidth,
  ensureContrast,
  formatDelta,
  formatPercent,
  formatScore,
  formatSigned,
  percentileBand,
  safeColor,
  safeImageDataUri,
  safeRelativeHref,
  signedArrow,
} from './format.js';

export const DEFAULT_COLORS = { primary: '#1e3a8a', accent: '#0f766e', text: '#111827', muted: '#4b5563', background: '#ffffff' };

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
export function translate(phrases: Phrases, language: Language, key: string, params: Record<string, string | number> = {}): string {
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

/** What a helper gives back, so that `template check` can follow a value through it. */
export type HelperResult = 'text' | 'markup' | 'yes/no' | 'list like its first argument';

/** One helper templates can call: how it is written, what it does, and its work. */
export interface HelperSpec {
  /** How a template calls it, e.g. `{{score value}}`. */
  usage: string;
  description: string;
  result: HelperResult;
  fn: (...args: never[]) => unknown;
}

/** Every helper the templates can call, with its reference for docs/templates.md and `template check`. */
export const HELPERS = {
  t: {
    usage: '{{t "key" [part…] [name=value…] [count=n]}}',
    description:
      'A phrase of the locale files in the report\'s language: the key parts are joined with dots (`{{t "priority" priority}}` reads `priority.critical`), `name=value` fills `{name}`, and a numeric `count` picks the plural form (`key.one`, `key.other`, `key.zero`) and is written in the language.',
    result: 'text',
    fn: (...args: unknown[]) => {
      const { params, options } = splitArgs(args);
      const { phrases, language } = renderData(options);
      const key = params.map(String).join('.');
      // A raw key never reaches a page: a phrase missing here stops the rendering (found on the sample pages first).
      if (![key, `${key}.one`, `${key}.other`].some((candidate) => phrases[candidate] !== undefined)) {
        throw new Error(`the phrase "${key}" is in no locale file of "${language}"`);
      }
      return translate(phrases, language, key, hashParams(options, language));
    },
  },
  number: {
    usage: '{{number value [digits]}}',
    description: 'A number in the language\'s style ("1,240.5" / "1 240,5"), one decimal unless `digits` says; a dash when there is none.',
    result: 'text',
    fn: (...args: unknown[]) => {
      const { params, options } = splitArgs(args);
      const [value, digits] = params;
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what the template gave instead of a number, as text
      if (typeof value !== 'number') return value === null || value === undefined ? NO_VALUE : String(value);
      return formatNumber(value, renderData(options).language, { maximumFractionDigits: typeof digits === 'number' ? digits : 1 });
    },
  },
  figure: {
    usage: '{{figure value unit}}',
    description:
      'A value with its unit, written as the summary writes it: "27.3%" / "27,3 %" for a percentage, "2.4 s" for another unit, two decimals at most; a text as it is; a dash when there is none.',
    result: 'text',
    fn: (value: unknown, unit: unknown, options: HelperOptions) => {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what the template gave instead of a number, as text
      if (typeof value !== 'number') return value === null || value === undefined ? NO_VALUE : String(value);
      return formatWithUnit(value, typeof unit === 'string' ? unit : null, renderData(options).language);
    },
  },
  score: {
    usage: '{{score value}}',
    description: 'A 0–100 score as a whole number ("73"), or a dash.',
    result: 'text',
    fn: (value: unknown, options: HelperOptions) => formatScore(typeof value === 'number' ? value : null, renderData(options).language),
  },
  percent: {
    usage: '{{percent value}}',
    description: 'A percentage ("42%" / "42 %"), or a dash.',
    result: 'text',
    fn: (value: unknown, options: HelperOptions) => formatPercent(typeof value === 'number' ? value : null, renderData(options).language),
  },
  delta: {
    usage: '{{delta change [unit]}}',
    description:
      'A change against last period with its arrow: "▲ +3", "▼ -2.5", "▶ 0"; a dash on the first period. With the unit "%", the change of a percentage in points: "▲ +3.2 pts".',
    result: 'text',
    fn: (...args: unknown[]) => {
      const { params, options } = splitArgs(args);
      const [delta, unit] = params as [Delta | null | undefined, unknown];
      const { phrases, language } = renderData(options);
      if (delta == null || unit !== '%') return formatDelta(delta ?? null, language);
      return `${DELTA_ARROWS[delta.direction]} ${formatPointsChange(delta.value, phrases, language)}`;
    },
  },
  signed: {
    usage: '{{signed value [unit]}}',
    description:
      'A signed number with its arrow ("▲ +9", "▼ -4"), e.g. a gap to the benchmark, with the digits a small non-zero value needs ("▼ -0.04", never "0"). With the unit "%", in points: "▲ +0.5 pts".',
    result: 'text',
    fn: (...args: unknown[]) => {
      const { params, options } = splitArgs(args);
      const [value, unit] = params;
      const { phrases, language } = renderData(options);
      if (typeof value !== 'number' || unit !== '%') return formatSigned(typeof value === 'number' ? value : null, language);
      return `${signedArrow(value)} ${formatPointsChange(value, phrases, language)}`;
    },
  },
  deltaClass: {
    usage: '<span class="{{deltaClass change}}">',
    description: 'The CSS classes of a change: `delta delta--up`, `delta--down`, `delta--flat` or `delta--none`.',
    result: 'text',
    fn: (delta: Delta | null | undefined) => `delta delta--${delta?.direction ?? 'none'}`,
  },
  signedClass: {
    usage: '<span class="{{signedClass value}}">',
    description: 'The CSS classes of a signed number, as deltaClass.',
    result: 'text',
    fn: (value: unknown) => {
      if (typeof value !== 'number') return 'delta delta--none';
      return `delta delta--${changeDirection(value)}`;
    },
  },
  date: {
    usage: '{{date iso "long"}}, {{date iso "month"}}',
    description: 'A date in the language: "long" → "22 October 2026" / "22 octobre 2026"; "month" → "Oct 2026".',
    result: 'text',
    fn: (iso: unknown, style: unknown, options: HelperOptions) => {
      if (typeof iso !== 'string') return NO_VALUE;
      return formatDate(iso, renderData(options).language, style === 'month' ? 'month' : 'long');
    },
  },
  percentileWords: {
    usage: '{{percentileWords scores.percentile}}',
    description: 'A percentile in words: "Top 20% of tracked sites", or how many sites the client is ahead of.',
    result: 'text',
    fn: (percentile: unknown, options: HelperOptions) => {
      const { phrases, language } = renderData(options);
      if (typeof percentile !== 'number') return translate(phrases, language, 'percentile.unknown');
      const band = percentileBand(percentile);
      return translate(phrases, language, band.key, { share: formatNumber(band.share, language) });
    },
  },
  barWidth: {
    usage: 'style="width: {{barWidth value}}%"',
    description: 'The width of a 0–100 bar in percent, kept between 0 and 100.',
    result: 'text',
    fn: (value: unknown) => String(barWidth(typeof value === 'number' ? value : null)),
  },
  scalar: {
    usage: '{{scalar value}}',
    description: 'A value of a key/value list: numbers in the language, yes/no as words, nothing as a dash.',
    result: 'text',
    fn: (value: unknown, options: HelperOptions) => {
      const { phrases, language } = renderData(options);
      if (value === null || value === undefined) return NO_VALUE;
      if (typeof value === 'boolean') return translate(phrases, language, value ? 'value.yes' : 'value.no');
      if (typeof value === 'number') return formatNumber(value, language, { maximumFractionDigits: 2 });
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar of the answer as text
      return String(value);
    },
  },
  isNumber: {
    usage: '{{#if (isNumber value)}}',
    description: 'True for a number (not for a missing value).',
    result: 'yes/no',
    fn: (value: unknown) => typeof value === 'number' && Number.isFinite(value),
  },
  isPresent: {
    usage: '{{#if (isPresent scores)}}',
    description: 'True unless null: a section left out of the report is null; an empty one still shows its heading.',
    result: 'yes/no',
    fn: (value: unknown) => value !== null && value !== undefined,
  },
  sectionPartial: {
    usage: '{{> (sectionPartial @key) this}}',
    description: 'The partial of a scan section (section-<name>), inside {{#each sections}}: each section is drawn by its own partial.',
    result: 'text',
    fn: (name: unknown) => `section-${String(name)}`,
  },
  isList: { usage: '{{#if (isList value)}}', description: 'True for a list.', result: 'yes/no', fn: (value: unknown) => Array.isArray(value) },
  isEmptyList: {
    usage: '{{#if (isEmptyList value)}}',
    description: 'True for a list with nothing in it.',
    result: 'yes/no',
    fn: (value: unknown) => Array.isArray(value) && value.length === 0,
  },
  hasItems: {
    usage: '{{#if (hasItems list)}}',
    description: 'True for a list with at least one item.',
    result: 'yes/no',
    fn: (value: unknown) => Array.isArray(value) && value.length > 0,
  },
  eq: { usage: '{{#if (eq a b)}}', description: 'True when both are the same value.', result: 'yes/no', fn: (a: unknown, b: unknown) => a === b },
  or: {
    usage: '{{#if (or a b …)}}',
    description: 'True when any is true.',
    result: 'yes/no',
    fn: (...args: unknown[]) => splitArgs(args).params.some(Boolean),
  },
  and: {
    usage: '{{#if (and a b …)}}',
    description: 'True when all are true.',
    result: 'yes/no',
    fn: (...args: unknown[]) => splitArgs(args).params.every(Boolean),
  },
  not: { usage: '{{#if (not a)}}', description: 'True when false or empty.', result: 'yes/no', fn: (value: unknown) => !value },
  gt: {
    usage: '{{#if (gt a b)}}',
    description: 'True when both are numbers and a > b.',
    result: 'yes/no',
    fn: (a: unknown, b: unknown) => typeof a === 'number' && typeof b === 'number' && a > b,
  },
  // The summary page lists only the first items of a long list; the full list follows in its section.
  take: {
    usage: '{{#each (take list 5)}}',
    description: 'The first items of a list.',
    result: 'list like its first argument',
    fn: (list: unknown, count: unknown) => (Array.isArray(list) ? (list as unknown[]).slice(0, Number(count)) : []),
  },
  beyond: {
    usage: '{{beyond list 5}}',
    description: 'How many items a list has beyond the first ones (0 when none).',
    result: 'text',
    fn: (list: unknown, count: unknown) => (Array.isArray(list) ? Math.max(0, list.length - Number(count)) : 0),
  },
  safeImage: {
    usage: '<img src="{{safeImage uri}}">',
    description: 'The value when it is an inline image (a data: URI of a PNG, JPEG, GIF, WebP or SVG), else nothing: a URL would make the report fetch.',
    result: 'text',
    fn: (uri: unknown) => safeImageDataUri(typeof uri === 'string' ? uri : undefined),
  },
  safeHref: {
    usage: '<a href="{{safeHref htmlHref}}">',
    description: 'The value when it is a link inside the period folder (relative, no scheme, no ".."), else nothing.',
    result: 'text',
    fn: (href: unknown) => safeRelativeHref(typeof href === 'string' ? href : null),
  },
  historyChart: {
    usage: '{{historyChart history [width=640] [height=260]}}',
    description:
      "The GEO and SEO score history as an inline SVG chart, in the brand colours; `width` and `height` (in CSS pixels) size it for its place, e.g. a phone's screen.",
    result: 'markup',
    fn: (history: ReportModel['history'], options: HelperOptions) => {
      const size = options.hash as { width?: unknown; height?: unknown };
      const dimension = (value: unknown): number | undefined =>
        typeof value === 'number' && Number.isFinite(value) ? Math.min(2000, Math.max(160, value)) : undefined;
      const width = dimension(size.width);
      const height = dimension(size.height);
      const { phrases, language } = renderData(options);
      // The report's model or a client page's: both may carry the agency's annotations.
      const root = (options.data as { root: ReportModel | (Omit<ReportModel, 'annotations'> & { annotations?: ReportModel['annotations'] }) }).root;
      const colors = root.branding.colors;
      const svg = historyChartSvg(history ?? [], {
        labels: { geo: translate(phrases, language, 'scores.geoShort'), seo: translate(phrases, language, 'scores.seoShort') },
        colors: {
          geo: ensureContrast(safeColor(colors.primary, DEFAULT_COLORS.primary), '#ffffff', DEFAULT_COLORS.primary, 3),
          seo: ensureContrast(safeColor(colors.accent, DEFAULT_COLORS.accent), '#ffffff', DEFAULT_COLORS.accent, 3),
        },
        language,
        title: translate(phrases, language, 'history.chart'),
        annotations: root.annotations ?? [],
        textColor: '#374151',
        fontFamily: "Inter, 'DejaVu Sans', sans-serif",
        ...(width !== undefined ? { width } : {}),
        ...(height !== undefined ? { height } : {}),
      });
      // The SVG is generated here from numbers and locale labels (charts.ts escapes its text), never from raw data.
      return new Handlebars.SafeString(svg);
    },
  },
} satisfies Record<string, HelperSpec>;

/** The helpers Handlebars itself gives every template. */
export const BUILT_IN_HELPERS = ['if', 'unless', 'each', 'with', 'lookup', 'log'] as const;

export function registerHelpers(hbs: typeof Handlebars): void {
  for (const [name, helper] of Object.entries(HELPERS)) hbs.registerHelper(name, helper.fn as Handlebars.HelperDelegate);
}
