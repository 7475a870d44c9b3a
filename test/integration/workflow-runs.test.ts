// The monthly workflows run as jobs: every step of monthly-reports.yml and monthly-reports-sharded.yml executed in
// order by test/support/workflow-runner.ts (the `run:` scripts by bash with the env each step declares, the
// actions played by folders), with the real CLI, the simulator as the API (its clock and daily quota), a bare git
// repository as `origin` and a real SMTP server on loopback. Each scenario is one that went wrong on the workflows
// before: a first month, a quota stop and its resume, a failed history push and the re-run of the job, the
// one-machine workflow during a sharded period, a period held ten days then released, a complete period sent on
// demand, a browser that cannot start; and what went wrong under cancel, overlap and expiry: a cancel during the
// send played as the runner plays it, two runs on one period at once, a sharded period left past the cache's 7 days,
// the days after a complete month, a mail whose outcome is unknown. No client's name or address may reach a job's log.
import { chmodSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { findBrowser } from '../../src/render/print/browser.js';
import type { ClassicAnswer } from '../../src/simulator/dialects.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startSmtpServer, SMTP_PASSWORD, type SmtpTestServer } from '../support/email-fixtures.js';
import { evaluateIf, git, loadWorkflow, Runner, type JobResult, type RunTrigger, type Workflow } from '../support/workflow-runner.js';

const PERIOD = '2026-10';
const TOKENS = ['tok-workflow-one-7c1e3a9d5b2f4e60', 'tok-workflow-two-2b8d4f6a1c3e5a70'];
const PROJECTS = 6;

let root: string;
let oneMachine: Workflow;
let sharded: Workflow;
let smtp: SmtpTestServer;
const open: SimulatorHandle[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-workflow-runs-'));
  oneMachine = await loadWorkflow('monthly-reports.yml');
  sharded = await loadWorkflow('monthly-reports-sharded.yml');
  smtp = await startSmtpServer();
});

