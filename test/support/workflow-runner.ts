// The repository's GitHub Actions workflows run on this machine as a runner would run them: each job on a fresh
// folder, its `if:` and `${{ }}` evaluated by GitHub's own expression library, each `run:` step by bash with the
// env the step declares and a GITHUB_OUTPUT file; the actions the jobs use played by folders (the cache with its
// restore-key prefixes, its 7 days of eviction and its keys that cannot be saved twice; the artifacts of a run).
// A job's `concurrency` group is evaluated as GitHub does (after its needs) and held while the job runs: a job of
// another run in the same group waits for it (in order; GitHub's replacement of a waiting run by a newer one is not
// played). A cancel is played as the Actions runner plays it on Linux: SIGINT to the step's shell only, SIGTERM
// 7.5 s later, then SIGKILL 2.5 s after that; the steps after it run only when their `if:` says `always()` or
// `cancelled()`, and the job ends `cancelled`.
// On the PATH: `npx` runs the checkout's own CLI (as npx does after `npm ci`), `npm ci` has nothing left to do,
// `sudo` records what the job asks of the machine, and `date` tells the runner's day (the test's clock).
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
// GitHub's truthiness: false, 0, -0, '', null and NaN are false; any other string (even 'false') is true.
import { truthy } from '@actions/expressions/result';
import { parse } from 'yaml';
import { NPX_STAND_IN } from './cli.js';

const WORKFLOWS = new URL('../../.github/workflows/', import.meta.url);
const CACHE_EVICTION_MS = 7 * 24 * 3600 * 1000;
/** A step's script longer than this is a hung step: the test fails rather than wait. */
const STEP_LIMIT_MS = 120_000;
/** The Actions runner's escalation on a cancel: SIGINT, SIGTERM after 7.5 s, SIGKILL 2.5 s later. */
const CANCEL_TERM_AFTER_MS = 7_500;
const CANCEL_KILL_AFTER_MS = 2_500;

interface Step {
  id?: string;
  name?: string;
  if?: string | boolean;
  uses?: string;
  run?: string;
  env?: Record<string, unknown>;
  with?: Record<string, unknown>;
}

interface Job {
  if?: string;
  concurrency?: string | { group: string; 'cancel-in-progress'?: boolean };
  needs?: string | string[];
  env?: Record<string, unknown>;
  outputs?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown[]> };
  steps: Step[];
}

export interface Workflow {
  file: string;
  env: Record<string, unknown>;
  jobs: Record<string, Job>;
}

export async function loadWorkflow(file: string): Promise<Workflow> {
  const parsed = parse(await readFile(new URL(file, WORKFLOWS), 'utf8')) as { env?: Record<string, unknown>; jobs: Record<string, Job> };
  return { file, env: parsed.env ?? {}, jobs: parsed.jobs };
}

/** What a run is started with: the event, its inputs, the repository's variables and secrets. */
export interface RunTrigger {
  event: 'schedule' | 'workflow_dispatch';
  inputs?: Record<string, string | boolean>;
  vars?: Record<string, string>;
  secrets?: Record<string, string>;
  /** The runner's clock for `date`. */
  now: Date;
  /** What browser-actions/setup-chrome installs. */
  chromePath: string;
}

export interface StepRecord {
  job: string;
  name: string;
  outcome: 'success' | 'failure' | 'skipped' | 'cancelled';
  log: string;
}

export interface JobResult {
  job: string;
  result: 'success' | 'failure' | 'skipped' | 'cancelled';
  outputs: Record<string, string>;
  steps: StepRecord[];
}

interface StepState {
  outputs: Record<string, string>;
  outcome: string;
  conclusion: string;
}

/** One GitHub Actions run of a workflow: its id, its attempts, its artifacts. */
export class WorkflowRun {
  readonly results = new Map<string, JobResult[]>();
  attempt = 1;
  readonly #artifacts: string;
  /** Polled while a step runs: true cancels the run there (once). */
  #cancelWhen: (() => boolean) | null = null;
  #cancelled = false;
  /** The groups this run's jobs waited for, and how long, for a test to show they did. */
  readonly waits: Array<{ job: string; group: string; ms: number }> = [];

