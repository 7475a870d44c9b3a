// Every endpoint of the client against the API v1 simulator on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import {
  AuthenticationError,
  NotFoundError,
  ResponseValidationError,
  ServerError,
  TokensSpentError,
  UnsupportedApiVersionError,
} from '../../src/api/errors.js';
import type { Project } from '../../src/api/schemas.js';
import { verifySignature } from '../../src/api/signature.js';
import { TokenPool } from '../../src/api/tokens.js';
import { CompetitorsAll, CompetitorsOne, ProjectScores, RecommendationList, ReportList, ReportOne, ScanScores, Stats } from '../support/classic-schemas.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startServer, testClient, type TestServer } from './client-fixtures.js';

const NOW = new Date('2025-03-15T10:00:00Z');
const clock = () => NOW;
const TOKEN_A = 'sim-token-alpha-000000aaaa';
const TOKEN_B = 'sim-token-bravo-000000bbbb';

let sim: SimulatorHandle;
let client: ApiClient;
let pool: TokenPool;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, projectCount: 45, tokens: [TOKEN_A, TOKEN_B], clock, defaultPageSize: 20 });
  pool = new TokenPool([TOKEN_A, TOKEN_B], { clock });
  client = new ApiClient({ baseUrl: sim.url, tokens: pool, clock, sleep: async () => undefined, random: () => 0 });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

async function collect(iterable: AsyncIterable<Project>): Promise<Project[]> {
  const out: Project[] = [];
  for await (const project of iterable) out.push(project);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

async function firstProjectWithScans(): Promise<{ projectId: number; scanIds: number[] }> {
  for (const { id } of sim.state.projects()) {
    const { scans } = await client.listScans(id);
    if (scans.length > 0) return { projectId: id, scanIds: scans.map((s) => s.id) };
  }
  throw new Error('the simulator has no project with scans');
}

describe('projects.php', () => {
  it('walks every project exactly once, in pages the server serves', async () => {
    const projects = await collect(client.iterateProjects({ pageSize: 15 }));
    expect(projects.map((p) => p.id)).toEqual(sim.state.projects().map((p) => p.id));
    expect(new Set(projects.map((p) => p.id)).size).toBe(45);
  });

  it('lists one page with the default size and filters by status', async () => {
    const page = await client.listProjects();
    expect(page.projects).toHaveLength(20);
    expect(page.total).toBe(45);
    const paused = await client.listProjects({ status: 'paused', limit: 100 });
    expect(paused.projects.every((p) => p.status === 'paused')).toBe(true);
    expect(paused.total).toBe(sim.state.projects().filter((p) => p.status === 'paused').length);
  });

  it('reads one project and names the project in a 404', async () => {
    const [first] = sim.state.projects();
    if (!first) throw new Error('no project');
    await expect(client.getProject(first.id)).resolves.toMatchObject({ id: first.id, name: first.name, status: first.status });
    const error = await rejection(client.getProject(999_999));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ call: { projectId: 999_999, status: 404, endpoint: 'projects.php' } });
    expect((error as NotFoundError).call.usage?.daily_limit).toBe(5000);
  });
});

