// Response validation: what a 200 must look like before its data is returned.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError, ResponseValidationError, UnsupportedApiVersionError } from '../../src/api/errors.js';
import type { TokenPool } from '../../src/api/tokens.js';
import { envelope, sendJson, startServer, testClient, usage, type TestServer } from './client-fixtures.js';

const STATS = { projects_count: 2, scans_count: 5, average_score: null, top_projects: [], evolution: [] };

/** Scenario chosen by the `scenario` query parameter of projects.php?id=… — the id names it. */
const scenarios: Record<number, (res: ServerResponse) => void> = {
  1: (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('OK');
  },
  2: (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body><h1>Login</h1></body></html>');
  },
  3: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(envelope({ id: 3, status: 'active' })).slice(0, 40));
  },
  4: (res) => sendJson(res, 200, { success: false, error: 'Project locked', meta: envelope(null)['meta'] }),
  5: (res) => sendJson(res, 200, { success: true, data: { id: 5, status: 'active' } }),
  6: (res) => {
    const body = envelope({ id: 6, status: 'active' }, usage(40));
    sendJson(res, 200, { ...body, meta: { ...(body['meta'] as object), api_version: 'v2' } });
  },
  7: (res) => sendJson(res, 200, envelope({ id: 'seven', status: 'deleted' }, usage(70))),
  8: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('');
  },
  9: (res) => sendJson(res, 200, envelope({ project: { id: 9, status: 'paused', tier: 'gold', extra: { a: 1 } } })),
  10: (res) => sendJson(res, 200, envelope({ id: '10', status: 'archived', name: 'Ten' })),
};

let server: TestServer;
let client: ApiClient;
let pool: TokenPool;

beforeAll(async () => {
  server = await startServer((request, res) => {
    if (request.path.endsWith('stats.php')) {
      sendJson(res, 200, envelope({ ...STATS, projects_count: -1 }));
      return;
    }
    if (request.path.endsWith('webhooks.php')) {
      sendJson(res, 200, envelope({ webhooks: [{ id: 1, name: 'no url, no events' }] }));
      return;
    }
    const scenario = scenarios[Number(request.query.get('id'))];
    if (scenario) scenario(res);
    else sendJson(res, 404, { success: false, error: 'unknown' });
  });
});
// A fresh client each test: its token pool holds only the usage this test's answers reported.
beforeEach(() => {
  ({ client, pool } = testClient(server.url));
});
afterEach(async () => {
  await client.close();
});
afterAll(async () => {
  await server.close();
});

async function validationError(id: number): Promise<ResponseValidationError> {
  const before = server.requests.length;
  const error = await client.getProject(id).then(
    () => null,
    (e: unknown) => e,
  );
  expect(server.requests.length - before).toBe(1); // never retried: the server answered
  expect(error).toBeInstanceOf(ResponseValidationError);
  expect(error).not.toBeInstanceOf(ApiError);
  return error as ResponseValidationError;
}

describe('envelope validation', () => {
  it('names a body that is not JSON', async () => {
    const error = await validationError(1);
    expect(error.message).toContain('GET projects.php');
    expect(error.message).toContain('HTTP 200 with a body that is not JSON');
    expect(error).toMatchObject({ call: { endpoint: 'projects.php', method: 'GET', status: 200, projectId: 1, tokenLabel: 'token#1 (…a1b2)' } });
  });

  it('names an HTML page', async () => {
    expect((await validationError(2)).message).toContain('an HTML page instead of JSON');
  });

  it('names truncated JSON', async () => {
    expect((await validationError(3)).message).toContain('JSON that is cut off or malformed');
  });

  it('names an empty body', async () => {
    expect((await validationError(8)).message).toContain('an empty body');
  });

  it('refuses success:false on a 200, quoting the server', async () => {
    const error = await validationError(4);
    expect(error.message).toContain('success: false on a 2xx status');
    expect(error.issues).toEqual(['error: Project locked']);
  });

  it('refuses an envelope without meta', async () => {
    const error = await validationError(5);
    expect(error.message).toContain('not the v1 envelope');
    expect(error.issues.some((issue) => issue.startsWith('meta:'))).toBe(true);
  });

  it('refuses another API version, after recording its usage', async () => {
    const error = await validationError(6);
    expect(error).toBeInstanceOf(UnsupportedApiVersionError);
    expect((error as UnsupportedApiVersionError).apiVersion).toBe('v2');
    expect(error.issues).toEqual(['meta.api_version: expected "v1", got "v2"']);
    expect(error.call.usage).toEqual(usage(40));
    expect(pool.status()[0]?.usage).toEqual(usage(40));
  });

  it('summarises schema issues of data as path: message', async () => {
    const error = await validationError(7);
    expect(error.message).toContain('v1 envelope whose data lacks a field the spec names');
    // The envelope was v1: the hint must not send the user to check the base URL.
    expect(error.hint).toContain('the base URL is right');
    expect(error.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^data\.status: /), expect.stringMatching(/^data\.id: /)]));
    expect(pool.status()[0]?.usage?.daily_used).toBeGreaterThanOrEqual(70);
  });

  it('passes content the spec leaves "not shown" on whole, and still refuses a record without the fields the spec names', async () => {
    // Statistics: field names not shown by the spec, so the content readers judge them, not the wire layer.
    expect(await client.getStats()).toEqual({ ...STATS, projects_count: -1 });
    const error = await client.listWebhooks().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual(
      expect.arrayContaining([expect.stringMatching(/^data\.webhooks\[0\]\.url: /), expect.stringMatching(/^data\.webhooks\[0\]\.events: /)]),
    );
  });

  it('unwraps { project } and keeps keys the schema does not know', async () => {
    const project = await client.getProject(9);
    expect(project).toEqual({ id: 9, status: 'paused', tier: 'gold', extra: { a: 1 } });
  });

  it('accepts numeric-string ids as numbers', async () => {
    await expect(client.getProject(10)).resolves.toEqual({ id: 10, status: 'archived', name: 'Ten' });
  });
});
