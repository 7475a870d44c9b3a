// A disk that fills up during the run costs no quota: the run stops like a quota stop, leaves what it could not
// write pending (reports already made are read back by id), and the next run finishes the period. With an
// injected ENOSPC in the report writer for everyone; on a real, small tmpfs where the test may mount one (root),
// which CI must allow (test/support/requirement.ts).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_REQUESTS } from '../../src/batch/plan.js';
import type { PlanSummary } from '../../src/batch/run.js';
import { defaultPrintConcurrency } from '../../src/batch/execute.js';
import { FileSystemError } from '../../src/errors.js';
import { readManifest, writeFileAtomic, type Manifest } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { spawnCli } from '../support/cli.js';
import { describeNeeding } from '../support/requirement.js';
import { waitFor } from '../support/wait.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const PERIOD = toMonth('2026-10');
const TOKEN = 'tok-disk-full-5c1e9a7b3d2f8e60';
const CLOCK = (): Date => new Date('2026-11-04T06:00:00Z');
/** The size of one report as the simulator's reports weigh (HTML with its fonts, PDF, data), page-rounded. */
const REPORT_BYTES = 512 * 1024;

let root: string;
let rig: BatchRig;
const simulators: SimulatorHandle[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-disk-full-'));
  rig = await startBatchRig();
});
afterAll(async () => {
  await rig.close();
  await Promise.all(simulators.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

async function simulator(): Promise<SimulatorHandle> {
  const sim = await startSimulator({ tokens: [TOKEN], clock: CLOCK });
  simulators.push(sim);
  return sim;
}

const reportRequests = (sim: SimulatorHandle, from = 0) => sim.state.requests.slice(from).filter((r) => r.endpoint === 'reports.php');

/** Project id of each report POST, from its body. */
const postedProjects = (sim: SimulatorHandle): number[] =>
  sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'POST').map((r) => (r.body as { project_id: number }).project_id);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Every report the manifest calls done has its three files, each whole: a PDF that parses, HTML to its end, JSON. */
async function expectDoneReportsWhole(periodDir: string, manifest: Manifest): Promise<void> {
  for (const entry of manifest.projects.filter((e) => e.status === 'done')) {
    expect(entry.files.html && entry.files.pdf && entry.files.data, `files of ${entry.slug}`).toBeTruthy();
    const { stdout } = await exec('pdfinfo', [join(periodDir, entry.files.pdf as string)]);
    expect(stdout).toMatch(/Pages:\s+[1-9]/);
    expect((await readFile(join(periodDir, entry.files.html as string), 'utf8')).trimEnd()).toMatch(/<\/html>$/);
    expect(JSON.parse(await readFile(join(periodDir, entry.files.data as string), 'utf8'))).toHaveProperty('period', PERIOD);
  }
}

/** Nothing unwritten is called failed or done: what is not done waits for the next run. */
function expectNothingLost(manifest: Manifest): void {
  expect(manifest.projects.filter((e) => e.status === 'failed')).toEqual([]);
  for (const entry of manifest.projects.filter((e) => e.status !== 'done')) {
    expect(entry.status).toBe('pending');
  }
}

function enospc(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path });
}

/** writeFileAtomic over a disk that holds `budget` bytes of reports: the write that would pass it fails with ENOSPC. */
function writerWithRoom(budget: number): typeof writeFileAtomic {
  let used = 0;
  return async (path, content) => {
    const parts = Array.isArray(content) ? content : [content];
    const bytes = parts.reduce((sum, part) => sum + (typeof part === 'string' ? Buffer.byteLength(part) : part.byteLength), 0);
    if (used + bytes > budget) throw enospc(path);
    used += bytes;
    await writeFileAtomic(path, content);
  };
}