describe('analyze.php, scores.php, recommendations.php, scans.php', () => {
  it('starts an analysis and follows it by id', async () => {
    const [project] = sim.state.projects();
    if (!project) throw new Error('no project');
    const started = await client.startAnalysis(project.id, 'ecommerce');
    expect(started).toMatchObject({ project_id: project.id });
    const followed = await client.getAnalysis(started.id);
    expect(followed.id).toBe(started.id);
    expect(typeof followed.status).toBe('string');
    const sent = sim.state.requests.find((r) => r.endpoint === 'analyze.php' && r.method === 'POST');
    expect(sent?.body).toEqual({ project_id: project.id, question_type: 'ecommerce' });
  });

  it('reads project scores with history, the latest only, a limit, and one scan', async () => {
    const { projectId, scanIds } = await firstProjectWithScans();
    const all = ProjectScores.parse(await client.getProjectScores({ projectId }));
    expect(all.project_id).toBe(projectId);
    expect(all.history.length).toBe(scanIds.length);
    const last = ProjectScores.parse(await client.getScores({ projectId, last: true }));
    expect(last.history).toHaveLength(1);
    expect(last.latest).toEqual(all.latest);
    expect(ProjectScores.parse(await client.getProjectScores({ projectId, limit: 2 })).history.length).toBeLessThanOrEqual(2);
    const scanId = scanIds[0] ?? 0;
    const one = ScanScores.parse(await client.getScanScores({ scanId }));
    expect(one.scan_id).toBe(scanId);
    expect(typeof one.scores.date).toBe('string');
  });

  it('lists recommendations by project and by scan, with filters applied by the server', async () => {
    const { projectId, scanIds } = await firstProjectWithScans();
    const all = RecommendationList.parse(await client.listRecommendations({ projectId }));
    expect(all.recommendations.length).toBeGreaterThan(0);
    const high = RecommendationList.parse(await client.listRecommendations({ projectId, priority: 'high' }));
    expect(high.recommendations.every((r) => r.priority === 'high')).toBe(true);
    const byScan = RecommendationList.parse(await client.listRecommendations({ scanId: scanIds[0] ?? 0, category: 'technical' }));
    expect(byScan.recommendations.every((r) => r.category === 'technical')).toBe(true);
    const last = sim.state.requests.at(-1);
    expect(last?.query).toEqual({ scan_id: String(scanIds[0]), category: 'technical' });
  });

  it('lists scans and reads one with the default, chosen and excluded sections', async () => {
    const { scanIds } = await firstProjectWithScans();
    const scanId = scanIds[0] ?? 0;
    const scan = await client.getScan({ id: scanId });
    expect(scan.id).toBe(scanId);
    expect(scan).toHaveProperty('geo');
    expect(scan).not.toHaveProperty('metadata');
    expect(scan).not.toHaveProperty('html');
    const everything = await client.getScan({ id: scanId }, { include: ['all'] });
    expect(everything).toHaveProperty('metadata');
    expect(everything).toHaveProperty('html');
    const trimmed = await client.getScan({ id: scanId }, { exclude: ['geo', 'seo_domain'] });
    expect(trimmed).not.toHaveProperty('geo');
    expect(trimmed).toHaveProperty('trust');
    const seo = await client.getScan({ id: scanId }, { include: ['seo_audit'], seoSteps: ['step3_serp', 'step6_report'] });
    expect(seo).toHaveProperty('seo_audit');
    expect(sim.state.requests.at(-1)?.query).toEqual({ id: String(scanId), include: 'seo_audit', seo_steps: 'step3_serp,step6_report' });
    if (scan.audit_id != null) {
      expect((await client.getScan({ auditId: scan.audit_id })).id).toBe(scanId);
    }
  });
});

describe('competitors.php, stats.php', () => {
  it('compares all projects and one project with the benchmark', async () => {
    const all = CompetitorsAll.parse(await client.getCompetitors());
    expect(all.projects).toHaveLength(45);
    expect(typeof all.benchmark.geo_score.average).toBe('number');
    const { projectId } = await firstProjectWithScans();
    const one = CompetitorsOne.parse(await client.getProjectCompetitors(projectId));
    expect(one.project_id).toBe(projectId);
    expect(one.other_projects?.some((p) => p.project_id === projectId)).toBe(false);
  });

  it('reads the global statistics', async () => {
    const stats = Stats.parse(await client.getStats());
    expect(stats.projects_count).toBe(45);
    expect(stats.evolution.length).toBeGreaterThan(0);
    expect(stats.top_projects.length).toBeLessThanOrEqual(5);
  });
});

