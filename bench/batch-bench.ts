// Benchmark of the monthly batch against the simulator (no latency, in a process of its own, as the real API
// would be): throughput, requests per report against the floor (as the simulator counted them), CPU and peak
// memory of the batch's Node process (heap and RSS) and of Chromium (proportional set size of all its
// processes); then the same HTML files printed one by one in one page of the full browser (new headless), as the
// reference. Each size runs in a fresh process. Prints figures; asserts nothing.
//   npm run bench                 sizes 50, 200, 1000
//   npm run bench -- 50 200       chosen sizes
//   npm run bench -- --startup    the CLI's start-up time instead (bench/startup-bench.ts)
//   npm run bench -- 200 --templates examples/agency-templates    with an agency template folder
//   npm run bench -- --webhooks   the webhook receiver instead (bench/webhook-bench.ts)
//   npm run bench -- --publish    the static site of client pages instead (bench/publish-bench.ts: 1000 clients × 12 months)
//   npm run bench -- 100 --api python   against bench/api-double.py instead of the simulator: another process in
//                                 another language, answering as the spec reads (what a user of another service meets)
import { fork, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { GCProfiler, type GCProfilerResult } from 'node:v8';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { ApiClient } from '../src/api/client.js';
import { boundHeapGrowth } from '../src/batch/heap.js';
import { TokenPool } from '../src/api/tokens.js';
import { runBatch } from '../src/batch/run.js';
import { defaultConcurrency, defaultPrintConcurrency } from '../src/batch/execute.js';
import { brandingFrom } from '../src/config/branding.js';
import { ConfigSchema } from '../src/config/schema.js';
import { chromiumArgs, findBrowser } from '../src/render/print/browser.js';
import { loadCommandTemplates } from '../src/preview/command-templates.js';
import { PdfPrinter, pdfOptions } from '../src/render/print/printer.js';
import { DEMO_TOKEN } from '../src/simulator/server.js';
import { PROJECT_STEPS } from '../src/batch/steps/index.js';
import { toMonth } from '../src/period.js';

const templatesAt = process.argv.indexOf('--templates');
/** An agency template folder to render with, as `run --templates DIR` would. */
const TEMPLATES = templatesAt === -1 ? null : (process.argv[templatesAt + 1] ?? null);
const apiAt = process.argv.indexOf('--api');
/** The API double: the simulator (forked), or `python` (bench/api-double.py). */
const API = apiAt === -1 ? 'simulator' : (process.argv[apiAt + 1] ?? 'simulator');
if (API !== 'simulator' && API !== 'python') throw new Error(`--api ${API}: say --api simulator or --api python.`);
/** `--no-reference`: the batch alone, for runs alternated with another release on a shared machine. */
const WITH_REFERENCE = !process.argv.includes('--no-reference');
const optionAt = new Set([templatesAt, apiAt].filter((at) => at !== -1).flatMap((at) => [at, at + 1]));
const sizes = process.argv
  .slice(2)
  .filter((_, i) => !optionAt.has(i + 2))
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const SIZES = sizes.length > 0 ? sizes : [50, 200, 1000];
/** What the batch prints with: the headless shell when installed. */
const printing = findBrowser({ env: process.env });
/** The reference: the full browser in new headless mode, as the batch printed before the headless shell. */
const reference = findBrowser({ env: {}, headlessShell: false });

/** Process ids of `rootPid` and all its descendants, from /proc. */
async function processTree(rootPid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after its closing parenthesis are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // the process ended while we read it
    }
  }
  const tree: number[] = [];
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU time (ms) each process of a tree has used so far, by process id. */
async function cpuByProcess(pids: number[]): Promise<Map<number, number>> {
  const ticksPerSecond = 100;
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: the process's own, not its reaped children's, which are counted as processes of their own
      const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
      cpu.set(pid, (ticks * 1000) / ticksPerSecond);
    } catch {
      // the process ended while we read it
    }
  }
  return cpu;
}

/**
 * Proportional set size (bytes) of a process tree: each shared page counted once across the processes sharing
 * it, unlike summed RSS, which counts Chromium's shared code and memory once per process.
 */
async function treePss(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) {
    try {
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // the process ended while we read it
    }
  }
  return total;
}