  constructor(
    readonly runner: Runner,
    readonly workflow: Workflow,
    readonly id: number,
    readonly trigger: RunTrigger,
  ) {
    this.#artifacts = join(runner.root, 'artifacts', String(id));
  }

  /** Every job in order (needs first), each matrix entry as a job of its own; after a cancel, the rest are cancelled. */
  async runAll(): Promise<JobResult[]> {
    const all: JobResult[] = [];
    for (const name of Object.keys(this.workflow.jobs)) {
      if (this.#cancelled) {
        const skipped: JobResult = { job: name, result: 'cancelled', outputs: {}, steps: [] };
        this.results.set(name, [skipped]);
        all.push(skipped);
        continue;
      }
      all.push(...(await this.runJob(name)));
    }
    return all;
  }

  /** Cancels the run ("Cancel workflow") during the first step in which `when` becomes true. */
  cancelWhen(when: () => boolean): this {
    this.#cancelWhen = when;
    return this;
  }

  /** Runs one job again as "Re-run failed jobs" does (a cancelled job too): the next attempt, the artifacts of the run kept. */
  async rerun(name: string): Promise<JobResult[]> {
    this.attempt += 1;
    this.#cancelled = false;
    this.#cancelWhen = null;
    return this.runJob(name);
  }

  async runJob(name: string): Promise<JobResult[]> {
    const job = this.workflow.jobs[name];
    if (job === undefined) throw new Error(`${this.workflow.file} has no job ${name}`);
    const matrix = job.strategy?.matrix;
    const entries =
      matrix === undefined
        ? [null]
        : ((Object.values(matrix)[0] ?? []).map((value) => ({ [Object.keys(matrix)[0] as string]: value })) as Array<Record<string, unknown>>);
    const results: JobResult[] = [];
    for (const entry of entries) results.push(await this.#runOne(name, job, entry, entries.length));
    this.results.set(name, results);
    return results;
  }

  /** The context the expressions of a job read. */
  #context(
    name: string,
    job: Job,
    matrix: Record<string, unknown> | null,
    total: number,
    steps: Record<string, StepState>,
    env: Record<string, string>,
  ): Record<string, unknown> {
    const needs: Record<string, unknown> = {};
    for (const need of [job.needs ?? []].flat()) {
      const done = this.results.get(need) ?? [];
      const result =
        done.length === 0
          ? 'skipped'
          : done.every((r) => r.result === 'success')
            ? 'success'
            : done.some((r) => r.result === 'failure')
              ? 'failure'
              : 'skipped';
      needs[need] = { result, outputs: Object.assign({}, ...done.map((r) => r.outputs)) as Record<string, string> };
    }
    return {
      github: {
        event_name: this.trigger.event,
        run_id: String(this.id),
        run_attempt: String(this.attempt),
        token: 'ghs_job-token',
        server_url: this.runner.serverUrl,
        repository: this.runner.repository,
        job: name,
      },
      inputs: this.trigger.event === 'workflow_dispatch' ? (this.trigger.inputs ?? {}) : {},
      vars: this.trigger.vars ?? {},
      secrets: this.trigger.secrets ?? {},
      matrix: matrix ?? {},
      strategy: { 'job-total': total },
      needs,
      steps,
      env,
    };
  }

