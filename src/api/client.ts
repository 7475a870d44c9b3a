// Typed client of Agency Integration API v1: one method per operation of the spec. Inputs are checked
// before anything is sent; every answer is validated against src/api/schemas.ts before it is returned.
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import * as wire from './schemas.js';
import type {
  Analysis,
  Category,
  ContentData,
  Priority,
  Project,
  ProjectList,
  ProjectStatus,
  QuestionType,
  Report,
  ReportSection,
  Scan,
  ScanSection,
  Webhook,
  WebhookCreated,
  WebhookEvent,
  WebhookTestResult,
} from './schemas.js';
import { pause } from '../pause.js';
import { InvalidParameterError } from './errors.js';
import { Transport, type ApiEvent, type ApiRequest, type Endpoint, type HttpMethod, type RetryPolicy } from './http.js';
import type { TokenPool } from './tokens.js';
import {
  MAX_PAGE_SIZE,
  checkBoolean,
  checkEnum,
  checkEnumList,
  checkHttpUrl,
  checkId,
  checkLimit,
  checkNonEmptyText,
  checkOffset,
  checkStepNames,
} from './validate.js';
import type { RetryOptions } from './retry.js';

export type { ApiEvent, ApiEventType, Endpoint, HttpMethod } from './http.js';
export type ScanList = z.infer<typeof wire.ScanList>;
export type ScanSelector = { id: number } | { auditId: number };
export interface ScanReadOptions {
  /** Sections to deliver; `all` delivers every section, `metadata` and `html` included. */
  include?: Array<ScanSection | 'all'>;
  /** Sections to leave out. */
  exclude?: ScanSection[];
  /** SEO audit steps (e.g. `step3_serp`); needs `seo_audit` or `all` in `include`. */
  seoSteps?: string[];
}
export type RecommendationQuery = ({ projectId: number } | { scanId: number }) & {
  priority?: Priority;
  category?: Category;
};
export type ProjectScoresQuery = { projectId: number; last?: boolean; limit?: number };
export type ScanScoresQuery = { scanId: number };

/** Default rows per page when walking the project list. */
export const DEFAULT_PROJECT_PAGE_SIZE = 100;

export interface ApiClientOptions {
  /** Address of the service, e.g. `https://app.example.com`; endpoints are `${baseUrl}/api/v1/<name>.php`. */
  baseUrl: string;
  tokens: TokenPool;
  /** undici dispatcher. @default an Agent with the connect, headers and body timeouts below */
  dispatcher?: Dispatcher | undefined;
  /** @default { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 } */
  timeouts?: { connectMs?: number | undefined; headersMs?: number | undefined; bodyMs?: number | undefined; totalMs?: number | undefined } | undefined;
  /** Capped exponential backoff with full jitter. @default DEFAULT_RETRY (api/retry.ts) */
  retry?: RetryOptions | undefined;
  /** Waits between retries. @default pause: a timer that ends early, without an error, when the signal aborts */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** @default Math.random */
  random?: (() => number) | undefined;
  /** @default () => new Date() */
  clock?: (() => Date) | undefined;
  /** Cancels every call in flight and every wait (e.g. on SIGINT); calls reject with the signal's reason. */
  signal?: AbortSignal | undefined;
  onEvent?: ((event: ApiEvent) => void) | undefined;
  /** @default 'geo-reports/0.1.0' */
  userAgent?: string | undefined;
}

const RETRY_READ: RetryPolicy = 'idempotent';
// Creating calls are resent only when the request surely never left (refused / connect timeout): after a
// 5xx or a lost connection it may have been applied, and a resend would start a second analysis (no list
// to find it again), create a second webhook (double deliveries) or fire a second test delivery.
const RETRY_CREATE: RetryPolicy = 'unsent-only';
// A report is the exception: a duplicate is harmless and can be found again with `list=1`, so report
// creation is retried like a read. Without it a flaky night would leave reports undone.
const RETRY_REPORT: RetryPolicy = 'idempotent';

/** What the caller makes of one report answer (with the content readers). */
export type ReportVerdict = 'use' | 'finished-empty' | 'failed' | 'wait';

