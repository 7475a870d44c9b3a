// One handler per endpoint: input checks, then data from the seeded world. Each returns `data` or throws ErrorResponse.
import type { Endpoint } from '../api/http.js';
import {
  CATEGORIES,
  PRIORITIES,
  PROJECT_STATUSES,
  QUESTION_TYPES,
  REPORT_FORMATS,
  REPORT_SECTIONS,
  type QuestionType,
  type ReportSection,
} from '../api/schemas.js';
import type { AnalysisTracker } from './analyses.js';
import { HISTORY_MONTHS, monthLabel, monthNumber, recommendationsAt, type Dataset, type SimProject } from './data.js';
import { bodyInt, bodyObject, enumParam, intParam, invalid, notFound } from './http.js';
import { clamp, round1, streamFor } from './random.js';
import { buildReportSections, full, type ReportStore } from './reports.js';
import type { ScanRecord, ScanStore } from './scans.js';
import { applySelection, buildScanSections, parseSectionSelection } from './sections.js';
import type { ReportMode } from './types.js';
import { parseWebhookInput, publicWebhook, type WebhookRegistry } from './webhooks.js';

export interface World {
  dataset: Dataset;
  scans: ScanStore;
  analyses: AnalysisTracker;
  webhooks: WebhookRegistry;
  reports: ReportStore;
  defaultPageSize: number;
  reportMode: ReportMode;
}

export interface EndpointRequest {
  method: string;
  query: Record<string, string>;
  body: unknown;
  now: Date;
}

export type EndpointHandler = (world: World, request: EndpointRequest) => unknown;

const MAX_LIMIT = 100;
const BENCHMARK_SITES = 220;

function projectOr404(world: World, id: number): SimProject {
  const project = world.scans.project(id);
  if (!project) throw notFound(`Project ${id} not found.`);
  return project;
}

function projectView(world: World, project: SimProject, now: Date): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    domain: project.domain,
    status: project.status,
    language: project.language,
    created_at: project.createdAt,
    last_scan_at: world.scans.latest(project, now)?.createdAt.toISOString() ?? null,
  };
}

function scanSummary(scan: ScanRecord): Record<string, unknown> {
  return {
    id: scan.id,
    project_id: scan.projectId,
    audit_id: scan.auditId,
    status: 'completed',
    trigger: scan.kind === 'monthly' ? 'schedule' : 'analysis',
    question_type: scan.questionType,
    created_at: scan.createdAt.toISOString(),
    geo_score: scan.scores.geo_score,
    seo_score: scan.scores.seo_score,
  };
}

function snapshot(scan: ScanRecord): Record<string, unknown> {
  return {
    scan_id: scan.id,
    date: scan.createdAt.toISOString().slice(0, 10),
    geo_score: scan.scores.geo_score,
    seo_score: scan.scores.seo_score,
    trust_score: scan.scores.trust_score,
    ai_visibility: scan.scores.ai_visibility,
  };
}

function requireOneOf(query: Record<string, string>, names: readonly string[], endpoint: string): void {
  if (!names.some((n) => query[n] !== undefined)) throw invalid(`${endpoint} needs ${names.join(' or ')}.`);
}

export const projects: EndpointHandler = (world, { query, now }) => {
  const id = intParam(query, 'id');
  if (id !== undefined) return { project: projectView(world, projectOr404(world, id), now) };
  const limit = intParam(query, 'limit', 1, MAX_LIMIT) ?? world.defaultPageSize;
  const offset = intParam(query, 'offset') ?? 0;
  const status = enumParam(query, 'status', PROJECT_STATUSES);
  const matching = world.dataset.projects.filter((p) => status === undefined || p.status === status);
  return { projects: matching.slice(offset, offset + limit).map((p) => projectView(world, p, now)), total: matching.length, limit, offset };
};

