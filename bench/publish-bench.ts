// Benchmark of `geo-reports publish`: the static site of client pages for many clients and months, from scratch,
// again with nothing new, and again with one new month. The reports are real ones (made by `geo-reports demo` on
// the embedded simulator), each copied as every client's report of every month with a marker that makes its bytes
// its own, so no two files of the site are the same. The CLI is spawned as a user runs it; its files written and
// removed are counted from its JSON events, and its peak memory read from /proc. Prints figures; asserts nothing.
//   npm run bench:publish                    1000 clients × 12 months
//   npm run bench:publish -- 200 6           200 clients × 6 months
//   npm run bench:publish -- 200 6 --unchecked   no page recorded as checked by the run: publish checks each
//   npm run bench -- --publish               the same as npm run bench:publish
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manifest, type ProjectEntry } from '../src/output/store.js';
import { toMonth } from '../src/period.js';

const numbers = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const CLIENTS = numbers[0] ?? 1000;
/** `--unchecked`: no page recorded as checked by the run, so publish checks every one (a release before the record). */
const UNCHECKED = process.argv.includes('--unchecked');
const MONTHS = numbers[1] ?? 12;
const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(REPOSITORY, 'bin', 'geo-reports.js');
const SECRET = 'bench-link-secret-7c1e9a4f2d8b6035e9f1a7c3d5b2';
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const gb = (bytes: number): string => `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;

/** `YYYY-MM` of `months` after 2025-11 (month 0). */
function periodAt(month: number): string {
  const date = new Date(Date.UTC(2025, 10 + month, 1));
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

// The spawned CLI runs the compiled code: compile the sources first, as the tests do.
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPOSITORY, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const root = await mkdtemp(join(tmpdir(), 'geo-publish-bench-'));
const out = join(root, 'out');

/** One real report (HTML, PDF, data.json) made by the demo, to copy as every client's. */
async function sampleReport(): Promise<{ html: Buffer; pdf: Buffer; data: Buffer; entry: ProjectEntry }> {
  const demoOut = join(root, 'demo');
  const demo = spawnSync(process.execPath, [CLI, 'demo', '--projects', '3', '--out', demoOut, '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
  });
  if (demo.status !== 0) throw new Error(`geo-reports demo failed (${demo.status}): ${demo.stderr}`);
  const period = (await readdir(demoOut)).find((name) => /^\d{4}-\d{2}$/.test(name));
  if (period === undefined) throw new Error(`the demo wrote no period folder in ${demoOut}`);
  const folder = join(demoOut, period);
  const manifest = Manifest.parse(JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')));
  const entry = manifest.projects.find((e) => e.status === 'done' && e.files.html !== null && e.files.pdf !== null && e.files.data !== null);
  if (entry === undefined) throw new Error('the demo made no report to copy');
  const [html, pdf, data] = await Promise.all([entry.files.html, entry.files.pdf, entry.files.data].map((file) => readFile(join(folder, file as string))));
  return { html: html as Buffer, pdf: pdf as Buffer, data: data as Buffer, entry };
}

/** Writes the period folder of month `month`: every client's report, each file's bytes its own. */
async function writePeriod(sample: Awaited<ReturnType<typeof sampleReport>>, month: number): Promise<number> {
  const period = periodAt(month);
  const dir = join(out, period);
  let bytes = 0;
  const projects: ProjectEntry[] = [];
  // Sent by nobody, named as the project: the sample's own delivery records and display name do not carry over.
  const { deliveries: _deliveries, displayName: _displayName, checkedPage: _checkedPage, ...entry } = sample.entry;
  for (let i = 0; i < CLIENTS; i += 1) {
    const id = 10_000 + i;
    const slug = `${id}-client-${i}`;
    await mkdir(join(dir, slug), { recursive: true });
    const mark = `${id} ${period}`;
    // After %%EOF a PDF reader reads nothing; a comment at the end of the HTML changes nothing shown.
    const pdf = Buffer.concat([sample.pdf, Buffer.from(`\n% ${mark}\n`)]);
    const html = Buffer.concat([sample.html, Buffer.from(`\n<!-- ${mark} -->\n`)]);
    await Promise.all([
      writeFile(join(dir, slug, 'report.pdf'), pdf),
      writeFile(join(dir, slug, 'report.html'), html),
      writeFile(join(dir, slug, 'data.json'), sample.data),
    ]);
    bytes += pdf.length + html.length + sample.data.length;
    const geo = 40 + ((i + month * 3) % 50);
    projects.push({
      ...entry,
      id,
      name: `Client ${i}`,
      slug,
      files: { html: `${slug}/report.html`, pdf: `${slug}/report.pdf`, data: `${slug}/data.json` },
      // As the run records the page it wrote and checked; --unchecked: pages of an earlier version, checked by publish.
      ...(UNCHECKED ? {} : { checkedPage: createHash('sha256').update(html).digest('hex') }),
      geo,
      geoChange: month === 0 ? null : 3,
      seo: 50 + (i % 40),
      seoChange: month === 0 ? null : -1,
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
  written: number;
  removed: number;
  bytesWritten: number;
  peakRss: number;
}

/** Runs `geo-reports publish --json` and reads its summary; its peak memory from /proc while it runs. */
async function publish(): Promise<Figures> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'publish', '--out', out, '--json'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env['PATH'] ?? '', GEO_REPORTS_LINK_SECRET: SECRET },
  });
  let peakRss = 0;
  const watch = setInterval(() => {
    void readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm !== null) peakRss = Math.max(peakRss, Number(hwm[1]) * 1024);
      })
      .catch(() => undefined);
  }, 50);
  let last = '';
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') last = line;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(watch);
  if (buffered.trim() !== '') last = buffered;
  if (code !== 0) throw new Error(`geo-reports publish exited ${code}`);
  const seconds = (performance.now() - started) / 1000;
  const { summary } = JSON.parse(last) as { summary: { written: number; removed: number; bytesWritten: number } };
  return { seconds, written: summary.written, removed: summary.removed, bytesWritten: summary.bytesWritten, peakRss };
}

const line = (name: string, f: Figures): string =>
  `${name}: ${f.seconds.toFixed(1)} s · ${f.written} files written (${gb(f.bytesWritten)}) · ${f.removed} removed · peak RSS ${mb(f.peakRss)}`;

try {
  const sample = await sampleReport();
  const need = (sample.html.length + sample.pdf.length) * 2 * CLIENTS * (MONTHS + 1) + sample.data.length * CLIENTS * (MONTHS + 1);
  const disk = await statfs(root);
  if (disk.bavail * disk.bsize < need * 1.1) throw new Error(`the benchmark needs about ${gb(need)} in ${tmpdir()}; it has ${gb(disk.bavail * disk.bsize)}`);
  process.stdout.write(
    `Writing ${MONTHS} months × ${CLIENTS} clients of reports (${(sample.pdf.length / 1024).toFixed(0)} KB PDF, ${(sample.html.length / 1024).toFixed(0)} KB HTML each)…\n`,
  );
  let sourceBytes = 0;
  for (let month = 0; month < MONTHS; month += 1) sourceBytes += await writePeriod(sample, month);
  const loadBefore = load();
  const scratch = await publish();
  const again = await publish();
  await writePeriod(sample, MONTHS);
  const newMonth = await publish();
  const lines = [
    `${CLIENTS} clients × ${MONTHS} months: ${CLIENTS * MONTHS * 2} report files in the period folders (${gb(sourceBytes)}), published by the spawned CLI`,
    line('from scratch', scratch),
    line('again, nothing new', again),
    line(`one new month (${periodAt(MONTHS)})`, newMonth),
    `  (files written with one new month: ${CLIENTS} PDFs + ${CLIENTS} reports + ${CLIENTS} client pages + ${CLIENTS} month folder pages expected = ${CLIENTS * 4})`,
    '  (the period folders were just written, so they are read from the page cache: a cold disk reads slower)',
    `load average (1, 5, 15 min): ${loadBefore} before · ${load()} after`,
  ];
  process.stdout.write(`\n== publish ==\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