describe('webhooks.php', () => {
  let receiver: TestServer;
  beforeAll(async () => {
    receiver = await startServer((_request, res) => {
      res.writeHead(204);
      res.end();
    });
  });
  afterAll(() => receiver.close());

  it('creates, lists and tests a webhook; the test delivery is signed with the returned secret', async () => {
    const created = await client.createWebhook({ name: 'Agency hook', url: `${receiver.url}/hook`, events: ['scan.completed', 'score.change'] });
    expect(created).toMatchObject({ name: 'Agency hook', events: ['scan.completed', 'score.change'] });
    expect(typeof created.secret).toBe('string');
    const listed = await client.listWebhooks();
    expect(listed.map((w) => w.id)).toContain(created.id);
    expect(listed.find((w) => w.id === created.id)).not.toHaveProperty('secret');
    const result = await client.testWebhook(created.id);
    expect(result).toMatchObject({ delivered: true, status_code: 204 });
    const delivery = receiver.requests.at(-1);
    expect(delivery?.path).toBe('/hook');
    expect(verifySignature(created.secret ?? '', delivery?.rawBody ?? '', delivery?.headers['x-service-signature'] as string)).toBe(true);
    expect(await rejection(client.testWebhook(987))).toBeInstanceOf(NotFoundError);
  });
});

describe('reports.php', () => {
  it('creates a report with chosen sections, reads it back and lists it', async () => {
    const { projectId } = await firstProjectWithScans();
    const report = ReportOne.parse(await client.createReport({ projectId, include: ['scores', 'history', 'trust'] }));
    expect(report.project_id).toBe(projectId);
    expect(report.sections?.scores).toBeDefined();
    expect(report.sections?.history?.length).toBeGreaterThan(0);
    expect(report.sections?.recommendations).toBeUndefined();
    const again = ReportOne.parse(await client.getReport(report.id, { projectId }));
    expect(again.id).toBe(report.id);
    const list = ReportList.parse(await client.listReports());
    expect(list.reports.map((r) => r.id)).toContain(report.id);
    expect(sim.state.requests.at(-1)?.query).toEqual({ list: '1' });
  });

  it('hands back a processing report as it comes, then ready after the reads the server needs', async () => {
    const slow = await startSimulator({ seed: 7, projectCount: 3, clock, reportMode: 'processing', reportProcessingReads: 2 });
    const { client: slowClient } = testClient(slow.url, { tokenList: ['demo-0f1e2d3c4b5a69788796a5b4c3d2e1f0'] });
    try {
      const [project] = slow.state.projects();
      const created = ReportOne.parse(await slowClient.createReport({ projectId: project?.id ?? 0 }));
      expect(created.status).toBe('processing');
      expect(created.sections).toBeUndefined();
      const reads = [];
      for (let i = 0; i < 3; i += 1) reads.push(ReportOne.parse(await slowClient.getReport(created.id)).status);
      expect(reads.slice(0, 2)).toEqual(['processing', 'processing']);
      expect(reads[2]).not.toBe('processing');
    } finally {
      await slowClient.close();
      await slow.close();
    }
  });

  it('turns each malformed answer into the right error; only the 5xx page is resent', async () => {
    const bad = await startSimulator({ seed: 3, projectCount: 8, clock });
    const ids = bad.state.projects().map((p) => p.id);
    const modes = ['html', 'truncated', 'success-false', 'no-meta', 'wrong-version', 'not-found'] as const;
    bad.state.setFaults({ malformed: Object.fromEntries(modes.map((mode, i) => [ids[i] ?? 0, mode])) });
    const { client: badClient } = testClient(bad.url, { tokenList: ['demo-0f1e2d3c4b5a69788796a5b4c3d2e1f0'] });
    try {
      const errors = [];
      for (const [i] of modes.entries()) errors.push(await rejection(badClient.createReport({ projectId: ids[i] ?? 0 })));
      expect(errors[0]).toBeInstanceOf(ServerError);
      expect(errors[1]).toBeInstanceOf(ResponseValidationError);
      expect((errors[1] as ResponseValidationError).message).toContain('cut off');
      expect((errors[2] as ResponseValidationError).message).toContain('success: false');
      expect((errors[2] as ResponseValidationError).issues).toEqual(['error: Report generation failed.']);
      expect((errors[3] as ResponseValidationError).message).toContain('not the v1 envelope');
      expect(errors[4]).toBeInstanceOf(UnsupportedApiVersionError);
      expect(errors[5]).toBeInstanceOf(NotFoundError);
      for (const [i, error] of errors.entries()) expect(error).toMatchObject({ call: { projectId: ids[i], endpoint: 'reports.php', method: 'POST' } });
      // The 502 page is retried (default 4 retries: a report POST may be resent); a wrong answer never is.
      const posts = bad.state.requests.filter((r) => r.endpoint === 'reports.php');
      expect(posts).toHaveLength(modes.length + 4);
      expect(posts.filter((r) => (r.body as { project_id: number }).project_id === ids[0])).toHaveLength(5);
      // A healthy project of the same server still works.
      expect(ReportOne.parse(await badClient.createReport({ projectId: ids[7] ?? 0 }))).toMatchObject({ project_id: ids[7] });
    } finally {
      await badClient.close();
      await bad.close();
    }
  });
});