/** This process's peak resident set size (bytes) since it started, as the kernel counts it. */
async function residentHighWaterMark(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** Largest value `read` returned while running, sampled every `everyMs`. */
function peakOf(read: () => Promise<number> | number, everyMs: number): { stop(): Promise<number> } {
  let peak = 0;
  let busy = false;
  let stopped = false;
  const sample = async (): Promise<void> => {
    peak = Math.max(peak, await read());
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    sample()
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      // Stopped once: the figures of a second call are those of the first.
      if (stopped) return peak;
      stopped = true;
      await sample().catch(() => {});
      return peak;
    },
  };
}

/** The API double, forked: its URL now, and at the end the requests it answered and the CPU it used. */
async function startApiDouble(projects: number): Promise<{ url: string; finish(): Promise<{ requests: number; cpuMs: number }> }> {
  const child = fork(fileURLToPath(new URL('./api-double.ts', import.meta.url)), [String(projects)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (message) => resolve(message as T));
      child.once('exit', (code) => reject(new Error(`the API double exited (${code})`)));
    });
  const { url } = await next<{ url: string }>();
  return {
    url,
    async finish() {
      const done = next<{ requests: number; cpuMs: number }>();
      child.send('finish');
      return done;
    },
  };
}

/** bench/api-double.py in a process of its own: another HTTP stack than the simulator's, data of its own. */
async function startPythonDouble(projects: number): Promise<{ url: string; finish(): Promise<{ requests: number; cpuMs: number }> }> {
  const child = spawn('python3', [fileURLToPath(new URL('./api-double.py', import.meta.url)), String(projects), DEMO_TOKEN], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`bench/api-double.py ended (${child.exitCode}): is python3 installed?`);
    return JSON.parse(line.value) as T;
  };
  const { url } = await next<{ url: string }>();
  return {
    url,
    async finish() {
      child.stdin.end('finish\n');
      return next<{ requests: number; cpuMs: number }>();
    },
  };
}

/**
 * Each step's wall time per report, the whole of it (waits for a lane or for Chromium's page included), read by
 * wrapping the steps the batch runs: where a report's time goes, step by step.
 */
