// An agency's template folder through the real CLI: `template init`, an edit, `run` with report.templates, every
// PDF carrying the change; a broken folder stopping `run`, `report` and `send` with exit 2 before any request; the
// example folder (a new page, a reordered report, a restyle in extra.css) seen in the PDFs' text and page count.
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';

const exec = promisify(execFile);
const TOKEN = 'tok-templates-6b1f0e2d4c8a9375';
const PERIOD = '2026-10';
const EXAMPLE = new URL('../../examples/agency-templates/', import.meta.url).pathname;
const LINE = 'Prepared for you by the Northwind team, line 7-B.';
/** A test that spawns several runs: each may take a minute on a busy machine. */
const SEVERAL_RUNS_MS = 240_000;

let sim: SimulatorHandle;
let root: string;

beforeAll(async () => {
  sim = await startSimulator({ tokens: [TOKEN], projectCount: 4 });
  root = await mkdtemp(join(tmpdir(), 'geo-templates-cli-'));
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url });
const cli = (args: string[], cwd: string): Promise<CliResult> => runCli(args, { env: env(), cwd, timeoutMs: 120_000 });

async function pdfText(path: string, page?: number): Promise<string> {
  const pages = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
  const { stdout } = await exec('pdftotext', ['-layout', ...pages, path, '-'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function pageCount(path: string): Promise<number> {
  const { stdout } = await exec('pdfinfo', [path]);
  return Number(/Pages:\s+(\d+)/.exec(stdout)?.[1]);
}

/** The finished reports of a period folder: slug → PDF path. */
async function reports(out: string): Promise<Map<string, string>> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
  return new Map(manifest.projects.filter((p) => p.files.pdf !== null).map((p) => [p.slug, join(out, PERIOD, p.files.pdf as string)]));
}

describe('template init, an edit, and the monthly run with report.templates', () => {
  it(
    'every PDF carries the line added to partials/summary.hbs, and the rule of extra.css is in every report',
    async () => {
      const dir = join(root, 'done-when');
      await mkdir(join(dir, 'config'), { recursive: true });
      const init = await cli(['template', 'init', 'my-templates'], dir);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toMatch(/Wrote \d+ files into .*my-templates/);
      const files = await readdir(join(dir, 'my-templates', 'partials'));
      expect(files).toContain('summary.hbs');
      // init refuses to write over a folder that is not empty.
      const again = await cli(['template', 'init', 'my-templates'], dir);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/is not empty .*nothing was written/);

      const summary = join(dir, 'my-templates', 'partials', 'summary.hbs');
      const text = await readFile(summary, 'utf8');
      await writeFile(summary, text.replace('<h2 id="summary-title">', `<p class="prepared-by">${LINE}</p>\n  <h2 id="summary-title">`));
      await appendFile(join(dir, 'my-templates', 'assets', 'extra.css'), '.prepared-by { color: #7c2d12; font-weight: 700; }\n');
      // report.templates is relative to the config file.
      await writeFile(
        join(dir, 'config', 'geo-reports.json'),
        JSON.stringify({ agency: { name: 'Northwind Digital' }, report: { templates: '../my-templates' } }),
      );

      const check = await cli(['template', 'check', '--config', 'config/geo-reports.json'], dir);
      expect(check.code, check.stdout).toBe(0);
      expect(check.stdout).toMatch(/No problem in .*my-templates\./);

      const run = await cli(['run', '--period', PERIOD, '--config', 'config/geo-reports.json', '--out', 'out', '--json'], dir);
      expect(run.code, run.stderr).toBe(0);
      const pdfs = await reports(join(dir, 'out'));
      expect(pdfs.size).toBeGreaterThanOrEqual(2);
      for (const [slug, pdf] of pdfs) {
        expect((await pdfText(pdf)).replace(/\s+/g, ' '), slug).toContain(LINE);
        const html = await readFile(pdf.replace(/report\.pdf$/, 'report.html'), 'utf8');
        expect(html).toContain('.prepared-by { color: #7c2d12; font-weight: 700; }');
      }

      // `send` writes its messages with the folder's phrases.
      const english = join(dir, 'my-templates', 'locales', 'en.json');
      const phrases = JSON.parse(await readFile(english, 'utf8')) as Record<string, string>;
      await writeFile(english, JSON.stringify({ ...phrases, 'email.subject': 'Northwind: {client}, your {period} report' }, null, 2));
      const manifest = Manifest.parse(JSON.parse(await readFile(join(dir, 'out', PERIOD, 'manifest.json'), 'utf8')));
      const first = manifest.projects.find((p) => p.status === 'done' && p.deliveries?.email === undefined);
      expect(first).toBeDefined();
      await writeFile(
        join(dir, 'config', 'geo-reports.json'),
        JSON.stringify({
          agency: { name: 'Northwind Digital' },
          report: { templates: '../my-templates' },
          delivery: { email: { from: 'Northwind Digital <reports@northwind.example>' } },
          clients: { [String(first?.id)]: { email: { to: ['client@example.com'] } } },
        }),
      );
      const send = await cli(['send', '--period', PERIOD, '--config', 'config/geo-reports.json', '--out', 'out', '--dry-run'], dir);
      expect(send.code, send.stderr).toBe(0);
      const eml = await readFile(join(dir, 'out', PERIOD, first?.slug ?? '', 'email.eml'), 'utf8');
      expect(eml).toMatch(new RegExp(`^Subject: Northwind: ${first?.name ?? ''}, your October 2026 report`, 'm'));
    },
    SEVERAL_RUNS_MS,
  );
});

describe('a broken template stops the command before any request and before Chromium', () => {
  it(
    'run, report, send, demo, preview and schedule exit 2 naming the file and line; the API received no request',
    async () => {
      const dir = join(root, 'broken');
      await mkdir(join(dir, 'broken-templates', 'partials'), { recursive: true });
      await writeFile(
        join(dir, 'broken-templates', 'partials', 'summary.hbs'),
        '<section class="section">\n  <h2>{{t "summary.title"}}</h2>\n  {{#each summary}}<p>{{this}</p>{{/each}}\n</section>\n',
      );
      const before = sim.state.requests.length;
      const file = join(dir, 'broken-templates', 'partials', 'summary.hbs');
      await writeFile(join(dir, 'geo-reports.json'), JSON.stringify({ report: { templates: 'broken-templates' } }));
      for (const args of [
        ['run', '--period', PERIOD, '--templates', 'broken-templates', '--out', 'out'],
        ['report', '101', '--period', PERIOD, '--templates', 'broken-templates', '--out', 'out'],
        ['send', '--period', PERIOD, '--templates', 'broken-templates', '--out', 'out', '--dry-run'],
        ['demo', '--period', PERIOD, '--templates', 'broken-templates', '--out', 'out', '--projects', '2'],
        ['preview', '--period', PERIOD, '--templates', 'broken-templates', '--out', 'out', '--port', '0'],
        // report.templates of the config, checked when the schedule starts rather than at its first run.
        ['schedule', '--config', 'geo-reports.json', '--out', 'out'],
      ]) {
        const result = await cli(args, dir);
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toContain(`${file}:3:`);
        expect(result.stderr).toMatch(/Handlebars syntax error/);
        expect(result.stderr).not.toMatch(/Unexpected error|\n\s+at /);
      }
      expect(sim.state.requests.length - before).toBe(0);
      // Nothing was started or written either.
      await expect(readdir(join(dir, 'out'))).rejects.toThrow(/ENOENT/);
    },
    SEVERAL_RUNS_MS,
  );

  it('template check lists each problem with its file and line, and exits 2', async () => {
    const dir = join(root, 'check');
    await mkdir(join(dir, 'tpl', 'partials'), { recursive: true });
    await writeFile(
      join(dir, 'tpl', 'partials', 'summary.hbs'),
      '<section>\n  <p>{{client.nmae}}</p>\n  {{> about}}\n  <img src="https://cdn.example/a.png">\n  <p>{{{client.note}}}</p>\n</section>\n',
    );
    const result = await cli(['template', 'check', '--templates', 'tpl'], dir);
    expect(result.code).toBe(2);
    const file = join(dir, 'tpl', 'partials', 'summary.hbs');
    expect(result.stdout.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${file}:2:8: error: "client\\.nmae" is not a value`)),
      expect.stringMatching(new RegExp(`^${file}:3:3: error: the partial "about" does not exist`)),
      expect.stringMatching(new RegExp(`^${file}:4:13: error: src="https://cdn\\.example/a\\.png" points outside the report`)),
      expect.stringMatching(new RegExp(`^${file}:5:6: error: writes a value without escaping`)),
      expect.stringMatching(/^4 errors, 0 warnings in .*tpl\.$/),
      '',
    ]);
    const json = await cli(['template', 'check', '--templates', 'tpl', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({ errors: 4, warnings: 0 });
  });

  it('template check parses the sample pages: an unclosed <div> or a stray </div> of a partial is an error at its line, exit 2', async () => {
    const dir = join(root, 'balance');
    await mkdir(join(dir, 'tpl', 'partials'), { recursive: true });
    const file = join(dir, 'tpl', 'partials', 'summary.hbs');
    const summary = await readFile(new URL('../../templates/partials/summary.hbs', import.meta.url), 'utf8');
    // Line 3: a wrapper opened and never closed; Handlebars, the sandbox and the sample renders all accept it.
    await writeFile(file, summary.replace('  {{#if client.note}}\n', '  <div class="wrap">\n  {{#if client.note}}\n'));
    const unclosed = await cli(['template', 'check', '--templates', 'tpl'], dir);
    expect(unclosed.code, unclosed.stdout + unclosed.stderr).toBe(2);
    expect(unclosed.stdout.split('\n').filter((line) => line.includes(': error: '))).toEqual([
      expect.stringMatching(new RegExp(`^${file}:3:3: error: <div> is never closed in the sample report \\(en\\)`)),
    ]);
    // A closing tag too many, in an {{#if}} of the partial (line 13), where no <div> of the page is open.
    await writeFile(file, summary.replace('  </div>\n  {{else}}\n', '  </div>\n  </div>\n  {{else}}\n'));
    const stray = await cli(['template', 'check', '--templates', 'tpl'], dir);
    expect(stray.code, stray.stdout + stray.stderr).toBe(2);
    const errors = stray.stdout.split('\n').filter((line) => line.includes(': error: '));
    expect(errors[0]).toMatch(new RegExp(`^${file}:13:3: error: </div> closes no <div> opened before it in the sample report \\(en\\)`));
    expect(
      errors.every((line) => line.startsWith(file)),
      errors.join('\n'),
    ).toBe(true);
    // The built-in summary, balanced, has no problem.
    await writeFile(file, summary);
    const balanced = await cli(['template', 'check', '--templates', 'tpl'], dir);
    expect(balanced.stdout, balanced.stderr).toMatch(/^No problem in .*tpl\.\n$/);
    expect(balanced.code).toBe(0);
  });

  it(
    'a phrase no locale has, or a value the model does not have, stops run, report, preview and template check before any request, naming it',
    async () => {
      const dir = join(root, 'raw-keys');
      await mkdir(join(dir, 'tpl', 'partials'), { recursive: true });
      const file = join(dir, 'tpl', 'partials', 'summary.hbs');
      await writeFile(file, '<section class="section">\n  <p>{{t "about.outro"}}</p>\n  <p>Account manager: {{client.accountManager}} — </p>\n</section>\n');
      const before = sim.state.requests.length;
      for (const args of [
        ['run', '--period', PERIOD, '--templates', 'tpl', '--out', 'out'],
        ['report', '101', '--period', PERIOD, '--templates', 'tpl', '--out', 'out'],
        ['preview', '--period', PERIOD, '--templates', 'tpl', '--out', 'out', '--port', '0'],
        ['template', 'check', '--templates', 'tpl'],
      ]) {
        const result = await cli(args, dir);
        const said = `${result.stdout}${result.stderr}`;
        expect(result.code, `${args[0]}: ${said}`).toBe(2);
        expect(said).toContain(`${file}:2:6: error: the phrase "about.outro" is in no locale file`);
        expect(said).toMatch(/the groups of phrases are .*summary/);
        expect(said).toContain(`${file}:3:25: error: "client.accountManager" is not a value the template gets ("client" has name, domain, note)`);
      }
      expect(sim.state.requests.length - before).toBe(0);
      await expect(readdir(join(dir, 'out'))).rejects.toThrow(/ENOENT/);
    },
    SEVERAL_RUNS_MS,
  );

  it('a template that renders no {{styles}} is found on the sample pages, before the run', async () => {
    const dir = join(root, 'no-styles');
    await mkdir(join(dir, 'tpl'), { recursive: true });
    await writeFile(join(dir, 'tpl', 'report.hbs'), '<!doctype html>\n<html><body>{{> summary}}</body></html>\n');
    const before = sim.state.requests.length;
    const result = await cli(['run', '--period', PERIOD, '--templates', 'tpl', '--out', 'out'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'tpl', 'report.hbs')}: error: rendering the sample report (en) failed`);
    expect(result.stderr).toMatch(/does not print \{\{styles\}\}/);
    expect(sim.state.requests.length - before).toBe(0);
  });
});

describe('the example folder: a new page, the recommendations before the scores, score cards restyled', () => {
  it(
    'shows in the PDF text and page count',
    async () => {
      const dir = join(root, 'example');
      await mkdir(join(dir, 'config'), { recursive: true });
      await cp(EXAMPLE, join(dir, 'example'), { recursive: true });
      // The same folder without the new page, to count what the page adds.
      await cp(EXAMPLE, join(dir, 'no-page'), { recursive: true });
      const report = join(dir, 'no-page', 'report.hbs');
      await writeFile(report, (await readFile(report, 'utf8')).replace('{{> about-us}}\n', ''));
      await writeFile(
        join(dir, 'config', 'geo-reports.json'),
        JSON.stringify({ agency: { name: 'Northwind Digital', contact: { email: 'reports@northwind.example' } } }),
      );
      const outs = { builtIn: [] as string[], example: ['--templates', 'example'], noPage: ['--templates', 'no-page'] };
      for (const [name, flags] of Object.entries(outs)) {
        const run = await cli(['run', '--period', PERIOD, '--config', 'config/geo-reports.json', '--out', name, '--json', ...flags], dir);
        expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      }
      const [builtIn, example, noPage] = await Promise.all([reports(join(dir, 'builtIn')), reports(join(dir, 'example')), reports(join(dir, 'noPage'))]);
      expect(example.size).toBeGreaterThanOrEqual(2);
      for (const [slug, pdf] of example) {
        const pages = await pageCount(pdf);
        // The "About us" page is one page more, the last, with nothing else on it.
        expect(pages, slug).toBe((await pageCount(noPage.get(slug) as string)) + 1);
        const last = (await pdfText(pdf, pages)).replace(/\s+/g, ' ');
        expect(last).toMatch(/^ ?(About Northwind Digital|À propos de Northwind Digital) /);
        expect(last).toMatch(/reports@northwind\.example/);
        expect(last).not.toMatch(/Recommendations|Recommandations|Scores/);
        const before = (await pdfText(pdf, pages - 1)).replace(/\s+/g, ' ');
        expect(before).not.toMatch(/About Northwind|À propos/);

        const text = await pdfText(pdf);
        const builtInText = await pdfText(builtIn.get(slug) as string);
        const heading = (t: string, words: RegExp): number => t.search(words);
        // Recommendations before scores here; after them in the built-in report.
        const recommendations = /^\s*(?:Recommendations|Recommandations)\s*$/m;
        const scores = /^\s*Scores\s*$/m;
        expect(heading(text, recommendations)).toBeGreaterThan(-1);
        expect(heading(text, recommendations)).toBeLessThan(heading(text, scores));
        expect(heading(builtInText, scores)).toBeGreaterThan(-1);
        expect(heading(builtInText, recommendations)).toBeGreaterThan(heading(builtInText, scores));
        // extra.css hides the help line of the score cards: in the built-in PDF, not in this one.
        const help = /How visible and recommended the site|Visibilité et recommandation du site/;
        expect(builtInText).toMatch(help);
        expect(text).not.toMatch(help);
      }
    },
    1.5 * SEVERAL_RUNS_MS,
  );
});
