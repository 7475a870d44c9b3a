// Annotations for real: `geo-reports demo` with three annotations for one client (two in the config, one in
// annotations/<id>.csv beside it, one of them hostile), its PDF read back (the list, the marks, the summary) and its
// chart page turned into an image for a person to look at; `publish` puts them on the client's page; a bad one
// stops `run` with exit 2 before any request to the API.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { sampleAccount } from '../../src/simulator/sample.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const PERIOD = toMonth('2026-10');
const SECRET = 'annotations-suite-secret-5b8e2c1f9d4a7036e1c2';
/** The chart's page as an image, kept for a person to look at. */
const SCREENS = join(tmpdir(), 'geo-reports-annotations-screens');
const HOSTILE = 'FAQ <b>added</b> & "schema"';
/** HOSTILE as the English report prints it: escaped, its straight quotes set as typographic ones. */
const HOSTILE_SHOWN = 'FAQ <b>added</b> & “schema”';

let root: string;
let out: string;
let clientId: number;
let demo: CliResult;

const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  runCli(args, { env: { PATH: process.env['PATH'] ?? '', HOME: root, ...env }, cwd: root, timeoutMs: 180_000 });

async function reportPdf(): Promise<string> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
  const entry = manifest.projects.find((p) => p.id === clientId);
  return join(out, PERIOD, entry?.files.pdf as string);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-annotations-'));
  out = join(root, 'out');
  const account = sampleAccount({ period: PERIOD, projectCount: 4 }).projects();
  clientId = account.find((p) => p['status'] === 'active' && p['language'] !== 'fr')?.['id'] as number;
  await mkdir(join(root, 'config', 'annotations'), { recursive: true });
  await writeFile(
    join(root, 'config', 'geo-reports.json'),
    JSON.stringify({
      clients: {
        [clientId]: {
          note: 'A note for every month.',
          annotations: [
            { date: '2026-05-03', text: 'Titles rewritten', kind: 'content' },
            { date: '2026-09-20', text: HOSTILE },
            { period: PERIOD, note: 'October: the titles again.' },
          ],
        },
      },
    }),
  );
  await writeFile(join(root, 'config', 'annotations', `${clientId}.csv`), 'date,text,kind\n2026-09-10,"Blog, relaunched",content\n');
  demo = await cli(['demo', '--projects', '4', '--period', PERIOD, '--out', out, '--json']);
  await mkdir(SCREENS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('annotations on the report', () => {
  it('lists the three under the chart, numbered in date order, escaped, with the month’s own note', async () => {
    expect(demo.code, demo.stderr).toBe(0);
    const { stdout } = await exec('pdftotext', [await reportPdf(), '-']);
    const text = stdout.replace(/\s+/g, ' ');
    expect(text).toContain('What we did');
    expect(text).toContain('1 May 3, 2026 Titles rewritten (content)');
    expect(text).toContain('2 September 10, 2026 Blog, relaunched (content)');
    expect(text).toContain(`3 September 20, 2026 ${HOSTILE_SHOWN}`);
    expect(text).toContain('October: the titles again.');
    expect(text).not.toContain('A note for every month.');
  });

  it('says in the summary how the GEO score moved since the latest, with the figures of the history', async () => {
    const { stdout } = await exec('pdftotext', [await reportPdf(), '-']);
    const text = stdout.replace(/\s+/g, ' ');
    // Quoted inside the sentence's own quotes, the note's quotes take the inner marks (‘ ’).
    const since = `since “${HOSTILE_SHOWN.replace('“', '‘').replace('”', '’')}” on September 20, 2026, at`;
    const sentence = new RegExp(`Your GEO score is (?:(up|down) ([\\d.]+) points? ${since} (\\d+)|unchanged ${since} (\\d+))\\.`).exec(text);
    expect(sentence, text.slice(0, 1500)).not.toBeNull();
    // The history's September point (the last on or before 20 September) and the score now, as the report prints them.
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    const entry = manifest.projects.find((p) => p.id === clientId);
    const data = JSON.parse(await readFile(join(out, PERIOD, entry?.files.data as string), 'utf8')) as {
      report: { report: { sections: { history: Array<{ date: string; geo_score: number }> } } };
    };
    const september = data.report.report.sections.history.filter((p) => p.date <= '2026-09-20').at(-1)?.geo_score as number;
    const now = Number(sentence?.[3] ?? sentence?.[4]);
    expect(now).toBe(entry?.geo);
    const change = sentence?.[1] === 'down' ? -Number(sentence[2]) : Number(sentence?.[2] ?? 0);
    expect(change).toBeCloseTo(now - september, 1);
  });

  it('draws a numbered mark per annotation on the chart; the page, as an image, is kept for a look', async () => {
    const pdf = await reportPdf();
    const pages = Number(/Pages:\s+(\d+)/.exec((await exec('pdfinfo', [pdf])).stdout)?.[1]);
    let chartPage = 0;
    for (let page = 1; page <= pages && chartPage === 0; page += 1) {
      const { stdout } = await exec('pdftotext', ['-f', String(page), '-l', String(page), '-layout', pdf, '-']);
      // The contents page after the cover names the section too: the chart's page is the one with its axis's 100.
      if (stdout.includes('Score history') && /^\s*100\b/m.test(stdout)) chartPage = page;
    }
    expect(chartPage).toBeGreaterThan(0);
    // The marks' digits are text in the chart: above the plot, before the axis's 100, in date order.
    const { stdout } = await exec('pdftotext', ['-f', String(chartPage), '-l', String(chartPage), '-layout', pdf, '-']);
    const chartTop = stdout.split('\n').slice(
      0,
      stdout.split('\n').findIndex((line) => /^\s*100\b/.test(line)),
    );
    expect(chartTop.join(' ').match(/\b[123]\b/g)).toEqual(['1', '2', '3']);
    const image = join(SCREENS, `report-${clientId}-page`);
    await exec('pdftoppm', ['-r', '60', '-png', '-f', String(chartPage), '-l', String(chartPage), '-singlefile', pdf, image]);
    expect((await readFile(`${image}.png`)).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('annotations on the client site', () => {
  it("are listed on the client's page under its chart when within its months, escaped", async () => {
    const site = join(root, 'site');
    const published = await cli(['publish', '--out', out, '--site', site, '--json'], { GEO_REPORTS_LINK_SECRET: SECRET });
    expect(published.code, published.stderr).toBe(0);
    const pages = (await readdir(join(site, 'c'), { recursive: true })).filter((f) => f.endsWith('index.html') && f.split('/').length === 2);
    const html = await Promise.all(pages.map((page) => readFile(join(site, 'c', page), 'utf8')));
    const own = html.filter((page) => page.includes('Blog, relaunched'));
    expect(own).toHaveLength(1);
    const page = own[0] as string;
    expect(page).toContain('FAQ &lt;b&gt;added&lt;/b&gt; &amp; &quot;schema&quot;');
    expect(page).not.toContain('<b>added</b>');
    // The page's chart spans its two months (September, October): May's annotation is before it.
    expect(page).not.toContain('Titles rewritten');
    expect(page.match(/<span class="annotations__marker" aria-hidden="true">\d<\/span>/g)).toEqual([
      '<span class="annotations__marker" aria-hidden="true">1</span>',
      '<span class="annotations__marker" aria-hidden="true">2</span>',
    ]);
    expect(page).toContain('chart-annotations');
  });
});

describe('a bad annotation', () => {
  it('stops the run with exit 2 naming the file, line and field, before any request', async () => {
    const sim = await startSimulator({ tokens: [DEMO_TOKEN], projectCount: 4 });
    try {
      const folder = join(root, 'bad');
      await mkdir(join(folder, 'config', 'annotations'), { recursive: true });
      await writeFile(join(folder, 'config', 'geo-reports.json'), '{}');
      await writeFile(join(folder, 'config', 'annotations', '101.csv'), `date,text,kind\n2026-05-03,ok,\n2026-05-04,${'z'.repeat(200)},\n`);
      const result = await runCli(['run', '--period', PERIOD, '--out', join(folder, 'out')], {
        env: { PATH: process.env['PATH'] ?? '', HOME: root, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url },
        cwd: folder,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${join(folder, 'config', 'annotations', '101.csv')} line 3, field text: is too long: at most 120 characters`);
      expect(sim.state.requests).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });
});