export const analyze: EndpointHandler = (world, { method, query, body, now }) => {
  if (method === 'GET') {
    const id = intParam(query, 'id');
    if (id === undefined) throw invalid('analyze.php GET needs the analysis id.');
    const analysis = world.analyses.get(id);
    if (!analysis) throw notFound(`Analysis ${id} not found.`);
    return { analysis: world.analyses.view(analysis, now) };
  }
  const input = bodyObject(body);
  const projectId = bodyInt(input, 'project_id');
  if (projectId === undefined) throw invalid('Field project_id is required.');
  const questionType = input['question_type'] ?? 'general';
  if (typeof questionType !== 'string' || !(QUESTION_TYPES as readonly string[]).includes(questionType)) {
    throw invalid(`Field question_type must be one of ${QUESTION_TYPES.join(', ')}.`);
  }
  const analysis = world.analyses.start(projectOr404(world, projectId), questionType as QuestionType, now);
  return { analysis: world.analyses.view(analysis, now) };
};

export const scores: EndpointHandler = (world, { query, now }) => {
  requireOneOf(query, ['project_id', 'scan_id'], 'scores.php');
  const scanId = intParam(query, 'scan_id');
  const projectId = intParam(query, 'project_id');
  if (scanId !== undefined) {
    const scan = world.scans.scanById(scanId, now);
    if (!scan || (projectId !== undefined && scan.projectId !== projectId)) throw notFound(`Scan ${scanId} not found.`);
    return { scan_id: scan.id, project_id: scan.projectId, scores: snapshot(scan) };
  }
  const project = projectOr404(world, projectId ?? 0);
  const last = enumParam(query, 'last', ['0', '1']);
  const limit = intParam(query, 'limit', 1, MAX_LIMIT);
  const history = world.scans.projectScans(project, now).map(snapshot);
  const latest = history.at(-1) ?? null;
  const kept = last === '1' ? history.slice(-1) : limit !== undefined ? history.slice(-limit) : history;
  return { project_id: project.id, latest, history: kept };
};

export const recommendations: EndpointHandler = (world, { query, now }) => {
  requireOneOf(query, ['project_id', 'scan_id'], 'recommendations.php');
  const priority = enumParam(query, 'priority', PRIORITIES);
  const category = enumParam(query, 'category', CATEGORIES);
  const scanId = intParam(query, 'scan_id');
  const projectId = intParam(query, 'project_id');
  let project: SimProject;
  let scan: ScanRecord | null;
  if (scanId !== undefined) {
    scan = world.scans.scanById(scanId, now);
    if (!scan || (projectId !== undefined && scan.projectId !== projectId)) throw notFound(`Scan ${scanId} not found.`);
    project = projectOr404(world, scan.projectId);
  } else {
    project = projectOr404(world, projectId ?? 0);
    scan = world.scans.latest(project, now);
  }
  const month = scan?.month ?? project.lastScanMonth ?? monthNumber(now);
  const list = recommendationsAt(world.dataset, project, month)
    .filter((r) => (priority === undefined || r.priority === priority) && (category === undefined || r.category === category))
    .map((r) => ({ ...r, project_id: project.id, scan_id: scan?.id ?? null }));
  return { recommendations: list, total: list.length };
};

export const scans: EndpointHandler = (world, { query, now }) => {
  const selectors = ['project_id', 'id', 'audit_id'].filter((s) => query[s] !== undefined);
  if (selectors.length !== 1) throw invalid('scans.php needs exactly one of project_id, id, audit_id.');
  const selection = parseSectionSelection(query);
  if (typeof selection === 'string') throw invalid(selection);
  const projectId = intParam(query, 'project_id');
  if (projectId !== undefined) {
    const list = world.scans.projectScans(projectOr404(world, projectId), now).reverse().map(scanSummary);
    return { scans: list, total: list.length };
  }
  const id = intParam(query, 'id');
  const auditId = intParam(query, 'audit_id');
  const scan = id !== undefined ? world.scans.scanById(id, now) : world.scans.scanByAuditId(auditId ?? 0, now);
  if (!scan) throw notFound(id !== undefined ? `Scan ${id} not found.` : `No scan for audit ${auditId}.`);
  const project = projectOr404(world, scan.projectId);
  const sections = applySelection(buildScanSections(world.dataset, project, scan), selection);
  return { scan: { ...scanSummary(scan), completed_at: new Date(scan.createdAt.getTime() + 9 * 60_000).toISOString(), ...sections } };
};

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return round1((sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (pos - lo));
}

