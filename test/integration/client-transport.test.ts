// Transport rules against purpose-built loopback servers: retries, backoff, token rotation on 429/401,
// timeouts, cancellation, and tokens kept out of every error.
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  QuotaExhaustedError,
  ServerError,
  TimeoutError,
  TokensSpentError,
} from '../../src/api/errors.js';
import { backoffDelay, DEFAULT_RETRY } from '../../src/api/http.js';
import { TokenPool } from '../../src/api/tokens.js';
import { TOKENS, closedPort, envelope, sendError, sendJson, startServer, testClient, usage, type Handler, type TestServer } from './client-fixtures.js';

const STATS = { projects_count: 2, scans_count: 5, average_score: 61.5, top_projects: [], evolution: [] };
const ANALYSIS = { id: 9, project_id: 3, status: 'queued' };

const servers: TestServer[] = [];
const closers: Array<() => Promise<void>> = [];
async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}
function track<T extends { client: { close(): Promise<void> } }>(setup: T): T {
  closers.push(() => setup.client.close());
  return setup;
}
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as Error,
  );
}

/** Everything a log line could print about an error. */
function renderings(error: unknown): string {
  const e = error as Error & { hint?: string };
  return [String(e), e.message, e.stack ?? '', e.hint ?? '', JSON.stringify(e), inspect(e, { depth: 5 })].join('\n');
}

