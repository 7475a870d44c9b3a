// What a command loads: `--help` and the one-off API commands never load Chromium's driver, the renderer
// (templates, charts) or the batch. Checked on the spawned, compiled CLI through module hooks, not by timing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';

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

/** Runs the CLI and returns the modules it imported, with its result. */
async function modulesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}) {
  runs += 1;
  const log = join(dir, `modules-${runs}.log`);
  const register = join(dir, `register-${runs}.mjs`);
  await writeFile(log, '');
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(HOOKS)}, import.meta.url, { data: { log: ${JSON.stringify(log)} } });\n`,
  );
  const result = await runCli(args, { env: { PATH: process.env['PATH'] ?? '', ...env }, cwd: dir, nodeArgs: ['--import', pathToFileURL(register).href] });
  const modules = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
  return { ...result, modules };
}

const loadedOf = (modules: string[], parts: string[]): string[] => modules.filter((url) => parts.some((part) => url.includes(part)));

describe('what the CLI loads', () => {
  it.each([[['--help']], [['usage', '--help']], [['run', '--help']], [['projects', '--help']], [['template', '--help']], [['preview', '--help']]])('%j loads no API client, schema, renderer or browser driver', async (args) => {
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
});
