// Transport of API v1 calls: one undici request per attempt, a token chosen from the pool for each,
// deadlines for every phase, and the rules for when a failed call may be sent again.
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { ApiError, AuthenticationError, ConnectionError, TimeoutError, TokensSpentError, type ApiCallContext, type TimeoutPhase } from './errors.js';
import { findUsage, parseErrorJson, parseJson, readErrorBody, readSuccess } from './envelope.js';
import type { AcquiredToken, TokenPool } from './tokens.js';
import type { Usage } from './schemas.js';
import { backoffDelay, DEFAULT_RETRY, type RetrySettings } from './retry.js';

export { backoffDelay, DEFAULT_RETRY, type RetryOptions, type RetrySettings } from './retry.js';

export type Endpoint =
  'projects.php' | 'analyze.php' | 'scores.php' | 'recommendations.php' | 'scans.php' | 'competitors.php' | 'webhooks.php' | 'reports.php' | 'stats.php';

export type HttpMethod = 'GET' | 'POST';

/**
 * When a failed call may be sent again.
 * - `idempotent`: reading calls; resent after a 5xx, a timeout or a lost connection.
 * - `unsent-only`: calls that create something; resent only when the request surely never reached the
 *   server (connection refused, connect timeout), since a resend after that could create a duplicate.
 */
export type RetryPolicy = 'idempotent' | 'unsent-only';

export interface ApiRequest<S extends z.ZodType> {
  endpoint: Endpoint;
  method: HttpMethod;
  query?: Record<string, string | number>;
  body?: Record<string, unknown>;
  projectId?: number | null;
  retry: RetryPolicy;
  /** Schema of `data` in the envelope. */
  schema: S;
}

export type ApiEventType = 'request' | 'response' | 'retry' | 'token-exhausted' | 'token-disabled';

export interface ApiEvent {
  type: ApiEventType;
  endpoint: Endpoint;
  method: HttpMethod;
  tokenLabel: string;
  at: Date;
  status?: number;
  /** 1-based count of sends for this call, token changes included. */
  attempt?: number;
  /** Wait before the next send (retry events). */
  delayMs?: number;
  error?: Error;
}

export interface Timeouts {
  /** @default 10_000 */
  connectMs: number;
  /** @default 30_000 */
  headersMs: number;
  /** Longest pause between two body chunks. @default 30_000 */
  bodyMs: number;
  /** Deadline for one send, from connecting to the last body byte. @default 60_000 */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 };
export const DEFAULT_USER_AGENT = 'geo-reports/0.1.0';

export interface TransportOptions {
  baseUrl: string;
  tokens: TokenPool;
  dispatcher?: Dispatcher;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetrySettings>;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  clock?: () => Date;
  signal?: AbortSignal;
  onEvent?: (event: ApiEvent) => void;
  userAgent?: string;
}

const defaultSleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
  await delay(ms, undefined, signal === undefined ? {} : { signal });
};

/** Error codes meaning the connection was never made, so the request was never sent. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Error codes of a connection lost or broken after it was made. */
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
const TIMEOUT_CODES: Record<string, TimeoutPhase> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

function errorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError whose members carry the code.
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) ? errorCode(inner[0]) : null;
}

type AttemptOutcome<T> = { kind: 'data'; data: T } | { kind: 'next-token'; error: ApiError } | { kind: 'failed'; error: ApiError; unsent: boolean };

export class Transport {
  readonly tokens: TokenPool;
  readonly #endpointBase: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeouts: Timeouts;
  readonly #retry: RetrySettings;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #clock: () => Date;
  readonly #signal: AbortSignal | undefined;
  readonly #attempts: AttemptSignals;
  readonly #onEvent: (event: ApiEvent) => void;
  readonly #userAgent: string;