export interface WaitForReportOptions {
  id: number;
  projectId: number;
  judge(answer: Report): ReportVerdict;
  /** The answer already in hand (the POST's), judged before any read. */
  first?: Report | null;
  /** Longest total wait between reads, in ms. */
  maxWaitMs: number;
  /** Runs each read; null refuses it (quota used up, run stopped). @default the read, at once */
  gate?: <T>(read: () => Promise<T>) => Promise<T | null>;
  /** @default the client's sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

export type WaitForReportResult =
  | { kind: 'ready'; answer: Report }
  | { kind: 'failed'; answer: Report }
  | { kind: 'empty'; answer: Report }
  | { kind: 'timeout'; waitedMs: number }
  | { kind: 'stopped' };

const REPORT_FIRST_READ_MS = 1_000;
const REPORT_MAX_READ_MS = 15_000;

export class ApiClient {
  readonly tokens: TokenPool;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #transport: Transport;

  constructor(options: ApiClientOptions) {
    this.tokens = options.tokens;
    this.#sleep = options.sleep ?? pause;
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      tokens: options.tokens,
      ...optional('dispatcher', options.dispatcher),
      ...optional('timeouts', options.timeouts === undefined ? undefined : definedFields(options.timeouts)),
      ...optional('retry', options.retry === undefined ? undefined : definedFields(options.retry)),
      ...optional('sleep', options.sleep),
      ...optional('random', options.random),
      ...optional('clock', options.clock),
      ...optional('signal', options.signal),
      ...optional('onEvent', options.onEvent),
      ...optional('userAgent', options.userAgent),
    });
  }

  /** Requests sent so far, per token label (the labels never show a token). */
  requestsSent(): Record<string, number> {
    return this.tokens.sentByLabel();
  }

  /** Requests the tokens have left today, as far as the last answers told. */
  remainingToday(): number {
    return this.tokens.remaining();
  }

  /** Releases the connection pool the client created (not an injected dispatcher). */
  close(): Promise<void> {
    return this.#transport.close();
  }

  // ------------------------------------------------------------------ projects

  /** One page of projects. `limit` 1–100, `offset` ≥ 0. */
  async listProjects(params: { limit?: number; offset?: number; status?: ProjectStatus } = {}): Promise<ProjectList> {
    const query: Record<string, string | number> = {};
    if (params.limit !== undefined) query['limit'] = checkLimit('limit', params.limit);
    if (params.offset !== undefined) query['offset'] = checkOffset('offset', params.offset);
    if (params.status !== undefined) query['status'] = checkEnum('status', params.status, wire.PROJECT_STATUSES);
    return this.#get('projects.php', query, wire.ProjectList);
  }

  /**
   * Every project, page by page. Moves on by the number of rows actually received (the server may send
   * fewer than asked), stops at `total` or on an empty page, and never yields the same id twice.
   */
  async *iterateProjects(params: { status?: ProjectStatus; pageSize?: number } = {}): AsyncIterable<Project> {
    const pageSize = checkLimit('pageSize', params.pageSize ?? DEFAULT_PROJECT_PAGE_SIZE);
    const status = params.status === undefined ? undefined : checkEnum('status', params.status, wire.PROJECT_STATUSES);
    const seen = new Set<number>();
    let offset = 0;
    let total = Number.POSITIVE_INFINITY;
    // Every page but the last moves the offset by at least one row, so total + 1 pages always suffice.
    for (let page = 0; offset < total && page <= Math.min(total, Number.MAX_SAFE_INTEGER); page += 1) {
      const list = await this.listProjects({ limit: pageSize, offset, ...(status === undefined ? {} : { status }) });
      total = list.total;
      if (list.projects.length === 0) return;
      offset += list.projects.length;
      for (const project of list.projects) {
        if (seen.has(project.id)) continue;
        seen.add(project.id);
        yield project;
      }
    }
  }

  async getProject(id: number): Promise<Project> {
    const projectId = checkId('id', id);
    return this.#get('projects.php', { id: projectId }, wire.ProjectOne, projectId);
  }

  // ------------------------------------------------------------------ analyses

  /** Starts an analysis; not resent after a 5xx or a lost connection (it might start twice). */
  async startAnalysis(projectId: number, questionType?: QuestionType): Promise<Analysis> {
    const id = checkId('project_id', projectId);
    const body: Record<string, unknown> = { project_id: id };
    if (questionType !== undefined) body['question_type'] = checkEnum('question_type', questionType, wire.QUESTION_TYPES);
    return this.#post('analyze.php', body, wire.AnalysisOne, id);
  }

  async getAnalysis(id: number): Promise<Analysis> {
    return this.#get('analyze.php', { id: checkId('id', id) }, wire.AnalysisOne);
  }

  // ------------------------------------------------------------------ scores

  /** Scores of a project with its history; `last` keeps only the latest result, `limit` 1–100 caps the rows. */
  async getProjectScores(params: ProjectScoresQuery): Promise<ContentData> {
    const projectId = checkId('project_id', params.projectId);
    const query: Record<string, string | number> = { project_id: projectId };
    if (params.last !== undefined && checkBoolean('last', params.last)) query['last'] = 1;
    if (params.limit !== undefined) query['limit'] = checkLimit('limit', params.limit);
    return this.#get('scores.php', query, wire.ContentData, projectId);
  }