describe('quota, tokens and faults against the simulator', () => {
  it('sends nothing to a token after its 429 and finishes the work on the next token', async () => {
    const quotaSim = await startSimulator({ seed: 5, projectCount: 4, tokens: [TOKEN_A, TOKEN_B], dailyLimit: 3, clock });
    // Spend token A's day through another pool, so the pool under test still believes A is fresh.
    const spender = testClient(quotaSim.url, { tokens: new TokenPool([TOKEN_A], { clock }) });
    for (let i = 0; i < 3; i += 1) await spender.client.getStats();
    const fresh = testClient(quotaSim.url, { tokens: new TokenPool([TOKEN_A, TOKEN_B], { clock }) });
    try {
      await fresh.client.getStats();
      await fresh.client.getStats();
      const after = quotaSim.state.requests.slice(3);
      expect(after.map((r) => [r.tokenIndex, r.status])).toEqual([
        [0, 429],
        [1, 200],
        [1, 200],
      ]);
      expect(fresh.pool.status().map((s) => s.state)).toEqual(['exhausted', 'ok']);
      expect(fresh.pool.status()[1]?.usage).toEqual(quotaSim.state.usage(1));
      await fresh.client.getStats(); // B's third and last request of the day
      const spent = await rejection(fresh.client.getStats());
      expect(spent).toBeInstanceOf(TokensSpentError);
      expect(quotaSim.state.requests.slice(7)).toHaveLength(0); // the pool knew B had 0 left: no request sent
      expect(String(spent)).not.toContain(TOKEN_B);
    } finally {
      await spender.client.close();
      await fresh.client.close();
      await quotaSim.close();
    }
  });

  it('refuses an unknown token with AuthenticationError', async () => {
    const { client: stranger } = testClient(sim.url, { tokenList: ['not-a-known-token-1234'] });
    const error = await rejection(stranger.getStats());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(String(error)).not.toContain('not-a-known-token-1234');
    expect(String(error)).toContain('token#1 (…1234)');
    await stranger.close();
  });

  it('gets through injected 5xx errors and dropped connections on reads by retrying', async () => {
    const flaky = await startSimulator({ seed: 9, projectCount: 30, clock, faults: { errorRate: 0.25, dropRate: 0.3, seed: 4 } });
    const { client: patient, delays } = testClient(flaky.url, {
      tokenList: ['demo-0f1e2d3c4b5a69788796a5b4c3d2e1f0'],
      retry: { maxRetries: 10 },
    });
    try {
      const projects = await collect(patient.iterateProjects({ pageSize: 3 }));
      expect(projects.map((p) => p.id)).toEqual(flaky.state.projects().map((p) => p.id));
      const failed = flaky.state.requests.filter((r) => r.status !== 200);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.some((r) => r.status === 0)).toBe(true); // dropped
      expect(delays).toHaveLength(failed.length);
    } finally {
      await patient.close();
      await flaky.close();
    }
  });
});