  constructor(options: TransportOptions) {
    this.#endpointBase = endpointBase(options.baseUrl);
    this.tokens = options.tokens;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(options.timeouts) };
    this.#retry = { ...DEFAULT_RETRY, ...definedOnly(options.retry) };
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        // A connection is kept until 1 s before the server says it closes idle ones (undici's default margin is
        // 2 s: a server announcing `Keep-Alive: timeout=2` would get a new connection for every request). A
        // server announcing 1 s or less still gets one connection per request, as before.
        keepAliveTimeoutThreshold: 1_000,
        connectTimeout: this.#timeouts.connectMs,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
      });
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? (() => new Date());
    this.#signal = options.signal;
    this.#attempts = new AttemptSignals(options.signal);
    this.#onEvent = options.onEvent ?? (() => undefined);
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  }

  /** Sends a call until it succeeds, fails for good, or runs out of tokens; returns the validated data. */
  async send<S extends z.ZodType>(call: ApiRequest<S>): Promise<z.output<S>> {
    const context: ApiCallContext = { endpoint: call.endpoint, method: call.method, projectId: call.projectId ?? null };
    let retries = 0;
    let lastError: ApiError | null = null;
    // Each token can be given up at most once per call (429, 401), so this bound is never the reason to stop.
    const maxSends = this.#retry.maxRetries + 1 + this.tokens.size;
    for (let send = 1; send <= maxSends; send += 1) {
      this.#throwIfAborted();
      const token = await this.tokens.take(this.#signal);
      if (token === null) throw this.#noTokenLeft(context, lastError);
      let outcome: AttemptOutcome<z.output<S>>;
      try {
        outcome = await this.#attempt(call, token, send);
      } finally {
        this.tokens.settle(token.index);
      }
      if (outcome.kind === 'data') return outcome.data;
      lastError = outcome.error;
      if (outcome.kind === 'next-token') continue;
      // Only 5xx and lost connections reach here; 4xx were thrown at once.
      const retryable = call.retry === 'idempotent' || outcome.unsent;
      if (!retryable || retries >= this.#retry.maxRetries) throw outcome.error;
      retries += 1;
      const waitMs = backoffDelay(retries, this.#retry, this.#random);
      this.#emit({ type: 'retry', call, token, attempt: send, delayMs: waitMs, error: outcome.error });
      try {
        await this.#sleep(waitMs, this.#signal);
      } catch (error) {
        this.#throwIfAborted();
        throw error;
      }
    }
    throw lastError ?? new ConnectionError(null, { ...context, message: 'no send was possible' });
  }

  /** Closes the connection pool when this transport created it. */
  async close(): Promise<void> {
    this.#attempts.close();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #attempt<S extends z.ZodType>(call: ApiRequest<S>, token: AcquiredToken, send: number): Promise<AttemptOutcome<z.output<S>>> {
    const context = (usage: Usage | null): ApiCallContext => ({
      endpoint: call.endpoint,
      method: call.method,
      projectId: call.projectId ?? null,
      tokenLabel: token.label,
      usage: usage ?? this.tokens.status()[token.index]?.usage ?? null,
    });
    const abort = this.#attempts.open(this.#timeouts.totalMs);
    try {
      return await this.#exchange(call, token, send, abort, context);
    } finally {
      abort.dispose();
    }
  }

  async #exchange<S extends z.ZodType>(
    call: ApiRequest<S>,
    token: AcquiredToken,
    send: number,
    abort: AttemptAbort,
    context: (usage: Usage | null) => ApiCallContext,
  ): Promise<AttemptOutcome<z.output<S>>> {
    const { signal, deadline } = abort;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);

    this.tokens.countRequest(token.index);
    this.#emit({ type: 'request', call, token, attempt: send });
    let status: number;
    let text: string;
    try {
      const response = await request(this.#url(call), {
        method: call.method,
        dispatcher: this.#dispatcher,
        signal,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
        headers: {
          authorization: `Bearer ${token.token}`,
          accept: 'application/json',
          'user-agent': this.#userAgent,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      this.#throwIfAborted();
      const failure = this.#transportFailure(error, deadline, context(null));
      this.#emit({ type: 'response', call, token, attempt: send, error: failure.error });
      return { kind: 'failed', ...failure };
    }
    // A server that echoes the token must not put it into our errors or data.
    text = text.replaceAll(token.token, token.label);
    this.#emit({ type: 'response', call, token, attempt: send, status });

    const responseContext = (usage: Usage | null) => ({ ...context(usage), status });
    if (status >= 200 && status < 300) {
      const parsed = parseJson(text, responseContext(null));
      const usage = findUsage(parsed);
      if (usage !== null) this.#recordUsage(call, token, usage);
      return { kind: 'data', data: readSuccess(parsed, call.schema, responseContext(usage)) };
    }

    const { serverMessage, usage } = readErrorBody(parseErrorJson(text));
    if (status === 429) {
      this.tokens.markExhausted(token.index, usage ?? undefined);
      const error = ApiError.generate(status, { ...context(usage), serverMessage });
      this.#emit({ type: 'token-exhausted', call, token, status, error });
      return { kind: 'next-token', error };
    }
    if (usage !== null) this.#recordUsage(call, token, usage);
    const error = ApiError.generate(status, { ...context(usage), serverMessage });
    if (status === 401) {
      this.tokens.markUnauthorized(token.index);
      this.#emit({ type: 'token-disabled', call, token, status, error });
      return { kind: 'next-token', error };
    }
    if (status >= 500) return { kind: 'failed', error, unsent: false };
    throw error;
  }

  #recordUsage(call: ApiRequest<z.ZodType>, token: AcquiredToken, usage: Usage): void {
    const before = this.tokens.status()[token.index]?.state;
    this.tokens.record(token.index, usage);
    const after = this.tokens.status()[token.index]?.state;
    if (after === 'exhausted' && before !== 'exhausted') this.#emit({ type: 'token-exhausted', call, token });
  }

  /** Turns an undici failure into a ConnectionError or TimeoutError; rethrows anything else (a bug). */
  #transportFailure(error: unknown, deadline: AbortSignal, context: ApiCallContext): { error: ApiError; unsent: boolean } {
    if (deadline.aborted) {
      return {
        error: new TimeoutError('total', {
          ...context,
          message: `no complete response within ${this.#timeouts.totalMs} ms`,
          cause: error,
        }),
        unsent: false,
      };
    }
    const code = errorCode(error);
    const phase = code === null ? undefined : TIMEOUT_CODES[code];
    if (phase !== undefined) {
      const limit = { connect: this.#timeouts.connectMs, headers: this.#timeouts.headersMs, body: this.#timeouts.bodyMs, total: this.#timeouts.totalMs }[phase];
      const what = { connect: 'connection not made', headers: 'no response headers', body: 'response body stalled', total: 'no complete response' }[phase];
      return {
        error: new TimeoutError(phase, { ...context, message: `${what} within ${limit} ms`, cause: error }),
        unsent: phase === 'connect',
      };
    }
    if (code !== null && UNSENT_CODES.has(code)) {
      return { error: new ConnectionError(null, { ...context, message: `could not connect (${code})`, cause: error }), unsent: true };
    }
    if (code !== null && (LOST_CODES.has(code) || code.startsWith('HPE_'))) {
      return {
        error: new ConnectionError(null, { ...context, message: `connection lost before a complete response (${code})`, cause: error }),
        unsent: false,
      };
    }
    throw error;
  }

  #noTokenLeft(context: ApiCallContext, lastError: ApiError | null): Error {
    if (this.tokens.allUnauthorized()) {
      if (lastError instanceof AuthenticationError) return lastError;
      return new AuthenticationError(401, {
        ...context,
        message: `every token of the pool was refused (401) earlier; ${this.tokens.size} token(s) disabled`,
      });
    }
    return new TokensSpentError(this.tokens.status(), context, lastError ?? undefined);
  }

  #throwIfAborted(): void {
    if (this.#signal?.aborted) {
      throw this.#signal.reason instanceof Error ? this.#signal.reason : new DOMException('The API call was aborted.', 'AbortError');
    }
  }

  #url(call: ApiRequest<z.ZodType>): string {
    const url = new URL(`${this.#endpointBase}${call.endpoint}`);
    for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, String(value));
    return url.toString();
  }

  #emit(event: {
    type: ApiEventType;
    call: ApiRequest<z.ZodType>;
    token: AcquiredToken;
    attempt?: number;
    status?: number;
    delayMs?: number;
    error?: Error;
  }): void {
    const { call, token, ...rest } = event;
    this.#onEvent({ ...rest, endpoint: call.endpoint, method: call.method, tokenLabel: token.label, at: this.#clock() });
  }
}

