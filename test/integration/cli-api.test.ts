// The one-off commands end to end: the real CLI (bin/geo-reports.js) spawned against a simulator on loopback.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompetitorsOne, ProjectScores, RecommendationList, ReportOne, Stats } from '../support/classic-schemas.js';
import { ApiClient } from '../../src/api/client.js';
import { verifySignature } from '../../src/api/signature.js';
import { TokenPool } from '../../src/api/tokens.js';
import { createAnalyzeCommand } from '../../src/commands/analyze.js';
import type { CommandContext } from '../../src/command-context.js';
import { createDataset } from '../../src/simulator/data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, startCli, type CliResult } from '../support/cli.js';

const TOKEN = 'cli-test-token-7c1d9e2f4a6b';
const SECOND_TOKEN = 'cli-test-token-second-55aa';
const REFUSED_TOKEN = 'refused-token-0123456789';
const SEED = 7;
const PROJECT_COUNT = 12;
/** The simulator's clock runs 8 times faster from a fixed date: an analysis (10 s) ends in about 1.3 s. */
const CLOCK_START = Date.parse('2025-06-16T09:00:00Z');
const CLOCK_SPEED = 8;
const SECRETS = [TOKEN, SECOND_TOKEN, REFUSED_TOKEN];

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

let sim: SimulatorHandle;
let spentSim: SimulatorHandle;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
let cwd: string;
let expected: ApiClient;
let healthyProject: number;
let failingProject: number;

/** Environment of the spawned CLI: only what the test sets reaches it. */
function cliEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['AGENCY_API_TOKEN'];
  delete env['AGENCY_API_BASE_URL'];
  return { ...env, ...vars };
}

/** A few CLIs at a time: each is a separate Node process on a shared 2-core machine. */
const spawnSlot = pLimit(3);

/** Runs the real CLI; every run is checked for leaked tokens. */
function cli(args: string[], vars: Record<string, string> = { AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url }): Promise<CliResult> {
  return spawnSlot(async () => {
    const result = await runCli(args, { env: cliEnv(vars), cwd });
    for (const secret of SECRETS) {
      expect(result.stdout, `stdout of ${args.join(' ')}`).not.toContain(secret);
      expect(result.stderr, `stderr of ${args.join(' ')}`).not.toContain(secret);
    }
    return result;
  });
}

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names what the JSON output holds
const json = <T>(result: CliResult): T => {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
};

