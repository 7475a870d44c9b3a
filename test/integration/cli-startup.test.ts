// What a command loads: `--help` and the one-off API commands never load Chromium's driver, the renderer
// (templates, charts) or the batch; `send` and `merge`, which rewrite the agency index, never load Chromium's driver
// nor read the report's templates. Checked on the spawned, compiled CLI through module hooks and a log of the files
// it reads, not by timing.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';
import { doneEntry, periodManifest } from '../support/manifest.js';

const HOOKS = new URL('../support/module-log-hooks.mjs', import.meta.url).href;

/** Never needed to print text or to call the API. */
const HEAVY = [
  '/node_modules/puppeteer-core/',
  '/node_modules/handlebars/',
  '/node_modules/nodemailer/',
  '/dist/render/',
  '/dist/batch/run.js',
  '/dist/delivery/',
];
/** Not needed to print help either. */
const API = ['/node_modules/undici/', '/node_modules/zod/', '/dist/api/client.js', '/dist/config/load.js', '/dist/config/schema.js'];

let dir: string;
let sim: SimulatorHandle;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-startup-'));
  sim = await startSimulator({ tokens: [DEMO_TOKEN], projectCount: 3 });
});

afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI and returns the modules it imported and the files it read through fs/promises (readFile, patched
 * before the CLI starts: the templates are read that way), with its result.
 */
async function modulesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}) {
  runs += 1;
  const log = join(dir, `modules-${runs}.log`);
  const reads = join(dir, `reads-${runs}.log`);
  const register = join(dir, `register-${runs}.mjs`);
  await writeFile(log, '');
  await writeFile(reads, '');
  await writeFile(
    register,
    [
      `import { appendFileSync } from 'node:fs';`,
      `import files from 'node:fs/promises';`,
      `import { register, syncBuiltinESMExports } from 'node:module';`,
      `register(${JSON.stringify(HOOKS)}, import.meta.url, { data: { log: ${JSON.stringify(log)} } });`,
      `const readFile = files.readFile;`,
      `files.readFile = function (path, ...rest) { appendFileSync(${JSON.stringify(reads)}, String(path) + '\\n'); return readFile.call(this, path, ...rest); };`,
      `syncBuiltinESMExports();`,
      '',
    ].join('\n'),
  );
  const result = await runCli(args, { env: { PATH: process.env['PATH'] ?? '', ...env }, cwd: dir, nodeArgs: ['--import', pathToFileURL(register).href] });
  const lines = async (path: string): Promise<string[]> => (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  return { ...result, modules: await lines(log), files: await lines(reads) };
}

const loadedOf = (modules: string[], parts: string[]): string[] => modules.filter((url) => parts.some((part) => url.includes(part)));

describe('what the CLI loads', () => {
  it.each([
    [['--help']],
    [['usage', '--help']],
    [['run', '--help']],
    [['projects', '--help']],
    [['send', '--help']],
    [['merge', '--help']],
    [['template', '--help']],
    [['preview', '--help']],
    [['publish', '--help']],
    [['export', '--help']],
    [['links', '--help']],
  ])('%j loads no API client, schema, renderer or browser driver', async (args) => {
    const { code, stdout, modules } = await modulesLoadedBy(args);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: geo-reports/);
    // The hooks do see the CLI's own modules: the check is live.
    expect(modules.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
    expect(loadedOf(modules, [...HEAVY, ...API])).toEqual([]);
  });

  it('projects talks to the API without loading Chromium’s driver, the charts or the templates', async () => {
    const { code, stdout, modules } = await modulesLoadedBy(['projects', '--json'], {
      AGENCY_API_TOKEN: DEMO_TOKEN,
      AGENCY_API_BASE_URL: sim.url,
    });
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { total: number }).total).toBe(3);
    expect(modules.some((url) => url.includes('/node_modules/undici/'))).toBe(true);
    expect(loadedOf(modules, HEAVY)).toEqual([]);
  });

  /** A period of 2026-10 in `<dir>/<name>/` with one done report; the config sends it to one address. */
  async function periodFolder(name: string): Promise<{ out: string; config: string }> {
    const out = join(dir, name);
    const entry = doneEntry(101, 'Boulangerie Martin');
    await mkdir(join(out, '2026-10', entry.slug), { recursive: true });
    for (const file of Object.values(entry.files)) await writeFile(join(out, '2026-10', file as string), `${file}\n`);
    await writeFile(join(out, '2026-10', 'manifest.json'), JSON.stringify(periodManifest([entry], 'complete')));
    const config = join(dir, `${name}.json`);
    await writeFile(
      config,
      JSON.stringify({ delivery: { email: { from: 'reports@northwind.example' } }, clients: { '101': { email: { to: ['anne@client.example'] } } } }),
    );
    return { out, config };
  }

  it('export reads the period folders without the API client, Chromium, the templates or the workbook library (for CSV)', async () => {
    const { out, config } = await periodFolder('export');
    const { code, stdout, modules } = await modulesLoadedBy(['export', '--out', out, '--config', config, '--file', join(dir, 'export.csv'), '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { periods: string[] }).periods).toEqual(['2026-10']);
    expect(loadedOf(modules, [...HEAVY, '/node_modules/undici/', '/dist/api/client.js', '/node_modules/exceljs/'])).toEqual([]);
  });

  const PRINTER = ['/node_modules/puppeteer-core/', '/dist/render/pdf.js', '/dist/render/browser.js', '/dist/batch/run.js'];
  const REPORT_TEMPLATES = /\/templates\/(report\.hbs|partials\/|assets\/report\.css)/;

  it('send loads no Chromium driver and reads no report template: it only writes messages and the index', async () => {
    const { out, config } = await periodFolder('send');
    const { code, stderr, modules, files } = await modulesLoadedBy(['send', '--dry-run', '--period', '2026-10', '--out', out, '--config', config, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await readFile(join(out, '2026-10', '101-x', 'email.eml'), 'utf8')).toContain('Boulangerie Martin');
    expect(modules.some((url) => url.includes('/node_modules/nodemailer/'))).toBe(true);
    expect(files.some((path) => path.endsWith('/templates/index.hbs'))).toBe(true);
    expect(loadedOf(modules, PRINTER)).toEqual([]);
    expect(files.filter((path) => REPORT_TEMPLATES.test(path))).toEqual([]);
  });

  it('merge loads no Chromium driver or mail library and reads no report template: it writes the index alone', async () => {
    const { out, config } = await periodFolder('shard');
    const merged = join(dir, 'merged');
    const { code, stderr, modules, files } = await modulesLoadedBy(['merge', '--period', '2026-10', '--out', merged, '--config', config, out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await readFile(join(merged, '2026-10', 'index.html'), 'utf8')).toContain('Boulangerie Martin');
    expect(files.some((path) => path.endsWith('/templates/index.hbs'))).toBe(true);
    expect(loadedOf(modules, [...PRINTER, '/node_modules/nodemailer/'])).toEqual([]);
    expect(files.filter((path) => REPORT_TEMPLATES.test(path))).toEqual([]);
  });
});
