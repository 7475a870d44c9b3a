// No request before the browser is known to print: a browser that cannot start (a real launch failure, a remote
// endpoint that refuses) stops `run` and `report` with exit 2, the browser, its words and the fix, 0 requests
// spent; a browser that dies mid-run leaves the reports not printed pending with their report ids, never failed.
import { chmodSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/output/store.js';
import { findBrowser } from '../../src/render/print/browser.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, spawnCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const PERIOD = '2026-10';
const TOKEN = 'tok-browser-start-3b9e1c7d5a2f4e80';
const CLOCK = (): Date => new Date('2026-11-04T06:00:00Z');

let root: string;
let sim: SimulatorHandle;
let refusing: Server;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-browser-start-'));
  sim = await startSimulator({ tokens: [TOKEN], clock: CLOCK, projectCount: 10 });
  // A port that takes the connection and closes it at once: a browser endpoint that refuses.
  refusing = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await sim.close();
  await new Promise<void>((resolve) => refusing.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

/** An executable script in the test folder. */
function script(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: root, AGENCY_API_BASE_URL: sim.url, AGENCY_API_TOKEN: TOKEN, ...extra };
}

/** Chromium as Ubuntu 24.04 starts it under AppArmor's restriction of unprivileged user namespaces. */
const NO_SANDBOX_BROWSER = (): string =>
  script(
    'chrome',
    'echo "[1126/060000.000000:FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! Update your kernel or see https://chromium.googlesource.com/chromium/src/+/main/docs/linux/suid_sandbox_development.md for more information on developing with the SUID sandbox." >&2\nexit 1',
  );

describe('a browser that cannot start', () => {
  it.each([
    ['run', ['run', '--period', PERIOD]],
    ['report', ['report', '1', '--period', PERIOD]],
  ])('%s exits 2 naming the browser, what it said and the sandbox fix, with no request sent', async (_name, args) => {
    const browser = NO_SANDBOX_BROWSER();
    const before = sim.state.requests.length;
    const result = await runCli([...args, '--out', join(root, 'out'), '--json'], { env: env({ PUPPETEER_EXECUTABLE_PATH: browser }), cwd: root });
    expect(result.code).toBe(2);
    expect(sim.state.requests.length - before).toBe(0);
    expect(result.stderr).toContain(`The browser ${browser} could not start`);
    expect(result.stderr).toContain('No usable sandbox!');
    expect(result.stderr).toContain('No report was asked for.');
    expect(result.stderr).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(result.stderr).toContain('GEO_REPORTS_CHROMIUM_SANDBOX=off');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readManifest(join(root, 'out', PERIOD))).toBeNull();
  });

  it('run exits 2 with no request sent when the remote browser refuses the connection', async () => {
    const before = sim.state.requests.length;
    const { port } = refusing.address() as AddressInfo;
    const endpoint = `ws://127.0.0.1:${port}/devtools/browser/abc?token=pool-secret-1f2e3d`;
    const result = await runCli(['run', '--period', PERIOD, '--out', join(root, 'remote'), '--json', '--browser-ws-endpoint', endpoint], {
      env: env({}),
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(sim.state.requests.length - before).toBe(0);
    expect(result.stderr).toContain(`The remote browser at ws://127.0.0.1:${port}/devtools/browser/abc could not print a blank page`);
    expect(result.stderr).not.toContain('pool-secret');
  });

  it('GEO_REPORTS_CHROMIUM_SANDBOX=off starts the browser with --no-sandbox', async () => {
    const seen = join(root, 'args.txt');
    const { executablePath } = findBrowser();
    const browser = script('args-headless-shell', `echo "$@" > ${JSON.stringify(seen)}\nexec ${JSON.stringify(executablePath)} "$@"`);
    const project = String(sim.state.projects()[0]?.id);
    const result = await runCli(['report', project, '--period', PERIOD, '--out', join(root, 'nosandbox'), '--json'], {
      env: env({ PUPPETEER_EXECUTABLE_PATH: browser, GEO_REPORTS_CHROMIUM_SANDBOX: 'off' }),
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(seen, 'utf8')).toContain('--no-sandbox');
  });
});

describe('a browser that dies mid-run', () => {
  it('leaves the reports not printed pending with their report ids, never failed; the next run prints them without asking again', async () => {
    const { executablePath } = findBrowser();
    const pidFile = join(root, 'browser.pid');
    const allowed = join(root, 'browser-allowed');
    writeFileSync(allowed, '');
    // The real browser while allowed; once it is killed, it will not start again (as a machine that lost it).
    const browser = script(
      'dying-headless-shell',
      `[ -f ${JSON.stringify(allowed)} ] || { echo "FATAL: the browser is gone" >&2; exit 1; }\necho $$ > ${JSON.stringify(pidFile)}\nexec ${JSON.stringify(executablePath)} "$@"`,
    );
    const out = join(root, 'dies');
    const first = spawnCli(['run', '--period', PERIOD, '--out', out, '--json', '--status', 'active', '--status', 'paused', '--status', 'archived'], {
      env: env({ PUPPETEER_EXECUTABLE_PATH: browser }),
      cwd: root,
      timeoutMs: 120_000,
    });
    await waitFor('the first report printed', () => first.lines.some((line) => line.includes('"type":"project-done"')), {
      timeoutMs: 60_000,
      state: () => first.lines.slice(-3),
    });
    await rm(allowed);
    process.kill(Number(await readFile(pidFile, 'utf8')), 'SIGKILL');
    const result = await first.done;
    expect(result.code).not.toBe(0);
    const manifest = await readManifest(join(out, PERIOD));
    expect(manifest).not.toBeNull();
    const entries = manifest?.projects ?? [];
    expect(entries.filter((e) => e.status === 'failed')).toEqual([]);
    const pending = entries.filter((e) => e.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    const waiting = pending.filter((e) => e.reportId !== null);
    expect(waiting.length).toBeGreaterThan(0);
    expect(first.lines.join('\n')).toContain('the browser stopped');

    // The browser back: the next run prints what waited, reading back the reports already made.
    writeFileSync(allowed, '');
    const postsBefore = sim.state.requests
      .filter((r) => r.endpoint === 'reports.php' && r.method === 'POST')
      .map((r) => (r.body as { project_id: number }).project_id);
    const second = await runCli(['run', '--period', PERIOD, '--out', out, '--json', '--status', 'active', '--status', 'paused', '--status', 'archived'], {
      env: env({ PUPPETEER_EXECUTABLE_PATH: browser }),
      cwd: root,
      timeoutMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    const postsAfter = sim.state.requests
      .filter((r) => r.endpoint === 'reports.php' && r.method === 'POST')
      .slice(postsBefore.length)
      .map((r) => (r.body as { project_id: number }).project_id);
    for (const entry of waiting) expect(postsAfter).not.toContain(entry.id);
    const finished = await readManifest(join(out, PERIOD));
    expect(finished?.status).toBe('complete');
  });
});
