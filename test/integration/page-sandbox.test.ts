// The sandbox judges the printed page, through the real CLI on the simulator: a template that splits a tag, a
// handler or a scheme with a Handlebars comment is refused by `template check` and stops `run` before any request;
// {{{…}}} over a value is an error; a report whose data would make it break the rules is not written, and says
// why; every page the tool writes carries the pages' Content-Security-Policy, and the PDF still prints in Inter.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { pagePolicy, policyMeta } from '../../src/render/page-check.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';

const exec = promisify(execFile);
const TOKEN = 'tok-sandbox-5d2e9a7c1b3f8064';
const SECRET = 'Vq8+2mXo4kT9wLr1sZp6nJc3yHb7eGd0aFu5iQ';
const PERIOD = '2026-10';
const RUN_MS = 240_000;

let sim: SimulatorHandle;
let root: string;

beforeAll(async () => {
  sim = await startSimulator({ tokens: [TOKEN], projectCount: 3 });
  root = await mkdtemp(join(tmpdir(), 'geo-sandbox-'));
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url, GEO_REPORTS_LINK_SECRET: SECRET });
const cli = (args: string[], cwd: string): Promise<CliResult> => runCli(args, { env: env(), cwd, timeoutMs: 180_000 });

/** A folder with one template partial of the agency's. */
async function templateFolder(name: string, summary: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'tpl', 'partials'), { recursive: true });
  await writeFile(join(dir, 'tpl', 'partials', 'summary.hbs'), summary);
  return dir;
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => join(e.parentPath, e.name));
}

