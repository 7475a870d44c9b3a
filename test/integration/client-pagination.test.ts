// Walking the project list against a server that pages its own way.
import { afterEach, describe, expect, it } from 'vitest';
import type { Project } from '../../src/api/schemas.js';
import { envelope, sendJson, startServer, testClient, type TestServer } from './client-fixtures.js';

const STATUSES = ['active', 'paused', 'archived'] as const;
const projects = (count: number) => Array.from({ length: count }, (_, i) => ({ id: 1000 + i, status: STATUSES[i % 3] ?? 'active', name: `Client ${i + 1}` }));

interface PagingRules {
  /** Rows when `limit` is not given. */
  defaultPage: number;
  /** Most rows the server ever sends, whatever `limit` asks. */
  cap: number;
}

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function pagedServer(rows: Array<{ id: number; status: string }>, rules: PagingRules): Promise<TestServer> {
  server = await startServer((request, res) => {
    const status = request.query.get('status');
    const matching = status === null ? rows : rows.filter((row) => row.status === status);
    const limit = request.query.has('limit') ? Number(request.query.get('limit')) : rules.defaultPage;
    const offset = Number(request.query.get('offset') ?? 0);
    const page = matching.slice(offset, offset + Math.min(limit, rules.cap));
    sendJson(res, 200, envelope({ projects: page, total: matching.length }));
  });
  return server;
}

async function collect(iterable: AsyncIterable<Project>): Promise<Project[]> {
  const out: Project[] = [];
  for await (const project of iterable) out.push(project);
  return out;
}

describe('iterateProjects', () => {
  it('yields every project exactly once when the server sends 7 rows for limit 100', async () => {
    const all = projects(45);
    const srv = await pagedServer(all, { defaultPage: 20, cap: 7 });
    const { client } = testClient(srv.url);
    const seen = await collect(client.iterateProjects());
    expect(seen.map((p) => p.id)).toEqual(all.map((p) => p.id));
    expect(srv.requests.map((r) => r.query.get('offset'))).toEqual(['0', '7', '14', '21', '28', '35', '42']);
    expect(srv.requests.every((r) => r.query.get('limit') === '100')).toBe(true);
    await client.close();
  });

  it('filters by status and honours a smaller page size', async () => {
    const all = projects(30);
    const srv = await pagedServer(all, { defaultPage: 20, cap: 100 });
    const { client } = testClient(srv.url);
    const paused = await collect(client.iterateProjects({ status: 'paused', pageSize: 4 }));
    expect(paused.map((p) => p.id)).toEqual(all.filter((p) => p.status === 'paused').map((p) => p.id));
    expect(srv.requests).toHaveLength(3); // 10 paused rows in pages of 4
    expect(srv.requests[0]?.query.get('status')).toBe('paused');
    await client.close();
  });

  it('stops on an empty page even when total promises more', async () => {
    const srv = await startServer((request, res) => {
      const offset = Number(request.query.get('offset') ?? 0);
      sendJson(res, 200, envelope({ projects: offset === 0 ? projects(3) : [], total: 50 }));
    });
    server = srv;
    const { client } = testClient(srv.url);
    expect(await collect(client.iterateProjects())).toHaveLength(3);
    expect(srv.requests).toHaveLength(2);
    await client.close();
  });

  it('never yields a project twice when pages overlap', async () => {
    const all = projects(6);
    const srv = await startServer((request, res) => {
      const offset = Number(request.query.get('offset') ?? 0);
      // A row inserted meanwhile shifts the list: the next page repeats the last row of this one.
      const page = offset === 0 ? all.slice(0, 3) : all.slice(offset - 1, offset + 2);
      sendJson(res, 200, envelope({ projects: page, total: all.length }));
    });
    server = srv;
    const { client } = testClient(srv.url);
    const seen = await collect(client.iterateProjects({ pageSize: 3 }));
    expect(seen.map((p) => p.id)).toEqual([1000, 1001, 1002, 1003, 1004]);
    expect(new Set(seen.map((p) => p.id)).size).toBe(seen.length);
    await client.close();
  });

  it('reads the default page when no limit is given', async () => {
    const srv = await pagedServer(projects(45), { defaultPage: 20, cap: 100 });
    const { client } = testClient(srv.url);
    const page = await client.listProjects();
    expect(page.projects).toHaveLength(20);
    expect(page.total).toBe(45);
    expect([...(srv.requests[0]?.query.keys() ?? [])]).toEqual([]);
    await client.close();
  });
});
