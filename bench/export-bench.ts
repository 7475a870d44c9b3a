// Benchmark of `geo-reports export`: an output folder of many clients × months (the data.json of real reports made
// by `geo-reports demo` on the embedded simulator, each written as every client's of every month with its own
// scores), exported by the spawned CLI as CSV, JSON lines and an Excel workbook: the whole span, and a quarter of
// it, to show that memory does not grow with the months. Time from spawn to exit, CPU time of all its threads, peak
// memory as the kernel's high-water mark (VmHWM) read from /proc. Prints figures; asserts nothing.
//   npm run bench:export                     1000 clients × 24 months
//   npm run bench:export -- 200 6            200 clients × 6 months
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manifest, type ProjectEntry } from '../src/output/store.js';
import { toMonth } from '../src/period.js';

const numbers = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const CLIENTS = numbers[0] ?? 1000;
const MONTHS = numbers[1] ?? 24;
/** The heap the bounded run gets: a fraction of the rows' size in memory. */
const HEAP_LIMIT_MB = 128;
const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(REPOSITORY, 'bin', 'geo-reports.js');
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** `YYYY-MM` of `months` after 2025-01 (month 0). */
function periodAt(month: number): string {
  const date = new Date(Date.UTC(2025, month, 1));
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

// The spawned CLI runs the compiled code: compile the sources first, as the tests do.
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPOSITORY, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const root = await mkdtemp(join(tmpdir(), 'geo-export-bench-'));
const out = join(root, 'out');

/** The data.json of the demo's reports, to copy as every client's. */
async function sampleData(): Promise<Array<{ data: Record<string, unknown>; entry: ProjectEntry }>> {
  const demoOut = join(root, 'demo');
  const demo = spawnSync(process.execPath, [CLI, 'demo', '--projects', '4', '--out', demoOut, '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
  });
  if (demo.status !== 0) throw new Error(`geo-reports demo failed (${demo.status}): ${demo.stderr}`);
  const period = (await readdir(demoOut)).filter((name) => /^\d{4}-\d{2}$/.test(name)).sort()[1];
  if (period === undefined) throw new Error(`the demo wrote no second period folder in ${demoOut}`);
  const folder = join(demoOut, period);
  const manifest = Manifest.parse(JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')));
  const done = manifest.projects.filter((e) => e.status === 'done' && e.files.data !== null);
  if (done.length === 0) throw new Error('the demo made no report to copy');
  return Promise.all(
    done.map(async (entry) => ({ entry, data: JSON.parse(await readFile(join(folder, entry.files.data as string), 'utf8')) as Record<string, unknown> })),
  );
}

/** The scores of the report in a data.json, which each client and month gets its own of. */
function scoresOf(data: Record<string, unknown>): Record<string, unknown> | null {
  const sections = ((data['report'] as Record<string, unknown> | undefined)?.['report'] as Record<string, unknown> | undefined)?.['sections'];
  const scores = (sections as Record<string, unknown> | undefined)?.['scores'];
  return typeof scores === 'object' && scores !== null ? (scores as Record<string, unknown>) : null;
}

async function writePeriod(samples: Awaited<ReturnType<typeof sampleData>>, month: number): Promise<number> {
  const period = periodAt(month);
  const dir = join(out, period);
  const projects: ProjectEntry[] = [];
  let bytes = 0;
  for (let i = 0; i < CLIENTS; i += 1) {
    const sample = samples[i % samples.length] as (typeof samples)[number];
    const id = 10_000 + i;
    const slug = `${id}-client-${i}`;
    const data = structuredClone(sample.data);
    data['period'] = period;
    data['project'] = { ...(data['project'] as Record<string, unknown>), id, name: `Client ${i}` };
    const scores = scoresOf(data);
    if (scores !== null) {
      scores['geo_score'] = 30 + ((i * 7 + month * 3) % 60);
      scores['seo_score'] = 40 + ((i * 5 + month) % 50);
    }
    const text = JSON.stringify(data);
    await mkdir(join(dir, slug), { recursive: true });
    await writeFile(join(dir, slug, 'data.json'), text);
    bytes += text.length;
    const { deliveries: _deliveries, displayName: _displayName, ...entry } = sample.entry;
    projects.push({
      ...entry,
      id,
      name: `Client ${i}`,
      slug,
      files: { html: null, pdf: null, data: `${slug}/data.json` },
      updatedAt: `${period}-28T06:00:00.000Z`,
    });
  }
  const manifest: Manifest = {
    period: toMonth(period),
    status: 'complete',
    startedAt: `${period}-28T06:00:00.000Z`,
    updatedAt: `${period}-28T06:10:00.000Z`,
    runs: 1,
    projects,
    requests: { total: CLIENTS * 2, byToken: {} },
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return bytes;
}

interface Figures {
  seconds: number;
  /** User + system CPU time of the export's process. */
  cpuSeconds: number;
  rows: number;
  reports: number;
  bytes: number;
  peakRss: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** Runs `geo-reports export --json` and reads its summary; its peak memory and CPU time from /proc while it runs. */
async function exportOnce(format: string, periods: string[], heapLimitMb?: number): Promise<Figures> {
  const file = join(root, `export.${format}`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'export', '--out', out, '--format', format, '--file', file, '--json', ...periods.flatMap((p) => ['--period', p])],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { PATH: process.env['PATH'] ?? '', ...(heapLimitMb !== undefined ? { NODE_OPTIONS: `--max-old-space-size=${heapLimitMb}` } : {}) },
    },
  );
  let peakRss = 0;
  let cpuTicks = 0;
  const watch = setInterval(() => {
    void readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm !== null) peakRss = Math.max(peakRss, Number(hwm[1]) * 1024);
      })
      .catch(() => undefined);
    void readFile(`/proc/${child.pid}/stat`, 'utf8')
      .then((stat) => {
        // utime and stime (fields 14 and 15), counted after the command name's closing parenthesis.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Math.max(cpuTicks, Number(fields[11]) + Number(fields[12]));
      })
      .catch(() => undefined);
  }, 50);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(watch);
  if (code !== 0) throw new Error(`geo-reports export exited ${code}`);
  const seconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { rows: number; reports: number };
  const bytes = (await stat(file)).size;
  await rm(file);
  return { seconds, cpuSeconds: cpuTicks / TICKS, rows: summary.rows, reports: summary.reports, bytes, peakRss };
}

