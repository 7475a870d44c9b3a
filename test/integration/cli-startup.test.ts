// What the compiled CLI loads, seen through module hooks that log every module it imports: `--help` and an
// unknown command load the registry and no command; a command named loads itself and no other command; `send` and
// `merge`, which write messages and the agency index, read no report template and load no Chromium driver.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { doneEntry, periodManifest } from '../support/manifest.js';

const HOOKS = new URL('../support/module-log-hooks.mjs', import.meta.url).href;
/** The modules of src/commands/ that are not a command. */
const NOT_A_COMMAND = ['index.js', 'define.js', 'shared.js'];

let dir: string;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-startup-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI; returns its result, the modules it imported and the files it read through fs/promises' readFile. */
async function load(args: string[]) {
  runs += 1;
  const [modules, reads, register] = ['modules', 'reads', 'register'].map((name) => join(dir, `${name}-${runs}.${name === 'register' ? 'mjs' : 'log'}`));
  await Promise.all([writeFile(modules as string, ''), writeFile(reads as string, '')]);
  await writeFile(
    register as string,
    `import { appendFileSync } from 'node:fs'; import files from 'node:fs/promises'; import { register, syncBuiltinESMExports } from 'node:module';
register(${JSON.stringify(HOOKS)}, import.meta.url, { data: { log: ${JSON.stringify(modules)} } });
const readFile = files.readFile;
files.readFile = function (path, ...rest) { appendFileSync(${JSON.stringify(reads)}, String(path) + '\\n'); return readFile.call(this, path, ...rest); };
syncBuiltinESMExports();\n`,
  );
  const result = await runCli(args, { env: { PATH: process.env['PATH'] ?? '' }, cwd: dir, nodeArgs: ['--import', pathToFileURL(register as string).href] });
  const lines = async (path: string): Promise<string[]> => (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  const loaded = await lines(modules as string);
  // The hooks do see the CLI's own modules: the check is live.
  expect(loaded.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
  const commands = [...new Set(loaded.filter((url) => url.includes('/dist/commands/')).map((url) => url.slice(url.lastIndexOf('/') + 1)))];
  return { ...result, loaded, commands, files: await lines(reads as string) };
}

describe('what the CLI loads', () => {
  it.each([
    [['--help'], 0],
    [['sned'], 2],
  ])('%j loads the registry and no command', async (args, code) => {
    const result = await load(args);
    expect(result.code).toBe(code);
    expect(result.commands).toEqual(['index.js']);
  });

  it('a command named loads itself and no other command', async () => {
    const result = await load(['usage', '--help']);
    expect(result.code).toBe(0);
    expect(result.commands.filter((name) => !NOT_A_COMMAND.includes(name))).toEqual(['usage.js']);
  });

  it('send and merge read no report template and load no Chromium driver: they write messages and the index alone', async () => {
    const out = join(dir, 'out');
    const entry = doneEntry(101, 'Boulangerie Martin');
    await mkdir(join(out, '2026-10', entry.slug), { recursive: true });
    for (const file of Object.values(entry.files)) await writeFile(join(out, '2026-10', file as string), `${file}\n`);
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
    for (const result of [send, merge]) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.files.some((path) => path.endsWith('/templates/index.hbs'))).toBe(true);
      expect(result.files.filter((path) => /\/templates\/(report\.hbs|partials\/|assets\/report\.css)/.test(path))).toEqual([]);
      expect(result.loaded.filter((url) => url.includes('/node_modules/puppeteer-core/') || url.includes('/dist/render/pdf.js'))).toEqual([]);
    }
  });
});