  /** Scores of one scan. */
  async getScanScores(params: ScanScoresQuery): Promise<ContentData> {
    return this.#get('scores.php', { scan_id: checkId('scan_id', params.scanId) }, wire.ContentData);
  }

  /** Either form of scores.php; prefer getProjectScores / getScanScores for a precise return type. */
  async getScores(params: ProjectScoresQuery | ScanScoresQuery): Promise<ContentData> {
    if ('scanId' in params && 'projectId' in params) {
      throw new InvalidParameterError('scan_id', 'give project_id or scan_id, not both');
    }
    return 'scanId' in params ? this.getScanScores(params) : this.getProjectScores(params);
  }

  // ------------------------------------------------------------------ recommendations

  async listRecommendations(params: RecommendationQuery): Promise<ContentData> {
    const query: Record<string, string | number> = {};
    let projectId: number | null = null;
    if ('projectId' in params && 'scanId' in params) {
      throw new InvalidParameterError('scan_id', 'give project_id or scan_id, not both');
    }
    if ('projectId' in params) {
      projectId = checkId('project_id', params.projectId);
      query['project_id'] = projectId;
    } else if ('scanId' in params) {
      query['scan_id'] = checkId('scan_id', params.scanId);
    } else {
      throw new InvalidParameterError('project_id', 'give project_id or scan_id');
    }
    if (params.priority !== undefined) query['priority'] = checkEnum('priority', params.priority, wire.PRIORITIES);
    if (params.category !== undefined) query['category'] = checkEnum('category', params.category, wire.CATEGORIES);
    return this.#get('recommendations.php', query, wire.ContentData, projectId);
  }

  // ------------------------------------------------------------------ scans

  async listScans(projectId: number): Promise<ScanList> {
    const id = checkId('project_id', projectId);
    return this.#get('scans.php', { project_id: id }, wire.ScanList, id);
  }

  /** One scan by id or audit id. Without include/exclude the API sends every section but metadata and html. */
  async getScan(selector: ScanSelector, options: ScanReadOptions = {}): Promise<Scan> {
    return this.#get('scans.php', scanQuery(selector, options), wire.ScanOne);
  }

  /**
   * One scan as the service sent it (`data`, whatever its shape), for the scan sections' readers: a scan section
   * the spec leaves "not shown" never fails the read, only the reader that cannot find its input.
   */
  async getScanData(selector: ScanSelector, options: ScanReadOptions = {}): Promise<ContentData> {
    return this.#get('scans.php', scanQuery(selector, options), wire.ScanData);
  }

  // ------------------------------------------------------------------ competitors

  /** Every project of the caller against the global benchmark. */
  async getCompetitors(): Promise<ContentData> {
    return this.#get('competitors.php', {}, wire.ContentData);
  }

  /** One project against the benchmark, with the caller's other projects. */
  async getProjectCompetitors(projectId: number): Promise<ContentData> {
    const id = checkId('project_id', projectId);
    return this.#get('competitors.php', { project_id: id }, wire.ContentData, id);
  }

  // ------------------------------------------------------------------ webhooks

