// One hierarchy for everything the API client raises. Transport failures are ApiErrors (made by
// ApiError.generate from the HTTP status); a response of the wrong shape is a ResponseValidationError,
// which is not an ApiError: the call went through, the data did not fit. No message ever holds a token.
import { GeoReportsError } from '../errors.js';
import type { TokenStatus } from './tokens.js';
import type { Usage } from './schemas.js';

/** One API call as an error names it: enough to find the call again, never the token itself. */
export interface ApiCall {
  /** File name of the endpoint, e.g. `reports.php`. */
  endpoint: string;
  method: string;
  /** HTTP status of the answer; null when none arrived (connection failure, timeout, nothing sent). */
  status: number | null;
  /** Label of the token that sent the call, e.g. `token#2 (…f3a1)`; null when no token was used. */
  tokenLabel: string | null;
  /** Quota of that token as last reported by the API. */
  usage: Usage | null;
  projectId: number | null;
}

/** What the transport knows of a call when it fails; the rest of ApiCall defaults to null. */
export interface ApiCallContext extends Pick<ApiCall, 'endpoint' | 'method'>, Partial<Omit<ApiCall, 'endpoint' | 'method'>> {}

/** The call of a context, every field present. */
export function callOf(context: ApiCallContext, status: number | null = context.status ?? null): ApiCall {
  return {
    endpoint: context.endpoint,
    method: context.method,
    status,
    tokenLabel: context.tokenLabel ?? null,
    usage: context.usage ?? null,
    projectId: context.projectId ?? null,
  };
}

export interface ApiErrorInfo extends ApiCallContext {
  /** What went wrong, in words; a default is derived from the status when absent. */
  message?: string;
  /** Message the API put in the error body, if any (already free of secrets). */
  serverMessage?: string | null;
  hint?: string;
  cause?: unknown;
}

/** `GET reports.php (project 12, token#2 (…f3a1))` */
export function describeCall(context: ApiCallContext): string {
  const parts: string[] = [];
  if (context.projectId != null) parts.push(`project ${context.projectId}`);
  if (context.tokenLabel) parts.push(context.tokenLabel);
  return `${context.method} ${context.endpoint}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function defaultMessage(status: number | null, serverMessage: string | null | undefined): string {
  const head = status === null ? 'no response from the API' : `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  return serverMessage ? `${head}: ${serverMessage}` : head;
}

/** A call to the API that failed at the HTTP level: an error status or no response at all. */
export class ApiError extends GeoReportsError {
  /** The call that failed; `call.status` is null when no response arrived. */
  readonly call: Readonly<ApiCall>;

  constructor(status: number | null, info: ApiErrorInfo) {
    const text = info.message ?? defaultMessage(status, info.serverMessage);
    const options: { hint?: string; cause?: unknown } = { cause: info.cause };
    const hint = info.hint ?? hintFor(status);
    if (hint !== undefined) options.hint = hint;
    super(`${describeCall(info)} failed: ${text}`, options);
    this.call = callOf(info, status);
  }

  /** Picks the subclass that matches the status; `null` means the request got no response. */
  static generate(status: number | null, info: ApiErrorInfo): ApiError {
    if (status === null) return new ConnectionError(null, info);
    if (status === 401) return new AuthenticationError(status, info);
    if (status === 404) return new NotFoundError(status, info);
    if (status === 429) return new QuotaExhaustedError(status, info);
    if (status >= 400 && status < 500) return new InvalidRequestError(status, info);
    if (status >= 500) return new ServerError(status, info);
    return new ApiError(status, info);
  }
}

function hintFor(status: number | null): string | undefined {
  if (status === null) return 'Check the base URL and the network; the call is retried automatically when that is safe.';
  if (status === 401) return 'The token is missing or not valid: check AGENCY_API_TOKEN (a Premium or Business plan token).';
  if (status === 404) return 'The resource does not exist for this account: check the id.';
  if (status === 429) return 'This token has used its daily quota: add tokens to AGENCY_API_TOKEN or resume after the next UTC day starts.';
  if (status >= 400 && status < 500) return 'The API refused the request as sent: check the parameters.';
  if (status >= 500) return 'The API failed on its side; try again later.';
  return undefined;
}