/** `https://app.example.com/` → `https://app.example.com/api/v1/` */
function endpointBase(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`The API base URL ${JSON.stringify(baseUrl)} is not a URL.`, {
      hint: 'Use the address of the service, e.g. https://app.example.com',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`The API base URL must use http or https, not ${url.protocol}`);
  }
  if (url.search !== '' || url.hash !== '') throw new ConfigError('The API base URL must not carry a query or a fragment.');
  // A base URL given with the version path already (…/api/v1) is accepted as the same service.
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}/api/v1/`;
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

interface AttemptAbort {
  /** Aborted by the deadline or by the caller's signal. */
  signal: AbortSignal;
  /** Aborted only by the deadline: tells a total timeout from a cancel. */
  deadline: AbortSignal;
  dispose(): void;
}

/**
 * Abort signals of the attempts in flight, all cancelled by the caller's signal through one listener.
 * AbortSignal.any would add a listener to the long-lived caller signal per attempt, which outlives the
 * attempt and piles up (MaxListenersExceededWarning in a long batch).
 */
class AttemptSignals {
  readonly #active = new Set<AbortController>();
  readonly #parent: AbortSignal | undefined;
  readonly #onParentAbort = (): void => {
    for (const controller of this.#active) controller.abort(this.#parent?.reason);
  };

  constructor(parent: AbortSignal | undefined) {
    this.#parent = parent;
    parent?.addEventListener('abort', this.#onParentAbort, { once: true });
  }

  open(totalMs: number): AttemptAbort {
    const deadline = new AbortController();
    const combined = new AbortController();
    const timer = setTimeout(() => {
      const reason = new DOMException(`no complete response within ${totalMs} ms`, 'TimeoutError');
      deadline.abort(reason);
      combined.abort(reason);
    }, totalMs);
    if (this.#parent?.aborted === true) combined.abort(this.#parent.reason);
    else this.#active.add(combined);
    return {
      signal: combined.signal,
      deadline: deadline.signal,
      dispose: () => {
        clearTimeout(timer);
        this.#active.delete(combined);
      },
    };
  }

  close(): void {
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}
