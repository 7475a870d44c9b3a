import { createRequire } from 'node:module';
const echarts = createRequire(import.meta.url)('echarts');
const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 640, height: 260 });
const opt = (k: number) => ({ animation: false, legend: { data: ['GEO', 'SEO'] }, xAxis: { type: 'category', data: Array.from({ length: 12 }, (_, i) => `M${i}`) }, yAxis: { type: 'value', min: 0, max: 100 }, series: [{ name: 'GEO', type: 'line', data: Array.from({ length: 12 }, (_, i) => 40 + i + k % 5) }, { name: 'SEO', type: 'line', data: Array.from({ length: 12 }, (_, i) => 50 + i) }] });
for (let i = 0; i < 50; i++) { chart.setOption(opt(i), { notMerge: true }); chart.renderToSVGString(); }
let t = performance.now(); for (let i = 0; i < 200; i++) { chart.setOption(opt(i), { notMerge: true }); chart.renderToSVGString(); } console.log('reuse ms/chart', ((performance.now() - t) / 200).toFixed(2));
t = performance.now(); for (let i = 0; i < 200; i++) { const c = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 640, height: 260 }); c.setOption(opt(i)); c.renderToSVGString(); c.dispose(); } console.log('fresh ms/chart', ((performance.now() - t) / 200).toFixed(2));
