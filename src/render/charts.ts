// Score history as an inline SVG, written out as a string: no script and no chart library reach the report.
import type { HistoryPoint, Language } from '../report/model.js';
import { formatDate } from '../i18n/format.js';
import { escapeHtml } from './escape.js';

export interface HistoryChartOptions {
  labels: { geo: string; seo: string };
  colors: { geo: string; seo: string };
  language: Language;
  /** Accessible name of the chart (a sentence, already localised). Defaults to both series labels. */
  title?: string;
  /** Colour of axis labels and legend text. */
  textColor?: string;
  fontFamily?: string;
  width?: number;
  height?: number;
  /** The agency's work on the timeline: a numbered mark at each date. @default none */
  annotations?: ReadonlyArray<{ marker: string; date: string }>;
}

/** Room around the plot for the legend (top) and the axis labels (left, bottom). */
const GRID = { left: 36, right: 28, top: 40, bottom: 28 };
const TICKS = [0, 25, 50, 75, 100];
const AXIS_FONT_SIZE = 11;
const LEGEND_FONT_SIZE = 12;
const GRID_COLOR = '#e5e7eb';
const AXIS_COLOR = '#9ca3af';
// Text is not measured on the server: widths are estimated per character, on the wide side (Inter at 11 px
// draws month labels at 5–6.6 px per character, the legend's bold capitals at about 8.4 px at 12 px).
const AXIS_CHAR_WIDTH = 6.5;
const LEGEND_CHAR_WIDTH = 8.4;
/** Least space between two month labels. */
const LABEL_GAP = 8;
// 29 px of the 7,4 dash pattern read the same from both ends: one dash either side of the marker, equal gaps.
const LEGEND_SAMPLE = 29;
const LEGEND_ITEM_GAP = 16;

interface SeriesStyle {
  color: string;
  /** Attributes of the line after its stroke colour. */
  line: string;
  /** Attributes shared by the markers (a group around them). */
  markers: string;
  marker: (x: number, y: number) => string;
}

/** At most 2 decimals, no "-0": the same numbers always give the same bytes. */
const num = (value: number): string => String(Math.round(value * 100) / 100 + 0);

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

const isScore = (value: number | null): value is number => typeof value === 'number' && Number.isFinite(value);

function seriesStyles(colors: HistoryChartOptions['colors']): [SeriesStyle, SeriesStyle] {
  const geo = escapeHtml(colors.geo);
  const seo = escapeHtml(colors.seo);
  return [
    {
      color: geo,
      line: 'stroke-width="3" stroke-linejoin="round" stroke-linecap="round"',
      markers: `fill="${geo}" stroke="#ffffff" stroke-width="1.5"`,
      marker: (x, y) => `<circle cx="${num(x)}" cy="${num(y)}" r="4"/>`,
    },
    {
      color: seo,
      line: 'stroke-width="2.5" stroke-dasharray="7,4" stroke-linejoin="round"',
      markers: `fill="#ffffff" stroke="${seo}" stroke-width="2"`,
      marker: (x, y) => `<rect x="${num(x - 4)}" y="${num(y - 4)}" width="8" height="8"/>`,
    },
  ];
}

/**
 * The line through the values, a new subpath after each gap: a missing month is never bridged. A value alone
 * between gaps has no segment to draw, only its marker.
 */
function linePath(points: Array<[number, number] | null>): string {
  let d = '';
  for (let i = 0; i < points.length; i += 1) {
    const point = points[i];
    if (point === null || point === undefined) continue;
    const before = points[i - 1] ?? null;
    const after = points[i + 1] ?? null;
    if (before !== null) d += `L${num(point[0])} ${num(point[1])}`;
    else if (after !== null) d += `M${num(point[0])} ${num(point[1])}`;
  }
  return d;
}

/**
 * Indexes of the month labels shown: every k-th, counted back from the latest month so it is always labelled,
 * k the smallest step at which the widest label cannot touch its neighbour.
 */
