import { mkdtempSync } from 'node:fs';
import { createManifestWriter, type Manifest } from '../src/output/store.ts';
for (const n of [200, 1000]) {
  const dir = mkdtempSync('/tmp/mf-');
  const w = createManifestWriter(dir);
  const projects = Array.from({ length: n }, (_, i) => ({ id: i, name: `Client ${i}`, slug: `${i}-client`, status: 'pending', files: { html: null, pdf: null, data: null }, held: [], released: false, reportId: null, geo: null, geoChange: null, percentile: null, openCritical: 0, notes: [], summary: ['One sentence about the month.', 'Another sentence.'], updatedAt: new Date().toISOString() })) as any[];
  const m: Manifest = { period: '2026-10', status: 'partial', startedAt: 'x', updatedAt: 'x', runs: 1, projects, requests: { total: 0, byToken: {} } } as any;
  const cpu0 = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < n; i++) { projects[i].status = 'done'; projects[i].files = { html: 'a/report.html', pdf: 'a/report.pdf', data: 'a/data.json' }; await w(m); projects[i].reportId = i; await w(m); }
  const c = process.cpuUsage(cpu0);
  console.log(n, 'writes', 2 * n, 'wall ms/project', ((performance.now() - t) / n).toFixed(2), 'cpu ms/project', ((c.user + c.system) / 1000 / n).toFixed(2), 'user', (c.user / 1000 / n).toFixed(2), 'sys', (c.system / 1000 / n).toFixed(2));
}
