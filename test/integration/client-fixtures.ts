// Small real HTTP servers on 127.0.0.1 for testing the client's transport rules, and a client factory
// whose waits are recorded instead of slept.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, type ApiClientOptions, type ApiEvent } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import type { Usage } from '../../src/api/schemas.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  token: string | null;
  headers: IncomingMessage['headers'];
  rawBody: string;
  body: unknown;
}

export type Handler = (request: ReceivedRequest, res: ServerResponse, raw: IncomingMessage) => void;

export interface TestServer {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests seen per bearer token. */
  countByToken(): Record<string, number>;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const auth = req.headers.authorization;
      const text = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        token: auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : null,
        headers: req.headers,
        rawBody: text,
        body: text === '' ? null : (JSON.parse(text) as unknown),
      };
      requests.push(received);
      handler(received, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    countByToken() {
      const counts: Record<string, number> = {};
      for (const r of requests) counts[r.token ?? '(none)'] = (counts[r.token ?? '(none)'] ?? 0) + 1;
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on loopback where nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const usage = (used: number, limit = 5000): Usage => ({
  daily_used: used,
  daily_limit: limit,
  daily_remaining: limit - used,
});

export function envelope(data: unknown, quota: Usage = usage(1)): Record<string, unknown> {
  return { success: true, data, meta: { timestamp: '2025-03-01T10:00:00+00:00', api_version: 'v1', usage: quota } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, message: string, quota: Usage = usage(1)): void {
  sendJson(res, status, { success: false, error: message, meta: { api_version: 'v1', usage: quota } });
}

export const TOKENS = ['tok_live_alpha_0000a1b2', 'tok_live_bravo_0000c3d4', 'tok_live_charlie_00e5f6'] as const;

export interface TestClient {
  client: ApiClient;
  pool: TokenPool;
  delays: number[];
  events: ApiEvent[];
}

/** A client whose sleeps are recorded (and skipped) and whose jitter is fixed at `random`. */
export function testClient(baseUrl: string, options: Partial<ApiClientOptions> & { tokenList?: string[]; randomValue?: number } = {}): TestClient {
  const delays: number[] = [];
  const events: ApiEvent[] = [];
  const { tokenList, randomValue, ...rest } = options;
  const pool = options.tokens ?? new TokenPool(tokenList ?? [TOKENS[0]]);
  const client = new ApiClient({
    baseUrl,
    tokens: pool,
    timeouts: { connectMs: 2000, headersMs: 2000, bodyMs: 2000, totalMs: 5000 },
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => randomValue ?? 0.5,
    onEvent: (event) => events.push(event),
    ...rest,
  });
  return { client, pool, delays, events };
}