  async #runOne(name: string, job: Job, matrix: Record<string, unknown> | null, total: number): Promise<JobResult> {
    const label = matrix === null ? name : `${name} (${Object.values(matrix).join(', ')})`;
    const steps: Record<string, StepState> = {};
    const env: Record<string, string> = {};
    const ctx = (): Record<string, unknown> => this.#context(name, job, matrix, total, steps, env);
    const jobIf = job.if === undefined ? true : evaluateIf(job.if, ctx(), false, false);
    if (!jobIf) return { job: label, result: 'skipped', outputs: {}, steps: [] };
    const group = job.concurrency === undefined ? null : interpolate(typeof job.concurrency === 'string' ? job.concurrency : job.concurrency.group, ctx());
    const waited = Date.now();
    const release = group === null ? () => {} : await this.runner.acquire(group);
    if (group !== null) this.waits.push({ job: label, group, ms: Date.now() - waited });
    try {
      return await this.#runSteps(name, label, job, ctx, steps, env);
    } finally {
      release();
    }
  }

  async #runSteps(
    name: string,
    label: string,
    job: Job,
    ctx: () => Record<string, unknown>,
    steps: Record<string, StepState>,
    env: Record<string, string>,
  ): Promise<JobResult> {
    const records: StepRecord[] = [];
    // A fresh runner: an empty workspace with the repository checked out (its config).
    const workspace = join(this.runner.root, 'runners', `${this.id}-${this.attempt}-${label.replace(/\W+/g, '-')}`);
    await rm(workspace, { recursive: true, force: true });
    await mkdir(workspace, { recursive: true });
    for (const [key, value] of Object.entries({ ...this.workflow.env, ...job.env })) env[key] = interpolate(value, ctx());
    let failed = false;
    for (const [index, step] of job.steps.entries()) {
      const stepName = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? `step ${index}`;
      const run = step.if === undefined ? !failed && !this.#cancelled : evaluateIf(String(step.if), ctx(), failed, this.#cancelled);
      const state: StepState = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
      if (step.id !== undefined) steps[step.id] = state;
      if (!run) {
        records.push({ job: label, name: stepName, outcome: 'skipped', log: '' });
        continue;
      }
      const stepEnv: Record<string, string> = { ...env };
      for (const [key, value] of Object.entries(step.env ?? {})) stepEnv[key] = interpolate(value, ctx());
      const withs: Record<string, string> = {};
      for (const [key, value] of Object.entries(step.with ?? {})) withs[key] = interpolate(value, ctx());
      const outcome =
        step.uses !== undefined ? await this.#action(step.uses, withs, workspace, state) : await this.#script(step.run ?? '', stepEnv, workspace, state);
      const cancelledHere = outcome.cancelled === true;
      state.outcome = cancelledHere ? 'cancelled' : outcome.ok ? 'success' : 'failure';
      state.conclusion = state.outcome;
      if (!outcome.ok && !cancelledHere) failed = true;
      records.push({ job: label, name: stepName, outcome: state.outcome as StepRecord['outcome'], log: outcome.log });
    }
    const outputs: Record<string, string> = {};
    for (const [key, value] of Object.entries(job.outputs ?? {})) outputs[key] = interpolate(value, ctx());
    return { job: label, result: this.#cancelled ? 'cancelled' : failed ? 'failure' : 'success', outputs, steps: records };
  }

  async #script(script: string, env: Record<string, string>, workspace: string, state: StepState): Promise<{ ok: boolean; log: string; cancelled?: boolean }> {
    let cancelledHere = false;
    const output = join(workspace, '..', `${workspace.split('/').pop() ?? 'job'}.output-${Math.random().toString(16).slice(2)}`);
    await writeFile(output, '');
    await this.runner.writeShims(this.trigger.now);
    const { code, log } = await new Promise<{ code: number | null; log: string }>((done) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
        cwd: workspace,
        env: {
          PATH: `${this.runner.shims}:${process.env['PATH'] ?? ''}`,
          HOME: join(this.runner.root, 'home'),
          GITHUB_SERVER_URL: this.runner.serverUrl,
          GITHUB_REPOSITORY: this.runner.repository,
          GITHUB_OUTPUT: output,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: STEP_LIMIT_MS,
        // A process group of its own: the SIGKILL of a cancel ends the step's whole tree, as the runner's does.
        detached: true,
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const timers: NodeJS.Timeout[] = [];
      const watch = setInterval(() => {
        if (this.#cancelled || this.#cancelWhen === null || !this.#cancelWhen()) return;
        this.#cancelled = true;
        cancelledHere = true;
        // The step's shell only: what it started hears nothing unless the shell hands the signal on.
        child.kill('SIGINT');
        timers.push(
          setTimeout(() => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            timers.push(setTimeout(() => killGroup(child.pid), CANCEL_KILL_AFTER_MS));
          }, CANCEL_TERM_AFTER_MS),
        );
      }, 20);
      child.on('close', (exit) => {
        clearInterval(watch);
        for (const timer of timers) clearTimeout(timer);
        // What the step left running is ended with it (the runner ends the job's processes).
        if (cancelledHere) killGroup(child.pid);
        done({ code: exit, log: text });
      });
    });
    for (const line of (await readFile(output, 'utf8')).split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) state.outputs[line.slice(0, at)] = line.slice(at + 1);
    }
    return { ok: code === 0, log, cancelled: cancelledHere };
  }

  async #action(uses: string, withs: Record<string, string>, workspace: string, state: StepState): Promise<{ ok: boolean; log: string; cancelled?: boolean }> {
    const action = uses.split('@')[0];
    switch (action) {
      case 'actions/checkout':
        await mkdir(join(workspace, 'config'), { recursive: true });
        await writeFile(join(workspace, 'config', 'geo-reports.json'), `${JSON.stringify(this.runner.config, null, 2)}\n`);
        return { ok: true, log: 'checked out' };
      case 'actions/setup-node':
        return { ok: true, log: `node ${process.version}` };
      case 'browser-actions/setup-chrome':
        state.outputs['chrome-path'] = this.trigger.chromePath;
        return { ok: true, log: 'chrome installed' };
      case 'actions/cache/restore':
        return this.runner.cache.restore(withs, workspace, state, this.trigger.now);
      case 'actions/cache/save':
        return this.runner.cache.save(withs, workspace, this.trigger.now);
      case 'actions/upload-artifact':
        return this.#upload(withs, workspace);
      case 'actions/download-artifact':
        return this.#download(withs, workspace);
      default:
        return { ok: false, log: `no stand-in for ${uses}` };
    }
  }

  /** Artifacts of this run, by name; a name taken fails unless `overwrite`, as upload-artifact v4+ does. */
  async #upload(withs: Record<string, string>, workspace: string): Promise<{ ok: boolean; log: string }> {
    const target = join(this.#artifacts, withs['name'] ?? 'artifact');
    if ((await exists(target)) && withs['overwrite'] !== 'true')
      return { ok: false, log: `an artifact named ${withs['name'] ?? ''} already exists in this run` };
    await rm(target, { recursive: true, force: true });
    const paths = (withs['path'] ?? '')
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    let files = 0;
    for (const path of paths) {
      if (!(await exists(join(workspace, path)))) continue;
      // upload-artifact keeps paths below the least common ancestor: one folder is uploaded as its content.
      const single = paths.length === 1 && (await stat(join(workspace, path))).isDirectory();
      await cp(join(workspace, path), single ? target : join(target, path), { recursive: true });
      files += 1;
    }
    if (files === 0 && withs['if-no-files-found'] === 'error') return { ok: false, log: 'no files found' };
    return { ok: true, log: `uploaded ${withs['name'] ?? ''}` };
  }

  async #download(withs: Record<string, string>, workspace: string): Promise<{ ok: boolean; log: string }> {
    const pattern = new RegExp(`^${(withs['pattern'] ?? '*').replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
    const names = (await readdir(this.#artifacts).catch(() => [] as string[])).filter((n) => pattern.test(n));
    for (const name of names) await cp(join(this.#artifacts, name), join(workspace, withs['path'] ?? '.'), { recursive: true });
    return { ok: true, log: `downloaded ${names.length} artifact(s)` };
  }

  /** An artifact of this run, as a folder. */
  artifact(name: string): string {
    return join(this.#artifacts, name);
  }
}

/** The Actions cache of the repository, as folders: entries by key, with their creation and last use. */
export class CacheStore {
  constructor(readonly dir: string) {}

  async #entries(now: Date): Promise<Array<{ key: string; created: number; used: number }>> {
    const index = join(this.dir, 'index.json');
    const all = JSON.parse(await readFile(index, 'utf8').catch(() => '[]')) as Array<{ key: string; created: number; used: number }>;
    // Evicted after 7 days without use.
    const kept = all.filter((e) => now.getTime() - e.used <= CACHE_EVICTION_MS);
    for (const gone of all.filter((e) => !kept.includes(e))) await rm(join(this.dir, encodeURIComponent(gone.key)), { recursive: true, force: true });
    return kept;
  }

  async #write(entries: Array<{ key: string; created: number; used: number }>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, 'index.json'), JSON.stringify(entries));
  }

  async keys(now: Date): Promise<string[]> {
    return (await this.#entries(now)).map((e) => e.key);
  }

  async restore(withs: Record<string, string>, workspace: string, state: StepState, now: Date): Promise<{ ok: boolean; log: string }> {
    const entries = await this.#entries(now);
    const key = withs['key'] ?? '';
    const prefixes = (withs['restore-keys'] ?? '')
      .split('\n')
      .map((k) => k.trim())
      .filter(Boolean);
    let found = entries.find((e) => e.key === key);
    for (const prefix of prefixes) {
      found ??= entries.filter((e) => e.key.startsWith(prefix)).sort((a, b) => b.created - a.created)[0];
    }
    if (found === undefined) {
      await this.#write(entries);
      return { ok: true, log: `Cache not found for input keys: ${key}` };
    }
    found.used = now.getTime();
    await this.#write(entries);
    await mkdir(dirname(join(workspace, withs['path'] ?? '')), { recursive: true });
    await cp(join(this.dir, encodeURIComponent(found.key)), join(workspace, withs['path'] ?? ''), { recursive: true });
    state.outputs['cache-hit'] = String(found.key === key);
    state.outputs['cache-matched-key'] = found.key;
    return { ok: true, log: `Cache restored from key: ${found.key}` };
  }

  async save(withs: Record<string, string>, workspace: string, now: Date): Promise<{ ok: boolean; log: string }> {
    const entries = await this.#entries(now);
    const key = withs['key'] ?? '';
    // As actions/cache: a key is written once; saving it again is a warning, not a failure.
    if (entries.some((e) => e.key === key))
      return { ok: true, log: `Failed to save: Unable to reserve cache with key ${key}, another job may be creating this cache.` };
    const source = join(workspace, withs['path'] ?? '');
    if (!(await exists(source))) return { ok: true, log: 'Path Validation Error: nothing to cache' };
    await cp(source, join(this.dir, encodeURIComponent(key)), { recursive: true });
    entries.push({ key, created: now.getTime(), used: now.getTime() });
    await this.#write(entries);
    return { ok: true, log: `Cache saved with key: ${key}` };
  }
}

/** The machine the runs happen on: the repository (`origin`, a bare git repository), its cache, the shims. */
export class Runner {
  readonly repository = 'agency/reports';
  readonly serverUrl: string;
  readonly shims: string;
  readonly cache: CacheStore;
  #nextRun = 1000;

  constructor(
    readonly root: string,
    /** The repository's config/geo-reports.json, as the checkout brings it. */
    public config: unknown,
  ) {
    this.serverUrl = join(root, 'github');
    this.shims = join(root, 'shims');
    this.cache = new CacheStore(join(root, 'cache'));
  }

  /** The bare repository that stands for the GitHub repository (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git`). */
  get origin(): string {
    return join(this.serverUrl, `${this.repository}.git`);
  }

  async start(): Promise<void> {
    await mkdir(join(this.root, 'home'), { recursive: true });
    await mkdir(join(this.serverUrl, 'agency'), { recursive: true });
    await git(['init', '-q', '--bare', this.origin]);
  }

  async writeShims(now: Date): Promise<void> {
    await mkdir(this.shims, { recursive: true });
    // Written beside and renamed into place: a job running beside this one may be executing the shim (ETXTBSY).
    const put = async (name: string, text: string): Promise<void> => {
      const temporary = join(this.shims, `.${name}-${Math.random().toString(16).slice(2)}`);
      await writeFile(temporary, text);
      await chmod(temporary, 0o755);
      await rename(temporary, join(this.shims, name));
    };
    const shim = (name: string, body: string): Promise<void> => put(name, `#!/bin/bash\n${body}\n`);
    // The CLI a step runs lives on the runner's day too (it refuses a month that has not ended by its own clock): a
    // preload moves its clock to the test's, going on from there.
    const clock = join(this.shims, 'runner-clock.mjs');
    await put(
      'runner-clock.mjs',
      `const offset = ${now.getTime()} - Date.now();\nconst RealDate = Date;\n` +
        `globalThis.Date = class RunnerDate extends RealDate {\n` +
        `  constructor(...args) { if (args.length === 0) super(RealDate.now() + offset); else super(...args); }\n` +
        `  static now() { return RealDate.now() + offset; }\n};\n`,
    );
    await put('npx', NPX_STAND_IN.replace(/^exec (\S+) /m, `exec $1 --import ${JSON.stringify(pathToFileURL(clock).href)} `));
    await shim('npm', 'if [ "$1" = ci ]; then echo "up to date"; exit 0; fi\necho "npm: only ci on this runner" >&2\nexit 127');
    await shim('sudo', `echo "$*" >> "${join(this.root, 'sudo.log')}"`);
    // The runner's day: `date` without -d reads the test's clock.
    await shim(
      'date',
      `for a in "$@"; do case "$a" in -d|--date|--date=*|-d*) exec /usr/bin/date "$@";; esac; done\nexec /usr/bin/date -d "@${Math.floor(now.getTime() / 1000)}" "$@"`,
    );
  }

  readonly #groups = new Map<string, Promise<void>>();

  /** Waits for the concurrency group, then holds it until the function returned is called. */
  async acquire(group: string): Promise<() => void> {
    const before = this.#groups.get(group) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((done) => (release = done));
    const queue = before.then(() => mine);
    this.#groups.set(group, queue);
    await before;
    return () => {
      release();
      if (this.#groups.get(group) === queue) this.#groups.delete(group);
    };
  }

  /** A new run of `workflow` (its own id, attempt 1). */
  run(workflow: Workflow, trigger: RunTrigger): WorkflowRun {
    this.#nextRun += 1;
    return new WorkflowRun(this, workflow, this.#nextRun, trigger);
  }
}

export async function git(args: string[], cwd?: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`git ${args.join(' ')}: ${err}`))));
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

