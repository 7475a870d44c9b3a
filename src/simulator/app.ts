// Request pipeline of the simulator: record → faults → auth → quota → route → envelope. No listening here.
import type { Endpoint } from '../api/http.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnalysisTracker } from './analyses.js';
import { createDataset } from './data.js';
import { dialectErrorMembers, resolveDialect } from './dialects.js';
import { ENDPOINTS, reportRequestProject, type World } from './endpoints.js';
import { FaultInjector, faultBody, htmlErrorPage } from './faults.js';
import { ErrorResponse, invalid, meta, queryRecord, readBody, send, sendJson, successBody } from './http.js';
import { QuotaLedger } from './quota.js';
import { ReportStore } from './reports.js';
import { ScanStore } from './scans.js';
import {
  DEMO_TOKEN,
  type MalformedMode,
  type RecordedRequest,
  type SimulatorApp,
  type SimulatorOptions,
  type SimulatorState,
  type TokenUsage,
  type WebhookDeliveryRecord,
} from './types.js';
import { WebhookRegistry } from './webhooks.js';

const ENDPOINT_PATH = /^\/api\/v1\/([a-z_]+\.php)$/;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  now: Date;
}

export interface SimulatorAppWithShutdown extends SimulatorApp {
  /** Like close(), and resolves once deliveries in flight have settled. */
  shutdown(): Promise<void>;
}

/** The seeded world the endpoints answer from: the app serves it over HTTP, sample.ts reads it in process. */
export function createWorld(options: SimulatorOptions, clock: () => Date, deliveries: WebhookDeliveryRecord[] = []): World {
  const dataset = createDataset({
    seed: options.seed ?? 42,
    projectCount: Math.max(0, Math.floor(options.projectCount ?? 36)),
    hostileNames: options.hostileNames ?? false,
    ...(options.hostileRemoteUrl !== undefined ? { hostileRemoteUrl: options.hostileRemoteUrl } : {}),
    now: clock(),
  });
  const scans = new ScanStore(dataset);
  return {
    dataset,
    scans,
    analyses: new AnalysisTracker(scans),
    webhooks: new WebhookRegistry(options.webhookTimeoutMs ?? 5000, clock, deliveries),
    reports: new ReportStore(Math.max(0, options.reportProcessingReads ?? 0)),
    defaultPageSize: options.defaultPageSize ?? 20,
    reportMode: options.reportMode ?? 'full',
  };
}

