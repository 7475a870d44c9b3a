// Envelope, error and parameter helpers shared by the simulator's endpoint handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenUsage } from './types.js';

export const API_VERSION = 'v1';
const MAX_BODY_BYTES = 1_000_000;

/** A handled failure: becomes `{success:false, error:{code, message}}` with this status. */
export class ErrorResponse extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ErrorResponse';
  }
}

export const invalid = (message: string) => new ErrorResponse(400, 'invalid_request', message);
export const notFound = (message: string) => new ErrorResponse(404, 'not_found', message);

export function meta(now: Date, usage: TokenUsage | null, apiVersion = API_VERSION): Record<string, unknown> {
  return usage === null ? { timestamp: now.toISOString(), api_version: apiVersion } : { timestamp: now.toISOString(), api_version: apiVersion, usage };
}

export function successBody(data: unknown, now: Date, usage: TokenUsage): Record<string, unknown> {
  return { success: true, data, meta: meta(now, usage) };
}

export function send(res: ServerResponse, status: number, body: string, contentType: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ErrorResponse(413, 'payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function queryRecord(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in out)) out[key] = value;
  return out;
}

/** Optional integer query parameter within [min, max]; 400 when malformed. */
export function intParam(query: Record<string, string>, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) throw invalid(`Parameter ${name} must be an integer, got "${raw.slice(0, 40)}".`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw invalid(`Parameter ${name} must be between ${min} and ${max}, got ${value}.`);
  return value;
}

export function enumParam<T extends string>(query: Record<string, string>, name: string, allowed: readonly T[]): T | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw invalid(`Parameter ${name} must be one of ${allowed.join(', ')}.`);
  return raw as T;
}

export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** Integer field of a JSON body (numeric strings accepted); undefined when absent. */
export function bodyInt(body: Record<string, unknown>, name: string): number | undefined {
  const raw = body[name];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0) return raw;
  if (typeof raw === 'string' && /^\d+$/.test(raw)) return Number(raw);
  throw invalid(`Field ${name} must be a non-negative integer.`);
}
