// Two consecutive months through the monthly workflow's own history steps: the `run:` scripts of
// monthly-reports.yml executed by bash on two fresh "runners" (empty folders), a bare git repository standing
// in for the GitHub repository that holds the history branch, the real CLI against the simulator in between.
// The steps call `npx geo-reports history …`; on a runner npx runs the checkout's own bin. Here a stand-in `npx`
// on the PATH does just that (it runs bin/geo-reports.js and refuses anything else), so no step reaches the
// registry or rebuilds the package.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { isString, NoOperationTraceWriter, parseWorkflow, convertWorkflowTemplate } from '@actions/workflow-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { DEFAULT_BRANCH } from '../../src/commands/history.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { NPX_STAND_IN, runCli } from '../support/cli.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
const TOKEN = 'tok-history-5e2a9c7d1b3f4a60';
const REPOSITORY = 'agency/reports';
const FIRST_REPORT = 'This first monthly report sets your starting point';

let sim: SimulatorHandle;
let root: string;
let server: string;
let now = new Date('2026-10-04T06:00:00Z');
let historySteps: { status: string; restore: string; save: string };
let branch: string;
let activeIds: number[];
/** Holds the stand-in `npx`. */
let npxDir: string;

/** The `run:` script of the monthly workflow's step that calls `geo-reports history <operation>`. */
async function workflowHistorySteps(): Promise<{ status: string; restore: string; save: string }> {
  const content = await readFile(join(REPO, '.github/workflows/monthly-reports.yml'), 'utf8');
  const parsed = parseWorkflow({ name: 'monthly-reports.yml', content }, new NoOperationTraceWriter());
  const template = await convertWorkflowTemplate(parsed.context, parsed.value as NonNullable<typeof parsed.value>);
  // The month's job only: the reviews job restores and saves the history too, for the reviews after the month.
  const scripts = template.jobs
    .filter((job) => job.id.value === 'reports')
    .flatMap((job) => ('steps' in job ? job.steps.flatMap((step) => ('run' in step && isString(step.run) ? [step.run.value] : [])) : []));
  const find = (operation: string): string => {
    // The status step is the one that reads the period being reported (others read the month before it).
    const found = scripts.filter(
      (s) =>
        s.includes(`npx geo-reports history ${operation} `) &&
        (operation !== 'status' || s.includes('--period "$PERIOD"')) &&
        (operation !== 'save' || !s.includes('geo-reports send')),
    );
    expect(found, operation).toHaveLength(1);
    return found[0] as string;
  };
  branch = /HISTORY_BRANCH: (\S+)/.exec(content)?.[1] as string;
  return { status: find('status'), restore: find('restore'), save: find('save') };
}

/** A fresh runner: an empty workspace; `npx geo-reports` runs the checkout's CLI. */
async function freshRunner(name: string): Promise<string> {
  const workspace = join(root, name);
  await mkdir(join(workspace, 'config'), { recursive: true });
  // No report held by the pre-send check: this test is about history, not review. Every report in English, whatever
  // the service's project language, for the English phrases it looks for.
  await writeFile(join(workspace, 'config', 'geo-reports.json'), JSON.stringify({ report: { maxScoreDrop: 100, language: 'en' } }));
  return workspace;
}

/** Runs one step's script as GitHub does (bash -e), with the step's variables; returns what it wrote to GITHUB_OUTPUT. */
async function step(workspace: string, script: string, env: Record<string, string>): Promise<Record<string, string>> {
  const output = join(workspace, `.github-output-${Math.random().toString(16).slice(2)}`);
  await writeFile(output, '');
  const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
      cwd: workspace,
      env: {
        PATH: `${npxDir}:${process.env['PATH'] ?? ''}`,
        HOME: process.env['HOME'] ?? root,
        GITHUB_SERVER_URL: server,
        GITHUB_REPOSITORY: REPOSITORY,
        GITHUB_OUTPUT: output,
        HISTORY_BRANCH: branch,
        ...env,
      },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stderr }));
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const lines = (await readFile(output, 'utf8')).split('\n').filter((l) => l.includes('='));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

async function batch(workspace: string, period: string): Promise<void> {
  const result = await runCli(['run', '--period', period, '--out', 'output', '--base-url', sim.url, '--json'], {
    cwd: workspace,
    env: { ...process.env, AGENCY_API_TOKEN: TOKEN },
    timeoutMs: 300_000,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

/** One month of the workflow on a fresh runner: is there work? → restore → the batch → save. */
async function month(runner: string, period: string, simulatorNow: string): Promise<string> {
  now = new Date(simulatorNow);
  const workspace = await freshRunner(runner);
  const state = await step(workspace, historySteps.status, { PERIOD: period, ACCEPT_HELD: 'false' });
  expect(state).toEqual({ run: 'true' });
  await step(workspace, historySteps.restore, { PERIOD: period });
  await batch(workspace, period);
  await step(workspace, historySteps.save, {});
  return workspace;
}

async function manifestIn(workspace: string, period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(workspace, 'output', period, 'manifest.json'), 'utf8')));
}