const STATUS_FUNCTIONS = ['success', 'failure', 'cancelled', 'always'].map((name) => ({ name, minArgs: 0, maxArgs: 0 }));

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function evaluate(expression: string, context: Record<string, unknown>, failed: boolean, cancelled = false): data.ExpressionData {
  const { tokens } = new Lexer(expression).lex();
  const tree = new Parser(tokens, Object.keys(context), STATUS_FUNCTIONS).parse();
  const status = (value: boolean) => ({ minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) });
  const functions = new Map([
    ['success', { name: 'success', ...status(!failed && !cancelled) }],
    ['failure', { name: 'failure', ...status(failed) }],
    ['cancelled', { name: 'cancelled', ...status(cancelled) }],
    ['always', { name: 'always', ...status(true) }],
  ]);
  const contextData = JSON.parse(JSON.stringify(context), data.reviver) as data.Dictionary;
  return new Evaluator(tree, contextData, functions).evaluate();
}

/** An `if:`: one expression, `${{ }}` optional; without a status function it is `success() && (…)`, as GitHub reads it. */
export function evaluateIf(condition: string, context: Record<string, unknown>, failed: boolean, cancelled: boolean): boolean {
  const bare = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(condition)?.[1] ?? condition;
  const expression = /\b(success|failure|cancelled|always)\(\)/.test(bare) ? bare : `success() && (${bare})`;
  return truthy(evaluate(expression, context, failed, cancelled));
}

/** A value of the workflow with its `${{ }}` expressions replaced by their values. */
function interpolate(value: unknown, context: Record<string, unknown>): string {
  return String(value).replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => evaluate(expression, context, false).coerceString());
}
