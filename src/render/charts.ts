// Score history as an inline SVG, drawn server-side by ECharts: no script reaches the report.
import { createRequire } from 'node:module';
import type * as ECharts from 'echarts/types/dist/echarts';
import type { HistoryPoint, Language } from '../report/model.js';
import { formatDate } from '../i18n/format.js';

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
}

// ECharts' ESM typings do not resolve under NodeNext; its CommonJS build carries the same API.
const echarts = createRequire(import.meta.url)('echarts') as typeof ECharts;

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * ECharts numbers ids and classes with process-wide counters (zr3-cls-17, zr3-c0): renumbering them by first
 * appearance makes the same model give the same bytes, whatever was drawn before.
 */
function renumberIds(svg: string): string {
  const names = new Map<string, string>();
  return svg.replace(/\bzr\d+-([a-z]+)-?\d+\b/g, (token, kind: string) => {
    let name = names.get(token);
    if (name === undefined) {
      name = `history-chart-${kind}-${names.size}`;
      names.set(token, name);
    }
    return name;
  });
}

/**
 * GEO and SEO over time. The two series differ by line style and marker as well as colour
 * (solid + circles vs dashed + squares) so the chart still reads when printed in black and white.
 */
export function historyChartSvg(history: HistoryPoint[], opts: HistoryChartOptions): string {
  const width = opts.width ?? 640;
  const height = opts.height ?? 260;
  const textColor = opts.textColor ?? '#374151';
  const fontFamily = opts.fontFamily ?? 'Inter, sans-serif';
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      textStyle: { fontFamily, color: textColor },
      legend: {
        top: 0,
        right: 0,
        itemWidth: 34,
        itemHeight: 12,
        textStyle: { color: textColor, fontSize: 12, fontWeight: 600 },
        data: [opts.labels.geo, opts.labels.seo],
      },
      grid: { left: 36, right: 28, top: 40, bottom: 28 },
      xAxis: {
        type: 'category',
        boundaryGap: false,
        data: history.map((point) => formatDate(point.date, opts.language, 'month')),
        axisLine: { lineStyle: { color: '#9ca3af' } },
        axisTick: { show: false },
        axisLabel: { color: textColor, fontSize: 11, hideOverlap: true },
      },
      yAxis: {
        type: 'value',
        min: 0,
        max: 100,
        interval: 25,
        axisLabel: { color: textColor, fontSize: 11 },
        splitLine: { lineStyle: { color: '#e5e7eb', type: 'dotted' } },
      },
      series: [
        {
          name: opts.labels.geo,
          type: 'line',
          data: history.map((point) => point.geo),
          connectNulls: false,
          color: opts.colors.geo,
          lineStyle: { width: 3, type: 'solid', color: opts.colors.geo },
          symbol: 'circle',
          symbolSize: 8,
          itemStyle: { color: opts.colors.geo, borderColor: '#ffffff', borderWidth: 1.5 },
        },
        {
          name: opts.labels.seo,
          type: 'line',
          data: history.map((point) => point.seo),
          connectNulls: false,
          color: opts.colors.seo,
          lineStyle: { width: 2.5, type: [7, 4], color: opts.colors.seo },
          symbol: 'rect',
          symbolSize: 8,
          itemStyle: { color: '#ffffff', borderColor: opts.colors.seo, borderWidth: 2 },
        },
      ],
    });
    const svg = renumberIds(chart.renderToSVGString());
    const name = opts.title ?? `${opts.labels.geo}, ${opts.labels.seo}`;
    return svg.replace(/^<svg /, `<svg role="img" aria-label="${escapeAttribute(name)}" focusable="false" `);
  } finally {
    chart.dispose();
  }
}