describe('a disk that fills up during the run (ENOSPC injected in the report writer)', () => {
  it('stops asking, leaves the rest pending, and the next run finishes the period within the floor plus the reports in flight', async () => {
    const sim = await simulator();
    const out = join(root, 'injected');
    const periodDir = join(out, PERIOD);
    const events: string[] = [];
    const first = await rig.run({
      baseUrl: sim.url,
      tokens: [TOKEN],
      period: PERIOD,
      outDir: out,
      clock: CLOCK,
      writeFile: writerWithRoom(6 * REPORT_BYTES),
      onEvent: (event) => events.push(event.type),
    });
    expect(first.status).toBe('disk_full');
    expect(events.filter((type) => type === 'disk-full')).toHaveLength(1);
    expect(first.diskStop?.message).toContain(periodDir);
    expect(first.diskStop?.hint).toMatch(/Free at least .* then run the same command again/);
    const afterFirst = await readManifest(periodDir);
    if (afterFirst === null) throw new Error('no manifest after the first run');
    expect(afterFirst.status).toBe('disk_full');
    expectNothingLost(afterFirst);
    const done = afterFirst.projects.filter((e) => e.status === 'done').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThanOrEqual(6);
    await expectDoneReportsWhole(periodDir, afterFirst);
    expect((await filesUnder(out)).filter((f) => f.includes('.partial'))).toEqual([]);
    // The reports asked for but not written are known by id: the next run reads them back.
    const readBack = afterFirst.projects.filter((e) => e.status === 'pending' && e.reportId !== null).length;
    const firstCount = sim.state.requests.length;

    const second = await rig.run({ baseUrl: sim.url, tokens: [TOKEN], period: PERIOD, outDir: out, clock: CLOCK });
    expect(second.status).toBe('complete');
    const manifest = await readManifest(periodDir);
    if (manifest === null) throw new Error('no manifest after the second run');
    expect(manifest.projects.every((e) => e.status === 'done')).toBe(true);
    await expectDoneReportsWhole(periodDir, manifest);
    expect((await filesUnder(out)).filter((f) => f.includes('.partial'))).toEqual([]);

    // Over both runs: every report generated once, and the requests within the floor plus the reports in flight.
    const posted = postedProjects(sim);
    expect(new Set(posted).size).toBe(posted.length);
    expect(posted.sort()).toEqual(manifest.projects.map((e) => e.id).sort());
    expect(reportRequests(sim, firstCount).filter((r) => r.method === 'GET')).toHaveLength(readBack);
    const floor = first.plan.floor + second.plan.listRequests + SHARED_REQUESTS;
    const inFlight = 4 + 3; // the rig's concurrency and print pages
    expect(readBack).toBeLessThanOrEqual(inFlight);
    // A report in flight when the disk filled is asked again with its scan reads (the scan sections are on by default).
    const perReport = 1 + first.plan.scanRequests / manifest.projects.length;
    expect(first.plan.scanRequests).toBeGreaterThan(0);
    expect(sim.state.requests.length).toBeLessThanOrEqual(floor + inFlight * perReport);
  }, 240_000);

  it('refuses before any report request when the disk has not the room the selected reports need', async () => {
    const sim = await simulator();
    const out = join(root, 'small');
    const plans: PlanSummary[] = [];
    const small = { baseUrl: sim.url, tokens: [TOKEN], period: PERIOD, outDir: out, clock: CLOCK };
    const room = async () => ({ free: 3 * REPORT_BYTES, total: 8 * REPORT_BYTES });
    const onEvent = (event: { type: string; plan?: PlanSummary }) => {
      if (event.plan !== undefined) plans.push(event.plan);
    };
    for (const dryRun of [true, false]) {
      const refused = rig.run({ ...small, dryRun, freeSpace: room, onEvent });
      await expect(refused).rejects.toThrow(FileSystemError);
      await expect(refused).rejects.toThrow(
        /Not enough room for the reports of 2026-10: \d+ report\(s\) need about .* MB .* has 1.5 MB free\. No report was asked for\./,
      );
    }
    // The plan said it first: the room needed, from the default size per report, against the room free.
    expect(plans).toHaveLength(2);
    expect(plans[0]?.space).toMatchObject({ perReportSource: 'default', free: 3 * REPORT_BYTES });
    expect(plans[0]?.space?.needed).toBeGreaterThan(plans[0]?.space?.free ?? Infinity);
    expect(reportRequests(sim)).toEqual([]);
    expect(sim.state.requests.every((r) => r.endpoint === 'projects.php')).toBe(true);
  }, 60_000);
});