/** 401: the token is missing or not valid. */
export class AuthenticationError extends ApiError {}
/** 404: the resource does not exist. */
export class NotFoundError extends ApiError {}
/** 429: that token's day is over. */
export class QuotaExhaustedError extends ApiError {}
/** Any other 4xx. */
export class InvalidRequestError extends ApiError {}
/** 5xx. */
export class ServerError extends ApiError {}
/** No response: connection refused, reset or dropped. */
export class ConnectionError extends ApiError {}

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total';
/** A deadline passed: connecting, waiting for headers, between body chunks, or for the whole request. */
export class TimeoutError extends ConnectionError {
  readonly phase: TimeoutPhase;
  constructor(phase: TimeoutPhase, info: ApiErrorInfo) {
    super(null, info);
    this.phase = phase;
  }
}

export interface ResponseValidationInfo extends ApiCallContext {
  status: number | null;
  /** One line per problem, `path: message` for schema issues. */
  issues: string[];
  /** What the body was, in words: `not JSON`, `an HTML page`, … */
  summary: string;
  hint?: string;
  cause?: unknown;
}

const MAX_ISSUES_IN_MESSAGE = 5;

/** The API answered, but not with a v1 envelope holding the data the endpoint promises. */
export class ResponseValidationError extends GeoReportsError {
  /** The call whose answer did not fit. */
  readonly call: Readonly<ApiCall>;
  readonly issues: string[];

  constructor(info: ResponseValidationInfo) {
    const shown = info.issues.slice(0, MAX_ISSUES_IN_MESSAGE);
    const more = info.issues.length > shown.length ? ` (+${info.issues.length - shown.length} more)` : '';
    const detail = shown.length > 0 ? `: ${shown.join('; ')}${more}` : '';
    super(`${describeCall(info)} returned ${info.status === null ? 'a response' : `HTTP ${info.status}`} with ${info.summary}${detail}`, {
      hint:
        info.hint ??
        'The API did not answer with the expected v1 shape: check the base URL (it must serve /api/v1/) and try again; report it to the API provider if it persists.',
      cause: info.cause,
    });
    this.call = callOf(info);
    this.issues = info.issues;
  }
}

/** `meta.api_version` is not `v1`: the data may mean something else, so it is not used. */
export class UnsupportedApiVersionError extends ResponseValidationError {
  readonly apiVersion: string;
  constructor(info: Omit<ResponseValidationInfo, 'summary' | 'issues'> & { apiVersion: string }) {
    super({
      ...info,
      summary: `API version "${info.apiVersion}" where v1 was expected`,
      issues: [`meta.api_version: expected "v1", got "${info.apiVersion}"`],
      hint: 'This tool speaks Agency Integration API v1 only: check the base URL, or upgrade geo-reports.',
    });
    this.apiVersion = info.apiVersion;
  }
}

/** An input was refused before any request was sent; no quota was spent. */
export class InvalidParameterError extends GeoReportsError {
  readonly parameter: string;
  constructor(parameter: string, message: string, hint?: string) {
    super(`Invalid ${parameter}: ${message}`, hint === undefined ? {} : { hint });
    this.parameter = parameter;
  }
}

/** Every token of the pool is exhausted or disabled for today: no request can be sent. */
export class TokensSpentError extends GeoReportsError {
  /** The call that found no token left; null when none was being made. */
  readonly call: Readonly<ApiCall> | null;
  readonly tokens: TokenStatus[];
  constructor(tokens: TokenStatus[], context: ApiCallContext | null, cause?: unknown) {
    const states = tokens.map((t) => `${t.label} ${t.state}`).join(', ');
    super(`${context ? `${describeCall({ ...context, tokenLabel: null })}: ` : ''}no API token has quota left today (${states})`, {
      hint: 'Every token has used its daily quota or was refused. Add tokens to AGENCY_API_TOKEN (up to 10) or resume after the next UTC day starts; finished work is kept.',
      cause,
    });
    this.call = context === null ? null : callOf({ ...context, tokenLabel: null });
    this.tokens = tokens;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
export const isResponseValidationError = (e: unknown): e is ResponseValidationError => e instanceof ResponseValidationError;
export const isTokensSpentError = (e: unknown): e is TokensSpentError => e instanceof TokensSpentError;
export const isNotFoundError = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
/** The request was cancelled through the client's AbortSignal. */
export const isAbortError = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
