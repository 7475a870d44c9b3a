import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumArgs } from '../src/render/browser.ts';
import { pdfOptions } from '../src/render/pdf.ts';
const dir = '/work/main/output/2026-10';
const files = readdirSync(dir).filter((d) => d.match(/^\d+-/)).map((d) => join(dir, d, 'report.html'));
const exe = process.argv[2] ?? '/usr/lib/chromium/chromium-headless-shell';
const cpu = (pid: number) => { let t = 0; for (const p of [pid, ...kids(pid)]) { try { const f = readFileSync(`/proc/${p}/stat`, 'utf8'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); t += [11,12,13,14].reduce((s,i)=>s+Number(x[i]),0);} catch {} } return t*10; };
function kids(pid: number): number[] { const out: number[] = []; for (const n of readdirSync('/proc')) { if (!/^\d+$/.test(n)) continue; try { const s = readFileSync(`/proc/${n}/stat`, 'utf8'); const pp = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); if (pp === pid) out.push(Number(n), ...kids(Number(n))); } catch {} } return out; }
const base = pdfOptions({ footerText: 'Agency footer', pageLabel: 'Page {page} of {pages}', language: 'en' });
const variants: Record<string, any> = {
  current: base,
  noHeaderFooter: { ...base, displayHeaderFooter: false },
  noTagged: { ...base, tagged: false },
  noOutline: { ...base, outline: false },
  bare: { ...base, displayHeaderFooter: false, tagged: false, outline: false },
};
const browser = await puppeteer.launch({ executablePath: exe, headless: exe.includes('shell') ? 'shell' : true, pipe: true, args: chromiumArgs() });
const pid = browser.process()!.pid!;
const page = await browser.newPage();
await page.setJavaScriptEnabled(false);
const rounds = Number(process.argv[3] ?? 2);
for (const [name, opts] of Object.entries(variants)) {
  // warm
  await page.goto(pathToFileURL(files[0]).href, { waitUntil: 'load' }); await page.pdf(opts);
  const c0 = cpu(pid); const t0 = performance.now(); let n = 0;
  for (let r = 0; r < rounds; r++) for (const f of files) { await page.goto(pathToFileURL(f).href, { waitUntil: 'load' }); await page.pdf(opts); n++; }
  const ms = performance.now() - t0; const c = cpu(pid) - c0;
  console.log(`${name.padEnd(16)} wall ${(ms/n).toFixed(0)} ms/report · chromium cpu ${(c/n).toFixed(0)} ms/report`);
}
await browser.close();