const line = (name: string, f: Figures): string =>
  `${name}: ${f.seconds.toFixed(1)} s (CPU ${f.cpuSeconds.toFixed(1)} s) · ${f.reports} client reports, ${f.rows} rows (${mb(f.bytes)}) · peak RSS ${mb(f.peakRss)}`;

try {
  const samples = await sampleData();
  process.stdout.write(`Writing ${MONTHS} months × ${CLIENTS} clients of data.json…\n`);
  let sourceBytes = 0;
  for (let month = 0; month < MONTHS; month += 1) sourceBytes += await writePeriod(samples, month);
  const quarter = Array.from({ length: Math.max(1, Math.floor(MONTHS / 4)) }, (_, i) => periodAt(MONTHS - 1 - i));
  const loadBefore = load();
  const lines = [
    `${CLIENTS} clients × ${MONTHS} months: ${CLIENTS * MONTHS} data.json (${mb(sourceBytes)}), exported by the spawned CLI on ${availableParallelism()} cores`,
  ];
  for (const format of ['csv', 'json', 'xlsx']) {
    lines.push(line(`${format}, ${MONTHS} months`, await exportOnce(format, [])));
    lines.push(line(`${format}, ${quarter.length} months`, await exportOnce(format, quarter)));
  }
  // Flat memory, shown: the whole span again with each thread's heap held to a size far below what the rows would
  // take; the workbook too, whose writer keeps its XML outside the heap until the zip takes it.
  for (const format of ['csv', 'xlsx']) {
    const name = `${format}, ${MONTHS} months, heap limited to ${HEAP_LIMIT_MB} MB`;
    lines.push(
      await exportOnce(format, [], HEAP_LIMIT_MB).then(
        (f) => line(name, f),
        (error: unknown) => `${name}: failed (${(error as Error).message})`,
      ),
    );
  }
  lines.push('  (the data.json files were just written, so they are read from the page cache: a cold disk reads slower)');
  lines.push(`load average (1, 5, 15 min): ${loadBefore} before · ${load()} after`);
  process.stdout.write(`\n== export ==\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
