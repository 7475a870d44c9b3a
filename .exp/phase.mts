import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumArgs } from '../src/render/browser.ts';
import { pdfOptions } from '../src/render/pdf.ts';
const dir = '/work/main/output/2026-10';
const files = readdirSync(dir).filter((d) => d.match(/^\d+-/)).map((d) => join(dir, d, 'report.html'));
mkdirSync('/tmp/exp/glyph', { recursive: true });
const glyphFiles = files.map((f, i) => { const p = `/tmp/exp/glyph/${i}.html`; writeFileSync(p, readFileSync(f, 'utf8').replace(/[▲]/g, '↑').replace(/[▼]/g, '↓').replace(/[▶✓]/g, '=')); return p; });
const exe = process.argv[2] ?? '/usr/lib/chromium/chromium-headless-shell';
function kids(pid: number): number[] { const out: number[] = []; for (const n of readdirSync('/proc')) { if (!/^\d+$/.test(n)) continue; try { const s = readFileSync(`/proc/${n}/stat`, 'utf8'); const pp = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); if (pp === pid) out.push(Number(n), ...kids(Number(n))); } catch {} } return out; }
let tree: number[] = [];
const cpu = () => { let t = 0; for (const p of tree) { try { const f = readFileSync(`/proc/${p}/stat`, 'utf8'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); t += [11,12,13,14].reduce((s,i)=>s+Number(x[i]),0);} catch {} } return t*10; };
const base = pdfOptions({ footerText: 'Agency footer', pageLabel: 'Page {page} of {pages}', language: 'en' });
const variants: Array<[string, string[], any]> = [
  ['current', files, base], ['glyphs', glyphFiles, base], ['noFooter', files, { ...base, displayHeaderFooter: false }], ['glyphs+noFooter', glyphFiles, { ...base, displayHeaderFooter: false }],
  ['current', files, base], ['glyphs+noFooter', glyphFiles, { ...base, displayHeaderFooter: false }],
];
const browser = await puppeteer.launch({ executablePath: exe, headless: exe.includes('shell') ? 'shell' : true, pipe: true, args: chromiumArgs() });
const page = await browser.newPage();
await page.setJavaScriptEnabled(false);
const rounds = Number(process.argv[3] ?? 2);
for (const [name, list, opts] of variants) {
  await page.goto(pathToFileURL(list[0]).href, { waitUntil: 'load' }); await page.pdf(opts);
  tree = [browser.process()!.pid!, ...kids(browser.process()!.pid!)];
  let load = 0, print = 0, wl = 0, wp = 0, n = 0;
  for (let r = 0; r < rounds; r++) for (const f of list) {
    const c0 = cpu(), t0 = performance.now();
    await page.goto(pathToFileURL(f).href, { waitUntil: 'load' });
    const c1 = cpu(), t1 = performance.now();
    await page.pdf(opts);
    const c2 = cpu(), t2 = performance.now();
    load += c1 - c0; print += c2 - c1; wl += t1 - t0; wp += t2 - t1; n++;
  }
  console.log(`${name.padEnd(16)} load wall ${(wl/n).toFixed(0)} cpu ${(load/n).toFixed(0)} · print wall ${(wp/n).toFixed(0)} cpu ${(print/n).toFixed(0)} ms/report`);
}
await browser.close();