let september: string;
let october: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-history-'));
  npxDir = join(root, 'npx-bin');
  await mkdir(npxDir);
  await writeFile(join(npxDir, 'npx'), NPX_STAND_IN);
  await chmod(join(npxDir, 'npx'), 0o755);
  server = join(root, 'github');
  await mkdir(join(server, 'agency'), { recursive: true });
  await exec('git', ['init', '-q', '--bare', join(server, `${REPOSITORY}.git`)]);
  sim = await startSimulator({ projectCount: 8, tokens: [TOKEN], clock: () => now });
  activeIds = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id);
  historySteps = await workflowHistorySteps();
  september = await month('runner-september', '2026-09', '2026-10-04T06:00:00Z');
  october = await month('runner-october', '2026-10', '2026-11-04T06:00:00Z');
}, 300_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('the monthly workflow, month to month', () => {
  it('brings last month’s manifest and data.json to the next month’s fresh runner, not its reports', async () => {
    const restored = await manifestIn(october, '2026-09');
    expect(restored.status).toBe('complete');
    expect(restored.projects.map((p) => p.id).sort()).toEqual([...activeIds].sort());
    for (const entry of restored.projects) {
      const data = parsePeriodData(JSON.parse(await readFile(join(october, 'output', '2026-09', entry.files.data as string), 'utf8')));
      expect(data?.period).toBe('2026-09');
      await expect(stat(join(october, 'output', '2026-09', entry.files.pdf as string))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('gives the second month’s reports the changes since the first (the first month says where the site stands, never "first report" above its history)', async () => {
    const [sep, oct] = [await manifestIn(september, '2026-09'), await manifestIn(october, '2026-10')];
    expect(oct.status).toBe('complete');
    expect(oct.projects).toHaveLength(activeIds.length);
    let carried = 0;
    for (const entry of oct.projects) {
      expect(entry.geoChange, `project ${entry.id}`).not.toBeNull();
      const html = await readFile(join(october, 'output', '2026-10', entry.files.html as string), 'utf8');
      expect(html).not.toContain(FIRST_REPORT);
      expect(html).toContain('What changed since last month');
      const data = parsePeriodData(JSON.parse(await readFile(join(october, 'output', '2026-10', entry.files.data as string), 'utf8')));
      if (Object.values(data?.recommendationsFirstSeen ?? {}).includes(toMonth('2026-09'))) carried += 1;
    }
    // Recommendations still open are tracked from the month they were first seen.
    expect(carried).toBeGreaterThan(0);
    for (const entry of sep.projects) {
      expect(entry.geoChange).toBeNull();
      // The service's history holds the months before: a page that shows them is no "first report".
      const html = await readFile(join(september, 'output', '2026-09', entry.files.html as string), 'utf8');
      expect(html).not.toContain(FIRST_REPORT);
      expect(html).toContain('Your site currently has a GEO score of');
    }
    const index = await readFile(join(october, 'output', '2026-10', 'index.html'), 'utf8');
    expect(index).toMatch(/[▲▼]/);
  });

  it('keeps one commit per month in the history branch, with manifests and data.json only', async () => {
    const git = join(server, `${REPOSITORY}.git`);
    const { stdout: log } = await exec('git', ['--git-dir', git, 'log', '--format=%s', branch]);
    expect(log.trim().split('\n')).toEqual(['Report history: 2026-10 complete', 'Report history: 2026-09 complete']);
    const { stdout: tree } = await exec('git', ['--git-dir', git, 'ls-tree', '-r', '--name-only', branch]);
    const files = tree.trim().split('\n');
    expect(files).toContain('2026-09/manifest.json');
    expect(files).toContain('2026-10/manifest.json');
    expect(files.filter((f) => f.endsWith('/data.json'))).toHaveLength(2 * activeIds.length);
    expect(files.filter((f) => !/^(README\.md|\d{4}-\d{2}\/(manifest\.json|[^/]+\/data\.json))$/.test(f))).toEqual([]);
  });

  it('keeps only the newest periods asked for (--keep), and says when the storage cannot be reached', async () => {
    const other = join(root, 'other.git');
    await exec('git', ['init', '-q', '--bare', other]);
    const history = (args: string[]) => runCli(['history', ...args], { cwd: october, env: process.env });
    await history(['save', '--storage', other, '--out', 'output', '--keep', '1']);
    const { stdout: tree } = await exec('git', ['--git-dir', other, 'ls-tree', '--name-only', DEFAULT_BRANCH]);
    expect(tree.trim().split('\n')).toEqual(['2026-10', 'README.md']);
    const missing = await history(['restore', '--storage', join(root, 'no-such.git'), '--out', 'output']);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain('Cannot reach the history storage');
    const usage = await history(['save', '--storage', other, '--out', 'output', '--keep', '0']);
    expect(usage).toMatchObject({ code: 2 });
  });

  it('does nothing on the next days once the period is complete: no API request, the run is skipped', async () => {
    const before = sim.state.requests.length;
    const nextDay = await freshRunner('runner-october-5th');
    expect(await step(nextDay, historySteps.status, { PERIOD: '2026-10', ACCEPT_HELD: 'false' })).toEqual({ run: 'false' });
    expect(await step(nextDay, historySteps.status, { PERIOD: '2026-09', ACCEPT_HELD: 'false' })).toEqual({ run: 'false' });
    expect(sim.state.requests.length).toBe(before);
    // Saving again what is already there adds no commit.
    await step(october, historySteps.save, {});
    const { stdout: count } = await exec('git', ['--git-dir', join(server, `${REPOSITORY}.git`), 'rev-list', '--count', branch]);
    expect(count.trim()).toBe('2');
    expect(await readdir(join(nextDay))).not.toContain('output');
  });
});