beforeAll(async () => {
  const realStart = Date.now();
  const clock = (): Date => new Date(CLOCK_START + (Date.now() - realStart) * CLOCK_SPEED);
  sim = await startSimulator({ tokens: [TOKEN, SECOND_TOKEN], seed: SEED, projectCount: PROJECT_COUNT, clock });
  spentSim = await startSimulator({ tokens: [TOKEN], dailyLimit: 0, projectCount: 3 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/geo`;
  cwd = await mkdtemp(join(tmpdir(), 'geo-reports-cli-'));
  expected = new ApiClient({ baseUrl: sim.url, tokens: new TokenPool([SECOND_TOKEN]) });

  const dataset = createDataset({ seed: SEED, projectCount: PROJECT_COUNT, hostileNames: false, now: clock() });
  const active = dataset.projects.filter((p) => p.status === 'active');
  const healthy = active.find((p) => !p.failsAnalysis);
  const failing = active.find((p) => p.failsAnalysis);
  if (healthy === undefined || failing === undefined) throw new Error('the seeded data has no healthy and failing active project');
  healthyProject = healthy.id;
  failingProject = failing.id;
});

afterAll(async () => {
  await expected.close();
  await Promise.all([sim.close(), spentSim.close(), new Promise<void>((resolve) => receiver.close(() => resolve()))]);
  await rm(cwd, { recursive: true, force: true });
});

describe('read commands', () => {
  test('projects: one page as JSON, every active project as a table, one project', async () => {
    const [page, all, one] = await Promise.all([
      cli(['projects', '--limit', '5', '--offset', '2', '--json']),
      cli(['projects', '--all', '--status', 'active']),
      cli(['projects', '--id', String(healthyProject), '--json']),
    ]);
    const projects = sim.state.projects();
    const pageData = json<{ projects: Array<{ id: number; name: string }>; total: number }>(page);
    expect(pageData.total).toBe(PROJECT_COUNT);
    expect(pageData.projects.map((p) => p.id)).toEqual(projects.slice(2, 7).map((p) => p.id));

    expect(all.code).toBe(0);
    const active = projects.filter((p) => p.status === 'active');
    // Table rows: an id, then columns two spaces apart (the count line under the table has single spaces).
    const rows = all.stdout.split('\n').filter((line) => /^\s*\d+ {2}/.test(line));
    expect(rows.map((line) => Number(line.trim().split(/\s+/)[0]))).toEqual(active.map((p) => p.id));
    for (const project of active) expect(all.stdout).toContain(project.name);
    expect(all.stdout).toContain(`${active.length} project(s)`);

    const oneData = json<{ id: number; name: string }>(one);
    expect(oneData).toMatchObject({ id: healthyProject, name: projects.find((p) => p.id === healthyProject)?.name });
  });

  test('scores: a project (--last, --limit) and a scan', async () => {
    const history = ProjectScores.parse(await expected.getProjectScores({ projectId: healthyProject })).history;
    const latest = history.at(-1);
    if (latest?.scan_id === undefined) throw new Error('the project has no scan');
    const [last, limited, scan] = await Promise.all([
      cli(['scores', '--project', String(healthyProject), '--last', '--json']),
      cli(['scores', '--project', String(healthyProject), '--limit', '2']),
      cli(['scores', '--scan', String(latest.scan_id), '--json']),
    ]);
    const lastData = json<{ project_id: number; history: unknown[]; latest: { geo_score: number } }>(last);
    expect(lastData.project_id).toBe(healthyProject);
    expect(lastData.history).toHaveLength(1);
    expect(lastData.latest.geo_score).toBe(latest.geo_score);

    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain(`latest GEO ${latest.geo_score}`);
    for (const snapshot of history.slice(-2)) expect(limited.stdout).toContain(snapshot.date);
    expect(limited.stdout).not.toContain(history.at(-3)?.date ?? 'no third snapshot');

    expect(json<{ scan_id: number; scores: { geo_score: number } }>(scan)).toMatchObject({
      scan_id: latest.scan_id,
      scores: { geo_score: latest.geo_score },
    });
  });

  test('recommendations: filtered by priority (JSON); the table is sorted by priority', async () => {
    const all = RecommendationList.parse(await expected.listRecommendations({ projectId: healthyProject })).recommendations;
    const [high, tableOut] = await Promise.all([
      cli(['recommendations', '--project', String(healthyProject), '--priority', 'high', '--json']),
      cli(['recommendations', '--project', String(healthyProject)]),
    ]);
    const highData = json<{ recommendations: Array<{ id: number; priority: string }> }>(high);
    expect(highData.recommendations.map((r) => r.id)).toEqual(all.filter((r) => r.priority === 'high').map((r) => r.id));
    expect(tableOut.code).toBe(0);
    const order = ['critical', 'high', 'medium', 'low'];
    const shown = tableOut.stdout
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(critical|high|medium|low)\s/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null);
    expect(shown.map((m) => Number(m[1])).sort()).toEqual(all.map((r) => Number(r.id)).sort());
    const ranks = shown.map((m) => order.indexOf(m[2] ?? ''));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  test('scans: a project list, one scan summary with keyword rankings, an audit with selected sections', async () => {
    const list = (await expected.listScans(healthyProject)).scans;
    const newest = list[0];
    if (newest?.audit_id == null) throw new Error('no scan with an audit id');
    const [listed, summary, audit] = await Promise.all([
      cli(['scans', '--project', String(healthyProject), '--json']),
      cli(['scans', '--id', String(newest.id)]),
      cli(['scans', '--audit', String(newest.audit_id), '--include', 'seo_audit', '--seo-steps', 'step3_serp', '--json']),
    ]);
    expect(json<{ scans: Array<{ id: number }> }>(listed).scans.map((s) => s.id)).toEqual(list.map((s) => s.id));

    expect(summary.code).toBe(0);
    const full = await expected.getScan({ id: newest.id });
    const rankings = full.seo_audit?.keyword_rankings ?? [];
    expect(rankings.length).toBeGreaterThan(0);
    for (const section of ['analysis', 'geo', 'seo_audit', 'seo_domain']) expect(summary.stdout).toMatch(new RegExp(`^${section}\\s`, 'm'));
    expect(summary.stdout).not.toMatch(/^html\s/m);
    expect(summary.stdout).toContain('Keyword rankings');
    for (const k of rankings) expect(summary.stdout).toContain(k.keyword);

    const auditData = json<Record<string, unknown> & { id: number; seo_audit?: { keyword_rankings?: unknown[] } }>(audit);
    expect(auditData.id).toBe(newest.id);
    expect(auditData['seo_audit']).toBeDefined();
    expect(auditData['geo']).toBeUndefined();
    const request = sim.state.requests.find((r) => r.endpoint === 'scans.php' && r.query['audit_id'] === String(newest.audit_id));
    expect(request?.query).toMatchObject({ include: 'seo_audit', seo_steps: 'step3_serp' });
  });

  test('competitors (all and one project) and stats', async () => {
    const [all, one, statsTable] = await Promise.all([
      cli(['competitors', '--json']),
      cli(['competitors', '--project', String(healthyProject)]),
      cli(['stats']),
    ]);
    const allData = json<{ projects: Array<{ project_id: number }>; benchmark: { geo_score: { average: number } } }>(all);
    expect(allData.projects.map((p) => p.project_id)).toEqual(sim.state.projects().map((p) => p.id));

    const mine = CompetitorsOne.parse(await expected.getProjectCompetitors(healthyProject));
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`Benchmark average: GEO ${mine.benchmark.geo_score.average}`);
    expect(one.stdout).toMatch(new RegExp(`^\\s*${healthyProject}\\s+${mine.name ?? ''}\\s+${mine.scores.geo_score}\\b`, 'm'));

    const statsData = Stats.parse(await expected.getStats());
    expect(statsTable.code).toBe(0);
    expect(statsTable.stdout).toMatch(new RegExp(`^\\s*${PROJECT_COUNT}\\s+${statsData.scans_count}\\s+${statsData.average_score}$`, 'm'));
    for (const p of statsData.top_projects) expect(statsTable.stdout).toContain(p.name);
    for (const e of statsData.evolution) expect(statsTable.stdout).toContain(e.month);
  });
});

describe('analyses, webhooks, reports', () => {
  test('analyze --wait follows a healthy analysis to completed; --status reads it back', async () => {
    const waited = await cli(['analyze', String(healthyProject), '--question-type', 'local', '--wait', '--timeout', '60', '--json']);
    expect(waited.code).toBe(0);
    const analysis = JSON.parse(waited.stdout) as { id: number; status: string; scan_id: number; question_type: string };
    expect(analysis).toMatchObject({ status: 'completed', question_type: 'local' });
    expect(analysis.scan_id).toBeGreaterThan(0);
    expect(waited.stderr).toMatch(new RegExp(`analysis ${analysis.id}: queued[\\s\\S]*analysis ${analysis.id}: completed`));

    const status = await cli(['analyze', '--status', String(analysis.id)]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^\\s*${analysis.id}\\s+${healthyProject}\\s+local\\s+completed`, 'm'));
    expect(status.stdout).toContain(`geo-reports scans --id ${analysis.scan_id}`);
  });

  test('analyze --wait exits 1 when the analysis fails', async () => {
    const failed = await cli(['analyze', String(failingProject), '--wait']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/failed/);
    expect(failed.stderr).toMatch(new RegExp(`analysis \\d+ of project ${failingProject} failed: .+`));
  });

  test('webhooks create prints the secret once; test delivers a signed payload; list hides the secret', async () => {
    const created = await cli(['webhooks', 'create', '--name', 'Agency CRM', '--url', receiverUrl, '--events', 'scan.completed,score.change']);
    expect(created.code).toBe(0);
    const secret = /^\s+(\S+)\s*$/m.exec(created.stdout.split('Signing secret')[1] ?? '')?.[1];
    if (secret === undefined) throw new Error(`no secret in: ${created.stdout}`);
    expect(created.stdout).toMatch(/shown only this once/);
    expect(created.stdout.split(secret)).toHaveLength(2);
    expect(created.stderr).not.toContain(secret);
    const id = /^\s*(\d+)\s+Agency CRM/m.exec(created.stdout)?.[1];
    if (id === undefined) throw new Error(`no webhook id in: ${created.stdout}`);

    const tested = await cli(['webhooks', 'test', id, '--json']);
    expect(json<{ delivered: boolean; status_code: number }>(tested)).toMatchObject({ delivered: true, status_code: 204 });
    const delivery = deliveries.find((d) => (JSON.parse(d.body) as { data?: { webhook_id?: number } }).data?.webhook_id === Number(id));
    if (delivery === undefined) throw new Error('the receiver got no test delivery');
    const signature = delivery.headers['x-service-signature'];
    expect(verifySignature(secret, delivery.body, typeof signature === 'string' ? signature : undefined)).toBe(true);
    expect(verifySignature('whsec_wrong', delivery.body, typeof signature === 'string' ? signature : undefined)).toBe(false);

    const listed = await cli(['webhooks', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^\\s*${id}\\s+Agency CRM\\s+${receiverUrl}\\s+scan\\.completed, score\\.change`, 'm'));
    expect(listed.stdout).not.toContain(secret);
  });

  test('webhooks create --json holds the secret once and warns on stderr; a failing test delivery exits 1', async () => {
    const created = await cli(['webhooks', 'create', '--name', 'Nowhere', '--url', 'http://127.0.0.1:9/unreachable', '--events', 'scan.failed', '--json']);
    expect(created.code).toBe(0);
    const webhook = JSON.parse(created.stdout) as { id: number; secret: string };
    expect(webhook.secret).toMatch(/\S{16,}/);
    expect(created.stderr).toMatch(/signing secret, shown only this once/);
    expect(created.stderr).not.toContain(webhook.secret);
    const tested = await cli(['webhooks', 'test', String(webhook.id)]);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(new RegExp(`^\\s*${webhook.id}\\s+no\\b`, 'm'));
    expect(tested.stderr).toMatch(/was not accepted by its receiver/);
  });

  test('reports create, get and list', async () => {
    const created = await cli(['reports', 'create', String(healthyProject), '--include', 'scores,recommendations', '--json']);
    // --json prints the answer's data as the API sent it: the classic dialect wraps it in `report`.
    const report = ReportOne.parse(json(created)) as { id: number; project_id: number; include: string[]; sections: Record<string, unknown> };
    expect(report.project_id).toBe(healthyProject);
    expect(report.include).toEqual(['scores', 'recommendations']);
    expect(report.sections).toHaveProperty('scores');
    expect(report.sections).toHaveProperty('recommendations');
    for (const left of ['history', 'metrics', 'trust']) expect(report.sections).not.toHaveProperty(left);

    const [got, listed] = await Promise.all([cli(['reports', 'get', String(report.id)]), cli(['reports', 'list', '--json'])]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^\\s*${report.id}\\s+${healthyProject}\\s+ready\\s`, 'm'));
    const recommendations = report.sections['recommendations'] as unknown[];
    expect(got.stdout).toContain(`${recommendations.length} recommendation(s)`);
    expect(json<{ reports: Array<{ id: number }> }>(listed).reports.map((r) => r.id)).toContain(report.id);
  });
});

