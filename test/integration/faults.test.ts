// The fault suite: the real CLI (`geo-reports run`) against the simulator's fault knobs, on loopback.
// Flaky network, kill -9, SIGTERM, broken responses, hostile data; and the token in no output and no log.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, type Manifest } from '../../src/output/store.js';
import { spawnCli, type SpawnedCli } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/server.js';

const exec = promisify(execFile);
const TOKEN = 'tok-fault-suite-7f3a9c2e5b1d8e4f';
const PERIOD = '2026-10';

let root: string;
const simulators: SimulatorHandle[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-faults-'));
});
afterAll(async () => {
  await Promise.all(simulators.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

async function simulator(options: SimulatorOptions): Promise<SimulatorHandle> {
  const sim = await startSimulator({ tokens: [TOKEN], clock: () => new Date('2026-11-04T06:00:00Z'), ...options });
  simulators.push(sim);
  return sim;
}

/** Spawns `geo-reports run` in a folder with no config (defaults), output under `out`, for as long as a test of this file lasts. */
function startRun(sim: SimulatorHandle, out: string, extra: string[] = []): SpawnedCli {
  return spawnCli(['run', '--period', PERIOD, '--out', out, '--base-url', sim.url, '--concurrency', '4', '--json', ...extra], {
    cwd: root,
    env: { ...process.env, AGENCY_API_TOKEN: TOKEN },
    timeoutMs: 230_000,
  });
}

const doneCount = (lines: string[]): number => lines.filter((l) => l.includes('"type":"project-done"')).length;

/** The period's manifest as a rerun reads it: with the journal a killed run left, if any, applied. */
async function manifestOf(out: string): Promise<Manifest> {
  const manifest = await readManifest(join(out, PERIOD));
  if (manifest === null) throw new Error(`no manifest in ${join(out, PERIOD)}`);
  return manifest;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The Chromium processes below a process, read from /proc. */
async function chromiumBelow(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const child of await descendants(pid)) {
    try {
      if ((await readFile(`/proc/${child}/cmdline`, 'utf8')).includes('chrom')) found.push(child);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** The descendants of a process, read from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const parent = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const current = stack.pop() as number;
    for (const [child, ppid] of parent) {
      if (ppid === current) {
        found.push(child);
        stack.push(child);
      }
    }
  }
  return found;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function expectNoToken(out: string, logs: string[]): Promise<void> {
  for (const log of logs) expect(log).not.toContain(TOKEN);
  for (const file of await filesUnder(out)) {
    const bytes = await readFile(file);
    expect(bytes.includes(Buffer.from(TOKEN)), file).toBe(false);
  }
}

async function expectEveryPdfParses(out: string): Promise<number> {
  const pdfs = (await filesUnder(out)).filter((f) => f.endsWith('.pdf'));
  for (const pdf of pdfs) {
    const { stdout } = await exec('pdfinfo', [pdf]);
    expect(stdout).toMatch(/Pages:\s+\d+/);
  }
  return pdfs.length;
}

describe('fault suite (real CLI)', () => {
  it('finishes every report through 15% 5xx, 5% dropped connections and latency, and exits 0', async () => {
    const sim = await simulator({ projectCount: 20, faults: { errorRate: 0.15, dropRate: 0.05, latencyMs: 15, seed: 13 } });
    const out = join(root, 'flaky');
    const run = await startRun(sim, out).done;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const active = sim.state.projects().filter((p) => p.status === 'active');
    const manifest = await manifestOf(out);
    expect(manifest.status).toBe('complete');
    expect(manifest.projects.filter((p) => p.status === 'done')).toHaveLength(active.length);
    // The faults really happened.
    expect(sim.state.requests.filter((r) => r.status >= 500).length).toBeGreaterThan(0);
    expect(sim.state.requests.filter((r) => r.status === 0).length).toBeGreaterThan(0);
    expect(await expectEveryPdfParses(out)).toBe(active.length);
    await expectNoToken(out, [run.stdout, run.stderr]);
  }, 180_000);

  it('survives kill -9 mid-run: no Chromium left, the rerun completes, asks again only what was in flight, leaves no temp file', async () => {
    const sim = await simulator({ projectCount: 30, faults: { latencyMs: 40, seed: 3 } });
    const out = join(root, 'killed');
    const first = startRun(sim, out);
    await waitFor('4 projects done by the first run', () => doneCount(first.lines) >= 4, {
      timeoutMs: 90_000,
      everyMs: 50,
      state: () => first.lines.slice(-3),
    });
    const tree = await chromiumBelow(first.child.pid as number);
    expect(tree.length).toBeGreaterThan(0); // Chromium is running under the CLI
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    await waitFor('every Chromium process of the killed run to end', () => tree.every((pid) => !alive(pid)), {
      timeoutMs: 10_000,
      everyMs: 50,
      state: () => tree.filter(alive),
    });
    // What the killed run left is whole: the manifest parses and every report.pdf already there is a PDF.
    const left = await manifestOf(out);
    expect(left.projects.filter((p) => p.status === 'done').length).toBeGreaterThanOrEqual(4);
    const leftPdfs = (await filesUnder(out)).filter((f) => f.endsWith('report.pdf'));
    expect(leftPdfs.length).toBeGreaterThanOrEqual(4);
    for (const pdf of leftPdfs) expect((await exec('pdfinfo', [pdf])).stdout).toMatch(/Pages:/);

    const postsBefore = new Set(
      sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'POST').map((r) => r.body as { project_id: number }),
    ).size;
    expect(postsBefore).toBeGreaterThan(0);
    const rerun = await startRun(sim, out).done;
    expect(rerun.code).toBe(0);
    const manifest = await manifestOf(out);
    expect(manifest.status).toBe('complete');
    const active = sim.state.projects().filter((p) => p.status === 'active');
    expect(manifest.projects.filter((p) => p.status === 'done')).toHaveLength(active.length);

    const files = await filesUnder(out);
    expect(files.filter((f) => f.includes('.partial'))).toEqual([]);
    expect(await expectEveryPdfParses(out)).toBe(active.length);
    // Asked twice at most: the reports that were in flight when the process died (bounded by --concurrency).
    const posts = new Map<number, number>();
    for (const r of sim.state.requests) {
      if (r.endpoint === 'reports.php' && r.method === 'POST' && r.status === 200) {
        const id = (r.body as { project_id: number }).project_id;
        posts.set(id, (posts.get(id) ?? 0) + 1);
      }
    }
    const askedTwice = [...posts.values()].filter((n) => n > 1).length;
    expect([...posts.values()].every((n) => n <= 2)).toBe(true);
    expect(askedTwice).toBeLessThanOrEqual(4);
    await expectNoToken(out, [killed.stdout, killed.stderr, rerun.stdout, rerun.stderr]);
  }, 240_000);

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'stops on %s: saves, closes Chromium, exits %i; the rerun finishes',
    async (signal, exitCode) => {
      const sim = await simulator({ projectCount: 24, faults: { latencyMs: 40, seed: 5 } });
      const out = join(root, `stopped-${signal}`);
      const first = startRun(sim, out);
      await waitFor('3 projects done by the first run', () => doneCount(first.lines) >= 3, {
        timeoutMs: 90_000,
        everyMs: 50,
        state: () => first.lines.slice(-3),
      });
      const tree = await chromiumBelow(first.child.pid as number);
      expect(tree.length).toBeGreaterThan(0);
      first.child.kill(signal);
      const stopped = await first.done;
      expect(stopped.code).toBe(exitCode);
      expect(stopped.stderr).toContain(`${signal} received`);
      expect(stopped.stderr).not.toMatch(/Unexpected error|at .*\.[jt]s:\d+/);
      // Closed by the CLI before it exited: allow the OS a moment to reap the helpers.
      await waitFor('every Chromium process of the stopped run to end', () => tree.every((pid) => !alive(pid)), {
        timeoutMs: 5_000,
        everyMs: 50,
        state: () => tree.filter(alive),
      });
      const saved = await manifestOf(out);
      expect(saved.status).toBe('interrupted');
      expect(saved.projects.some((p) => p.status === 'pending')).toBe(true);
      expect(saved.projects.some((p) => p.status === 'failed')).toBe(false);

      const rerun = await startRun(sim, out).done;
      expect(rerun.code).toBe(0);
      expect((await manifestOf(out)).status).toBe('complete');
      expect((await filesUnder(out)).filter((f) => f.includes('.partial'))).toEqual([]);
    },
    240_000,
  );

  it('records broken responses as typed errors naming the project, goes on, and exits 1', async () => {
    const probe = await simulator({ projectCount: 16 });
    const active = probe.state.projects().filter((p) => p.status === 'active');
    const modes = ['html', 'truncated', 'success-false', 'no-meta', 'wrong-version', 'not-found'] as const;
    const broken = new Map(modes.map((mode, i) => [active[i]?.id as number, mode]));
    const sim = await simulator({ projectCount: 16, faults: { malformed: Object.fromEntries(broken) } });
    const out = join(root, 'malformed');
    const run = await startRun(sim, out).done;
    expect(run.code).toBe(1);
    const manifest = await manifestOf(out);
    expect(manifest.status).toBe('partial');
    for (const entry of manifest.projects) {
      if (broken.has(entry.id)) {
        expect(entry.status, `${entry.id} ${broken.get(entry.id)}`).toBe('failed');
        expect(entry.error).toContain(String(entry.id));
      } else {
        expect(entry.status).toBe('done');
      }
    }
    const byMode: Record<string, string | undefined> = Object.fromEntries(
      manifest.projects.filter((p) => broken.has(p.id)).map((p) => [broken.get(p.id), p.error]),
    );
    expect(byMode['wrong-version']).toMatch(/v2/);
    expect(byMode['not-found']).toMatch(/404|not found/i);
    expect(byMode['html']).toMatch(/502/);
    expect(byMode['truncated']).toMatch(/JSON/i);
    expect(byMode['success-false']).toMatch(/success/i);
    expect(byMode['no-meta']).toMatch(/meta/i);
    const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
    expect(index).toMatch(/failed/i);
    await expectNoToken(out, [run.stdout, run.stderr]);
  }, 180_000);

  it('exits 75 when the daily quota runs out, with the period saved as quota_exhausted', async () => {
    const sim = await simulator({ projectCount: 14, dailyLimit: 6 });
    const out = join(root, 'quota');
    const run = await startRun(sim, out).done;
    expect(run.code).toBe(75);
    expect(run.stdout).toContain('"type":"quota-exhausted"');
    const manifest = await manifestOf(out);
    expect(manifest.status).toBe('quota_exhausted');
    expect(manifest.projects.some((p) => p.status === 'pending')).toBe(true);
    expect(sim.state.requests.filter((r) => r.status !== 429).length).toBeLessThanOrEqual(6);
    await expectNoToken(out, [run.stdout, run.stderr]);
  }, 120_000);

  describe('hostile names and titles', () => {
    let remote: Server;
    let hits = 0;
    beforeAll(async () => {
      remote = createServer((_req, res) => {
        hits += 1;
        res.end('x');
      });
      await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    });
    afterAll(async () => {
      await new Promise((r) => remote.close(r));
    });

    it('keeps every file inside the output folder, escapes every tag, and never fetches a remote URL', async () => {
      const address = remote.address() as { port: number };
      const remoteUrl = `http://127.0.0.1:${address.port}/x.png`;
      const sim = await simulator({ projectCount: 14, hostileNames: true, hostileRemoteUrl: remoteUrl });
      const base = join(root, 'hostile');
      const out = join(base, 'out');
      const run = await startRun(sim, out).done;
      expect(run.code).toBe(0);
      expect(hits).toBe(0);
      // Nothing was written beside or above the output folder.
      expect(await readdir(base)).toEqual(['out']);
      const files = await filesUnder(out);
      for (const file of files) expect(resolve(file).startsWith(resolve(out))).toBe(true);
      const folders = (await readdir(join(out, PERIOD), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
      for (const folder of folders) expect(folder).toMatch(/^\d+(-[a-z0-9]+)*$/);
      for (const html of files.filter((f) => f.endsWith('.html'))) {
        const text = await readFile(html, 'utf8');
        expect(text, html).not.toMatch(/<script/i);
        expect(text, html).not.toContain(`<img src="${remoteUrl}"`);
        expect(text, html).not.toContain('\u0000');
      }
      const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
      expect(index).toContain('&lt;script&gt;');
      expect(await expectEveryPdfParses(out)).toBeGreaterThan(0);
      await expectNoToken(out, [run.stdout, run.stderr]);
    }, 180_000);
  });
});