describe('retries', () => {
  it('retries a GET after 5xx and returns the data once the server recovers', async () => {
    let calls = 0;
    const server = await serve((_r, res) => {
      calls += 1;
      if (calls <= 2) sendError(res, 503, 'maintenance');
      else sendJson(res, 200, envelope(STATS));
    });
    const { client, delays, events } = track(testClient(server.url));
    await expect(client.getStats()).resolves.toMatchObject({ projects_count: 2 });
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([250, 500]); // full jitter with random 0.5: half of 500·2^(n-1)
    expect(events.filter((e) => e.type === 'retry').map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 250],
      [2, 500],
    ]);
  });

  it('gives up after maxRetries with the ServerError, waits capped by maxDelayMs', async () => {
    const server = await serve((_r, res) => sendError(res, 500, 'boom'));
    const { client, delays } = track(testClient(server.url, { retry: { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 700 }, randomValue: 0.999 }));
    const error = await failure(client.getStats());
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).call.status).toBe(500);
    expect(error.message).toContain('boom');
    expect(server.requests).toHaveLength(6);
    expect(delays).toEqual([99, 199, 399, 699, 699]);
  });

  it('computes full-jitter delays within [0, min(max, base·2^(n-1)))', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, DEFAULT_RETRY, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0)).toBe(0);
    expect(backoffDelay(2, DEFAULT_RETRY, () => 0.25)).toBe(250);
  });

  it.each([
    [400, InvalidRequestError],
    [404, NotFoundError],
    [422, InvalidRequestError],
  ])('does not retry HTTP %i', async (status, type) => {
    const server = await serve((_r, res) => sendError(res, status, 'no'));
    const { client, delays } = track(testClient(server.url));
    const error = await failure(client.getProject(5));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ call: { status, endpoint: 'projects.php', method: 'GET', projectId: 5, tokenLabel: 'token#1 (…a1b2)' } });
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('does not resend an analysis or a webhook POST after a 5xx (a duplicate could not be found again)', async () => {
    const server = await serve((_r, res) => sendError(res, 502, 'bad gateway'));
    const { client } = track(testClient(server.url));
    expect(await failure(client.startAnalysis(3, 'saas'))).toBeInstanceOf(ServerError);
    expect(await failure(client.createWebhook({ name: 'n', url: 'https://h.example.com', events: ['score.change'] }))).toBeInstanceOf(ServerError);
    expect(await failure(client.testWebhook(2))).toBeInstanceOf(ServerError);
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('resends a report POST after a 5xx or a dropped connection (a duplicate is harmless and listed)', async () => {
    let failures = 2;
    const server = await serve((request, res, raw) => {
      if (failures === 2) {
        failures -= 1;
        return sendError(res, 503, 'busy');
      }
      if (failures === 1) {
        failures -= 1;
        raw.socket.destroy();
        return;
      }
      sendJson(res, 200, envelope({ report: { id: 7001, status: 'processing' } }));
    });
    const { client, delays } = track(testClient(server.url));
    // The client passes the answer on as the API sent it (src/content reads it).
    await expect(client.createReport({ projectId: 3 })).resolves.toEqual({ report: { id: 7001, status: 'processing' } });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    expect(delays).toHaveLength(2);
  });

  it('retries a GET whose connection is dropped, but not a POST', async () => {
    let drops = 1;
    const server = await serve((request, res, raw) => {
      if (request.method === 'POST' || drops > 0) {
        drops -= 1;
        raw.socket.destroy();
        return;
      }
      sendJson(res, 200, envelope(STATS));
    });
    const { client, delays } = track(testClient(server.url));
    await expect(client.getStats()).resolves.toMatchObject({ scans_count: 5 });
    expect(delays).toHaveLength(1);
    const error = await failure(client.startAnalysis(3));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as ConnectionError).call.status).toBeNull();
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('resends even a POST when the connection was refused (it never left)', async () => {
    const port = await closedPort();
    const { client, delays, events } = track(testClient(`http://127.0.0.1:${port}`, { retry: { maxRetries: 2 } }));
    const error = await failure(client.createReport({ projectId: 4, include: ['scores'] }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error).toMatchObject({ call: { endpoint: 'reports.php', method: 'POST', projectId: 4 } });
    expect(events.filter((e) => e.type === 'request')).toHaveLength(3);
    expect(delays).toEqual([250, 500]);
  });
});

describe('token rotation', () => {
  it('sends nothing more to a token after its 429; the next token takes the same request', async () => {
    const [first, second, third] = TOKENS;
    const server = await serve((request, res) => {
      if (request.token === first) sendError(res, 429, 'daily limit reached', usage(5000));
      else sendJson(res, 200, envelope(STATS, usage(request.token === second ? 10 : 20)));
    });
    const { client, pool, events, delays } = track(testClient(server.url, { tokenList: [...TOKENS] }));
    for (let i = 0; i < 6; i += 1) await client.getStats();
    const counts = server.countByToken();
    expect(counts[first]).toBe(1);
    expect((counts[second] ?? 0) + (counts[third] ?? 0)).toBe(6);
    expect(server.requests[0]?.token).toBe(first);
    expect(server.requests[1]?.token).toBe(second); // same request, moved on at once
    expect(delays).toEqual([]); // a 429 is not a retry: no backoff
    expect(pool.status()[0]).toMatchObject({ state: 'exhausted', usage: usage(5000), requests: 1 });
    expect(events.filter((e) => e.type === 'token-exhausted').map((e) => e.tokenLabel)).toEqual(['token#1 (…a1b2)']);
  });

  it('prefers the token with the most quota left, as reported by the server', async () => {
    const used: Record<string, number> = { [TOKENS[0]]: 4900, [TOKENS[1]]: 100 };
    const server = await serve((request, res) => {
      const token = request.token ?? '';
      used[token] = (used[token] ?? 0) + 1;
      sendJson(res, 200, envelope(STATS, usage(used[token] ?? 0)));
    });
    const pool = new TokenPool([TOKENS[0], TOKENS[1]]);
    const { client } = track(testClient(server.url, { tokens: pool }));
    pool.record(0, usage(4900));
    pool.record(1, usage(100));
    for (let i = 0; i < 3; i += 1) await client.getStats();
    expect(server.countByToken()).toEqual({ [TOKENS[1]]: 3 });
    expect(pool.remaining()).toBe(100 + 4897);
  });

  it('throws TokensSpentError when every token answers 429, each asked once', async () => {
    const server = await serve((_r, res) => sendError(res, 429, 'quota', usage(5000)));
    const { client, pool } = track(testClient(server.url, { tokenList: [...TOKENS] }));
    const error = await failure(client.getStats());
    expect(error).toBeInstanceOf(TokensSpentError);
    expect((error as TokensSpentError).cause).toBeInstanceOf(QuotaExhaustedError);
    expect(error.message).toContain('token#3 (…e5f6) exhausted');
    expect(Object.values(server.countByToken())).toEqual([1, 1, 1]);
    expect(pool.isSpent()).toBe(true);
    // Later calls fail at once without a request.
    expect(await failure(client.getStats())).toBeInstanceOf(TokensSpentError);
    expect(server.requests).toHaveLength(3);
    for (const token of TOKENS) expect(renderings(error)).not.toContain(token);
  });

  it('disables a token after a 401 and carries on with the next', async () => {
    const [revoked] = TOKENS;
    const server = await serve((request, res) => {
      if (request.token === revoked) sendError(res, 401, 'invalid token');
      else sendJson(res, 200, envelope(STATS));
    });
    const { client, pool, events } = track(testClient(server.url, { tokenList: [TOKENS[0], TOKENS[1]] }));
    await client.getStats();
    await client.getStats();
    expect(server.countByToken()).toEqual({ [TOKENS[0]]: 1, [TOKENS[1]]: 2 });
    expect(pool.status()[0]?.state).toBe('unauthorized');
    expect(events.filter((e) => e.type === 'token-disabled').map((e) => e.status)).toEqual([401]);
  });

  it('throws AuthenticationError once every token is refused, without retrying', async () => {
    const server = await serve((_r, res) => sendError(res, 401, 'invalid token'));
    const { client, delays } = track(testClient(server.url, { tokenList: [TOKENS[0], TOKENS[1]] }));
    const error = await failure(client.listProjects());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ call: { status: 401, tokenLabel: 'token#2 (…c3d4)' } });
    expect(error.message).toContain('invalid token');
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([]);
    expect(await failure(client.listProjects())).toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(2);
  });

  it('records meta.usage from error responses too', async () => {
    const server = await serve((_r, res) => sendError(res, 404, 'no such report', usage(321)));
    const { client, pool } = track(testClient(server.url));
    const error = await failure(client.getReport(77, { projectId: 12 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ call: { projectId: 12, usage: usage(321), status: 404 } });
    expect(pool.status()[0]?.usage).toEqual(usage(321));
  });

  it('picks a token again for each retry', async () => {
    let calls = 0;
    const server = await serve((request, res) => {
      calls += 1;
      if (calls === 1) sendError(res, 503, 'busy', usage(4990));
      else sendJson(res, 200, envelope(STATS, usage(request.token === TOKENS[1] ? 2 : 4991)));
    });
    const { client } = track(testClient(server.url, { tokenList: [TOKENS[0], TOKENS[1]] }));
    await client.getStats();
    // Token 1 reported only 10 left with its 503, so the retry went to token 2.
    expect(server.requests.map((r) => r.token)).toEqual([TOKENS[0], TOKENS[1]]);
  });
});

