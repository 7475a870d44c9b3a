// No profile left behind: each Chromium the tool starts gets a profile folder of its own under the tool's temp folder,
// removed when the browser closes or dies; the folders of a run killed with kill -9 go at the next start.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processExists } from '../../src/process-alive.js';
import { findChromium } from '../../src/render/print/browser.js';
import { PdfPrinter, PROFILE_ROOT, profileFolderName, removeStaleProfiles } from '../../src/render/print/printer.js';
import { waitFor } from '../support/wait.js';

const executablePath = findChromium();
/** The compiled printer, as a run of the CLI loads it (built by the test setup). */
const COMPILED_PDF = pathToFileURL(join(import.meta.dirname, '../../dist/render/print/printer.js')).href;

let root: string;
let page: { htmlPath: string; html: string; language: 'en'; footerText: string; pageLabel: string };
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-profiles-'));
  const dir = join(root, 'report');
  await mkdir(dir);
  page = {
    htmlPath: join(dir, 'report.html'),
    html: '<!doctype html><title>P</title><p>Profile</p>',
    language: 'en',
    footerText: '',
    pageLabel: '{page}/{pages}',
  };
  await writeFile(page.htmlPath, page.html);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const profilesIn = async (profileRoot: string): Promise<string[]> => (await readdir(profileRoot).catch(() => [] as string[])).sort();

describe('browser profiles', () => {
  it("lives under a temp folder named for the tool and the user by default (Windows's temp folder is the user's)", () => {
    const uid = process.getuid?.();
    expect(PROFILE_ROOT).toBe(join(tmpdir(), uid === undefined ? 'geo-reports-chromium' : `geo-reports-chromium-${uid}`));
    expect(profileFolderName(1000)).toBe('geo-reports-chromium-1000');
    expect(profileFolderName(null)).toBe('geo-reports-chromium');
  });

  it('gives each browser a folder of its own, which Chromium uses, removed when the browser closes', async () => {
    const profileRoot = join(root, 'closed');
    const printer = await PdfPrinter.launch({ executablePath, profileRoot });
    const [folder, ...others] = await profilesIn(profileRoot);
    expect(others).toEqual([]);
    expect(folder).toMatch(new RegExp(`^${process.pid}-`));
    await printer.printToMemory(page);
    // Chromium keeps its state there, not in a folder of Puppeteer's.
    expect((await readdir(join(profileRoot, folder as string))).length).toBeGreaterThan(0);
    await printer.close();
    expect(await profilesIn(profileRoot)).toEqual([]);
  }, 60_000);

  it('removes the folder of a browser killed with -9, and the next browser gets a new one', async () => {
    const profileRoot = join(root, 'browser-killed');
    const printer = await PdfPrinter.launch({ executablePath, profileRoot });
    try {
      const [first] = await profilesIn(profileRoot);
      process.kill(printer.browserPid as number, 'SIGKILL');
      await waitFor('the killed browser to take its profile with it', () => !existsSync(join(profileRoot, first as string)), { timeoutMs: 10_000 });
      await printer.printToMemory(page);
      const [second, ...others] = await profilesIn(profileRoot);
      expect(others).toEqual([]);
      expect(second).not.toBe(first);
    } finally {
      await printer.close();
    }
    expect(await profilesIn(profileRoot)).toEqual([]);
  }, 60_000);

  it('removes, at the next start, the folder of a run killed with -9 together with its browser', async () => {
    const profileRoot = join(root, 'run-killed');
    // A run in a process of its own, with its browser, killed the way kill -9 ends a run.
    const run = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { PdfPrinter } = await import(${JSON.stringify(COMPILED_PDF)});
         const printer = await PdfPrinter.launch({ executablePath: ${JSON.stringify(executablePath)}, profileRoot: ${JSON.stringify(profileRoot)} });
         process.stdout.write(String(printer.browserPid) + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor('the run to start its browser', () => output.includes('\n'), { timeoutMs: 30_000 });
    const browserPid = Number(output.trim());
    const runPid = run.pid as number;
    const exited = new Promise<void>((done) => run.once('exit', () => done()));
    process.kill(runPid, 'SIGKILL');
    process.kill(browserPid, 'SIGKILL');
    await exited;
    await waitFor('the killed browser to end', () => !processExists(browserPid), { timeoutMs: 10_000 });
    const left = await profilesIn(profileRoot);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^${runPid}-`));

    // A folder of a run still going is left alone.
    const alive = join(profileRoot, `${process.ppid}-stillrunning`);
    await mkdir(alive);
    const next = await PdfPrinter.launch({ executablePath, profileRoot });
    try {
      const now = await profilesIn(profileRoot);
      expect(now).not.toContain(left[0]);
      expect(now).toContain(`${process.ppid}-stillrunning`);
      expect(now.filter((name) => name.startsWith(`${process.pid}-`))).toHaveLength(1);
    } finally {
      await next.close();
      await rm(alive, { recursive: true });
    }
    expect(await profilesIn(profileRoot)).toEqual([]);
  }, 60_000);

  it('sweeps only folders it can tell: a dead process id, never its own', async () => {
    const profileRoot = join(root, 'sweep');
    for (const name of ['12345-a', '23456-b', `${process.pid}-mine`, 'notes', 'x-1']) await mkdir(join(profileRoot, name), { recursive: true });
    expect(await removeStaleProfiles(profileRoot, (pid) => pid === 23456)).toBe(1);
    expect((await profilesIn(profileRoot)).sort()).toEqual([`${process.pid}-mine`, '23456-b', 'notes', 'x-1'].sort());
  });
});