function shownLabels(widths: number[], spacing: number): Set<number> {
  const widest = Math.max(0, ...widths);
  // A plot too narrow for its margins (spacing 0 or less) shows the latest month alone.
  const step = spacing === Infinity ? 1 : spacing <= 0 ? widths.length : Math.max(1, Math.ceil((widest + LABEL_GAP) / spacing));
  const shown = new Set<number>();
  for (let i = widths.length - 1; i >= 0; i -= step) shown.add(i);
  return shown;
}

const ANNOTATION_RADIUS = 7;
const DAY_MS = 86_400_000;
const dayOf = (iso: string): number => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / DAY_MS;

/**
 * A mark per annotation at its date (between the months around it): a dotted line down the plot and its number in
 * a circle above, black on white, so it reads in black and white; marks too close move right of one another.
 */
function annotationMarks(
  history: HistoryPoint[],
  annotations: ReadonlyArray<{ marker: string; date: string }>,
  frame: { xAt: (index: number) => number; top: number; bottom: number; fontFamily: string },
): string[] {
  const days = history.map((point) => dayOf(point.date));
  if (annotations.length === 0 || days.length === 0 || days.some((day) => Number.isNaN(day))) return [];
  const xOf = (day: number): number => {
    const after = days.findIndex((d) => d >= day);
    if (after <= 0) return frame.xAt(after === 0 ? 0 : days.length - 1);
    const [from, to] = [days[after - 1] as number, days[after] as number];
    return frame.xAt(after - 1) + ((day - from) / (to - from)) * (frame.xAt(after) - frame.xAt(after - 1));
  };
  const y = frame.top - ANNOTATION_RADIUS - 5;
  const lines: string[] = [];
  const marks: string[] = [];
  let last = -Infinity;
  for (const annotation of annotations) {
    const day = dayOf(annotation.date);
    if (Number.isNaN(day)) continue;
    const x = xOf(day);
    const at = Math.max(x, last + ANNOTATION_RADIUS * 2 + 2);
    last = at;
    lines.push(`M${num(x)} ${num(frame.top)}V${num(frame.bottom)}`);
    marks.push(
      `<circle cx="${num(at)}" cy="${num(y)}" r="${ANNOTATION_RADIUS}"/><text x="${num(at)}" y="${num(y)}" dy="0.35em" text-anchor="middle" stroke="none" fill="#111827">${escapeHtml(annotation.marker)}</text>`,
    );
  }
  return [
    `<path d="${lines.join('')}" fill="none" stroke="#111827" stroke-width="1" stroke-dasharray="1,3"/>`,
    `<g class="chart-annotations" font-family="${frame.fontFamily}" font-size="${AXIS_FONT_SIZE}" font-weight="700" fill="#ffffff" stroke="#111827" stroke-width="1.5">${marks.join('')}</g>`,
  ];
}

/**
 * GEO and SEO over time. The two series differ by line style and marker as well as colour
 * (solid + circles vs dashed + squares) so the chart still reads when printed in black and white.
 */