describe('timeouts and cancellation', () => {
  const fast = { connectMs: 500, headersMs: 150, bodyMs: 150, totalMs: 2000 };

  it('times out a server that never sends headers, and retries the GET', async () => {
    const server = await serve(() => undefined);
    const { client } = track(testClient(server.url, { timeouts: fast, retry: { maxRetries: 1 } }));
    const error = await failure(client.getStats());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as TimeoutError).phase).toBe('headers');
    expect(error.message).toContain('150 ms');
    // The headers deadline ended each send, not the 2 s total one: both sends fit in the total.
    expect(server.requests).toHaveLength(2);
  });

  it('times out a body that stalls after the first bytes', async () => {
    const server = await serve((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write('{"success":true,"data":');
    });
    const { client } = track(testClient(server.url, { timeouts: fast, retry: { maxRetries: 0 } }));
    const error = await failure(client.getStats());
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe('body');
  });

  it('enforces the overall deadline on a body that trickles in', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await serve((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      timers.push(setInterval(() => res.write(' '), 30));
    });
    const { client } = track(testClient(server.url, { timeouts: { ...fast, bodyMs: 1000, totalMs: 300 }, retry: { maxRetries: 0 } }));
    const error = await failure(client.getStats());
    timers.forEach((timer) => clearInterval(timer));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe('total');
  });

  it('does not resend a POST that timed out waiting for headers', async () => {
    const server = await serve(() => undefined);
    const { client } = track(testClient(server.url, { timeouts: fast }));
    expect(await failure(client.testWebhook(3))).toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects with an AbortError when the client signal aborts mid-request, and does not retry', async () => {
    const controller = new AbortController();
    // Aborted once the request has reached the server, which never answers: only the abort can end the call
    // (the headers deadline, 60 s, is beyond the test's time limit).
    const server = await serve(() => controller.abort());
    const { client, delays } = track(testClient(server.url, { signal: controller.signal, timeouts: { headersMs: 60_000, totalMs: 120_000 } }));
    const error = await failure(client.getStats());
    expect(error.name).toBe('AbortError');
    expect(error).not.toBeInstanceOf(ApiError);
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect((await failure(client.getStats())).name).toBe('AbortError');
    expect(server.requests).toHaveLength(1);
  });

  it('stops waiting between retries when aborted', async () => {
    const server = await serve((_r, res) => sendError(res, 503, 'busy'));
    const controller = new AbortController();
    const { client } = track(
      testClient(server.url, {
        signal: controller.signal,
        sleep: async () => {
          controller.abort();
          throw new DOMException('aborted', 'AbortError');
        },
      }),
    );
    expect((await failure(client.getStats())).name).toBe('AbortError');
    expect(server.requests).toHaveLength(1);
  });
});

