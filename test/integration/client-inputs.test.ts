// Wrong inputs are refused before anything is sent: the server below must see no request at all.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { InvalidParameterError } from '../../src/api/errors.js';
import { envelope, sendJson, startServer, testClient, type TestServer } from './client-fixtures.js';

let server: TestServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startServer((_request, res) => sendJson(res, 200, envelope({ projects: [], total: 0 })));
});
// Each test counts from zero: a fresh client (its token counts) and no request seen yet.
beforeEach(() => {
  server.requests.length = 0;
  client = testClient(server.url).client;
});
afterEach(async () => {
  await client.close();
});
afterAll(async () => {
  await server.close();
});

// Values a caller in plain JavaScript (or with a cast) could pass.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a wrong value passed as the type the call wants
const bad = <T>(value: unknown): T => value as T;

const cases: Array<[string, string, () => Promise<unknown>]> = [
  ['limit 0', 'limit', () => client.listProjects({ limit: 0 })],
  ['limit 101', 'limit', () => client.listProjects({ limit: 101 })],
  ['limit 2.5', 'limit', () => client.listProjects({ limit: 2.5 })],
  ['offset -1', 'offset', () => client.listProjects({ offset: -1 })],
  ['unknown project status', 'status', () => client.listProjects({ status: bad('deleted') })],
  ['page size 500', 'pageSize', async () => client.iterateProjects({ pageSize: 500 })[Symbol.asyncIterator]().next()],
  ['project id 0', 'id', () => client.getProject(0)],
  ['project id NaN', 'id', () => client.getProject(Number.NaN)],
  ['project id as text', 'id', () => client.getProject(bad('12'))],
  ['question type', 'question_type', () => client.startAnalysis(1, bad('blog'))],
  ['analysis id', 'id', () => client.getAnalysis(-3)],
  ['scores limit', 'limit', () => client.getProjectScores({ projectId: 1, limit: 0 })],
  ['scores last not boolean', 'last', () => client.getProjectScores({ projectId: 1, last: bad(1) })],
  ['scan scores id', 'scan_id', () => client.getScores({ scanId: 1.5 })],
  ['recommendation priority', 'priority', () => client.listRecommendations({ projectId: 1, priority: bad('urgent') })],
  ['recommendation category', 'category', () => client.listRecommendations({ scanId: 2, category: bad('ads') })],
  ['recommendations without selector', 'project_id', () => client.listRecommendations(bad({}))],
  ['scan section', 'include', () => client.getScan({ id: 1 }, { include: [bad('videos')] })],
  ['empty include', 'include', () => client.getScan({ id: 1 }, { include: [] })],
  ['exclude all', 'exclude', () => client.getScan({ id: 1 }, { exclude: [bad('all')] })],
  ['seo steps without seo_audit', 'seo_steps', () => client.getScan({ id: 1 }, { include: ['geo'], seoSteps: ['step3_serp'] })],
  ['seo step with a comma', 'seo_steps', () => client.getScan({ id: 1 }, { include: ['seo_audit'], seoSteps: ['a,b'] })],
  ['audit id', 'audit_id', () => client.getScan({ auditId: 0 })],
  ['competitors project id', 'project_id', () => client.getProjectCompetitors(-1)],
  ['webhook name', 'name', () => client.createWebhook({ name: '  ', url: 'https://hooks.example.com/x', events: ['scan.completed'] })],
  ['webhook url scheme', 'url', () => client.createWebhook({ name: 'n', url: 'ftp://example.com/x', events: ['scan.failed'] })],
  ['webhook url relative', 'url', () => client.createWebhook({ name: 'n', url: '/hook', events: ['scan.failed'] })],
  ['webhook events empty', 'events', () => client.createWebhook({ name: 'n', url: 'https://example.com', events: [] })],
  ['webhook event unknown', 'events', () => client.createWebhook({ name: 'n', url: 'https://example.com', events: [bad('scan.started')] })],
  ['webhook event twice', 'events', () => client.createWebhook({ name: 'n', url: 'https://example.com', events: ['score.change', 'score.change'] })],
  ['webhook id', 'webhook_id', () => client.testWebhook(0)],
  ['report section', 'include', () => client.createReport({ projectId: 1, include: [bad('pdf')] })],
  ['report format', 'format', () => client.createReport({ projectId: 1, format: bad('pdf') })],
  ['report project id', 'project_id', () => client.createReport({ projectId: -1 })],
  ['report id', 'id', () => client.getReport(0)],
];

describe('input checks', () => {
  it.each(cases)('refuses %s with InvalidParameterError naming %s, spending no request', async (_case, parameter, call) => {
    const error = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).parameter).toBe(parameter);
    expect((error as InvalidParameterError).message).toContain(parameter);
    expect(server.requests).toHaveLength(0);
    expect(Object.values(client.tokens.requestsByLabel())).toEqual([0]);
  });

  it('lets valid inputs through to the server', async () => {
    await client.listProjects({ limit: 100, offset: 0, status: 'archived' });
    expect(server.requests).toHaveLength(1);
    expect(Object.fromEntries(server.requests[0]?.query ?? [])).toEqual({ limit: '100', offset: '0', status: 'archived' });
  });
});