function stat(values: number[]): { average: number; median: number; p75: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    average: round1(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)),
    median: quantile(sorted, 0.5),
    p75: quantile(sorted, 0.75),
    p90: quantile(sorted, 0.9),
  };
}

function competitorRows(world: World, now: Date) {
  const month = monthNumber(now);
  const rng = streamFor(world.dataset.seed, 'benchmark', month);
  const bell = (center: number) => Math.round(clamp(center + (rng() + rng() + rng() - 1.5) * 34, 0, 100));
  const geoSample: number[] = [];
  const seoSample: number[] = [];
  for (let i = 0; i < BENCHMARK_SITES; i++) {
    geoSample.push(bell(47));
    seoSample.push(bell(55));
  }
  const latest = world.dataset.projects.map((project) => ({ project, scan: world.scans.latest(project, now) }));
  for (const { scan } of latest) {
    if (scan) {
      geoSample.push(scan.scores.geo_score);
      seoSample.push(scan.scores.seo_score);
    }
  }
  const benchmark = { geo_score: stat(geoSample), seo_score: stat(seoSample), sample_size: geoSample.length };
  const rows = latest.map(({ project, scan }) => {
    if (!scan) {
      return {
        project_id: project.id,
        name: project.name,
        scores: { geo_score: null, seo_score: null },
        percentile: null,
        vs_benchmark: { geo_score: null, seo_score: null },
      };
    }
    const geo = scan.scores.geo_score;
    const seo = scan.scores.seo_score;
    return {
      project_id: project.id,
      name: project.name,
      scores: { geo_score: geo, seo_score: seo },
      percentile: Math.round((geoSample.filter((v) => v < geo).length / geoSample.length) * 100),
      vs_benchmark: { geo_score: round1(geo - benchmark.geo_score.average), seo_score: round1(seo - benchmark.seo_score.average) },
    };
  });
  return { benchmark, rows };
}

export const competitors: EndpointHandler = (world, { query, now }) => {
  const projectId = intParam(query, 'project_id');
  const { benchmark, rows } = competitorRows(world, now);
  if (projectId === undefined) return { benchmark, projects: rows };
  projectOr404(world, projectId);
  const row = rows.find((r) => r.project_id === projectId);
  return { ...row, benchmark, other_projects: rows.filter((r) => r.project_id !== projectId) };
};

export const stats: EndpointHandler = (world, { now }) => {
  const current = monthNumber(now);
  const all = world.scans.allScans(now);
  const latest = world.dataset.projects
    .map((project) => ({ project, scan: world.scans.latest(project, now) }))
    .filter((entry): entry is { project: SimProject; scan: ScanRecord } => entry.scan !== null);
  const mean = (values: number[]) => (values.length === 0 ? null : round1(values.reduce((a, b) => a + b, 0) / values.length));
  const evolution = [];
  for (let month = current - HISTORY_MONTHS + 1; month <= current; month++) {
    const inMonth = all.filter((s) => s.month === month);
    evolution.push({ month: monthLabel(month), average_score: mean(inMonth.map((s) => s.scores.geo_score)), scans: inMonth.length });
  }
  return {
    projects_count: world.dataset.projects.length,
    projects_by_status: Object.fromEntries(PROJECT_STATUSES.map((s) => [s, world.dataset.projects.filter((p) => p.status === s).length])),
    scans_count: all.length,
    average_score: mean(latest.map((e) => e.scan.scores.geo_score)),
    top_projects: [...latest]
      .sort((a, b) => b.scan.scores.geo_score - a.scan.scores.geo_score || a.project.id - b.project.id)
      .slice(0, 5)
      .map((e) => ({ project_id: e.project.id, name: e.project.name, geo_score: e.scan.scores.geo_score })),
    evolution,
  };
};