describe('tokens and quota', () => {
  test('usage probes each unknown token once and shows labels, never tokens', async () => {
    const result = await cli(['usage', '--json'], { AGENCY_API_TOKEN: `${TOKEN},${REFUSED_TOKEN}`, AGENCY_API_BASE_URL: sim.url });
    const data = json<{ tokens: Array<{ label: string; state: string; used: number | null; limit: number | null; remaining: number | null }> }>(result);
    expect(data.tokens).toHaveLength(2);
    expect(data.tokens[0]).toMatchObject({ label: `token#1 (…${TOKEN.slice(-4)})`, state: 'ok', limit: 5000 });
    expect((data.tokens[0]?.used ?? 0) + (data.tokens[0]?.remaining ?? 0)).toBe(5000);
    expect(data.tokens[1]).toMatchObject({ label: `token#2 (…${REFUSED_TOKEN.slice(-4)})`, state: 'unauthorized', used: null });
  });

  test('a missing AGENCY_API_TOKEN exits 2 and says to set it', async () => {
    const result = await cli(['stats'], { AGENCY_API_BASE_URL: sim.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/AGENCY_API_TOKEN is not set/);
    expect(result.stderr).toMatch(/Set AGENCY_API_TOKEN/);
    expect(result.stdout).toBe('');
  });

  test('a refused token (401) exits 2 and is named by its label', async () => {
    const result = await cli(['projects'], { AGENCY_API_TOKEN: REFUSED_TOKEN, AGENCY_API_BASE_URL: sim.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`token#1 (…${REFUSED_TOKEN.slice(-4)})`);
    expect(result.stderr).toMatch(/401/);
  });

  test('a used-up daily quota exits 75, for a command and for usage', async () => {
    const env = { AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: spentSim.url };
    const [projects, usage] = await Promise.all([cli(['projects'], env), cli(['usage'], env)]);
    expect(projects.code).toBe(75);
    expect(projects.stderr).toMatch(/no API token has quota left today/);
    expect(projects.stderr).toContain(`token#1 (…${TOKEN.slice(-4)}) exhausted`);
    expect(usage.code).toBe(75);
    expect(usage.stdout).toMatch(/token#1 \(…\S+\)\s+exhausted\s+0\s+0\s+0/);
  });
});

describe('command line', () => {
  test('--help prints the options and exits 0 without any token', async () => {
    const result = await cli(['usage', '--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: geo-reports usage');
    expect(result.stdout).toMatch(/probed with one cheap request/);
    expect(result.stderr).toBe('');
  });

  test('usage errors exit 2 with a message and send no request', async () => {
    const before = sim.state.requests.length;
    const [unknownFlag, twoSelectors] = await Promise.all([cli(['projects', '--colour', 'red']), cli(['scans', '--id', '4', '--audit', '5'])]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/Unknown option '--colour'/);
    expect(twoSelectors.code).toBe(2);
    expect(twoSelectors.stderr).toMatch(/give exactly one of --project N, --id N or --audit N \(got --id and --audit\)/);
    expect(sim.state.requests.length).toBe(before);
  });

  test('simulator --port 0 serves until SIGTERM, then exits 0', async () => {
    const simulator = startCli(['simulator', '--port', '0', '--projects', '3', '--seed', '5'], { env: cliEnv({}), cwd, timeoutMs: 30_000 });
    try {
      // The URL, the demo token and the project count are printed together, in that order.
      const url = (await simulator.output(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*\nProjects: /))[1];
      const token = /Demo token: (\S+)/.exec(simulator.stdout)?.[1];
      expect(token).toBeDefined();
      const response = await fetch(`${url ?? ''}/api/v1/projects.php`, { headers: { authorization: `Bearer ${token ?? ''}` } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { total: number } }).data.total).toBe(3);
      // SIGTERM is the normal way to stop a long-running command: exit 0, not 143.
      expect((await simulator.stop('SIGTERM')).code).toBe(0);
    } finally {
      // A failed assertion above must not leave the server running.
      if (simulator.child.exitCode === null) simulator.child.kill('SIGKILL');
    }
    expect((await simulator.done).stdout).toContain('Simulator stopped');
  });
});

describe('analyze --wait in process, on a fake clock', () => {
  let fakeSim: SimulatorHandle;
  let now = CLOCK_START;

  beforeAll(async () => {
    fakeSim = await startSimulator({ tokens: [TOKEN], seed: SEED, projectCount: PROJECT_COUNT, clock: () => new Date(now) });
  });
  afterAll(async () => {
    await fakeSim.close();
  });

  function context(): { ctx: CommandContext; out: () => string; err: () => string } {
    let out = '';
    let err = '';
    const ctx: CommandContext = {
      env: { AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: fakeSim.url },
      cwd,
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      signal: new AbortController().signal,
      clock: () => new Date(now),
    };
    return { ctx, out: () => out, err: () => err };
  }

  test('pauses grow from 0.5 s and every change of state is printed once', async () => {
    const pauses: number[] = [];
    const command = createAnalyzeCommand({
      sleep: async (ms) => {
        pauses.push(ms);
        now += ms;
      },
    });
    const { ctx, out, err } = context();
    const code = await command.run([String(healthyProject), '--wait', '--json'], ctx);
    expect(code).toBe(0);
    expect((JSON.parse(out()) as { status: string }).status).toBe('completed');
    expect(pauses.slice(0, 4)).toEqual([500, 750, 1125, 1687.5]);
    expect(pauses.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10_000);
    expect(
      err()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^\S+ analysis \d+: /, '').replace(/ \(\d+%\)$/, '')),
    ).toEqual(['queued', 'running', 'completed']);
  });

  test('gives up at --timeout with a message naming the analysis and how to follow it', async () => {
    const command = createAnalyzeCommand({
      sleep: async (ms) => {
        now += ms;
      },
    });
    const { ctx } = context();
    const startedAt = now;
    const run = command.run([String(healthyProject), '--wait', '--timeout', '4'], ctx);
    await expect(run).rejects.toThrow(/Analysis \d+ of project \d+ is still running after 4 s/);
    expect(now - startedAt).toBe(4000);
  });
});