describe('requests and secrets', () => {
  it('sends the bearer token, JSON bodies and the v1 path', async () => {
    const server = await serve((request, res) => sendJson(res, 200, envelope(request.method === 'POST' ? ANALYSIS : { projects: [], total: 0 })));
    const { client } = track(testClient(`${server.url}/`));
    await client.startAnalysis(3, 'local');
    await client.listProjects({ status: 'active' });
    expect(server.requests.map((r) => [r.method, r.path, r.token])).toEqual([
      ['POST', '/api/v1/analyze.php', TOKENS[0]],
      ['GET', '/api/v1/projects.php', TOKENS[0]],
    ]);
    expect(server.requests[0]?.body).toEqual({ project_id: 3, question_type: 'local' });
  });

  it('keeps the token out of errors, even when the server echoes it', async () => {
    const server = await serve((request, res) => {
      if (request.path.endsWith('projects.php')) sendError(res, 404, `no project for key ${request.token ?? ''}`);
      else sendError(res, 401, `Bearer ${request.token ?? ''} is revoked`);
    });
    const { client, events } = track(testClient(server.url));
    const notFound = await failure(client.getProject(8));
    expect(notFound.message).toContain('token#1 (…a1b2)');
    const refused = await failure(client.getStats());
    const refusedAgain = await failure(client.getStats());
    const unreachable = await failure(track(testClient(`http://127.0.0.1:${await closedPort()}`, { retry: { maxRetries: 0 } })).client.getStats());
    for (const error of [notFound, refused, refusedAgain, unreachable]) {
      expect(renderings(error)).not.toContain(TOKENS[0]);
      expect(renderings(error)).not.toMatch(/authorization/i);
    }
    expect(JSON.stringify(events)).not.toContain(TOKENS[0]);
  });

  it('errors are made by one factory and carry the call context', () => {
    const info = { endpoint: 'reports.php', method: 'GET', tokenLabel: 'token#1 (…a1b2)', projectId: 4 };
    expect(ApiError.generate(401, info)).toBeInstanceOf(AuthenticationError);
    expect(ApiError.generate(404, info)).toBeInstanceOf(NotFoundError);
    expect(ApiError.generate(429, info)).toBeInstanceOf(QuotaExhaustedError);
    expect(ApiError.generate(409, info)).toBeInstanceOf(InvalidRequestError);
    expect(ApiError.generate(504, info)).toBeInstanceOf(ServerError);
    expect(ApiError.generate(null, info)).toBeInstanceOf(ConnectionError);
    const error = ApiError.generate(404, { ...info, serverMessage: 'Report not found' });
    expect(error.message).toBe('GET reports.php (project 4, token#1 (…a1b2)) failed: HTTP 404 Not Found: Report not found');
    expect(error.hint).toMatch(/check the id/);
    expect(error.name).toBe('NotFoundError');
    expect(error.call).toEqual({ ...info, status: 404, usage: null });
  });
});

describe('connections', () => {
  it('keeps its connection between requests when the server announces a 2 s keep-alive', async () => {
    const sockets = new Set<unknown>();
    const server = await serve((_r, res, raw) => {
      sockets.add(raw.socket);
      res.setHeader('keep-alive', 'timeout=2');
      sendJson(res, 200, envelope(STATS));
    });
    const { client } = track(testClient(server.url));
    for (let i = 0; i < 10; i++) await client.getStats();
    expect(server.requests).toHaveLength(10);
    // undici may alternate between two pooled connections; without keep-alive every request opens its own.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });
});