export function createSimulatorApp(options: SimulatorOptions = {}): SimulatorAppWithShutdown {
  const clock = options.clock ?? (() => new Date());
  const sleep = options.sleep ?? defaultSleep;
  const tokens = options.tokens ?? [DEMO_TOKEN];
  const deliveries: WebhookDeliveryRecord[] = [];
  const world = createWorld(options, clock, deliveries);
  const { dataset } = world;
  const dialect = resolveDialect(options.dialect);
  const projectName = (id: number) => dataset.projects.find((p) => p.id === id)?.name ?? null;
  const requests: RecordedRequest[] = [];
  const quota = new QuotaLedger(options.dailyLimit ?? 5000, clock);
  const faults = new FaultInjector(options.faults ?? {});

  const state: SimulatorState = {
    requests,
    deliveries,
    setFaults: (next) => faults.set(next),
    usage: (tokenIndex) => quota.usage(tokenIndex),
    projects: () => dataset.projects.map(({ id, name, status, language }) => ({ id, name, status, language })),
  };

  function tokenIndexOf(header: string | undefined): number | null {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match?.[1]) return null;
    const index = tokens.indexOf(match[1]);
    return index === -1 ? null : index;
  }

  function reply(exchange: Exchange, status: number, body: unknown, headers: Record<string, string> = {}): void {
    exchange.record.status = status;
    sendJson(exchange.res, status, body, headers);
  }

  function replyError(exchange: Exchange, error: ErrorResponse, usage: TokenUsage | null): void {
    const failure = { endpoint: exchange.record.endpoint, status: error.status, code: error.code, message: error.message };
    const body = { success: false, ...dialectErrorMembers(dialect, failure), meta: meta(exchange.now, usage) };
    reply(exchange, error.status, body, error.headers);
  }

  /** The classic `data` of a handled request, in the words of the configured dialect. */
  function spoken(exchange: Exchange, data: unknown): unknown {
    const { endpoint, method, query, body } = exchange.record;
    return dialect.data({ endpoint, method, query, body, data, projectName });
  }

  async function malformedReply(exchange: Exchange, mode: MalformedMode, tokenIndex: number, run: () => Promise<unknown>): Promise<void> {
    const { now, res, record } = exchange;
    const usage = quota.usage(tokenIndex);
    if (mode === 'html') {
      record.status = 502;
      send(res, 502, htmlErrorPage(502), 'text/html; charset=utf-8');
      return;
    }
    if (mode === 'not-found') {
      replyError(exchange, new ErrorResponse(404, 'not_found', 'Report not found.'), usage);
      return;
    }
    if (mode === 'success-false') {
      reply(exchange, 200, { success: false, data: null, error: { code: 'report_failed', message: 'Report generation failed.' }, meta: meta(now, usage) });
      return;
    }
    const data = spoken(exchange, await run());
    if (mode === 'no-meta') {
      reply(exchange, 200, { success: true, data });
      return;
    }
    if (mode === 'wrong-version') {
      reply(exchange, 200, { success: true, data, meta: meta(now, usage, 'v2') });
      return;
    }
    const text = JSON.stringify(successBody(data, now, usage));
    record.status = 200;
    send(res, 200, text.slice(0, Math.floor(text.length / 2)), 'application/json; charset=utf-8');
  }

  async function process(exchange: Exchange): Promise<void> {
    const { req, res, record, now } = exchange;
    for (const { event, data } of world.analyses.sweep(now)) world.webhooks.dispatch(event, data);

    let raw = '';
    let bodyError: ErrorResponse | null = null;
    try {
      raw = await readBody(req);
    } catch (error) {
      bodyError = error instanceof ErrorResponse ? error : invalid('The request body could not be read.');
    }
    let body: unknown = null;
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        bodyError ??= invalid('The request body is not valid JSON.');
      }
    }
    record.body = body;

    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    const fault = faults.decide();
    if (fault.kind === 'drop') {
      record.status = 0;
      req.socket.destroy();
      res.destroy();
      return;
    }
    if (fault.kind === 'error') {
      const { contentType, body: text } = faultBody(fault.status);
      record.status = fault.status;
      send(res, fault.status, text, contentType, fault.status === 503 ? { 'Retry-After': '1' } : {});
      return;
    }

    const tokenIndex = record.tokenIndex;
    if (tokenIndex === null) {
      const error = new ErrorResponse(401, 'unauthorized', 'Missing or invalid bearer token.', { 'WWW-Authenticate': 'Bearer' });
      replyError(exchange, error, null);
      return;
    }
    if (quota.exhausted(tokenIndex)) {
      const error = new ErrorResponse(429, 'quota_exceeded', 'Daily request quota of this token is used up; it resets at 00:00 UTC.', {
        'Retry-After': String(quota.secondsUntilReset()),
      });
      replyError(exchange, error, quota.usage(tokenIndex));
      return;
    }

    const endpointName = ENDPOINT_PATH.exec(new URL(req.url ?? '/', 'http://simulator.invalid').pathname)?.[1];
    const endpoint = endpointName !== undefined && Object.hasOwn(ENDPOINTS, endpointName) ? ENDPOINTS[endpointName as Endpoint] : undefined;
    const method = req.method ?? 'GET';
    const run = async () => {
      if (!endpoint) throw new ErrorResponse(404, 'not_found', 'Unknown endpoint.');
      if (!endpoint.methods.includes(method)) {
        throw new ErrorResponse(405, 'method_not_allowed', `Method ${method} is not allowed here.`, { Allow: endpoint.methods.join(', ') });
      }
      if (bodyError) throw bodyError;
      const refusal = dialect.refuse?.({ endpoint: endpointName ?? '', method, query: record.query, body }) ?? null;
      if (refusal !== null) throw invalid(refusal);
      return endpoint.handler(world, { method, query: record.query, body, now });
    };

    const malformedProject = endpointName === 'reports.php' ? reportRequestProject(world, method, record.query, body) : null;
    const mode = malformedProject === null ? undefined : faults.malformedFor(malformedProject);
    if (mode !== undefined) {
      try {
        await malformedReply(exchange, mode, tokenIndex, run);
        return;
      } catch (error) {
        if (error instanceof ErrorResponse) {
          replyError(exchange, error, quota.usage(tokenIndex));
          return;
        }
        throw error;
      }
    }

    const usage = quota.consume(tokenIndex);
    try {
      const data = spoken(exchange, await run());
      reply(exchange, 200, successBody(data, now, usage));
    } catch (error) {
      if (error instanceof ErrorResponse) {
        replyError(exchange, error, usage);
        return;
      }
      throw error;
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const now = clock();
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      endpoint: url.pathname.split('/').pop() ?? '',
      query: queryRecord(url.searchParams),
      body: null,
      tokenIndex: tokenIndexOf(req.headers.authorization),
      status: 0,
      at: now.toISOString(),
    };
    requests.push(record);
    const exchange: Exchange = { req, res, record, now };
    process(exchange).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : 'unexpected failure';
      reply(exchange, 500, { success: false, error: { code: 'internal_error', message }, meta: meta(now, null) });
    });
  }

  const shutdown = () => world.webhooks.close();
  return { handle, state, close: () => void shutdown(), shutdown };
}
