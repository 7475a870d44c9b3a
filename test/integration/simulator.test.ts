import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AnalysisOne,
  CATEGORIES,
  DEFAULT_SCAN_SECTIONS,
  Envelope,
  ErrorEnvelope,
  PRIORITIES,
  ProjectList,
  ProjectOne,
  SCAN_SECTIONS,
  ScanList,
  ScanOne,
  WebhookCreated,
  WebhookDelivery,
  WebhookList,
  WebhookTestResult,
} from '../../src/api/schemas.js';
import { verifySignature } from '../../src/api/signature.js';
import { CompetitorsAll, CompetitorsOne, ProjectScores, RecommendationList, ReportList, ReportOne, ScanScores, Stats } from '../support/classic-schemas.js';
import { runSimulatorCommand } from '../../src/simulator/main.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/server.js';
import { waitFor } from '../support/wait.js';

const START = '2026-11-22T06:00:00.000Z';

interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function api(base: string, path: string, init: { method?: string; body?: unknown; token?: string | null } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (init.token !== null) headers['authorization'] = `Bearer ${init.token ?? DEMO_TOKEN}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}/api/v1/${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Parses the envelope and the data with the wire schemas, as the client does. */
function dataOf<S extends z.ZodType>(response: ApiResponse, schema: S): z.output<S> {
  expect(response.status, response.text.slice(0, 300)).toBe(200);
  const envelope = Envelope.parse(response.json);
  expect(envelope.success).toBe(true);
  expect(envelope.meta.api_version).toBe('v1');
  return schema.parse(envelope.data);
}

function errorOf(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  const body = ErrorEnvelope.parse(response.json);
  expect(body.success).toBe(false);
  expect(typeof body.error === 'object' && body.error.code).toBe(code);
  return body;
}

function mutableClock(iso = START) {
  let now = new Date(iso);
  return {
    clock: () => now,
    set: (next: string) => {
      now = new Date(next);
    },
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

const handles: SimulatorHandle[] = [];
async function simulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const handle = await startSimulator({ clock: () => new Date(START), ...options });
  handles.push(handle);
  return handle;
}
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
async function receiver(status = 204): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, server };
}
const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('simulator with default options', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ clock: () => new Date(START) });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('lists projects with the default page size, total and usage in meta', async () => {
    const response = await api(sim.url, 'projects.php');
    const list = dataOf(response, ProjectList);
    expect(list.projects).toHaveLength(20);
    expect(list.total).toBe(36);
    expect(list.projects[0]).toMatchObject({ id: 101, language: expect.stringMatching(/^(en|fr)$/) });
    const meta = Envelope.parse(response.json).meta;
    expect(meta.timestamp).toBe(START);
    expect(meta.usage.daily_limit).toBe(5000);
    expect(meta.usage.daily_remaining).toBe(5000 - meta.usage.daily_used);
    const next = Envelope.parse((await api(sim.url, 'projects.php?limit=1')).json).meta.usage.daily_used;
    expect(next).toBe(meta.usage.daily_used + 1);
  });

  it('pages with limit and offset and counts total after the status filter', async () => {
    const all = dataOf(await api(sim.url, 'projects.php?limit=100'), ProjectList);
    expect(all.projects).toHaveLength(36);
    const page = dataOf(await api(sim.url, 'projects.php?limit=5&offset=30'), ProjectList);
    expect(page.projects.map((p) => p.id)).toEqual(all.projects.slice(30, 35).map((p) => p.id));
    const counts = { active: 0, paused: 0, archived: 0 };
    for (const p of all.projects) counts[p.status]++;
    expect(counts).toEqual({ active: 25, paused: 7, archived: 4 });
    const paused = dataOf(await api(sim.url, 'projects.php?status=paused&limit=3'), ProjectList);
    expect(paused.total).toBe(7);
    expect(paused.projects).toHaveLength(3);
    expect(paused.projects.every((p) => p.status === 'paused')).toBe(true);
  });

  it('returns one project by id, and 404 for an unknown one', async () => {
    const project = dataOf(await api(sim.url, 'projects.php?id=105'), ProjectOne);
    expect(project.id).toBe(105);
    expect(project.domain).toMatch(/\.(com|fr)$/);
    errorOf(await api(sim.url, 'projects.php?id=999'), 404, 'not_found');
  });

  it('rejects invalid project list parameters with 400', async () => {
    for (const query of ['limit=101', 'limit=0', 'limit=abc', 'limit=2.5', 'offset=-1', 'status=deleted']) {
      errorOf(await api(sim.url, `projects.php?${query}`), 400, 'invalid_request');
    }
  });

  it('answers 401 without usage for a missing or unknown token', async () => {
    for (const token of [null, 'not-a-real-token']) {
      const response = await api(sim.url, 'projects.php', { token });
      const body = errorOf(response, 401, 'unauthorized');
      expect(body.meta?.usage).toBeUndefined();
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.text).not.toContain(DEMO_TOKEN);
    }
  });

  it('answers 405 for a wrong method and 404 for an unknown endpoint', async () => {
    const wrong = await api(sim.url, 'projects.php', { method: 'POST', body: {} });
    errorOf(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET');
    const del = await api(sim.url, 'reports.php?id=1', { method: 'DELETE' });
    errorOf(del, 405, 'method_not_allowed');
    expect(del.headers.get('allow')).toBe('GET, POST');
    errorOf(await api(sim.url, 'unknown.php'), 404, 'not_found');
  });

  it('serves project scores with a monthly history, last=1, limit, and scan scores', async () => {
    const scores = dataOf(await api(sim.url, 'scores.php?project_id=102'), ProjectScores);
    expect(scores.history).toHaveLength(12);
    const dates = scores.history.map((h) => h.date);
    expect([...dates].sort()).toEqual(dates);
    expect(dates.at(-1)).toBe('2026-11-01');
    expect(scores.latest).toEqual(scores.history.at(-1));
    for (const point of scores.history) {
      expect(point.geo_score).toBeGreaterThanOrEqual(0);
      expect(point.geo_score).toBeLessThanOrEqual(100);
      expect(Object.keys(point.ai_visibility ?? {})).toEqual(['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot']);
    }
    const last = dataOf(await api(sim.url, 'scores.php?project_id=102&last=1'), ProjectScores);
    expect(last.history).toEqual([scores.latest]);
    const limited = dataOf(await api(sim.url, 'scores.php?project_id=102&limit=3'), ProjectScores);
    expect(limited.history).toEqual(scores.history.slice(-3));
    const scanId = Number(scores.latest?.scan_id);
    const byScan = dataOf(await api(sim.url, `scores.php?scan_id=${scanId}`), ScanScores);
    expect(byScan.scores.geo_score).toBe(scores.latest?.geo_score);
    errorOf(await api(sim.url, 'scores.php'), 400, 'invalid_request');
    errorOf(await api(sim.url, 'scores.php?project_id=9999'), 404, 'not_found');
    errorOf(await api(sim.url, 'scores.php?scan_id=12345'), 404, 'not_found');
    errorOf(await api(sim.url, 'scores.php?project_id=102&limit=0'), 400, 'invalid_request');
  });

  it('filters recommendations by priority and category and validates the filters', async () => {
    const all = dataOf(await api(sim.url, 'recommendations.php?project_id=102'), RecommendationList);
    expect(all.recommendations.length).toBeGreaterThanOrEqual(6);
    expect(all.total).toBe(all.recommendations.length);
    expect(new Set(all.recommendations.map((r) => r.id)).size).toBe(all.recommendations.length);
    for (const priority of PRIORITIES) {
      const some = dataOf(await api(sim.url, `recommendations.php?project_id=102&priority=${priority}`), RecommendationList);
      expect(some.recommendations).toEqual(all.recommendations.filter((r) => r.priority === priority));
    }
    const category = CATEGORIES[0];
    const byCategory = dataOf(await api(sim.url, `recommendations.php?project_id=102&category=${category}`), RecommendationList);
    expect(byCategory.recommendations.every((r) => r.category === category)).toBe(true);
    const scanId = dataOf(await api(sim.url, 'scores.php?project_id=102&last=1'), ProjectScores).latest?.scan_id;
    const byScan = dataOf(await api(sim.url, `recommendations.php?scan_id=${scanId}`), RecommendationList);
    expect(byScan.recommendations.map((r) => r.id)).toEqual(all.recommendations.map((r) => r.id));
    errorOf(await api(sim.url, 'recommendations.php'), 400, 'invalid_request');
    errorOf(await api(sim.url, 'recommendations.php?project_id=102&priority=urgent'), 400, 'invalid_request');
    errorOf(await api(sim.url, 'recommendations.php?project_id=102&category=social'), 400, 'invalid_request');
  });

  it('lists scans of a project and needs exactly one selector', async () => {
    const list = dataOf(await api(sim.url, 'scans.php?project_id=102'), ScanList);
    expect(list.scans).toHaveLength(12);
    expect(list['total']).toBe(12);
    expect(list.scans.every((s) => s.project_id === 102)).toBe(true);
    errorOf(await api(sim.url, 'scans.php'), 400, 'invalid_request');
    errorOf(await api(sim.url, `scans.php?project_id=102&id=${list.scans[0]?.id}`), 400, 'invalid_request');
    errorOf(await api(sim.url, 'scans.php?id=1'), 404, 'not_found');
    errorOf(await api(sim.url, 'scans.php?audit_id=42'), 404, 'not_found');
  });

  it('delivers scan sections by default, include, include=all and exclude, and reaches a scan by audit_id', async () => {
    const summary = dataOf(await api(sim.url, 'scans.php?project_id=104'), ScanList).scans[0];
    const sectionKeys = (scan: Record<string, unknown>) => Object.keys(scan).filter((k) => (SCAN_SECTIONS as readonly string[]).includes(k));
    const plain = dataOf(await api(sim.url, `scans.php?id=${summary?.id}`), ScanOne);
    expect(sectionKeys(plain).sort()).toEqual([...DEFAULT_SCAN_SECTIONS].sort());
    const everything = dataOf(await api(sim.url, `scans.php?id=${summary?.id}&include=all`), ScanOne);
    expect(sectionKeys(everything).sort()).toEqual([...SCAN_SECTIONS].sort());
    const some = dataOf(await api(sim.url, `scans.php?id=${summary?.id}&include=geo,trust`), ScanOne);
    expect(sectionKeys(some).sort()).toEqual(['geo', 'trust']);
    const fewer = dataOf(await api(sim.url, `scans.php?id=${summary?.id}&exclude=geo,seo_domain`), ScanOne);
    expect(sectionKeys(fewer).sort()).toEqual(DEFAULT_SCAN_SECTIONS.filter((s) => s !== 'geo' && s !== 'seo_domain').sort());
    const byAudit = dataOf(await api(sim.url, `scans.php?audit_id=${summary?.audit_id}`), ScanOne);
    expect(byAudit).toEqual(plain);
    const geo = some['geo'] as Record<string, unknown>;
    for (const key of ['questions', 'positions', 'raw_responses', 'recommendations', 'query_fan_out', 'serps']) expect(geo).toHaveProperty(key);
    const analysis = plain['analysis'] as Record<string, { findings: Array<{ evidence: string }> }>;
    for (const block of ['technical', 'performance', 'content', 'trust']) expect(analysis[block]?.findings[0]?.evidence).toEqual(expect.any(String));
    errorOf(await api(sim.url, `scans.php?id=${summary?.id}&include=geo,bogus`), 400, 'invalid_request');
    errorOf(await api(sim.url, `scans.php?id=${summary?.id}&exclude=nothing`), 400, 'invalid_request');
  });

  it('filters SEO audit steps with seo_steps', async () => {
    const summary = dataOf(await api(sim.url, 'scans.php?project_id=104'), ScanList).scans[0];
    const stepsOf = (scan: Record<string, unknown>) => Object.keys((scan['seo_audit'] as { steps: object }).steps);
    const all = dataOf(await api(sim.url, `scans.php?id=${summary?.id}&include=seo_audit`), ScanOne);
    expect(stepsOf(all)).toEqual(['step1_lighthouse', 'step2_onpage', 'step3_serp', 'step4_keywords', 'step5_backlinks', 'step6_report']);
    const two = dataOf(await api(sim.url, `scans.php?id=${summary?.id}&include=seo_audit&seo_steps=step6_report,step3_serp`), ScanOne);
    expect(stepsOf(two)).toEqual(['step3_serp', 'step6_report']);
    errorOf(await api(sim.url, `scans.php?id=${summary?.id}&include=seo_audit&seo_steps=step7_magic`), 400, 'invalid_request');
  });

  it('keeps keyword_rankings consistent: counted_as replaces null by 11 and position is their mean', async () => {
    const scans = dataOf(await api(sim.url, 'scans.php?project_id=110'), ScanList).scans.slice(0, 4);
    let absent = 0;
    for (const summary of scans) {
      const scan = dataOf(await api(sim.url, `scans.php?id=${summary.id}&include=seo_audit`), ScanOne);
      const rankings = scan.seo_audit?.keyword_rankings ?? [];
      expect(rankings.length).toBeGreaterThan(0);
      for (const row of rankings) {
        expect(row.counted_as).toEqual(row.values.map((v) => v ?? 11));
        expect(row.position).toBeCloseTo(Math.round((row.counted_as.reduce((a, b) => a + b, 0) / row.counted_as.length) * 10) / 10, 5);
        absent += row.values.filter((v) => v === null).length;
      }
    }
    expect(absent).toBeGreaterThan(0);
  });

  it('compares every project with the benchmark, and one project with the others', async () => {
    const all = dataOf(await api(sim.url, 'competitors.php'), CompetitorsAll);
    expect(all.projects).toHaveLength(36);
    expect(all.benchmark.sample_size).toBeGreaterThan(36);
    const { average, median, p75, p90 } = all.benchmark.geo_score;
    expect(median).toBeLessThanOrEqual(p75 ?? 0);
    expect(p75).toBeLessThanOrEqual(p90 ?? 0);
    for (const row of all.projects.filter((r) => r.scores.geo_score !== null)) {
      expect(row.vs_benchmark['geo_score']).toBeCloseTo((row.scores.geo_score ?? 0) - average, 1);
      expect(row.percentile).toBeGreaterThanOrEqual(0);
      expect(row.percentile).toBeLessThanOrEqual(100);
    }
    const one = dataOf(await api(sim.url, 'competitors.php?project_id=102'), CompetitorsOne);
    expect(one.project_id).toBe(102);
    expect(one.benchmark).toEqual(all.benchmark);
    expect(one.other_projects).toHaveLength(35);
    expect(one.other_projects?.some((p) => p.project_id === 102)).toBe(false);
    errorOf(await api(sim.url, 'competitors.php?project_id=999'), 404, 'not_found');
  });

  it('summarises statistics with a monthly evolution', async () => {
    const stats = dataOf(await api(sim.url, 'stats.php'), Stats);
    expect(stats.projects_count).toBe(36);
    expect(stats.scans_count).toBeGreaterThan(300);
    expect(stats.evolution.map((e) => e.month)).toEqual([
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
    ]);
    expect(stats.top_projects).toHaveLength(5);
    const scores = stats.top_projects.map((p) => p.geo_score ?? 0);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('records every request with endpoint, query, body, token index and status', async () => {
    const before = sim.state.requests.length;
    await api(sim.url, 'projects.php?limit=2');
    await api(sim.url, 'analyze.php', { body: { project_id: 'x' } });
    await api(sim.url, 'stats.php', { token: null });
    expect(sim.state.requests.slice(before)).toEqual([
      { method: 'GET', endpoint: 'projects.php', query: { limit: '2' }, body: null, tokenIndex: 0, status: 200, at: START },
      { method: 'POST', endpoint: 'analyze.php', query: {}, body: { project_id: 'x' }, tokenIndex: 0, status: 400, at: START },
      { method: 'GET', endpoint: 'stats.php', query: {}, body: null, tokenIndex: null, status: 401, at: START },
    ]);
  });
});

describe('reports', () => {
  it('generates a full report with only the included sections and reads it back', async () => {
    const sim = await simulator();
    const report = dataOf(await api(sim.url, 'reports.php', { body: { project_id: 102, format: 'json', include: ['scores', 'trust'] } }), ReportOne);
    expect(report).toMatchObject({ project_id: 102, format: 'json', status: 'ready', include: ['scores', 'trust'] });
    expect(Object.keys(report.sections ?? {}).filter((k) => k !== 'local_presence')).toEqual(['scores', 'trust']);
    expect(report.sections?.trust?.review_platforms?.length).toBeGreaterThanOrEqual(2);
    const again = dataOf(await api(sim.url, `reports.php?id=${report.id}`), ReportOne);
    expect(again).toEqual(report);
    errorOf(await api(sim.url, 'reports.php?id=99999'), 404, 'not_found');
  });

  it('defaults to all five sections, shapes them as documented, and adds an unknown section on some projects', async () => {
    const sim = await simulator();
    const unknownKeys = new Set<string>();
    for (const project of sim.state
      .projects()
      .filter((p) => p.status === 'active')
      .slice(0, 8)) {
      const report = dataOf(await api(sim.url, 'reports.php', { body: { project_id: project.id } }), ReportOne);
      expect(report.include).toEqual(['scores', 'recommendations', 'history', 'metrics', 'trust']);
      const sections = report.sections ?? {};
      for (const key of Object.keys(sections)) if (!['scores', 'recommendations', 'history', 'metrics', 'trust'].includes(key)) unknownKeys.add(key);
      expect(sections.history?.length).toBeGreaterThan(1);
      for (const rec of sections.recommendations ?? [])
        expect(Object.keys(rec)).toEqual(['id', 'title', 'description', 'priority', 'category', 'impact', 'effort']);
      expect(sections.metrics?.['share_of_voice']).toEqual({ value: expect.any(Number), unit: '%' });
      expect(sections.metrics?.['ai_mentions']).toEqual(expect.any(Number));
      expect(Object.keys(sections.scores?.ai_visibility ?? {})).toHaveLength(5);
    }
    expect([...unknownKeys]).toEqual(['local_presence']);
  });

  it('rejects bad report input', async () => {
    const sim = await simulator();
    errorOf(await api(sim.url, 'reports.php', { body: { project_id: 102, format: 'pdf' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'reports.php', { body: { project_id: 102, include: ['scores', 'weather'] } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'reports.php', { body: { format: 'json' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'reports.php', { body: '{"project_id": 1' }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'reports.php', { body: { project_id: 999 } }), 404, 'not_found');
    errorOf(await api(sim.url, 'reports.php'), 400, 'invalid_request');
  });

  it('lists reports without sections, newest first', async () => {
    const sim = await simulator();
    const first = dataOf(await api(sim.url, 'reports.php', { body: { project_id: 104 } }), ReportOne);
    const second = dataOf(await api(sim.url, 'reports.php', { body: { project_id: 105, include: ['history'] } }), ReportOne);
    const list = dataOf(await api(sim.url, 'reports.php?list=1'), ReportList);
    expect(list.total).toBe(2);
    expect(list.reports.map((r) => r.id)).toEqual([second.id, first.id]);
    expect(list.reports.every((r) => !('sections' in r))).toBe(true);
  });

  it('answers id-only and processing modes, then processing reads before ready', async () => {
    const idOnly = await simulator({ reportMode: 'id-only' });
    const created = dataOf(await api(idOnly.url, 'reports.php', { body: { project_id: 102 } }), ReportOne);
    expect(created).toEqual({ id: expect.any(Number), status: 'ready' });
    expect(dataOf(await api(idOnly.url, `reports.php?id=${created.id}`), ReportOne).sections?.scores).toBeDefined();

    const slow = await simulator({ reportMode: 'processing', reportProcessingReads: 2 });
    const pending = dataOf(await api(slow.url, 'reports.php', { body: { project_id: 102 } }), ReportOne);
    expect(pending).toEqual({ id: expect.any(Number), status: 'processing' });
    expect(dataOf(await api(slow.url, 'reports.php?list=1'), ReportList).reports[0]).toMatchObject({ id: pending.id, status: 'processing' });
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push(dataOf(await api(slow.url, `reports.php?id=${pending.id}`), ReportOne));
    expect(reads.map((r) => r.status)).toEqual(['processing', 'processing', 'ready']);
    expect(reads[0]?.sections).toBeUndefined();
    expect(reads[2]?.sections?.recommendations?.length).toBeGreaterThan(0);
    expect(dataOf(await api(slow.url, 'reports.php?list=1'), ReportList).reports[0]).toMatchObject({ id: pending.id, status: 'ready' });
  });
});

describe('webhooks', () => {
  it('creates, lists without secret, and tests a webhook with a signed delivery', async () => {
    const sim = await simulator();
    const hook = await receiver(200);
    try {
      const created = dataOf(
        await api(sim.url, 'webhooks.php', { body: { action: 'create', name: 'Agency inbox', url: hook.url, events: ['scan.completed', 'score.change'] } }),
        WebhookCreated,
      );
      expect(created.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
      const list = dataOf(await api(sim.url, 'webhooks.php'), WebhookList);
      expect(list.webhooks).toHaveLength(1);
      expect(list.webhooks[0]).toMatchObject({ id: created.id, name: 'Agency inbox', url: hook.url, events: ['scan.completed', 'score.change'] });
      expect(JSON.stringify(list)).not.toContain(created.secret ?? 'secret');

      const result = dataOf(await api(sim.url, 'webhooks.php', { body: { action: 'test', webhook_id: created.id } }), WebhookTestResult);
      expect(result).toEqual({ delivered: true, status_code: 200, webhook_id: created.id });
      expect(hook.received).toHaveLength(1);
      const delivery = hook.received[0];
      expect(delivery?.headers['content-type']).toBe('application/json');
      expect(delivery?.headers['x-service-event']).toBe('test');
      expect(verifySignature(created.secret ?? '', delivery?.body ?? '', delivery?.headers['x-service-signature'] as string)).toBe(true);
      expect(verifySignature('wrong-secret', delivery?.body ?? '', delivery?.headers['x-service-signature'] as string)).toBe(false);
      const body = WebhookDelivery.parse(JSON.parse(delivery?.body ?? ''));
      expect(body).toMatchObject({ event: 'test', created_at: START, data: { webhook_id: created.id } });
      expect(sim.state.deliveries).toEqual([
        { webhookId: created.id, event: 'test', url: hook.url, status: 200, body: delivery?.body, signature: delivery?.headers['x-service-signature'] },
      ]);
    } finally {
      await closeServer(hook.server);
    }
  });

  it('reports a failing or unreachable receiver in the test result', async () => {
    const sim = await simulator({ webhookTimeoutMs: 1000 });
    const failing = await receiver(500);
    const gone = await receiver();
    await closeServer(gone.server);
    try {
      const create = async (url: string) =>
        dataOf(await api(sim.url, 'webhooks.php', { body: { action: 'create', name: 'x', url, events: ['scan.failed'] } }), WebhookCreated).id;
      const failingId = await create(failing.url);
      const goneId = await create(gone.url);
      const failed = dataOf(await api(sim.url, 'webhooks.php', { body: { action: 'test', webhook_id: failingId } }), WebhookTestResult);
      expect(failed).toMatchObject({ delivered: false, status_code: 500 });
      const unreachable = dataOf(await api(sim.url, 'webhooks.php', { body: { action: 'test', webhook_id: goneId } }), WebhookTestResult);
      expect(unreachable).toMatchObject({ delivered: false, status_code: null });
    } finally {
      await closeServer(failing.server);
    }
  });

  it('rejects bad webhook input', async () => {
    const sim = await simulator();
    const base = { action: 'create', name: 'n', url: 'http://127.0.0.1:9/h', events: ['scan.completed'] };
    errorOf(await api(sim.url, 'webhooks.php', { body: { ...base, action: 'delete' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { ...base, events: ['scan.started'] } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { ...base, events: [] } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { ...base, url: 'ftp://127.0.0.1/x' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { ...base, name: '' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { action: 'test' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'webhooks.php', { body: { action: 'test', webhook_id: 77 } }), 404, 'not_found');
  });
});

describe('analyses', () => {
  it('move from queued to running to completed with the clock, producing a scan and signed events', async () => {
    const time = mutableClock();
    const sim = await simulator({ clock: time.clock });
    const hook = await receiver(204);
    try {
      const secret = dataOf(
        await api(sim.url, 'webhooks.php', {
          body: { action: 'create', name: 'all', url: hook.url, events: ['scan.completed', 'scan.failed', 'score.change'] },
        }),
        WebhookCreated,
      ).secret;
      const active = sim.state.projects().filter((p) => p.status === 'active');
      const started = [];
      for (const project of active) {
        started.push(dataOf(await api(sim.url, 'analyze.php', { body: { project_id: project.id, question_type: 'local' } }), AnalysisOne));
      }
      expect(started[0]).toMatchObject({ status: 'queued', question_type: 'local', project_id: active[0]?.id });
      const defaulted = dataOf(await api(sim.url, 'analyze.php', { body: { project_id: active[0]?.id } }), AnalysisOne);
      expect((defaulted as Record<string, unknown>)['question_type']).toBe('general');
      started.push(defaulted);

      time.advance(3_000);
      expect(dataOf(await api(sim.url, `analyze.php?id=${started[0]?.id}`), AnalysisOne).status).toBe('running');
      expect(hook.received).toHaveLength(0);

      time.advance(7_000);
      const finished = [];
      for (const analysis of started) finished.push(dataOf(await api(sim.url, `analyze.php?id=${analysis.id}`), AnalysisOne));
      const completed = finished.filter((a) => a.status === 'completed');
      const failed = finished.filter((a) => a.status === 'failed');
      expect(completed.length + failed.length).toBe(started.length);
      expect(completed.length).toBeGreaterThan(0);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0]?.error).toEqual(expect.any(String));

      // Expected score.change events: every produced scan whose geo_score differs from the scan before it.
      let scoreChanges = 0;
      for (const analysis of completed) {
        const scan = dataOf(await api(sim.url, `scans.php?id=${analysis.scan_id}`), ScanOne);
        expect(scan.project_id).toBe(analysis.project_id);
        const history = dataOf(await api(sim.url, `scores.php?project_id=${analysis.project_id}`), ProjectScores).history;
        const index = history.findIndex((h) => h.scan_id === analysis.scan_id);
        expect(index).toBeGreaterThan(0);
        if (history[index - 1]?.geo_score !== history[index]?.geo_score) scoreChanges++;
      }
      expect(scoreChanges).toBeGreaterThan(0);
      const expected = completed.length + failed.length + scoreChanges;
      await waitFor(`${expected} webhook deliveries`, () => hook.received.length >= expected, {
        state: () => `${hook.received.length} received`,
      });
      expect(hook.received).toHaveLength(expected);
      const events = hook.received.map((r) => WebhookDelivery.parse(JSON.parse(r.body)));
      expect(events.filter((e) => e.event === 'scan.completed')).toHaveLength(completed.length);
      expect(events.filter((e) => e.event === 'scan.failed')).toHaveLength(failed.length);
      expect(events.filter((e) => e.event === 'score.change')).toHaveLength(scoreChanges);
      for (const r of hook.received) {
        expect(verifySignature(secret ?? '', r.body, r.headers['x-service-signature'] as string)).toBe(true);
        expect(r.headers['x-service-event']).toBe((JSON.parse(r.body) as { event: unknown }).event);
      }
      const change = events.find((e) => e.event === 'score.change')?.data as { previous: number; current: number; change: number };
      expect(change.current - change.previous).toBe(change.change);
      expect(change.change).not.toBe(0);
    } finally {
      await closeServer(hook.server);
    }
  });

  it('rejects bad analysis input and unknown ids', async () => {
    const sim = await simulator();
    errorOf(await api(sim.url, 'analyze.php', { body: {} }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'analyze.php', { body: { project_id: 102, question_type: 'b2b' } }), 400, 'invalid_request');
    errorOf(await api(sim.url, 'analyze.php', { body: { project_id: 999 } }), 404, 'not_found');
    errorOf(await api(sim.url, 'analyze.php?id=1'), 404, 'not_found');
    errorOf(await api(sim.url, 'analyze.php'), 400, 'invalid_request');
  });
});

describe('quota', () => {
  it('answers 429 when the daily limit is used, counts 400/404 but not 401/429, and resets the next UTC day', async () => {
    const time = mutableClock('2026-11-22T23:59:00.000Z');
    const other = 'agency-second-token-7f3a';
    const sim = await simulator({ clock: time.clock, dailyLimit: 3, tokens: [DEMO_TOKEN, other] });
    expect(Envelope.parse((await api(sim.url, 'stats.php')).json).meta.usage).toEqual({ daily_used: 1, daily_limit: 3, daily_remaining: 2 });
    errorOf(await api(sim.url, 'projects.php?limit=500'), 400, 'invalid_request');
    await api(sim.url, 'stats.php', { token: 'nope' });
    const notFound = errorOf(await api(sim.url, 'projects.php?id=1'), 404, 'not_found');
    expect(notFound.meta?.usage).toEqual({ daily_used: 3, daily_limit: 3, daily_remaining: 0 });
    const limited = await api(sim.url, 'stats.php');
    const body = errorOf(limited, 429, 'quota_exceeded');
    expect(body.meta?.usage).toEqual({ daily_used: 3, daily_limit: 3, daily_remaining: 0 });
    expect(Number(limited.headers.get('retry-after'))).toBe(60);
    errorOf(await api(sim.url, 'stats.php'), 429, 'quota_exceeded');
    expect(sim.state.usage(0).daily_used).toBe(3);
    expect(dataOf(await api(sim.url, 'stats.php', { token: other }), Stats).projects_count).toBe(36);
    expect(sim.state.usage(1).daily_used).toBe(1);

    time.set('2026-11-23T00:00:01.000Z');
    const fresh = await api(sim.url, 'stats.php');
    expect(Envelope.parse(fresh.json).meta.usage).toEqual({ daily_used: 1, daily_limit: 3, daily_remaining: 2 });
    expect(sim.state.requests.filter((r) => r.tokenIndex === 0 && r.status === 429)).toHaveLength(2);
  });
});

describe('faults', () => {
  it('answers 5xx with HTML or JSON bodies for errorRate 1, without counting them', async () => {
    const sim = await simulator({ faults: { errorRate: 1, seed: 3 } });
    const statuses = new Set<number>();
    const kinds = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const response = await api(sim.url, 'projects.php');
      statuses.add(response.status);
      kinds.add(response.json === undefined ? 'html' : 'json');
      if (response.json === undefined) expect(response.text).toMatch(/<html>/);
    }
    expect([...statuses].every((s) => [500, 502, 503].includes(s))).toBe(true);
    expect(kinds).toEqual(new Set(['html', 'json']));
    expect(sim.state.usage(0).daily_used).toBe(0);
    sim.state.setFaults({});
    expect(dataOf(await api(sim.url, 'projects.php'), ProjectList).total).toBe(36);
    expect(sim.state.usage(0).daily_used).toBe(1);
  });

  it('destroys the socket for dropRate 1 and records the request with status 0', async () => {
    const sim = await simulator({ faults: { dropRate: 1 } });
    await expect(api(sim.url, 'stats.php')).rejects.toThrow();
    expect(sim.state.requests.at(-1)).toMatchObject({ endpoint: 'stats.php', status: 0, tokenIndex: 0 });
    expect(sim.state.usage(0).daily_used).toBe(0);
  });

  it('makes the same fault decisions for the same fault seed', async () => {
    const pattern = async () => {
      const sim = await simulator({ faults: { errorRate: 0.5, seed: 9 } });
      const out: number[] = [];
      for (let i = 0; i < 10; i++) out.push((await api(sim.url, 'stats.php')).status);
      return out;
    };
    const first = await pattern();
    expect(await pattern()).toEqual(first);
    expect(first).toContain(200);
    expect(first.some((s) => s >= 500)).toBe(true);
  });

  it('adds latency through the injected sleep', async () => {
    const waits: number[] = [];
    const sim = await simulator({ faults: { latencyMs: 250 }, sleep: async (ms) => void waits.push(ms) });
    await api(sim.url, 'stats.php');
    await api(sim.url, 'projects.php');
    expect(waits).toEqual([250, 250]);
  });

  it('serves malformed reports per project and leaves the others alone', async () => {
    const sim = await simulator();
    const healthy = dataOf(await api(sim.url, 'reports.php', { body: { project_id: 110 } }), ReportOne);
    sim.state.setFaults({
      malformed: { 102: 'html', 104: 'truncated', 105: 'success-false', 106: 'no-meta', 107: 'wrong-version', 108: 'not-found', 110: 'truncated' },
    });
    const used = sim.state.usage(0).daily_used;
    const post = (projectId: number) => api(sim.url, 'reports.php', { body: { project_id: projectId } });

    const html = await post(102);
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    const truncated = await post(104);
    expect(truncated.status).toBe(200);
    expect(truncated.json).toBeUndefined();
    expect(truncated.text.startsWith('{"success":true')).toBe(true);
    const notSuccess = await post(105);
    expect(notSuccess.status).toBe(200);
    expect(Envelope.parse(notSuccess.json).success).toBe(false);
    const noMeta = await post(106);
    expect(noMeta.status).toBe(200);
    expect(Envelope.safeParse(noMeta.json).success).toBe(false);
    expect((noMeta.json as { data: unknown }).data).toBeDefined();
    const wrongVersion = await post(107);
    expect(Envelope.parse(wrongVersion.json).meta.api_version).toBe('v2');
    errorOf(await post(108), 404, 'not_found');
    const readBack = await api(sim.url, `reports.php?id=${healthy.id}`);
    expect(readBack.json).toBeUndefined();
    expect(sim.state.usage(0).daily_used).toBe(used);

    expect(dataOf(await post(109), ReportOne).status).toBe('ready');
    expect(dataOf(await api(sim.url, 'projects.php?id=102'), ProjectOne).id).toBe(102);
    expect(sim.state.usage(0).daily_used).toBe(used + 2);
  });
});

describe('time and determinism', () => {
  it('serves identical data for the same seed and clock, and different data for another seed', async () => {
    const a = await simulator({ seed: 7 });
    const b = await simulator({ seed: 7 });
    const c = await simulator({ seed: 8 });
    const scanId = dataOf(await api(a.url, 'scans.php?project_id=120'), ScanList).scans[0]?.id;
    for (const path of ['projects.php?limit=100', `scans.php?id=${scanId}&include=all`, 'competitors.php', 'stats.php', 'recommendations.php?project_id=120']) {
      const [ra, rb] = [await api(a.url, path), await api(b.url, path)];
      expect(ra.status).toBe(200);
      expect((ra.json as { data: unknown }).data).toEqual((rb.json as { data: unknown }).data);
    }
    const names = async (sim: SimulatorHandle) => dataOf(await api(sim.url, 'projects.php?limit=100'), ProjectList).projects.map((p) => p.name);
    expect(await names(c)).not.toEqual(await names(a));
  });

  it('adds a history point and changes some recommendations when the clock moves to the next month', async () => {
    const time = mutableClock();
    const sim = await simulator({ clock: time.clock });
    const active = sim.state.projects().filter((p) => p.status === 'active');
    const snapshot = async () => {
      const out = new Map<number, { dates: string[]; recs: Array<string | number> }>();
      for (const project of active) {
        const scores = dataOf(await api(sim.url, `scores.php?project_id=${project.id}`), ProjectScores);
        const recs = dataOf(await api(sim.url, `recommendations.php?project_id=${project.id}`), RecommendationList);
        out.set(project.id, { dates: scores.history.map((h) => h.date), recs: recs.recommendations.map((r) => r.id ?? '') });
      }
      return out;
    };
    const november = await snapshot();
    time.set('2026-12-22T06:00:00.000Z');
    const december = await snapshot();
    let persisted = 0;
    let resolved = 0;
    let added = 0;
    for (const project of active) {
      const before = november.get(project.id);
      const after = december.get(project.id);
      expect(after?.dates.at(-1)).toBe('2026-12-01');
      expect(after?.dates.slice(0, -1)).toEqual(before?.dates.slice(before.dates.length === 12 ? 1 : 0));
      persisted += before?.recs.filter((id) => after?.recs.includes(id)).length ?? 0;
      resolved += before?.recs.filter((id) => !after?.recs.includes(id)).length ?? 0;
      added += after?.recs.filter((id) => !before?.recs.includes(id)).length ?? 0;
    }
    expect(resolved).toBeGreaterThan(0);
    expect(added).toBeGreaterThan(0);
    expect(persisted).toBeGreaterThan(3 * (resolved + added));
  });

  it('serves hostile names as plain JSON strings that still validate', async () => {
    const sim = await simulator({ hostileNames: true });
    const list = dataOf(await api(sim.url, 'projects.php?limit=100'), ProjectList);
    const names = list.projects.map((p) => p.name ?? '');
    expect(names).toContain('../../etc/passwd Bakery');
    expect(names.some((n) => n.includes('\u0000'))).toBe(true);
    expect(names.some((n) => n.includes('<img src="http://198.51.100.7/x.png">'))).toBe(true);
    const hostile = list.projects.find((p) => p.name?.includes('<script>'));
    const report = dataOf(await api(sim.url, 'reports.php', { body: { project_id: hostile?.id } }), ReportOne);
    expect(report.project_id).toBe(hostile?.id);
    dataOf(await api(sim.url, 'competitors.php'), CompetitorsAll);
  });
});

describe('simulator command', () => {
  it('prints where it listens and the demo token, serves, and stops when the signal aborts', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const running = runSimulatorCommand({ port: 0, out: (line) => lines.push(line), signal: controller.signal });
    await waitFor('the simulator to print its URL and token', () => lines.length >= 2, { state: () => lines });
    const url = /Simulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines[0] ?? '')?.[1];
    expect(url).toBeDefined();
    expect(lines[1]).toBe(`Demo token: ${DEMO_TOKEN}`);
    expect(dataOf(await api(url ?? '', 'projects.php'), ProjectList).total).toBe(36);
    controller.abort();
    await running;
    expect(lines.at(-1)).toBe('Simulator stopped');
    await expect(fetch(`${url}/api/v1/stats.php`)).rejects.toThrow();
  });

  it('labels custom tokens without printing them', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const secretToken = 'agency-private-token-9c41';
    const running = runSimulatorCommand({ port: 0, tokens: [secretToken], out: (line) => lines.push(line), signal: controller.signal });
    await waitFor('the simulator to print its URL and tokens', () => lines.length >= 2, { state: () => lines.length });
    controller.abort();
    await running;
    expect(lines.join('\n')).not.toContain(secretToken);
    expect(lines.join('\n')).toContain('token#1 (…9c41)');
  });
});