afterAll(async () => {
  await smtp.close();
  await Promise.all(open.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

interface Scene {
  runner: Runner;
  sim: SimulatorHandle;
  /** The day it is, for the simulator's quota and the runner's `date`. */
  clock: { now: Date };
  active: Array<{ id: number; name: string; address: string }>;
  trigger(event: RunTrigger['event'], extra?: Partial<RunTrigger>): RunTrigger;
  /** Requests to reports.php from `from` on. */
  reportRequests(from: number): number;
}

/** A repository of its own (origin, cache, config) and an account of its own on the simulator. */
async function scene(
  name: string,
  options: { dailyLimit?: number; heldId?: 'first'; mails?: boolean; smtpUrl?: string; vars?: Record<string, string> } = {},
): Promise<Scene> {
  const clock = { now: new Date('2026-11-04T06:00:00Z') };
  let heldProject: number | null = null;
  const sim = await startSimulator({
    projectCount: PROJECTS,
    tokens: TOKENS,
    clock: () => clock.now,
    dailyLimit: options.dailyLimit ?? 5000,
    // One report without its recommendations: the pre-send check holds it.
    dialect: (answer: ClassicAnswer) => {
      const report = (answer.data as { report?: { project_id?: number; sections?: Record<string, unknown> } } | null)?.report;
      if (answer.endpoint !== 'reports.php' || report?.project_id !== heldProject || report.sections === undefined) return answer.data;
      const { recommendations: _left, ...sections } = report.sections;
      return { ...(answer.data as object), report: { ...report, sections } };
    },
  });
  open.push(sim);
  const active = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .sort((a, b) => a.id - b.id)
    .map((p) => ({ id: p.id, name: p.name, address: `client-${p.id}@${name}.example` }));
  if (options.heldId === 'first') heldProject = active[0]?.id ?? null;
  const config = {
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
    delivery: { email: { from: 'Northwind Reports <reports@northwind.example>' } },
    clients: Object.fromEntries(active.map((p) => [String(p.id), { email: { to: [p.address] } }])),
    // A scene on a small quota counts its days in reports (one request each, as its limits were set): the scan
    // sections, on by default, would add their reads to each report and move the day the quota stops.
    ...(options.dailyLimit !== undefined ? { report: { sections: { keywords: false, pageExperience: false, aiAnswers: false } } } : {}),
  };
  const runner = new Runner(join(root, name), config);
  await runner.start();
  return {
    runner,
    sim,
    clock,
    active,
    trigger: (event, extra = {}) => ({
      event,
      now: clock.now,
      chromePath: findBrowser().executablePath,
      vars: { AGENCY_API_BASE_URL: sim.url, ...options.vars },
      secrets: {
        AGENCY_API_TOKEN: TOKENS[0] as string,
        AGENCY_API_TOKEN_1: TOKENS[0] as string,
        AGENCY_API_TOKEN_2: TOKENS[1] as string,
        ...(options.mails === true ? { GEO_REPORTS_SMTP_URL: options.smtpUrl ?? smtp.url } : {}),
      },
      ...extra,
    }),
    reportRequests: (from) => sim.state.requests.slice(from).filter((r) => r.endpoint === 'reports.php').length,
  };
}

/** The job named `name` among a run's results. */
const job = (results: JobResult[], name: string): JobResult | undefined => results.find((r) => r.job === name);

/**
 * Every job of a run succeeded, but the reviews job: no review follows October (a quarter's review follows March,
 * June, September or December, the year's December), so that job is skipped, never run and never failed.
 */
const green = (results: JobResult[]): boolean => results.every((r) => (r.job === 'reviews' ? r.result === 'skipped' : r.result === 'success'));

/** Every step of these jobs, with the log of the failed ones, for a failure message. */
function describeJobs(results: JobResult[]): string {
  return results
    .map((r) => `${r.job}: ${r.result}\n${r.steps.map((s) => `  ${s.outcome} ${s.name}${s.outcome === 'failure' ? `\n${s.log}` : ''}`).join('\n')}`)
    .join('\n');
}

/** No client's name or address, and no secret, in any step's log. */
function expectCleanLogs(s: Scene, results: JobResult[]): void {
  const logs = results.flatMap((r) => r.steps.map((step) => step.log)).join('\n');
  for (const client of s.active) {
    expect(logs, `client name of ${client.id}`).not.toContain(client.name);
    expect(logs, `address of ${client.id}`).not.toContain(client.address);
  }
  for (const token of TOKENS) expect(logs).not.toContain(token);
  expect(logs).not.toContain(SMTP_PASSWORD);
}

/** The period as the history branch of `origin` holds it; null when it holds none. */
async function savedPeriod(s: Scene): Promise<Manifest | null> {
  const text = await git(['--git-dir', s.runner.origin, 'show', `reports-history:${PERIOD}/manifest.json`]).catch(() => null);
  return text === null ? null : Manifest.parse(JSON.parse(text));
}

async function historyHead(s: Scene): Promise<string> {
  return (await git(['--git-dir', s.runner.origin, 'rev-parse', 'reports-history'])).trim();
}

/** The PDFs of an artifact's period folder. */
async function pdfsIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((name) => name.endsWith('report.pdf'));
}

/** Report requests (POST reports.php) by project id, over the whole scene. */
function reportsAsked(s: Scene): Map<number, number> {
  const asked = new Map<number, number>();
  for (const r of s.sim.state.requests) {
    if (r.endpoint !== 'reports.php' || r.method !== 'POST') continue;
    const id = (r.body as { project_id: number }).project_id;
    asked.set(id, (asked.get(id) ?? 0) + 1);
  }
  return asked;
}

/** Mails accepted by `server` for each client of the scene, in client order. */
const mailsPerClient = (s: Scene, server: SmtpTestServer = smtp): number[] =>
  s.active.map((c) => server.accepted.filter((m) => m.envelope.to.includes(c.address)).length);

async function historyCommits(s: Scene): Promise<number> {
  return Number((await git(['--git-dir', s.runner.origin, 'rev-list', '--count', 'reports-history']).catch(() => '0')).trim());
}

/** The figures of a scenario for the closing note: requests, mails per client, the history's commits. */
async function note(s: Scene, scenario: string, server: SmtpTestServer = smtp): Promise<void> {
  const asked = [...reportsAsked(s).values()];
  console.info(
    `[workflow figures] ${scenario}: report requests ${asked.reduce((a, b) => a + b, 0)} for ${s.active.length} reports (most for one: ${Math.max(0, ...asked)}); ` +
      `mails per client [${mailsPerClient(s, server).join(', ')}]; history commits ${await historyCommits(s)}`,
  );
}

const mailsTo = (s: Scene): string[] => smtp.accepted.flatMap((m) => m.envelope.to).filter((to) => s.active.some((c) => c.address === to));

describe('the monthly workflows, run as jobs', () => {
  it('first month: every client reported with one run, the period saved to the history branch and uploaded', async () => {
    const s = await scene('first-month');
    const results = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(results), describeJobs(results)).toBe(true);
    const saved = await savedPeriod(s);
    expect(saved?.status).toBe('complete');
    expect(saved?.projects.filter((p) => p.status === 'done').map((p) => p.id)).toEqual(s.active.map((p) => p.id));
    expect(await pdfsIn(join(s.runner.root, 'artifacts'))).toHaveLength(s.active.length);
    // Chrome's sandbox allowed on the runner before the browser starts.
    expect(await readFile(join(s.runner.root, 'sudo.log'), 'utf8')).toContain('sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expectCleanLogs(s, results);
  }, 120_000);

  it('quota stop and resume: the next day finishes the period without asking any report twice', async () => {
    const s = await scene('quota', { dailyLimit: 5 });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(first), describeJobs(first)).toBe(true);
    expect((await savedPeriod(s))?.status).toBe('quota_exhausted');
    s.clock.now = new Date('2026-11-05T06:00:00Z');
    const second = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(second), describeJobs(second)).toBe(true);
    expect((await savedPeriod(s))?.status).toBe('complete');
    const posted = s.sim.state.requests
      .filter((r) => r.endpoint === 'reports.php' && r.method === 'POST')
      .map((r) => (r.body as { project_id: number }).project_id);
    expect(posted.sort((a, b) => a - b)).toEqual(s.active.map((p) => p.id));
    expectCleanLogs(s, [...first, ...second]);
  }, 240_000);

  it('a history that refuses pushes at the merge, then a re-run of the merge job: no mail goes unrecorded, no client mailed twice', async () => {
    const s = await scene('failed-push', { mails: true });
    // The repository refuses every push while the flag is there.
    const flag = join(s.runner.root, 'refuse-pushes');
    const hook = join(s.runner.origin, 'hooks', 'pre-receive');
    writeFileSync(hook, `#!/bin/sh\nif [ -f "${flag}" ]; then echo "push refused for the test" >&2; exit 1; fi\nexit 0\n`);
    chmodSync(hook, 0o755);
    const before = smtp.accepted.length;
    const run = s.runner.run(sharded, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } }));
    const results = [...(await run.runJob('period')), ...(await run.runJob('plan')), ...(await run.runJob('shard'))];
    writeFileSync(flag, '');
    results.push(...(await run.runJob('merge')));
    const merge = results.find((r) => r.job === 'merge');
    expect(merge?.result, describeJobs(results)).toBe('failure');
    // A mail whose record cannot reach the history does not go: a cancel now could not make it go twice.
    expect(mailsTo(s)).toEqual([]);
    expect(merge?.steps.find((step) => step.name === 'Email the reports')?.log).toContain('::error::The record of the mails');
    await rm(flag);
    const rerun = await run.rerun('merge');
    expect(green(rerun), describeJobs(rerun)).toBe(true);
    // Each client once, whatever the attempts.
    const mine = smtp.accepted.slice(before).filter((m) => s.active.some((c) => m.envelope.to.includes(c.address)));
    expect(mine).toHaveLength(s.active.length);
    expect(new Set(mine.map((m) => m.parsed.messageId)).size).toBe(s.active.length);
    const saved = await savedPeriod(s);
    expect(saved?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
    await note(s, 'history refusing pushes at the merge, re-run');
    expectCleanLogs(s, [...results, ...rerun]);
  }, 180_000);

  it('the one-machine workflow during a sharded period: refused, and nothing of the shards overwritten', async () => {
    const s = await scene('sharded-period', { dailyLimit: 4 });
    const shardRun = await s.runner.run(sharded, s.trigger('schedule', { vars: { AGENCY_API_BASE_URL: s.sim.url, GEO_REPORTS_SHARDED: 'true' } })).runAll();
    expect(shardRun.find((r) => r.job === 'merge')?.result, describeJobs(shardRun)).toBe('success');
    const savedBefore = await savedPeriod(s);
    expect(savedBefore?.status).toBe('quota_exhausted');
    const head = await historyHead(s);
    const keys = await s.runner.cache.keys(s.clock.now);
    const requests = s.sim.state.requests.length;
    const results = await s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: false } })).runAll();
    expect(job(results, 'reports')?.result).toBe('failure');
    const refusal = job(results, 'reports')?.steps.find((step) => step.outcome === 'failure');
    expect(refusal?.name).toBe('Anything left to do?');
    expect(refusal?.log).toContain('monthly-reports-sharded.yml');
    expect(await historyHead(s)).toBe(head);
    expect(await s.runner.cache.keys(s.clock.now)).toEqual(keys);
    expect(s.sim.state.requests.length).toBe(requests);
    expectCleanLogs(s, [...shardRun, ...results]);
  }, 180_000);

  it('a period held ten days then released: the cache expired, the reports made again from the history, 0 report requests', async () => {
    const s = await scene('held', { heldId: 'first' });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    // Exit 4: held for review, a failed job that asks for it.
    expect(job(first, 'reports')?.steps.find((step) => step.name === 'Run the monthly batch')?.outcome, describeJobs(first)).toBe('failure');
    expect((await savedPeriod(s))?.status).toBe('held');
    // The days after: one history read each, the cache not touched.
    s.clock.now = new Date('2026-11-05T06:00:00Z');
    const next = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(job(next, 'reports')?.steps.find((step) => step.name === 'Run the monthly batch')?.outcome).toBe('skipped');
    s.clock.now = new Date('2026-11-14T09:00:00Z');
    expect(await s.runner.cache.keys(s.clock.now)).toEqual([]);
    const from = s.sim.state.requests.length;
    const run = s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: true, send: false } }));
    const released = await run.runAll();
    expect(green(released), describeJobs(released)).toBe(true);
    expect(s.reportRequests(from)).toBe(0);
    expect((await savedPeriod(s))?.status).toBe('complete');
    expect(await pdfsIn(run.artifact(`reports-${PERIOD}`))).toHaveLength(s.active.length);
    expectCleanLogs(s, [...first, ...next, ...released]);
  }, 180_000);

  it('a complete period sent on demand, once per client, without a report request', async () => {
    const s = await scene('on-demand', { mails: true });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(first), describeJobs(first)).toBe(true);
    expect(mailsTo(s)).toEqual([]);
    s.clock.now = new Date('2026-11-20T10:00:00Z');
    const from = s.sim.state.requests.length;
    const asked = await s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } })).runAll();
    expect(green(asked), describeJobs(asked)).toBe(true);
    expect(mailsTo(s).sort()).toEqual(s.active.map((p) => p.address).sort());
    // Asked again: everyone already has it.
    const again = await s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } })).runAll();
    expect(green(again), describeJobs(again)).toBe(true);
    expect(mailsTo(s)).toHaveLength(s.active.length);
    expect(s.reportRequests(from)).toBe(0);
    expectCleanLogs(s, [...first, ...asked, ...again]);
  }, 300_000);

  it('a complete sharded period sent on demand: no shard runs, the reports made again from the history, once per client', async () => {
    const s = await scene('sharded-on-demand', { mails: true });
    const sharding = { AGENCY_API_BASE_URL: s.sim.url, GEO_REPORTS_SHARDED: 'true' };
    const first = await s.runner.run(sharded, s.trigger('schedule', { vars: sharding })).runAll();
    expect(first.find((r) => r.job === 'merge')?.result, describeJobs(first)).toBe('success');
    expect((await savedPeriod(s))?.status).toBe('complete');
    s.clock.now = new Date('2026-11-20T10:00:00Z');
    const from = s.sim.state.requests.length;
    const run = s.runner.run(sharded, s.trigger('workflow_dispatch', { vars: sharding, inputs: { period: PERIOD, accept_held: false, send: true } }));
    const asked = await run.runAll();
    expect(asked.filter((r) => r.job.startsWith('shard')).every((r) => r.result === 'skipped')).toBe(true);
    expect(asked.find((r) => r.job === 'merge')?.result, describeJobs(asked)).toBe('success');
    expect(mailsTo(s).sort()).toEqual(s.active.map((p) => p.address).sort());
    expect(s.reportRequests(from)).toBe(0);
    expect(await pdfsIn(run.artifact(`reports-${PERIOD}`))).toHaveLength(s.active.length);
    const saved = await savedPeriod(s);
    expect(saved?.shards).toEqual(['1/2', '2/2']);
    expect(saved?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
    expectCleanLogs(s, [...first, ...asked]);
  }, 180_000);

  it('a period left unfinished when the next one starts: finished first, the job failed with what was missing and the command', async () => {
    const s = await scene('late', { dailyLimit: 5 });
    s.clock.now = new Date('2026-11-30T06:00:00Z');
    await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect((await savedPeriod(s))?.status).toBe('quota_exhausted');
    s.clock.now = new Date('2026-12-04T06:00:00Z');
    const late = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(job(late, 'reports')?.result, describeJobs(late)).toBe('failure');
    const period = job(late, 'period')?.steps.find((step) => step.name === 'Period');
    expect(period?.log).toMatch(/::error::2026-10 was not finished when 2026-11 began \(quota_exhausted: \d+ of \d+ reports done/);
    expect(period?.log).toContain('run this workflow with period 2026-10');
    expect(job(late, 'reports')?.steps.find((step) => step.name === 'A period left unfinished')?.outcome).toBe('failure');
    expect((await savedPeriod(s))?.status).toBe('complete');
    // Finished: the next day reports the next period.
    s.clock.now = new Date('2026-12-05T06:00:00Z');
    const next = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(job(next, 'reports')?.result, describeJobs(next)).toBe('success');
    const november = await git(['--git-dir', s.runner.origin, 'show', 'reports-history:2026-11/manifest.json']);
    expect(Manifest.parse(JSON.parse(november)).period).toBe('2026-11');
    expectCleanLogs(s, [...late, ...next]);
  }, 180_000);

  it('a browser that cannot start: the job fails naming the sandbox fix, with no request to the API', async () => {
    const s = await scene('no-browser');
    const chrome = join(s.runner.root, 'chrome');
    writeFileSync(chrome, '#!/bin/sh\necho "[1126/060000.000000:FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox!" >&2\nexit 1\n');
    chmodSync(chrome, 0o755);
    const results = await s.runner.run(oneMachine, s.trigger('schedule', { chromePath: chrome })).runAll();
    const step = job(results, 'reports')?.steps.find((r) => r.name === 'Run the monthly batch');
    expect(step?.outcome, describeJobs(results)).toBe('failure');
    expect(step?.log).toContain('No usable sandbox!');
    expect(step?.log).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    // The job had allowed the sandbox first: this browser fails for a reason of its own.
    expect(await readFile(join(s.runner.root, 'sudo.log'), 'utf8')).toContain('sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(s.sim.state.requests).toHaveLength(0);
    expect(await savedPeriod(s)).toBeNull();
    expectCleanLogs(s, results);
  }, 120_000);

  it('the days after a complete month: green, nothing asked, nothing mailed, the history untouched', async () => {
    const s = await scene('after-complete', { mails: true, vars: { GEO_REPORTS_SEND: 'true' } });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(first), describeJobs(first)).toBe(true);
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    const head = await historyHead(s);
    const requests = s.sim.state.requests.length;
    const days: JobResult[] = [];
    for (const day of ['2026-11-05', '2026-11-06']) {
      s.clock.now = new Date(`${day}T06:00:00Z`);
      const results = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
      expect(green(results), describeJobs(results)).toBe(true);
      const reports = results.find((r) => r.job === 'reports');
      // Every step after the state check is skipped: the mail step above all (a skipped run step is no exit 0).
      expect(reports?.steps.find((step) => step.name === 'Email the reports')?.outcome).toBe('skipped');
      expect(reports?.steps.find((step) => step.name === 'Anything left to do?')?.log).toContain('nothing to do');
      days.push(...results);
    }
    expect(s.sim.state.requests.length).toBe(requests);
    expect(await historyHead(s)).toBe(head);
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    await note(s, 'days after a complete month');
    expectCleanLogs(s, [...first, ...days]);
  }, 180_000);

  it('a cancel during the send, played as the runner plays it, then a re-run: each client mailed once', async () => {
    // A slow server: the cancel comes while mails are under way.
    const slow = await startSmtpServer({ answerDelayMs: 1_200 });
    try {
      const s = await scene('cancel-send', { mails: true, smtpUrl: slow.url, vars: { GEO_REPORTS_SEND: 'true' } });
      const run = s.runner.run(oneMachine, s.trigger('schedule')).cancelWhen(() => mailsPerClient(s, slow).some((n) => n > 0));
      const cancelled = await run.runAll();
      const reports = cancelled.find((r) => r.job === 'reports');
      expect(reports?.result, describeJobs(cancelled)).toBe('cancelled');
      expect(reports?.steps.find((step) => step.name === 'Email the reports')?.outcome).toBe('cancelled');
      // The steps that say !cancelled() did not run: the records reached the history from the send itself.
      expect(reports?.steps.find((step) => step.name === 'Save this period to the history branch')?.outcome).toBe('skipped');
      const mailedBeforeRerun = mailsPerClient(s, slow);
      expect(mailedBeforeRerun.filter((n) => n > 0).length).toBeLessThan(s.active.length);
      const saved = await savedPeriod(s);
      const sentIds = saved?.projects.filter((p) => p.deliveries?.email?.status === 'sent').map((p) => p.id);
      expect(sentIds?.sort((a, b) => a - b)).toEqual(s.active.filter((_, i) => (mailedBeforeRerun[i] ?? 0) > 0).map((c) => c.id));
      const from = s.sim.state.requests.length;
      const rerun = await run.rerun('reports');
      expect(green(rerun), describeJobs(rerun)).toBe(true);
      expect(mailsPerClient(s, slow)).toEqual(s.active.map(() => 1));
      expect(s.reportRequests(from)).toBe(0);
      expect((await savedPeriod(s))?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
      await note(s, 'cancel during the send, re-run', slow);
      expectCleanLogs(s, [...cancelled, ...rerun]);
    } finally {
      await slow.close();
    }
  }, 240_000);

  it('two runs on one period: the scheduled single run and a dispatched sharded one ask each report once and mail each client once', async () => {
    const s = await scene('single-and-sharded', { mails: true, vars: { GEO_REPORTS_SEND: 'true' } });
    const single = s.runner.run(oneMachine, s.trigger('schedule'));
    const shards = s.runner.run(sharded, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } }));
    const [a, b] = await Promise.all([single.runAll(), shards.runAll()]);
    const all = [...a, ...b];
    expect(
      [...reportsAsked(s).values()].every((n) => n === 1),
      describeJobs(all),
    ).toBe(true);
    expect([...reportsAsked(s).keys()].sort((x, y) => x - y)).toEqual(s.active.map((c) => c.id));
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    const saved = await savedPeriod(s);
    expect(saved?.status).toBe('complete');
    expect(saved?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
    // The second to get the period's group waited for the first, then refused a period the other workflow made.
    const refusal = all.flatMap((r) => r.steps).find((step) => step.name === 'Anything left to do?' && step.outcome === 'failure');
    expect(refusal?.log, describeJobs(all)).toMatch(/is reported by monthly-reports(-sharded)?\.yml/);
    // Both asked for the period's group.
    expect([...single.waits, ...shards.waits].filter((w) => w.group === `monthly-reports-${PERIOD}`).length).toBeGreaterThanOrEqual(2);
    await note(s, 'scheduled single + dispatched sharded');
    expectCleanLogs(s, all);
  }, 300_000);

  it('two runs on one period: two send dispatches at once mail each client once and keep every record', async () => {
    const s = await scene('two-dispatches', { mails: true });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(first), describeJobs(first)).toBe(true);
    s.clock.now = new Date('2026-11-20T10:00:00Z');
    const from = s.sim.state.requests.length;
    const dispatch = () => s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } })).runAll();
    const [a, b] = await Promise.all([dispatch(), dispatch()]);
    expect(green([...a, ...b]), describeJobs([...a, ...b])).toBe(true);
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    expect(s.reportRequests(from)).toBe(0);
    // The next send finds every record: nothing goes.
    const next = await dispatch();
    expect(green(next)).toBe(true);
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    expect((await savedPeriod(s))?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
    await note(s, 'two send dispatches');
    expectCleanLogs(s, [...first, ...a, ...b, ...next]);
  }, 300_000);

  it('two runs on one period: a send dispatch beside the scheduled resume asks each report once and mails each client once', async () => {
    const s = await scene('dispatch-beside-resume', { mails: true, dailyLimit: 5, vars: { GEO_REPORTS_SEND: 'true' } });
    const first = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
    expect(green(first), describeJobs(first)).toBe(true);
    expect((await savedPeriod(s))?.status).toBe('quota_exhausted');
    s.clock.now = new Date('2026-11-05T06:00:00Z');
    const resume = s.runner.run(oneMachine, s.trigger('schedule'));
    const dispatch = s.runner.run(oneMachine, s.trigger('workflow_dispatch', { inputs: { period: PERIOD, accept_held: false, send: true } }));
    const [a, b] = await Promise.all([resume.runAll(), dispatch.runAll()]);
    expect(green([...a, ...b]), describeJobs([...a, ...b])).toBe(true);
    expect([...reportsAsked(s).values()].every((n) => n === 1)).toBe(true);
    expect([...reportsAsked(s).keys()].sort((x, y) => x - y)).toEqual(s.active.map((c) => c.id));
    expect(mailsPerClient(s)).toEqual(s.active.map(() => 1));
    const saved = await savedPeriod(s);
    expect(saved?.status).toBe('complete');
    expect(saved?.projects.every((p) => p.deliveries?.email?.status === 'sent')).toBe(true);
    await note(s, 'send dispatch beside the scheduled resume');
    expectCleanLogs(s, [...first, ...a, ...b]);
  }, 300_000);

  it('a sharded period stopped by the quota and left 8 days: the caches gone, no report asked twice', async () => {
    const s = await scene('sharded-expired', { dailyLimit: 4 });
    const sharding = { AGENCY_API_BASE_URL: s.sim.url, GEO_REPORTS_SHARDED: 'true' };
    const first = await s.runner.run(sharded, s.trigger('schedule', { vars: sharding })).runAll();
    expect(first.find((r) => r.job === 'merge')?.result, describeJobs(first)).toBe('success');
    expect((await savedPeriod(s))?.status).toBe('quota_exhausted');
    const doneFirst = [...reportsAsked(s).keys()];
    expect(doneFirst.length).toBeGreaterThan(0);
    s.clock.now = new Date('2026-11-12T06:00:00Z');
    expect(await s.runner.cache.keys(s.clock.now)).toEqual([]);
    const doneBefore = (await savedPeriod(s))?.projects.filter((p) => p.status === 'done').length ?? 0;
    const later = await s.runner.run(sharded, s.trigger('schedule', { vars: sharding })).runAll();
    expect(job(later, 'merge')?.result, describeJobs(later)).toBe('success');
    // Each shard began from its share of the period in the history: nothing done on day 4 was asked again.
    expect(
      [...reportsAsked(s).values()].every((n) => n === 1),
      JSON.stringify([...reportsAsked(s)]),
    ).toBe(true);
    const saved = await savedPeriod(s);
    expect(saved?.projects.filter((p) => p.status === 'done').length).toBeGreaterThan(doneBefore);
    await note(s, 'sharded quota stop left 8 days');
    expectCleanLogs(s, [...first, ...later]);
  }, 240_000);

  it('a mail whose outcome is unknown: the job fails naming its project id, never its client', async () => {
    let unknownAddress = '';
    // The first client's message is taken in and the connection dropped unanswered: it may have arrived.
    const dropping = await startSmtpServer({ afterData: (mail) => (mail.envelope.to.includes(unknownAddress) ? 'drop' : 'accept') });
    try {
      const s = await scene('unknown-mail', { mails: true, smtpUrl: dropping.url, vars: { GEO_REPORTS_SEND: 'true' } });
      const client = s.active[0] as Scene['active'][number];
      unknownAddress = client.address;
      const results = await s.runner.run(oneMachine, s.trigger('schedule')).runAll();
      const email = results.find((r) => r.job === 'reports')?.steps.find((step) => step.name === 'Email the reports');
      expect(email?.outcome, describeJobs(results)).toBe('failure');
      expect(email?.log).toContain(`::error::Mail of project ${client.id}: outcome unknown`);
      expect(email?.log).toContain(`--resend --project ${client.id}`);
      expect((await savedPeriod(s))?.projects.find((p) => p.id === client.id)?.deliveries?.email?.status).toBe('unknown');
      await note(s, 'a mail whose outcome is unknown', dropping);
      expectCleanLogs(s, results);
    } finally {
      await dropping.close();
    }
  }, 180_000);
});