  async listWebhooks(): Promise<Webhook[]> {
    return (await this.#get('webhooks.php', {}, wire.WebhookList)).webhooks;
  }

  /** Creates a webhook. The answer may hold the signing `secret`: keep it out of logs. */
  async createWebhook(webhook: { name: string; url: string; events: WebhookEvent[] }): Promise<WebhookCreated> {
    const body = {
      action: 'create',
      name: checkNonEmptyText('name', webhook.name),
      url: checkHttpUrl('url', webhook.url),
      events: checkEnumList('events', webhook.events, wire.WEBHOOK_EVENTS),
    };
    return this.#post('webhooks.php', body, wire.WebhookCreated);
  }

  /** Asks the service for a test delivery to that webhook. */
  async testWebhook(webhookId: number): Promise<WebhookTestResult> {
    return this.#post('webhooks.php', { action: 'test', webhook_id: checkId('webhook_id', webhookId) }, wire.WebhookTestResult);
  }

  // ------------------------------------------------------------------ reports

  /**
   * Generates a JSON report. The answer may be only an id and a status saying it is being built: then read
   * it later with getReport(id). Read the answer with readReport (src/content/report.ts).
   */
  async createReport(params: { projectId: number; include?: ReportSection[]; format?: 'json' }): Promise<Report> {
    const projectId = checkId('project_id', params.projectId);
    const body: Record<string, unknown> = {
      project_id: projectId,
      format: checkEnum('format', params.format ?? 'json', wire.REPORT_FORMATS),
    };
    if (params.include !== undefined) body['include'] = checkEnumList('include', params.include, wire.REPORT_SECTIONS);
    return this.#post('reports.php', body, wire.ContentData, projectId, RETRY_REPORT);
  }

  /** One report; `ctx.projectId` only names the project in errors. */
  async getReport(id: number, ctx: { projectId?: number } = {}): Promise<Report> {
    const projectId = ctx.projectId === undefined ? null : checkId('projectId', ctx.projectId);
    return this.#get('reports.php', { id: checkId('id', id) }, wire.ContentData, projectId);
  }

  /**
   * Reads back a report until `judge` says it can be used, failed or is finished but empty, or `maxWaitMs` of
   * waiting has passed; capped exponential backoff between reads. `first` is an answer already in hand (the
   * POST's). `gate` runs each read and may refuse it (returns null): the caller's concurrency slot, quota or
   * signal. A finished but empty report is read back once before it is given up.
   */
  async waitForReport(options: WaitForReportOptions): Promise<WaitForReportResult> {
    const gate = options.gate ?? (<T>(read: () => Promise<T>) => read());
    const sleep = options.sleep ?? this.#sleep;
    let answer = options.first ?? null;
    let waited = 0;
    let delay = REPORT_FIRST_READ_MS;
    let readBackEmpty = false;
    for (;;) {
      if (answer !== null) {
        const verdict = options.judge(answer);
        if (verdict === 'use') return { kind: 'ready', answer };
        if (verdict === 'failed') return { kind: 'failed', answer };
        if (verdict === 'finished-empty') {
          if (readBackEmpty) return { kind: 'empty', answer };
          readBackEmpty = true;
        } else {
          if (waited >= options.maxWaitMs) return { kind: 'timeout', waitedMs: waited };
          await sleep(delay, options.signal);
          waited += delay;
          delay = Math.min(delay * 2, REPORT_MAX_READ_MS);
        }
      }
      const next = await gate(() => this.getReport(options.id, { projectId: options.projectId }));
      if (next === null) return { kind: 'stopped' };
      answer = next;
    }
  }

  async listReports(): Promise<ContentData> {
    return this.#get('reports.php', { list: 1 }, wire.ContentData);
  }

  // ------------------------------------------------------------------ stats

  async getStats(): Promise<ContentData> {
    return this.#get('stats.php', {}, wire.ContentData);
  }

  // ------------------------------------------------------------------ transport

  #get<S extends z.ZodType>(endpoint: Endpoint, query: Record<string, string | number>, schema: S, projectId: number | null = null): Promise<z.output<S>> {
    return this.#send({ endpoint, method: 'GET', query, schema, projectId, retry: RETRY_READ });
  }

  #post<S extends z.ZodType>(
    endpoint: Endpoint,
    body: Record<string, unknown>,
    schema: S,
    projectId: number | null = null,
    retry: RetryPolicy = RETRY_CREATE,
  ): Promise<z.output<S>> {
    return this.#send({ endpoint, method: 'POST', body, schema, projectId, retry });
  }

  #send<S extends z.ZodType>(call: ApiRequest<S> & { method: HttpMethod }): Promise<z.output<S>> {
    return this.#transport.send(call);
  }
}

export { MAX_PAGE_SIZE };

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function definedFields<T extends Record<string, number | undefined>>(value: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** The query of a scan read: one selector, `include`, `exclude`, and `seo_steps` only with `include` of seo_audit. */
function scanQuery(selector: ScanSelector, options: ScanReadOptions): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  if ('id' in selector && 'auditId' in selector) throw new InvalidParameterError('id', 'give id or audit_id, not both');
  if ('id' in selector) query['id'] = checkId('id', selector.id);
  else if ('auditId' in selector) query['audit_id'] = checkId('audit_id', selector.auditId);
  else throw new InvalidParameterError('id', 'give id or audit_id');
  const include = options.include === undefined ? undefined : checkEnumList('include', options.include, [...wire.SCAN_SECTIONS, 'all']);
  if (include !== undefined) query['include'] = include.join(',');
  if (options.exclude !== undefined) query['exclude'] = checkEnumList('exclude', options.exclude, wire.SCAN_SECTIONS).join(',');
  if (options.seoSteps !== undefined) {
    const steps = checkStepNames('seo_steps', options.seoSteps);
    if (!include?.some((section) => section === 'seo_audit' || section === 'all')) {
      throw new InvalidParameterError('seo_steps', 'SEO audit steps apply only with include of seo_audit (or all)');
    }
    query['seo_steps'] = steps.join(',');
  }
  return query;
}