function timeSteps(): Map<string, number[]> {
  const times = new Map<string, number[]>();
  for (const step of PROJECT_STEPS) {
    const run = step.run.bind(step);
    const spent: number[] = [];
    times.set(step.name, spent);
    step.run = async (work, ctx) => {
      const started = performance.now();
      try {
        return await run(work, ctx);
      } finally {
        spent.push(performance.now() - started);
      }
    };
  }
  return times;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function benchSize(size: number): Promise<void> {
  // As the CLI's batch commands do before a run.
  boundHeapGrowth();
  const out = await mkdtemp(join(tmpdir(), `geo-bench-${size}-`));
  const simulator = API === 'python' ? await startPythonDouble(size) : await startApiDouble(size);
  const stepTimes = timeSteps();
  let simulatorFigures: { requests: number; cpuMs: number } | null = null;
  const config = ConfigSchema.parse({ report: { statuses: ['active', 'paused', 'archived'] } });
  // As the batch commands make it: with a template folder, read, checked and tried on the sample pages first.
  const templatesStarted = performance.now();
  const { renderer } = await loadCommandTemplates(TEMPLATES ?? undefined, config, { cwd: process.cwd(), clock: () => new Date() });
  const templatesMs = performance.now() - templatesStarted;
  const loadBefore = load();
  // One printer for the run, started on first use (the promise is kept so concurrent callers share it).
  let printer: Promise<PdfPrinter> | null = null;
  let current: PdfPrinter | null = null;
  // Node's peaks are read exactly rather than sampled (a sample every 100 ms catches the peak of a long run more
  // often than that of a short one): the heap is at its largest just before a collection, and V8's GCProfiler
  // records the heap before and after each one; the kernel keeps the resident set's high-water mark (VmHWM).
  // The heap just after each full collection, garbage gone, is what the run keeps. The profiler records every
  // collection, scavenges included (several hundred in a run of 1000 reports): it is restarted every second
  // and only the figures are kept, so the measure does not grow with the run.
  const collected = { heapPeak: 0, fullCount: 0, keptPeak: 0 };
  let gcProfiler = new GCProfiler();
  gcProfiler.start();
  const readCollections = (restart: boolean): void => {
    // The next profiler starts before this one stops: no collection falls between the two.
    const ending = gcProfiler;
    if (restart) {
      gcProfiler = new GCProfiler();
      gcProfiler.start();
    }
    // stop() returns nothing when the profiler was stopped already; Node's types leave that out.
    const all = (ending.stop() as GCProfilerResult | undefined)?.statistics ?? [];
    const full = all.filter((gc) => gc.gcType === 'MarkSweepCompact');
    collected.heapPeak = Math.max(collected.heapPeak, ...all.map((gc) => gc.beforeGC.heapStatistics.usedHeapSize));
    collected.fullCount += full.length;
    collected.keptPeak = Math.max(collected.keptPeak, ...full.map((gc) => gc.afterGC.heapStatistics.usedHeapSize));
  };
  const collections = peakOf(() => {
    readCollections(true);
    return 0;
  }, 1000);
  // The browser is recycled every 100 reports: the samplers follow whichever one is running. Reading PSS walks
  // every page table of Chromium, and finding its processes reads all of /proc: once a second keeps the measure
  // from weighing on what it measures. CPU is read from the processes found, five times a second, and each
  // process's last reading is kept after it ends.
  let tree: { root: number; pids: number[] } | null = null;
  const chromiumTree = async (): Promise<number[]> => {
    const root = current?.browserPid ?? null;
    if (root === null) return [];
    if (tree?.root !== root) tree = { root, pids: await processTree(root) };
    return tree.pids;
  };
  const chromiumPss = peakOf(async () => {
    const root = current?.browserPid ?? null;
    tree = root === null ? null : { root, pids: await processTree(root) };
    return treePss(tree?.pids ?? []);
  }, 1000);
  const chromiumCpu = new Map<number, number>();
  const chromiumCpuWatch = peakOf(async () => {
    for (const [pid, ms] of await cpuByProcess(await chromiumTree())) chromiumCpu.set(pid, ms);
    return 0;
  }, 200);
  const nodeCpuBefore = process.cpuUsage();
  try {
    const client = new ApiClient({ baseUrl: simulator.url, tokens: new TokenPool([DEMO_TOKEN]) });
    const started = performance.now();
    const result = await runBatch({
      client,
      config,
      period: toMonth('2026-10'),
      outDir: out,
      selection: { statuses: ['active', 'paused', 'archived'], projectIds: [] },
      concurrency: defaultConcurrency(),
      printConcurrency: defaultPrintConcurrency(),
      renderer,
      branding: await brandingFrom(config),
      printer: () => {
        printer ??= PdfPrinter.launch({ ...printing, pages: defaultPrintConcurrency() }).then((launched) => {
          current = launched;
          return launched;
        });
        return printer;
      },
    });
    const e2eMs = performance.now() - started;
    const chromiumPeak = await chromiumPss.stop();
    const nodeCpu = process.cpuUsage(nodeCpuBefore);
    const rssPeak = await residentHighWaterMark();
    await chromiumCpuWatch.stop();
    await collections.stop();
    readCollections(false);
    const heapPeak = Math.max(collected.heapPeak, process.memoryUsage().heapUsed);
    await (await (printer as Promise<PdfPrinter> | null))?.close();
    printer = null;

    await client.close();
    simulatorFigures = await simulator.finish();
    const requests = simulatorFigures.requests;
    const reports = result.summary.done;

    // Reference: the same HTML files printed one by one in one page of the full browser, same PDF options.
    const htmlFiles = result.manifest.projects.filter((p) => p.files.html !== null).map((p) => join(out, '2026-10', p.files.html as string));
    const refStarted = performance.now();
    if (WITH_REFERENCE) {
      const browser = await puppeteer.launch({ ...reference, pipe: true, args: chromiumArgs() });
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
    }
    const refMs = performance.now() - refStarted;

    // The page check, on each written page as the batch checks it (without its inline fonts), one after another.
    // (A release before the check has no page-check module: then no figure.)
    const pageCheck = await import('../src/render/page-check.js').catch(() => null);
    const checkStarted = performance.now();
    for (const htmlPath of htmlFiles) {
      if (pageCheck === null) break;
      pageCheck.pageProblems((await readFile(htmlPath, 'utf8')).replace(/(url\(data:font\/[a-z0-9.+-]+;base64,)[A-Za-z0-9+/=]+/g, '$1'));
    }
    const checkMs = (performance.now() - checkStarted) / htmlFiles.length;
    // How the contents pages were printed: once when the guessed numbers held, twice (or more) otherwise.
    const books = (await import('../src/render/print/book.js').catch(() => null))?.bookCounts();
    const nodeMs = (nodeCpu.user + nodeCpu.system) / 1000;
    const chromiumMs = [...chromiumCpu.values()].reduce((a, b) => a + b, 0);
    // What two busy cores (or n) cannot beat: every CPU millisecond the run spent, shared by the cores.
    const floorMs = (nodeMs + chromiumMs) / availableParallelism();
    const steps = [...stepTimes].map(
      ([name, spent]) => `${name} ${median(spent).toFixed(0)} (mean ${(spent.reduce((a, b) => a + b, 0) / Math.max(1, spent.length)).toFixed(0)})`,
    );
    const lines = [
      `api: ${API === 'python' ? 'bench/api-double.py (python3, another process)' : 'the simulator (another process)'}`,
      `projects: ${size} · reports: ${reports} (status ${result.status}) · printed with ${printing.executablePath} (headless: ${printing.headless})`,
      `templates: ${TEMPLATES === null ? 'built-in' : `${TEMPLATES}, over the built-in ones`} (read and checked in ${templatesMs.toFixed(0)} ms, once, before the run)`,
      `end to end: ${(e2eMs / 1000).toFixed(1)} s · ${(reports / (e2eMs / 1000)).toFixed(2)} reports/s · ${(e2eMs / reports).toFixed(0)} ms/report`,
      `requests: ${requests} · floor ${result.plan.floor} · ratio ${(requests / result.plan.floor).toFixed(3)} · ${(requests / reports).toFixed(3)} per report`,
      `cpu per report: node ${((nodeCpu.user + nodeCpu.system) / 1000 / reports).toFixed(0)} ms (user ${(nodeCpu.user / 1000 / reports).toFixed(0)}, system ${(nodeCpu.system / 1000 / reports).toFixed(0)}) · chromium ${([...chromiumCpu.values()].reduce((a, b) => a + b, 0) / reports).toFixed(0)} ms · simulator ${(simulatorFigures.cpuMs / reports).toFixed(0)} ms`,
      `peak memory: node heap ${mb(heapPeak)} · node rss ${mb(rssPeak)} (high-water mark) · chromium pss ${mb(chromiumPeak)} (all its processes)`,
      `node heap just after a full collection: at most ${mb(collected.keptPeak)} (${collected.fullCount} full collections)`,
      ...(WITH_REFERENCE
        ? [
            `reference (${reference.executablePath}, new headless, one by one, one page): ${(refMs / 1000).toFixed(1)} s · ${(refMs / htmlFiles.length).toFixed(0)} ms/report`,
            `end to end / reference: ${(e2eMs / refMs).toFixed(2)}`,
          ]
        : ['reference: not printed (--no-reference)']),
      `floor (node + chromium CPU / ${availableParallelism()} cores): ${(floorMs / 1000).toFixed(1)} s · end to end / floor: ${(e2eMs / floorMs).toFixed(2)}`,
      `per report, ms, median (mean), waits included: ${steps.join(' · ')}`,
      `contents page: ${books === undefined ? 'none in this release' : `${books.books} reports with sections to list, ${books.prints} prints for them (guessed ${books.guessed}, the guess held ${books.held})`}`,
      `page check alone: ${pageCheck === null ? 'none in this release' : `${checkMs.toFixed(1)} ms per page (parse5, fonts left out, one after another)`}`,
      `load average (1, 5, 15 min): ${loadBefore} before · ${load()} after`,
    ];
    process.stdout.write(`\n== ${size} projects ==\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  } finally {
    await Promise.all([collections.stop(), chromiumPss.stop(), chromiumCpuWatch.stop()]);
    gcProfiler.stop();
    await (await (printer as Promise<PdfPrinter> | null)?.catch(() => null))?.close();
    if (simulatorFigures === null) await simulator.finish().catch(() => undefined);
    await rm(out, { recursive: true, force: true });
  }
}

if (process.argv.includes('--webhooks')) {
  await import('./webhook-bench.js');
} else if (process.argv.includes('--publish')) {
  await import('./publish-bench.js');
} else if (process.argv.includes('--startup')) {
  await import('./startup-bench.js');
} else if (SIZES.length === 1) {
  await benchSize(SIZES[0] as number);
} else {
  // One process per size: the heap one size leaves behind would otherwise weigh on the next one's peaks.
  for (const size of SIZES) {
    const options = [
      ...(TEMPLATES === null ? [] : ['--templates', TEMPLATES]),
      ...(API === 'simulator' ? [] : ['--api', API]),
      ...(WITH_REFERENCE ? [] : ['--no-reference']),
    ];
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), String(size), ...options], { stdio: 'inherit' });
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
}