export function historyChartSvg(history: HistoryPoint[], opts: HistoryChartOptions): string {
  const width = opts.width ?? 640;
  const height = opts.height ?? 260;
  const textColor = escapeHtml(opts.textColor ?? '#374151');
  const fontFamily = escapeHtml(opts.fontFamily ?? 'Inter, sans-serif');
  const name = escapeHtml(opts.title ?? `${opts.labels.geo}, ${opts.labels.seo}`);

  const left = GRID.left;
  const right = width - GRID.right;
  const top = GRID.top;
  const bottom = height - GRID.bottom;
  const count = history.length;
  // Months edge to edge across the plot; a single month in its middle.
  const spacing = count > 1 ? (right - left) / (count - 1) : Infinity;
  const xAt = (index: number): number => (count > 1 ? left + index * spacing : (left + right) / 2);
  const yAt = (score: number): number => bottom - (clamp(score, 0, 100) / 100) * (bottom - top);
  // Hairlines on the half pixel stay one device pixel wide on screen.
  const hairline = (y: number): string => num(Math.round(y) + 0.5);

  const out: string[] = [
    `<svg role="img" aria-label="${name}" focusable="false" xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}">`,
  ];

  const grid = TICKS.filter((tick) => tick > 0)
    .map((tick) => `M${num(left)} ${hairline(yAt(tick))}H${num(right)}`)
    .join('');
  out.push(`<path d="${grid}" fill="none" stroke="${GRID_COLOR}" stroke-dasharray="2,2"/>`);
  out.push(`<path d="M${num(left)} ${hairline(bottom)}H${num(right)}" fill="none" stroke="${AXIS_COLOR}"/>`);

  out.push(`<g font-family="${fontFamily}" font-size="${AXIS_FONT_SIZE}" fill="${textColor}">`);
  for (const tick of TICKS) {
    out.push(`<text x="${num(left - 8)}" y="${num(yAt(tick))}" dy="0.35em" text-anchor="end">${tick}</text>`);
  }
  const months = history.map((point) => formatDate(point.date, opts.language, 'month'));
  const widths = months.map((label) => label.length * AXIS_CHAR_WIDTH);
  const shown = shownLabels(widths, spacing);
  months.forEach((label, index) => {
    if (!shown.has(index)) return;
    // The first and last labels are centred on their month unless that would cut them at the edge.
    const half = (widths[index] ?? 0) / 2;
    const x = clamp(xAt(index), half + 1, width - half - 1);
    out.push(`<text x="${num(x)}" y="${num(bottom + 17)}" text-anchor="middle">${escapeHtml(label)}</text>`);
  });
  out.push('</g>');

  const styles = seriesStyles(opts.colors);
  const series = [history.map((point) => point.geo), history.map((point) => point.seo)].map((values) =>
    values.map((value, index): [number, number] | null => (isScore(value) ? [xAt(index), yAt(value)] : null)),
  );
  series.forEach((points, index) => {
    const style = styles[index] as SeriesStyle;
    const d = linePath(points);
    if (d !== '') out.push(`<path d="${d}" fill="none" stroke="${style.color}" ${style.line}/>`);
  });
  // Markers above both lines, so neither line hides the other's values.
  series.forEach((points, index) => {
    const style = styles[index] as SeriesStyle;
    const markers = points.flatMap((point) => (point === null ? [] : [style.marker(point[0], point[1])]));
    if (markers.length > 0) out.push(`<g ${style.markers}>${markers.join('')}</g>`);
  });

  out.push(...annotationMarks(history, opts.annotations ?? [], { xAt, top, bottom, fontFamily }));

  // Legend in the top-right corner: sample line with its marker, then the label; laid out from the right edge.
  const labels = [escapeHtml(opts.labels.geo), escapeHtml(opts.labels.seo)];
  const itemWidths = [opts.labels.geo, opts.labels.seo].map((label) => LEGEND_SAMPLE + 5 + label.length * LEGEND_CHAR_WIDTH);
  let x = width - 5 - itemWidths.reduce((sum, w) => sum + w, 0) - LEGEND_ITEM_GAP * (itemWidths.length - 1);
  const y = 11;
  out.push(`<g font-family="${fontFamily}" font-size="${LEGEND_FONT_SIZE}" font-weight="600" fill="${textColor}">`);
  styles.forEach((style, index) => {
    out.push(`<path d="M${num(x)} ${y}h${LEGEND_SAMPLE}" fill="none" stroke="${style.color}" ${style.line}/>`);
    out.push(`<g ${style.markers}>${style.marker(x + LEGEND_SAMPLE / 2, y)}</g>`);
    out.push(`<text x="${num(x + LEGEND_SAMPLE + 5)}" y="${y}" dy="0.35em">${labels[index]}</text>`);
    x += (itemWidths[index] ?? 0) + LEGEND_ITEM_GAP;
  });
  out.push('</g>');

  out.push('</svg>');
  return out.join('\n');
}