describe('a template that prints what its text hides', () => {
  it.each([
    ['a tag split by a comment', '<section><scr{{!-- x --}}ipt>alert(1)</scr{{!-- x --}}ipt></section>', /<script> is not allowed: .*\(printed: <script>\)/],
    ['a handler split by a comment', '<section on{{!-- c --}}load="alert(1)">x</section>', /event handler onload.*\(printed: <section onload="alert\(1\)">\)/],
    [
      'a scheme split by a comment',
      '<section><a href="javascript{{!-- c --}}:alert(1)">x</a></section>',
      /javascript: URL runs a script \(printed: <a href="javascript:alert\(1\)">\)/,
    ],
  ])('%s: template check refuses it, quoting what the sample page would carry', async (name, summary, message) => {
    const dir = await templateFolder(name.replaceAll(' ', '-'), summary);
    const result = await cli(['template', 'check', '--templates', 'tpl'], dir);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    // The page is the built-in report.hbs around the agency's partial; the message quotes the printed tag.
    expect(result.stdout).toMatch(
      /report\.hbs: error: rendering the sample report \(en\) failed: The report page is not written: line \d+, column \d+ of the page/,
    );
    expect(result.stdout).toMatch(message);
  });

  it("{{{…}}} over the client's display name is an error of template check, whatever the name holds", async () => {
    const dir = await templateFolder('triple-stash', '<section><h2>{{{client.name}}}</h2></section>');
    await writeFile(join(dir, 'geo-reports.json'), JSON.stringify({ clients: { '101': { displayName: '<script>alert(1)</script>' } } }));
    const result = await cli(['template', 'check', '--templates', 'tpl', '--config', 'geo-reports.json'], dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(new RegExp(`${join(dir, 'tpl', 'partials', 'summary.hbs')}:1:14: error: writes a value without escaping`));
  });

  it(
    'run stops with exit 2 before any request and writes nothing',
    async () => {
      const dir = await templateFolder('run-split', '<section><scr{{!-- x --}}ipt>alert(1)</scr{{!-- x --}}ipt></section>');
      const before = sim.state.requests.length;
      const result = await cli(['run', '--period', PERIOD, '--templates', 'tpl', '--out', 'out'], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/<script> is not allowed/);
      expect(sim.state.requests.length - before).toBe(0);
      await expect(readdir(join(dir, 'out'))).rejects.toThrow(/ENOENT/);
    },
    RUN_MS,
  );
});

describe('a report whose data would break the rules', () => {
  it(
    'is not written: its project fails with the reason, the others are written with the policy, and their PDFs print in Inter',
    async () => {
      // A link built from a value passes the template's own check; only the printed page shows what the value made.
      const dir = await templateFolder('data', '<section><p><a href="{{client.name}}">{{client.name}}</a></p></section>');
      const [hostile, ...others] = sim.state
        .projects()
        .filter((p) => p.status === 'active')
        .map((p) => p.id);
      await writeFile(
        join(dir, 'geo-reports.json'),
        JSON.stringify({
          report: { requiredSections: [], maxScoreDrop: 100 },
          clients: { [String(hostile)]: { displayName: 'javascript:alert(document.domain)' } },
        }),
      );
      const result = await cli(['run', '--period', PERIOD, '--templates', 'tpl', '--config', 'geo-reports.json', '--out', 'out'], dir);
      const manifest = Manifest.parse(JSON.parse(await readFile(join(dir, 'out', PERIOD, 'manifest.json'), 'utf8')));
      const entry = manifest.projects.find((p) => p.id === hostile);
      expect(entry?.status, result.stderr).toBe('failed');
      expect(entry?.error).toMatch(/The report page is not written: .*href="javascript:alert\(document\.domain\)" on <a> is not allowed/);
      expect(entry?.files.html).toBeNull();
      expect(result.stdout + result.stderr).toMatch(/is not written/);
      const written = await htmlFiles(join(dir, 'out', PERIOD));
      expect(written.some((file) => file.includes(`/${entry?.slug}/`))).toBe(false);
      expect(written).toHaveLength(others.length + 1); // each other report, and the agency index
      for (const file of written) {
        const html = await readFile(file, 'utf8');
        expect(html, file).toContain(policyMeta());
        expect(html).not.toMatch(/href="javascript:/i);
      }
      for (const done of manifest.projects.filter((p) => p.status === 'done')) {
        const { stdout } = await exec('pdffonts', [join(dir, 'out', PERIOD, done.files.pdf as string)]);
        expect(stdout).toMatch(/Inter/);
      }
    },
    RUN_MS,
  );
});

describe('every page the tool writes carries the policy', () => {
  it(
    'the period folder, and the published site with its _headers',
    async () => {
      const dir = join(root, 'site');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'geo-reports.json'), JSON.stringify({ report: { requiredSections: [], maxScoreDrop: 100 } }));
      const run = await cli(['run', '--period', PERIOD, '--config', 'geo-reports.json', '--out', 'out'], dir);
      expect(run.code, run.stderr).toBe(0);
      const publish = await cli(['publish', '--config', 'geo-reports.json', '--out', 'out', '--site', 'site'], dir);
      expect(publish.code, publish.stderr).toBe(0);
      const pages = [...(await htmlFiles(join(dir, 'out', PERIOD))), ...(await htmlFiles(join(dir, 'site')))];
      expect(pages.length).toBeGreaterThan(6);
      for (const file of pages) expect(await readFile(file, 'utf8'), file).toContain(policyMeta());
      expect(await readFile(join(dir, 'site', '_headers'), 'utf8')).toContain(`  Content-Security-Policy: ${pagePolicy()}\n`);
    },
    RUN_MS,
  );

  it(
    'publish keeps a report page changed on disk to carry a script off the site, with its month',
    async () => {
      const dir = join(root, 'site');
      const manifest = Manifest.parse(JSON.parse(await readFile(join(dir, 'out', PERIOD, 'manifest.json'), 'utf8')));
      const [first] = manifest.projects.filter((p) => p.status === 'done');
      const fresh = join(dir, 'site-2');
      const page = join(dir, 'out', PERIOD, first?.files.html as string);
      await writeFile(page, (await readFile(page, 'utf8')).replace('</body>', '<img src="data:image/png;base64,AA" onerror="alert(1)"></body>'));
      const result = await cli(['publish', '--config', 'geo-reports.json', '--out', 'out', '--site', 'site-2'], dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).toMatch(new RegExp(`Project ${first?.id}: .*report\\.html is not published, nor its month: .*onerror`));
      const published = await htmlFiles(fresh);
      for (const file of published) expect(await readFile(file, 'utf8')).not.toContain('onerror');
    },
    RUN_MS,
  );
});
