import { historyChartSvg } from '../src/render/charts.ts';
const hist = Array.from({ length: 12 }, (_, i) => ({ date: `2026-${String(i + 1).padStart(2, '0')}-01`, geo: 40 + i, seo: 50 + (i % 3) }));
const opts = { labels: { geo: 'GEO', seo: 'SEO' }, colors: { geo: '#2563eb', seo: '#16a34a' }, language: 'en' as const };
for (let i = 0; i < 50; i++) historyChartSvg(hist as any, opts);
const t = performance.now(); for (let i = 0; i < 200; i++) historyChartSvg(hist as any, opts); console.log('echarts ms/chart', ((performance.now() - t) / 200).toFixed(2));
console.log(historyChartSvg(hist as any, opts).length);