/** The jobs' steps whose `if:` reads an earlier step, with the ids it reads. */
function dependentSteps(workflow: Workflow): Array<{ job: string; name: string; condition: string; reads: string[] }> {
  return Object.entries(workflow.jobs).flatMap(([job, definition]) =>
    definition.steps.flatMap((step) => {
      const condition = step.if === undefined ? '' : String(step.if);
      const reads = [...new Set([...condition.matchAll(/steps\.([\w-]+)\./g)].map((m) => m[1] as string))];
      return reads.length === 0 ? [] : [{ job, name: step.name ?? step.uses ?? '', condition, reads }];
    }),
  );
}

describe("the workflows' conditions, read by GitHub's expression library", () => {
  const states = {
    // What the earlier steps left: never run, failed before writing an output, or the run cancelled.
    skipped: { outcome: 'skipped', failed: false, cancelled: false },
    failed: { outcome: 'failure', failed: true, cancelled: false },
    cancelled: { outcome: 'cancelled', failed: false, cancelled: true },
  } as const;

  for (const file of ['monthly-reports.yml', 'monthly-reports-sharded.yml']) {
    it(`${file}: a step that depends on an earlier one runs only when that one ran`, async () => {
      const workflow = await loadWorkflow(file);
      const dependent = dependentSteps(workflow);
      expect(dependent.length).toBeGreaterThan(5);
      for (const [state, how] of Object.entries(states)) {
        for (const step of dependent) {
          // A step that is there for a failure (the cache keeping the record of a failed send) runs after one: it ran.
          if (state === 'failed' && /\.outcome == 'failure'/.test(step.condition)) continue;
          const steps = Object.fromEntries(step.reads.map((id) => [id, { outputs: {}, outcome: how.outcome, conclusion: how.outcome }]));
          const context = {
            github: { event_name: 'schedule' },
            inputs: { send: true, accept_held: true },
            vars: { GEO_REPORTS_SEND: 'true', GEO_REPORTS_PUBLISH: 'true' },
            needs: { period: { outputs: { value: PERIOD, late: '' } }, plan: { outputs: { period: PERIOD, run: 'true', shards: 'true' } } },
            steps,
            env: {},
            secrets: {},
            matrix: {},
            strategy: {},
          };
          expect(evaluateIf(step.condition, context, how.failed, how.cancelled), `${step.job} / ${step.name} with ${step.reads.join(', ')} ${state}`).toBe(
            false,
          );
        }
      }
    });
  }

  it('monthly-reports.yml: nothing to do (a complete month, no send asked) runs no step after the state check', async () => {
    const workflow = await loadWorkflow('monthly-reports.yml');
    const job = workflow.jobs['reports'];
    const steps = job?.steps ?? [];
    const after = steps.slice(steps.findIndex((step) => step.id === 'state') + 1);
    const outputs = Object.fromEntries(
      steps.filter((step) => step.id !== undefined).map((step) => [step.id as string, { outputs: {}, outcome: 'skipped', conclusion: 'skipped' }]),
    );
    outputs['state'] = { outputs: { run: 'false' }, outcome: 'success', conclusion: 'success' };
    const context = {
      github: { event_name: 'schedule' },
      inputs: {},
      vars: { GEO_REPORTS_SEND: 'true', GEO_REPORTS_PUBLISH: 'true' },
      needs: { period: { outputs: { value: PERIOD, late: '' } } },
      steps: outputs,
      env: {},
      secrets: {},
      matrix: {},
      strategy: {},
    };
    const ran = after.filter((step) => step.if === undefined || evaluateIf(String(step.if), context, false, false)).map((step) => step.name);
    expect(ran).toEqual([]);
  });
});