export const webhooks: EndpointHandler = async (world, { method, body }) => {
  if (method === 'GET') {
    const list = world.webhooks.list().map(publicWebhook);
    return { webhooks: list, total: list.length };
  }
  const input = bodyObject(body);
  const action = input['action'];
  if (action === 'create') return { webhook: world.webhooks.create(parseWebhookInput(input)) };
  if (action === 'test') {
    const webhookId = bodyInt(input, 'webhook_id');
    if (webhookId === undefined) throw invalid('Field webhook_id is required for action test.');
    const webhook = world.webhooks.get(webhookId);
    if (!webhook) throw notFound(`Webhook ${webhookId} not found.`);
    const status = await world.webhooks.deliver(webhook, 'test', { webhook_id: webhook.id });
    return { delivered: status !== null && status >= 200 && status < 300, status_code: status, webhook_id: webhook.id };
  }
  throw invalid('Field action must be create or test.');
};

/** Project a reports.php request is about, for per-project faults; null when it names none. */
export function reportRequestProject(world: World, method: string, query: Record<string, string>, body: unknown): number | null {
  if (method === 'POST' && typeof body === 'object' && body !== null) {
    const raw = (body as Record<string, unknown>)['project_id'];
    const id = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    return typeof id === 'number' && Number.isInteger(id) ? id : null;
  }
  if (method === 'GET' && query['id'] !== undefined && /^\d+$/.test(query['id'])) {
    return world.reports.get(Number(query['id']))?.projectId ?? null;
  }
  return null;
}

function parseInclude(raw: unknown): ReportSection[] {
  if (raw === undefined || raw === null) return [...REPORT_SECTIONS];
  const known = REPORT_SECTIONS as readonly string[];
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((s): s is ReportSection => typeof s === 'string' && known.includes(s))) {
    throw invalid(`Field include must be a non-empty array of ${REPORT_SECTIONS.join(', ')}.`);
  }
  return REPORT_SECTIONS.filter((s) => raw.includes(s));
}

export const reports: EndpointHandler = (world, { method, query, body, now }) => {
  if (method === 'GET') {
    const id = intParam(query, 'id');
    if (id !== undefined) {
      const report = world.reports.get(id);
      if (!report) throw notFound(`Report ${id} not found.`);
      return { report: world.reports.read(report) };
    }
    if (query['list'] === '1') {
      const projectId = intParam(query, 'project_id');
      const list = world.reports.list(projectId).map((record) => world.reports.listed(record));
      return { reports: list, total: list.length };
    }
    throw invalid('reports.php GET needs id or list=1.');
  }
  const input = bodyObject(body);
  const projectId = bodyInt(input, 'project_id');
  if (projectId === undefined) throw invalid('Field project_id is required.');
  const format = input['format'] ?? 'json';
  if (typeof format !== 'string' || !(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw invalid(`Field format must be one of ${REPORT_FORMATS.join(', ')}.`);
  }
  const include = parseInclude(input['include']);
  const project = projectOr404(world, projectId);
  const record = world.reports.add(project.id, include, buildReportSections(world.dataset, world.scans, project, include, now), now);
  if (world.reportMode === 'id-only') return { report: { id: record.id, status: 'ready' } };
  if (world.reportMode === 'processing') return { report: { id: record.id, status: 'processing' } };
  return { report: full(record) };
};

export const ENDPOINTS: Record<Endpoint, { methods: readonly string[]; handler: EndpointHandler }> = {
  'projects.php': { methods: ['GET'], handler: projects },
  'analyze.php': { methods: ['GET', 'POST'], handler: analyze },
  'scores.php': { methods: ['GET'], handler: scores },
  'recommendations.php': { methods: ['GET'], handler: recommendations },
  'scans.php': { methods: ['GET'], handler: scans },
  'competitors.php': { methods: ['GET'], handler: competitors },
  'webhooks.php': { methods: ['GET', 'POST'], handler: webhooks },
  'reports.php': { methods: ['GET', 'POST'], handler: reports },
  'stats.php': { methods: ['GET'], handler: stats },
};
