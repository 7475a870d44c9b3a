// Annotation files as a folder really holds them, read by the real CLI (`projects`, which reads the config and its
// annotations before any request): two spellings of one id, Latin-1 and UTF-16, a file of 90 MB, 100,000 lines, a
// FIFO. Each is named with its fix, at once, where one was dropped silently, accents became U+FFFD, a wrong header
// was found after parsing 90 MB, and a FIFO hung the command; and a second SIGTERM ends a command that hangs.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datedAnnotations } from '../../src/config/annotations.js';
import { loadConfig } from '../../src/config/load.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, spawnCli, type CliResult } from '../support/cli.js';

let root: string;
let sim: SimulatorHandle;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-annotation-files-'));
  sim = await startSimulator({ seed: 5, projectCount: 2 });
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url });

/** A config folder `name` (config.json and annotations/ with `files`), then `projects --config` on it, timed. */
async function projects(name: string, files: Record<string, string | Buffer> = {}): Promise<CliResult & { ms: number; folder: string }> {
  const folder = join(root, name);
  await mkdir(join(folder, 'annotations'), { recursive: true });
  await writeFile(join(folder, 'config.json'), '{ "agency": { "name": "Northwind Digital" } }\n');
  for (const [file, content] of Object.entries(files)) await writeFile(join(folder, 'annotations', file), content);
  return { ...(await timed(folder)), folder };
}

async function timed(folder: string): Promise<CliResult & { ms: number }> {
  const start = performance.now();
  const result = await runCli(['projects', '--config', 'config.json'], { cwd: folder, env: env(), timeoutMs: 20_000 });
  return { ...result, ms: performance.now() - start };
}

const HEADER = 'date,text,kind\n';

describe('annotation files', () => {
  it('1000.csv and 01000.csv: an error naming both, exit 2', async () => {
    const result = await projects('two-spellings', {
      '1000.csv': `${HEADER}2026-05-03,Titles rewritten,content\n`,
      '01000.csv': `${HEADER}2026-06-01,Blog relaunched,\n`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/01000\.csv and .*\/1000\.csv are both the annotations of project 1000/);
    expect(result.stderr).toContain('Fix: ');
  });

  it('Latin-1 is named with its line and the fix; UTF-16 with a byte order mark and UTF-8 are read', async () => {
    const latin1 = Buffer.from(`${HEADER}2026-05-03,Titles rewritten,content\n2026-06-01,Blog relancé,content\n`, 'latin1');
    const refused = await projects('latin1', { '102.csv': latin1 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/102\.csv line 3 is not UTF-8 text/);
    expect(refused.stderr).toContain('CSV UTF-8');
    const text = `${HEADER}2026-06-01,Blog relancé,content\n`;
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const read = await projects('utf16', { '102.csv': utf16, '103.csv': Buffer.from(text, 'utf8') });
    expect(read.code, read.stderr).toBe(0);
    // Their accents as written, in either encoding.
    const { config } = await loadConfig({ path: join(read.folder, 'config.json'), cwd: read.folder });
    for (const id of ['102', '103'])
      expect(datedAnnotations(config.clients[id]?.annotations)).toEqual([{ date: '2026-06-01', text: 'Blog relancé', kind: 'content' }]);
  });

  it('90 MB with a wrong header: refused at line 1 from its first bytes, in moments; with the right header, by its size', async () => {
    const folder = join(root, 'huge');
    await mkdir(join(folder, 'annotations'), { recursive: true });
    await writeFile(join(folder, 'config.json'), '{}\n');
    const file = join(folder, 'annotations', '102.csv');
    // What the same command takes on a file of one line, on this machine now: the 90 MB ones take about as long.
    await writeFile(file, `${HEADER}2026-05-03,x,\n`);
    const small = await timed(folder);
    expect(small.code, small.stderr).toBe(0);
    const bound = 2 * small.ms + 2_000;
    // Sparse: 90 MB on the file system's books, none on the disk.
    await writeFile(file, 'when,what\n2026-05-03,x\n');
    await truncate(file, 90 * 1024 * 1024);
    const wrong = await timed(folder);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/102\.csv line 1: the first line must be the header date,text,kind \(got "when,what"\)/);
    expect(wrong.ms).toBeLessThan(bound);
    await writeFile(file, `${HEADER}2026-05-03,x,\n`);
    await truncate(file, 90 * 1024 * 1024);
    const large = await timed(folder);
    expect(large.code).toBe(2);
    expect(large.stderr).toMatch(/102\.csv is too large for an annotations file \(90\.0 MB\): at most 5,000 lines and 1 MB/);
    expect(large.ms).toBeLessThan(bound);
  });

  it('100,000 lines, and 6,000 short ones under 1 MB: refused naming the annotations file and its lines', async () => {
    const line = '2026-05-03,Titles rewritten,content\n';
    const many = await projects('many-lines', { '102.csv': HEADER + line.repeat(99_999) });
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/102\.csv is too large for an annotations file \(3\.\d MB\)/);
    const short = await projects('short-lines', { '102.csv': HEADER + '2026-05-03,x\n'.repeat(6_000) });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/102\.csv is too large for an annotations file \(6,001 lines\): at most 5,000 lines/);
  });

  it('a FIFO named 102.csv: named, never opened, exit 2 (it hung until killed)', async () => {
    const folder = join(root, 'fifo');
    await mkdir(join(folder, 'annotations'), { recursive: true });
    await writeFile(join(folder, 'config.json'), '{}\n');
    execFileSync('mkfifo', [join(folder, 'annotations', '102.csv')]);
    const result = await timed(folder);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/102\.csv is a named pipe \(FIFO\), not a file/);
  });
});

describe('a second SIGTERM', () => {
  it('ends at once a command blocked reading a FIFO (the config given as --config, whose writer never writes)', async () => {
    const folder = join(root, 'second-sigterm');
    await mkdir(folder, { recursive: true });
    execFileSync('mkfifo', [join(folder, 'config.json')]);
    const cli = spawnCli(['projects', '--config', 'config.json'], { cwd: folder, env: env(), untilStopped: true });
    // Once the command reads the FIFO, a writer can open it (ENXIO before): held open, it never writes a byte.
    let writer: number | null = null;
    const deadline = performance.now() + 15_000;
    while (writer === null && performance.now() < deadline) {
      try {
        writer = openSync(join(folder, 'config.json'), constants.O_WRONLY | constants.O_NONBLOCK);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(writer, 'the command never opened its config').not.toBeNull();
    try {
      await stopTwice(cli);
    } finally {
      if (writer !== null) closeSync(writer);
    }
  });
});

async function stopTwice(cli: ReturnType<typeof spawnCli>): Promise<void> {
  cli.child.kill('SIGTERM');
  const deadline = performance.now() + 5_000;
  while (!cli.stderr.includes('SIGTERM received') && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(cli.stderr).toContain('SIGTERM received');
  const start = performance.now();
  const ended = await cli.stop('SIGTERM', 3_000);
  expect(performance.now() - start).toBeLessThan(2_000);
  expect(ended.signal === 'SIGTERM' || ended.code === 143, JSON.stringify(ended)).toBe(true);
  expect(cli.stderr).toContain('Second SIGTERM: stopping now.');
}
