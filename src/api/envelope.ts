// Reading a response body: JSON, then the v1 envelope, then the endpoint's data schema. Each step that
// fails becomes a ResponseValidationError that says what the body was instead.
import type { z } from 'zod';
import { ErrorEnvelope, Envelope, Usage } from './schemas.js';
import { ResponseValidationError, UnsupportedApiVersionError, type ApiCallContext } from './errors.js';
import { errorMessage } from '../errors.js';

export const SUPPORTED_API_VERSION = 'v1';
const MAX_SERVER_MESSAGE = 300;
const MAX_ISSUES = 20;

export interface ResponseContext extends ApiCallContext {
  status: number;
}

type Issue = z.core.$ZodIssue;

const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');

/** Zod issues as `path: message` lines; a union lists what each accepted shape missed. */
export function summariseIssues(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      for (const branch of issue.errors) lines.push(...summariseIssues(branch, path));
    } else {
      lines.push(`${formatPath(path) || '(root)'}: ${issue.message}`);
    }
  }
  return [...new Set(lines)].slice(0, MAX_ISSUES);
}

/** Parses a body as JSON, naming what it was when it is not. */
export function parseJson(text: string, context: ResponseContext): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const trimmed = text.trimStart();
    const summary =
      trimmed === ''
        ? 'an empty body instead of JSON'
        : trimmed.startsWith('<')
          ? 'an HTML page instead of JSON'
          : trimmed.startsWith('{') || trimmed.startsWith('[')
            ? 'JSON that is cut off or malformed'
            : 'a body that is not JSON';
    throw new ResponseValidationError({
      ...context,
      summary,
      issues: [errorMessage(error)],
      cause: error,
    });
  }
}

/** `meta.usage` of any body, when it is there and well-formed. */
export function findUsage(body: unknown): Usage | null {
  if (typeof body !== 'object' || body === null) return null;
  const meta = (body as { meta?: unknown }).meta;
  if (typeof meta !== 'object' || meta === null) return null;
  const parsed = Usage.safeParse((meta as { usage?: unknown }).usage);
  return parsed.success ? parsed.data : null;
}

/**
 * Checks the envelope of a 2xx body and returns its data validated by `schema`.
 * `body` has already been parsed from JSON (see parseJson) and its usage recorded.
 */
export function readSuccess<S extends z.ZodType>(body: unknown, schema: S, context: ResponseContext): z.output<S> {
  const meta = typeof body === 'object' && body !== null ? (body as { meta?: unknown }).meta : undefined;
  const version = typeof meta === 'object' && meta !== null ? (meta as { api_version?: unknown }).api_version : undefined;
  if (typeof version === 'string' && version !== SUPPORTED_API_VERSION) {
    throw new UnsupportedApiVersionError({ ...context, apiVersion: version.slice(0, 20) });
  }
  // success:false bodies often carry no `data`; say what they are rather than which keys are missing.
  if (typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false) {
    const message = readErrorBody(body).serverMessage;
    throw new ResponseValidationError({
      ...context,
      summary: 'success: false on a 2xx status',
      issues: [message === null ? 'success: false without an error message' : `error: ${message}`],
    });
  }
  const envelope = Envelope.safeParse(body);
  if (!envelope.success || !envelope.data.success) {
    throw new ResponseValidationError({
      ...context,
      summary: 'a body that is not the v1 envelope (success, data, meta)',
      issues: envelope.success ? ['success: expected true'] : summariseIssues(envelope.error.issues),
    });
  }
  const data = schema.safeParse(envelope.data.data);
  if (!data.success) {
    // The envelope is v1, so the base URL is right: what differs is a field the spec names.
    throw new ResponseValidationError({
      ...context,
      summary: 'a v1 envelope whose data lacks a field the spec names, or gives it a value the spec does not allow',
      issues: summariseIssues(data.error.issues, ['data']),
      hint: 'The service answers in the v1 envelope, so the base URL is right. Run `geo-reports doctor --save DIR` and send the saved answers (tokens removed) to the API provider or to the geo-reports maintainers.',
    });
  }
  return data.data;
}

export interface ErrorBody {
  serverMessage: string | null;
  usage: Usage | null;
}

/** What an error response says, as far as it can be read; never throws (the status decides the error). */
export function readErrorBody(body: unknown): ErrorBody {
  const parsed = ErrorEnvelope.safeParse(body);
  if (!parsed.success) return { serverMessage: null, usage: findUsage(body) };
  const { error, message } = parsed.data;
  const text = typeof error === 'string' ? error : (error?.message ?? message ?? error?.code ?? null);
  return {
    serverMessage: text === null ? null : cleanMessage(text),
    usage: parsed.data.meta?.usage ?? null,
  };
}

/** One line, bounded: a server message goes into our own error message. */
function cleanMessage(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SERVER_MESSAGE ? `${line.slice(0, MAX_SERVER_MESSAGE)}…` : line;
}

/** Parses an error body when it is JSON; anything else (an HTML 502 page) reads as no body. */
export function parseErrorJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
