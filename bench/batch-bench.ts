// Benchmark of the monthly batch against the simulator (no latency): throughput, requests per report against
// the floor, peak memory of Node and of Chromium; then the same HTML files printed one by one in one browser
// and one page, as the reference. Prints figures; asserts nothing.
//   npm run bench                 sizes 50, 200, 1000
//   npm run bench -- 50 200       chosen sizes
//   npm run bench -- --startup    the CLI's start-up time instead (bench/startup-bench.ts)
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { ApiClient } from '../src/api/client.js';
import { TokenPool } from '../src/api/tokens.js';
import { runBatch } from '../src/batch/run.js';
import { brandingFrom, defaultConcurrency, defaultPrintConcurrency } from '../src/commands/batch-runner.js';
import { ConfigSchema } from '../src/config/schema.js';
import { chromiumArgs, findChromium } from '../src/render/browser.js';
import { createHtmlRenderer } from '../src/render/html.js';
import { PdfPrinter, pdfOptions } from '../src/render/pdf.js';
import { DEMO_TOKEN, startSimulator } from '../src/simulator/server.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
const SIZES = sizes.length > 0 ? sizes : [50, 200, 1000];
const executablePath = findChromium({ env: process.env });

/** Resident memory (bytes) of a process and all its descendants, from /proc. */
async function treeRss(rootPid: number): Promise<number> {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = await readFile(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(name), kb * 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // the process ended while we read it
    }
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

function sampler(read: () => Promise<number> | number): { stop(): Promise<number> } {
  let peak = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    Promise.resolve(read())
      .then((v) => {
        peak = Math.max(peak, v);
      })
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, 100);
  return {
    async stop() {
      clearInterval(timer);
      peak = Math.max(peak, await read());
      return peak;
    },
  };
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function benchSize(size: number): Promise<void> {
  const out = await mkdtemp(join(tmpdir(), `geo-bench-${size}-`));
  const simulator = await startSimulator({ projectCount: size, tokens: [DEMO_TOKEN] });
  const config = ConfigSchema.parse({ report: { statuses: ['active', 'paused', 'archived'] } });
  const renderer = await createHtmlRenderer();
  // One printer for the run, started on first use (the promise is kept so concurrent callers share it).
  let printer: Promise<PdfPrinter> | null = null;
  const nodePeak = sampler(() => process.memoryUsage().rss);
  let chromiumPeak = 0;
  let chromiumSampler: { stop(): Promise<number> } | null = null;
  try {
    const client = new ApiClient({ baseUrl: simulator.url, tokens: new TokenPool([DEMO_TOKEN]) });
    const started = performance.now();
    const result = await runBatch({
      client,
      config,
      period: '2026-10',
      outDir: out,
      selection: { statuses: ['active', 'paused', 'archived'], projectIds: [] },
      concurrency: defaultConcurrency(),
      printConcurrency: defaultPrintConcurrency(),
      renderer,
      branding: await brandingFrom(config),
      printer: () => {
        printer ??= PdfPrinter.launch({ executablePath, pages: defaultPrintConcurrency() }).then((started) => {
          const pid = started.browserPid;
          if (pid !== null) chromiumSampler = sampler(() => treeRss(pid));
          return started;
        });
        return printer;
      },
    });
    const e2eMs = performance.now() - started;
    chromiumPeak = chromiumSampler === null ? 0 : await (chromiumSampler as { stop(): Promise<number> }).stop();
    await (await (printer as Promise<PdfPrinter> | null))?.close();
    printer = null;
    const requests = simulator.state.requests.length;
    const reports = result.summary.done;

    // Reference: the same HTML files printed one by one in one browser and one page, with the same PDF options.
    const htmlFiles = result.manifest.projects
      .filter((p) => p.files.html !== null)
      .map((p) => join(out, '2026-10', p.files.html as string));
    const browser = await puppeteer.launch({ executablePath, headless: true, pipe: true, args: chromiumArgs() });
    const refStarted = performance.now();
    try {
      const page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      for (const [i, htmlPath] of htmlFiles.entries()) {
        await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
        const pdf = await page.pdf(pdfOptions({ footerText: 'reference', pageLabel: 'Page {page} of {pages}', language: 'en' }));
        await writeFile(join(out, `reference-${i}.pdf`), pdf);
      }
    } finally {
      await browser.close();
    }
    const refMs = performance.now() - refStarted;

    const lines = [
      `projects: ${size} · reports: ${reports} (status ${result.status})`,
      `end to end: ${(e2eMs / 1000).toFixed(1)} s · ${(reports / (e2eMs / 1000)).toFixed(2)} reports/s · ${(e2eMs / reports).toFixed(0)} ms/report`,
      `requests: ${requests} · floor ${result.plan.floor} · ratio ${(requests / result.plan.floor).toFixed(3)} · ${(requests / reports).toFixed(3)} per report`,
      `peak memory: node ${mb(await nodePeak.stop())} · chromium ${mb(chromiumPeak)}`,
      `reference (one by one, one page): ${(refMs / 1000).toFixed(1)} s · ${(refMs / htmlFiles.length).toFixed(0)} ms/report`,
      `end to end / reference: ${(e2eMs / refMs).toFixed(2)}`,
    ];
    process.stdout.write(`\n== ${size} projects ==\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  } finally {
    await (await (printer as Promise<PdfPrinter> | null)?.catch(() => null))?.close();
    await simulator.close();
    await rm(out, { recursive: true, force: true });
  }
}

if (process.argv.includes('--startup')) await import('./startup-bench.js');
else for (const size of SIZES) await benchSize(size);