/**
 * Runs `mount`/`umount` as root: directly when the tests are root (the CI machine), else through `sudo -n` (a
 * runner with password-less sudo, as GitHub's Linux runners have).
 */
async function asRoot(command: 'mount' | 'umount', args: string[]): Promise<void> {
  if (process.getuid?.() === 0) await exec(command, args);
  else await exec('sudo', ['-n', command, ...args]);
}

/** A tmpfs's mount options: `size`, owned by the user the tests (and the CLI they start) run as. */
const tmpfsOptions = (size: string): string => `size=${size},uid=${process.getuid?.() ?? 0},gid=${process.getgid?.() ?? 0}`;

/** Mounts a tmpfs of `size` on a new folder of `root` (unmounted after the tests). */
async function mountTmpfs(size: string): Promise<string> {
  const dir = await mkdtemp(join(root, 'tmpfs-'));
  await asRoot('mount', ['-t', 'tmpfs', '-o', tmpfsOptions(size), 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}
const mounted: string[] = [];

/** Whether this process may mount a file system (root, or password-less sudo, on Linux), and why not. */
async function mountable(): Promise<string | null> {
  if (process.platform !== 'linux') return `tmpfs is a Linux file system (this is ${process.platform})`;
  const probe = await mkdtemp(join(tmpdir(), 'geo-mount-probe-'));
  try {
    await asRoot('mount', ['-t', 'tmpfs', '-o', tmpfsOptions('1m'), 'tmpfs', probe]);
    await asRoot('umount', [probe]);
    return null;
  } catch (error) {
    return `mount failed, as root or through sudo -n (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}
describeNeeding({ need: 'tmpfs', missing: await mountable() }, 'a real small file system (tmpfs), with the real CLI', () => {
  afterAll(async () => {
    for (const dir of mounted) await asRoot('umount', [dir]).catch(() => undefined);
  });

  const env = (sim: SimulatorHandle): NodeJS.ProcessEnv => ({ ...process.env, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url });
  const runArgs = ['run', '--period', PERIOD, '--concurrency', '4', '--json'];
  const planOf = (lines: string[]): PlanSummary => {
    const line = lines.find((l) => l.includes('"type":"plan"'));
    if (line === undefined) throw new Error('no plan line');
    return (JSON.parse(line) as { plan: PlanSummary }).plan;
  };

  it('a disk that holds six reports: stops within the reports in flight, exits 2 naming it, and the rerun finishes within the floor plus six', async () => {
    const sim = await simulator();
    const mnt = await mountTmpfs('24m');
    const out = join(mnt, 'out');
    const workDir = join(root, 'cli-work');
    await mkdir(workDir, { recursive: true });
    // A slow API until the disk is filled, so that it fills before the first report is written.
    sim.state.setFaults({ latencyMs: 300 });
    const first = spawnCli([...runArgs, '--out', out], { env: env(sim), cwd: workDir, timeoutMs: 180_000 });
    await waitFor('the plan of the first run', () => first.lines.some((l) => l.includes('"type":"plan"')), { timeoutMs: 30_000 });
    const plan1 = planOf(first.lines);
    expect(plan1.space?.free).toBeGreaterThan(plan1.space?.needed ?? Infinity);
    // Something else fills the disk: room is left for six reports besides the run's reserve.
    const ballast = join(mnt, 'ballast.bin');
    writeFileSync(ballast, Buffer.alloc(Math.max(0, (plan1.space?.free ?? 0) - (plan1.space?.reserve ?? 0) - 6 * REPORT_BYTES - 64 * 1024)));
    sim.state.setFaults({});
    const run1 = await first.done;
    const requests1 = sim.state.requests.length;

    expect(run1.code).toBe(2);
    expect(run1.stderr).toContain(`tmpfs mounted at ${mnt}`);
    expect(run1.stderr).toMatch(/is full \(ENOSPC[^]*Fix: Free at least [\d.]+ [KMG]B \(\d+ report\(s\) of about [\d.]+ KB\) on tmpfs mounted at/);
    expect(run1.stdout).toContain('"type":"disk-full"');
    const periodDir = join(out, PERIOD);
    const manifest1 = await readManifest(periodDir);
    if (manifest1 === null) throw new Error('no manifest after the first run');
    // The manifest on disk is the last one, whole: status, and every report not written pending.
    expect(JSON.parse(await readFile(join(periodDir, 'manifest.json'), 'utf8'))).not.toHaveProperty('journal');
    expect(manifest1.status).toBe('disk_full');
    expectNothingLost(manifest1);
    const done1 = manifest1.projects.filter((e) => e.status === 'done').length;
    expect(done1).toBeGreaterThan(0);
    expect(done1).toBeLessThanOrEqual(7);
    await expectDoneReportsWhole(periodDir, manifest1);
    const temp1 = (await filesUnder(mnt)).filter((f) => f.includes('.partial'));
    expect(temp1).toEqual([]);

    // Room again: the same command finishes the period.
    await rm(ballast);
    const run2 = await spawnCli([...runArgs, '--out', out], { env: env(sim), cwd: workDir, timeoutMs: 180_000 }).done;
    expect(run2.code, run2.stderr).toBe(0);
    const manifest2 = await readManifest(periodDir);
    if (manifest2 === null) throw new Error('no manifest after the second run');
    expect(manifest2.status).toBe('complete');
    await expectDoneReportsWhole(periodDir, manifest2);
    const temp2 = (await filesUnder(mnt)).filter((f) => f.includes('.partial'));
    expect(temp2).toEqual([]);
    const plan2 = planOf(run2.stdout.split('\n'));
    const floor = plan1.floor + (plan2.floor - plan2.toDo);
    const inFlight = 4 + defaultPrintConcurrency();
    const posted = postedProjects(sim);
    expect(new Set(posted).size).toBe(posted.length);
    expect(sim.state.requests.length).toBeLessThanOrEqual(floor + inFlight);
    console.log(
      `tmpfs holding six reports: run 1 exit ${run1.code}, ${done1} done, ${requests1} requests; run 2 exit ${run2.code}, ` +
        `${sim.state.requests.length - requests1} requests; ${sim.state.requests.length} in all against a floor of ${floor} (+${inFlight} in flight); ` +
        `${posted.length} reports generated for ${manifest2.projects.length} projects; temp files left: ${temp1.length} then ${temp2.length}.`,
    );
  }, 300_000);

  it('a disk mounted read-only: refused before any request, naming the disk and the fix', async () => {
    const sim = await simulator();
    const mnt = await mountTmpfs('1m');
    await asRoot('mount', ['-o', 'remount,ro', mnt]);
    const workDir = join(root, 'cli-read-only');
    await mkdir(workDir, { recursive: true });
    const run = await spawnCli([...runArgs, '--out', join(mnt, 'out')], { env: env(sim), cwd: workDir }).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Error: Cannot write ${join(mnt, 'out', PERIOD)}: its disk (tmpfs mounted at ${mnt}) is read-only (EROFS). No report was asked for.`,
    );
    expect(run.stderr).toContain(`Fix: Remount tmpfs mounted at ${mnt} read-write, or give --out a folder on a writable disk`);
    expect(sim.state.requests).toEqual([]);
  }, 60_000);

  it('a disk too small for the selected reports: refused before any report request, with both figures and the fix', async () => {
    const sim = await simulator();
    const mnt = await mountTmpfs('3m');
    const out = join(mnt, 'out');
    const workDir = join(root, 'cli-small');
    await mkdir(workDir, { recursive: true });
    const active = sim.state.projects().filter((p) => p.status === 'active').length;
    for (const extra of [['--dry-run'], []]) {
      const run = await spawnCli([...runArgs, '--out', out, ...extra], { env: env(sim), cwd: workDir }).done;
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        new RegExp(
          `Error: Not enough room for the reports of 2026-10: ${active} report\\(s\\) need about [\\d.]+ MB .* has [\\d.]+ MB free\\. No report was asked for\\.`,
        ),
      );
      expect(run.stderr).toContain(`tmpfs mounted at ${mnt}`);
      expect(run.stderr).toMatch(/Fix: Free at least [\d.]+ MB on tmpfs mounted at/);
      expect(planOf(run.stdout.split('\n')).space?.reports).toBe(active);
    }
    expect(reportRequests(sim)).toEqual([]);
    expect(await filesUnder(mnt)).toEqual([]);
  }, 60_000);
});
