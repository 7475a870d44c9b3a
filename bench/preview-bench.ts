// Benchmark of the template preview: from a saved template file to the reloaded page showing the change, in a real
// browser. The CLI is spawned as a user runs it (`geo-reports preview --port 0`, on the simulator's sample data),
// the page opened with Puppeteer, a partial saved again and again, and the time until the page shows the new text
// measured each time. Prints figures; asserts nothing.
//   npm run bench:preview             20 saves
//   npm run bench:preview -- 50       50 saves
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumArgs, findBrowser } from '../src/render/print/browser.js';

const SAVES = Number(process.argv[2] ?? 20) || 20;
const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLE = join(REPOSITORY, 'examples', 'agency-templates');
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

// The spawned CLI runs the compiled code: compile the sources first, as the tests do.
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPOSITORY, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const root = await mkdtemp(join(tmpdir(), 'geo-preview-bench-'));
await cp(EXAMPLE, join(root, 'tpl'), { recursive: true });
const partial = join(root, 'tpl', 'partials', 'about-us.hbs');
const original = await readFile(partial, 'utf8');
const child = spawn(process.execPath, [join(REPOSITORY, 'bin', 'geo-reports.js'), 'preview', '--port', '0', '--templates', 'tpl', '--out', 'no-output'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { PATH: process.env['PATH'] ?? '' },
});
const url = await new Promise<string>((resolve, reject) => {
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
  });
  child.once('exit', (code) => reject(new Error(`the preview exited (${code})`)));
});
const browser = await puppeteer.launch({ ...findBrowser(), args: chromiumArgs(), pipe: true });
const loadBefore = load();
try {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const times: number[] = [];
  for (let i = 0; i < SAVES; i += 1) {
    const marker = `Saved change number ${i}.`;
    const started = performance.now();
    await writeFile(partial, original.replace('<div class="about-us__body">', `<p>${marker}</p>\n  <div class="about-us__body">`));
    await page.waitForFunction(
      (text: string) => (document.body as HTMLElement | null)?.innerText.includes(text) === true,
      { polling: 5, timeout: 10_000 },
      marker,
    );
    times.push(performance.now() - started);
    // Editors do not save twenty times a second: let each reload settle.
    await delay(150);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const lines = [
    `saves: ${SAVES} · preview on ${url} (sample data, templates: examples/agency-templates)`,
    `saved file → reloaded page showing the change: median ${quantile(sorted, 0.5).toFixed(0)} ms · p90 ${quantile(sorted, 0.9).toFixed(0)} ms · max ${(sorted.at(-1) ?? 0).toFixed(0)} ms · min ${(sorted[0] ?? 0).toFixed(0)} ms`,
    '  (includes the 30 ms the watcher waits for a burst of writes to end, the templates read and checked again,',
    '   the page rendered by the batch steps, the browser reloading it, and Puppeteer polling every 5 ms)',
    `load average (1, 5, 15 min): ${loadBefore} before · ${load()} after`,
  ];
  process.stdout.write(`\n== preview reload ==\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
} finally {
  await browser.close();
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(root, { recursive: true, force: true });
}
