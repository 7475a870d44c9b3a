// What the compiled CLI loads, through module hooks that log every module it imports: `--help` and an unknown
// command load the registry and no command; a command named loads no other, and its --help no more than the
// top-level --help does but its declaration (what its work needs is imported when it runs). And `send` and `merge`, which write the
// messages and the agency index alone, read no report template (a broken one cannot stop them).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { runCli } from '../support/cli.js';
import { doneEntry, periodManifest } from '../support/manifest.js';

const HOOKS = new URL('../support/module-log-hooks.mjs', import.meta.url).href;
let dir: string;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-startup-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI; with the modules of src/commands/ it imported, and the files it read through fs/promises' readFile. */
async function load(args: string[]) {
  runs += 1;
  const [modules, reads, register] = ['modules.log', 'reads.log', 'register.mjs'].map((name) => join(dir, `${runs}-${name}`)) as [string, string, string];
  await Promise.all([writeFile(modules, ''), writeFile(reads, '')]);
  await writeFile(
    register,
    `import { appendFileSync } from 'node:fs'; import files from 'node:fs/promises'; import { register, syncBuiltinESMExports } from 'node:module';
register(${JSON.stringify(HOOKS)}, import.meta.url, { data: { log: ${JSON.stringify(modules)} } });
const readFile = files.readFile;
files.readFile = function (path, ...rest) { appendFileSync(${JSON.stringify(reads)}, String(path) + '\\n'); return readFile.call(this, path, ...rest); };
syncBuiltinESMExports();\n`,
  );
  const result = await runCli(args, { env: { PATH: process.env['PATH'] ?? '' }, cwd: dir, nodeArgs: ['--import', pathToFileURL(register).href] });
  const lines = async (path: string): Promise<string[]> => (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  const loaded = await lines(modules);
  // The hooks do see the CLI's own modules: the check is live.
  expect(loaded.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
  const commands = new Set(loaded.filter((url) => url.includes('/dist/commands/')).map((url) => url.slice(url.lastIndexOf('/') + 1)));
  return { ...result, commands: [...commands], modules: loaded, files: await lines(reads) };
}

const loadedOf = (modules: string[], parts: readonly string[]): string[] => modules.filter((url) => parts.some((part) => url.includes(part)));
const PRINTER = ['/node_modules/puppeteer-core/', '/dist/render/print/printer.js', '/dist/render/print/session.js', '/dist/batch/run.js'];
const API = ['/node_modules/undici/', '/dist/api/client.js'];

describe('what the CLI loads', () => {
  it.each([
    [['--help'], 0],
    [['sned'], 2],
  ])('%j loads the registry and no command', async (args, code) => {
    const result = await load(args);
    expect(result.code).toBe(code);
    expect(result.commands).toEqual(['index.js']);
  });

  it('a command named loads no other command', async () => {
    const result = await load(['usage', '--help']);
    expect(result.code).toBe(0);
    expect(result.commands.filter((name) => !['index.js', 'define.js', 'shared.js'].includes(name))).toEqual(['usage.js']);
  });

  // What a declaration may load beyond the top-level --help: light modules of constants and value parsers, no library.
  const DECLARATIONS = [
    '/dist/commands/define.js',
    '/dist/commands/shared.js',
    '/dist/period.js',
    '/dist/spec/vocabulary.js',
    '/dist/batch/shard.js',
    '/dist/history/defaults.js',
  ];
  const DECLARATION_OF: Readonly<Record<string, readonly string[]>> = {
    demo: ['/dist/simulator/dialects.js'],
    simulator: ['/dist/simulator/dialects.js'],
    preview: ['/dist/i18n/languages.js'],
    doctor: ['/dist/doctor/budget.js'],
  };

  // No library (Puppeteer, Handlebars, undici, zod, nodemailer, exceljs…) and none of the work's modules: a heavy
  // import added at the top of a command, rather than in its run, shows here.
  it("every command's --help loads what the top-level --help does and its declaration, no more", { timeout: 180_000 }, async () => {
    const top = new Set((await load(['--help'])).modules);
    const beyond: Record<string, string[]> = {};
    for (const { name } of COMMANDS) {
      const result = await load([name, '--help']);
      expect([name, result.code]).toEqual([name, 0]);
      const allowed = [...DECLARATIONS, `/dist/commands/${name}.js`, ...(DECLARATION_OF[name] ?? [])];
      const more = result.modules.filter((url) => !url.startsWith('node:') && !top.has(url) && !allowed.some((part) => url.endsWith(part)));
      if (more.length > 0) beyond[name] = [...new Set(more)].map((url) => url.slice(url.indexOf('/dist/') + 1 || url.indexOf('/node_modules/') + 1));
    }
    expect(beyond).toEqual({});
  });

  it('send and merge read the index template and no report template', async () => {
    const out = join(dir, 'out');
    const entry = doneEntry(101, 'Boulangerie Martin');
    await mkdir(join(out, '2026-10', entry.slug), { recursive: true });
    for (const file of Object.values(entry.files)) await writeFile(join(out, '2026-10', file as string), `${file}\n`);
    // The mail is read back against the report's fact table before it goes: a data.json that is JSON, with no table.
    await writeFile(join(out, '2026-10', entry.files.data as string), '{}\n');
    await writeFile(join(out, '2026-10', 'manifest.json'), JSON.stringify(periodManifest([entry], 'complete')));
    const config = join(dir, 'config.json');
    await writeFile(
      config,
      JSON.stringify({ delivery: { email: { from: 'reports@northwind.example' } }, clients: { '101': { email: { to: ['anne@client.example'] } } } }),
    );
    const send = await load(['send', '--dry-run', '--period', '2026-10', '--out', out, '--config', config, '--json']);
    expect(await readFile(join(out, '2026-10', '101-x', 'email.eml'), 'utf8')).toContain('Boulangerie Martin');
    const merge = await load(['merge', '--period', '2026-10', '--out', join(dir, 'merged'), '--config', config, out]);
    expect(await readFile(join(dir, 'merged', '2026-10', 'index.html'), 'utf8')).toContain('Boulangerie Martin');
    expect(loadedOf(send.modules, [...PRINTER, ...API])).toEqual([]);
    expect(loadedOf(merge.modules, [...PRINTER, ...API, '/node_modules/nodemailer/'])).toEqual([]);
    for (const result of [send, merge]) {
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.files.some((path) => path.endsWith('/templates/index.hbs'))).toBe(true);
      expect(result.files.filter((path) => /\/templates\/(report\.hbs|partials\/|assets\/report\.css)/.test(path))).toEqual([]);
    }
  });
});
