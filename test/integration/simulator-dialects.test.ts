// Simulator dialects over real HTTP: every dialect keeps what the spec names and reshapes what it leaves "not shown".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES, PRIORITIES, PROJECT_STATUSES, REPORT_SECTIONS } from '../../src/api/schemas.js';
import { runSimulatorCommand } from '../../src/simulator/main.js';
import {
  DEMO_TOKEN,
  DIALECT_NAMES,
  startSimulator,
  type ClassicAnswer,
  type DialectName,
  type SimulatorHandle,
  type SimulatorOptions,
} from '../../src/simulator/server.js';

type Json = Record<string, unknown>;

const NOW = new Date('2026-10-04T06:00:00.000Z');
const BASE: SimulatorOptions = { seed: 42, projectCount: 8, clock: () => NOW };
const HOOK = { action: 'create', name: 'CRM hook', url: 'http://127.0.0.1:9/hook', events: ['scan.completed', 'score.change'] };

interface Answer {
  status: number;
  text: string;
  json: Json;
}

async function call(sim: SimulatorHandle, path: string, init: { body?: unknown; token?: string | null } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token !== null) headers['authorization'] = `Bearer ${init.token ?? DEMO_TOKEN}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}/api/v1/${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Json };
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => {
  expect(isObject(v), `expected an object, got ${(JSON.stringify(v) as string | undefined)?.slice(0, 80)}`).toBe(true);
  return v as Json;
};
const list = (v: unknown): unknown[] => {
  expect(Array.isArray(v), `expected an array, got ${(JSON.stringify(v) as string | undefined)?.slice(0, 80)}`).toBe(true);
  return v as unknown[];
};

/** Every object anywhere in a JSON value. */
function objects(value: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const v of value) objects(v, out);
  else if (isObject(value)) {
    out.push(value);
    for (const v of Object.values(value)) objects(v, out);
  }
  return out;
}

/** Every value stored under `key`, at any depth. */
const valuesAt = (value: unknown, key: string): unknown[] =>
  objects(value)
    .filter((o) => key in o)
    .map((o) => o[key]);

function expectEnvelope(answer: Answer, status = 200): Json {
  expect(answer.status).toBe(status);
  const body = answer.json;
  expect(body['success']).toBe(status === 200);
  const meta = obj(body['meta']);
  expect(meta['api_version']).toBe('v1');
  expect(typeof meta['timestamp']).toBe('string');
  expect(String(meta['timestamp'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const usage = obj(meta['usage']);
  for (const key of ['daily_used', 'daily_limit', 'daily_remaining']) expect(Number.isInteger(usage[key])).toBe(true);
  expect(usage['daily_remaining']).toBe(Number(usage['daily_limit']) - Number(usage['daily_used']));
  return status === 200 ? obj(body['data']) : body;
}

/** The report object of a reports.php answer: the object carrying the report's integer id and its format. */
function reportIn(data: Json, id?: number): Json {
  const found = objects(data).filter((o) => Number.isInteger(o['id']) && o['format'] === 'json' && (id === undefined || o['id'] === id));
  expect(found.length).toBeGreaterThan(0);
  return found[0] as Json;
}

/** Names of report sections that carry content (an object or a list of objects), at any depth. */
function contentSections(data: unknown): string[] {
  const names = new Set<string>();
  for (const o of objects(data)) {
    for (const section of REPORT_SECTIONS) {
      const value = o[section];
      if (isObject(value) || (Array.isArray(value) && value.every(isObject))) names.add(section);
    }
  }
  return [...names].sort();
}

/** Does the value carry this number, as a number or a numeric string (with or without a unit)? */
function carries(value: unknown, expected: number): boolean {
  const matches = (v: unknown) => v === expected || (typeof v === 'string' && Number.parseFloat(v) === expected);
  return objects(value).some((o) => Object.values(o).some(matches));
}

const sims = new Map<DialectName, SimulatorHandle>();
const sim = (name: DialectName) => sims.get(name) as SimulatorHandle;
let projectId = 0;
let scanId = 0;
let auditId = 0;

beforeAll(async () => {
  for (const name of DIALECT_NAMES) sims.set(name, await startSimulator({ ...BASE, dialect: name }));
  const classic = sim('classic');
  projectId = classic.state.projects().find((p) => p.status === 'active')?.id ?? 0;
  const scans = obj((await call(classic, `scans.php?project_id=${projectId}`)).json['data']);
  const latest = obj(list(scans['scans'])[0]);
  scanId = Number(latest['id']);
  auditId = Number(latest['audit_id']);
});

afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe.each(DIALECT_NAMES)('dialect %s keeps what the spec names', (name) => {
  /** An id as sent: an integer; from strict, the integer as a string (the reading it was made to test). */
  const asId = (value: unknown): unknown => {
    if (name !== 'strict') return value;
    expect(value).toMatch(/^\d+$/);
    return Number(value);
  };

  it('projects.php: data.projects and data.total, integer ids, known statuses; one project by id', async () => {
    const data = expectEnvelope(await call(sim(name), 'projects.php?limit=100'));
    const projects = list(data['projects']);
    expect(Number.isInteger(data['total'])).toBe(true);
    expect(data['total']).toBe(8);
    expect(projects.map((p) => asId(obj(p)['id']))).toEqual(
      sim('classic')
        .state.projects()
        .map((p) => p.id),
    );
    for (const p of projects) expect(PROJECT_STATUSES).toContain(obj(p)['status']);
    const one = expectEnvelope(await call(sim(name), `projects.php?id=${projectId}`));
    expect(objects(one).some((o) => o['id'] !== undefined && asId(o['id']) === projectId && o['status'] === 'active')).toBe(true);
  });

  it('scores.php: project and scan forms carry the classic GEO score', async () => {
    const classic = obj((await call(sim('classic'), `scores.php?project_id=${projectId}`)).json['data']);
    const geo = Number(obj(classic['latest'])['geo_score']);
    const byProject = expectEnvelope(await call(sim(name), `scores.php?project_id=${projectId}`));
    expect(carries(byProject, geo)).toBe(true);
    const byScan = expectEnvelope(await call(sim(name), `scores.php?scan_id=${scanId}`));
    expect(carries(byScan, geo)).toBe(true);
    expect(valuesAt(byScan, 'id').concat(valuesAt(byScan, 'scan_id'))).toContain(scanId);
  });

  it('recommendations.php: every priority and category is a spec value, filters narrow', async () => {
    const classic = obj((await call(sim('classic'), `recommendations.php?project_id=${projectId}`)).json['data']);
    const data = expectEnvelope(await call(sim(name), `recommendations.php?project_id=${projectId}`));
    const priorities = valuesAt(data, 'priority');
    expect(priorities.length).toBe(list(classic['recommendations']).length);
    for (const p of priorities) expect(PRIORITIES).toContain(p);
    for (const c of valuesAt(data, 'category')) expect(CATEGORIES).toContain(c);
    const critical = expectEnvelope(await call(sim(name), `recommendations.php?project_id=${projectId}&priority=critical`));
    expect(new Set(valuesAt(critical, 'priority'))).toEqual(new Set(['critical']));
  });

  it('scans.php: list and one keep id, project_id, audit_id; keyword_rankings entries are spec-exact', async () => {
    const data = expectEnvelope(await call(sim(name), `scans.php?project_id=${projectId}`));
    const rows = objects(data).filter((o) => 'audit_id' in o);
    expect(rows.length).toBe(12);
    for (const row of rows) {
      expect(Number.isInteger(asId(row['id']))).toBe(true);
      expect(asId(row['project_id'])).toBe(projectId);
      expect(Number.isInteger(asId(row['audit_id']))).toBe(true);
    }
    const classicScan = obj(obj((await call(sim('classic'), `scans.php?id=${scanId}&include=all`)).json['data'])['scan']);
    for (const path of [`scans.php?id=${scanId}&include=all`, `scans.php?audit_id=${auditId}`]) {
      const one = expectEnvelope(await call(sim(name), path));
      const scan = objects(one).find((o) => o['audit_id'] !== undefined && asId(o['id']) === scanId && asId(o['audit_id']) === auditId);
      expect(asId(scan?.['project_id'])).toBe(projectId);
      const audit = valuesAt(one, 'seo_audit').map(obj)[0] as Json;
      expect(audit['keyword_rankings']).toEqual(obj(classicScan['seo_audit'])['keyword_rankings']);
      for (const entry of list(audit['keyword_rankings']))
        expect(Object.keys(obj(entry))).toEqual(expect.arrayContaining(['position', 'values', 'counted_as']));
    }
  });

  it('competitors.php: all and one project carry vs_benchmark and every project id', async () => {
    const all = expectEnvelope(await call(sim(name), 'competitors.php'));
    expect(valuesAt(all, 'vs_benchmark').length).toBe(8);
    const ids = sim('classic')
      .state.projects()
      .map((p) => p.id);
    const text = JSON.stringify(all);
    for (const id of ids) expect(text).toContain(String(id));
    const one = expectEnvelope(await call(sim(name), `competitors.php?project_id=${projectId}`));
    expect(valuesAt(one, 'vs_benchmark').length).toBe(8);
    expect(JSON.stringify(one)).toContain(String(projectId));
  });

  it('stats.php: answers the same figures', async () => {
    const classic = obj((await call(sim('classic'), 'stats.php')).json['data']);
    const data = expectEnvelope(await call(sim(name), 'stats.php'));
    expect(carries(data, Number(classic['scans_count']))).toBe(true);
    expect(carries(data, Number(classic['average_score']))).toBe(true);
  });

  it('reports.php: POST, GET id and GET list=1 keep id, format and the five section names', async () => {
    const created = expectEnvelope(await call(sim(name), 'reports.php', { body: { project_id: projectId, format: 'json' } }));
    const report = reportIn(created);
    const id = Number(report['id']);
    expect(contentSections(created)).toEqual([...REPORT_SECTIONS].sort());
    const read = expectEnvelope(await call(sim(name), `reports.php?id=${id}`));
    expect(reportIn(read, id)['format']).toBe('json');
    expect(contentSections(read)).toEqual([...REPORT_SECTIONS].sort());
    const two = expectEnvelope(await call(sim(name), 'reports.php', { body: { project_id: projectId, format: 'json', include: ['trust', 'scores'] } }));
    expect(contentSections(two)).toEqual(['scores', 'trust']);
    const listed = expectEnvelope(await call(sim(name), 'reports.php?list=1'));
    const ids = objects(listed)
      .filter((o) => o['format'] === 'json')
      .map((o) => o['id']);
    expect(ids).toContain(id);
    for (const i of ids) expect(Number.isInteger(i)).toBe(true);
  });

  it('analyze.php: POST and GET answer the analysis by its integer id', async () => {
    const started = expectEnvelope(await call(sim(name), 'analyze.php', { body: { project_id: projectId } }));
    const id = valuesAt(started, 'id').find(Number.isInteger) as number;
    expect(id).toBeGreaterThan(0);
    const status = expectEnvelope(await call(sim(name), `analyze.php?id=${id}`));
    expect(valuesAt(status, 'id')).toContain(id);
  });

  it('webhooks.php: create, test and list keep the record id, name, url, events', async () => {
    const created = expectEnvelope(await call(sim(name), 'webhooks.php', { body: HOOK }));
    const record = objects(created).find((o) => o['url'] === HOOK.url) as Json;
    expect(Number.isInteger(record['id'])).toBe(true);
    expect(record['name']).toBe(HOOK.name);
    expect(record['events']).toEqual(HOOK.events);
    const tested = expectEnvelope(await call(sim(name), 'webhooks.php', { body: { action: 'test', webhook_id: record['id'] } }));
    expect(JSON.stringify(tested)).toContain(String(record['id']));
    const listed = expectEnvelope(await call(sim(name), 'webhooks.php'));
    expect(objects(listed).some((o) => o['id'] === record['id'] && o['name'] === HOOK.name && o['url'] === HOOK.url)).toBe(true);
  });

  it('errors keep 401, 404 and 429 with success false and meta', async () => {
    expectEnvelope(await call(sim(name), 'reports.php?id=999999'), 404);
    const unauthenticated = await call(sim(name), 'stats.php', { token: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.json['success']).toBe(false);
    expect(obj(unauthenticated.json['meta'])['api_version']).toBe('v1');
    const tight = await startSimulator({ ...BASE, dialect: name, dailyLimit: 1 });
    try {
      expectEnvelope(await call(tight, 'stats.php'));
      expectEnvelope(await call(tight, 'stats.php'), 429);
    } finally {
      await tight.close();
    }
  });
});

describe('classic is the unchanged reference', () => {
  it('answers byte for byte what a simulator without a dialect answers', async () => {
    const plain = await startSimulator(BASE);
    const named = await startSimulator({ ...BASE, dialect: 'classic' });
    try {
      const paths = ['projects.php', `scores.php?project_id=${projectId}`, 'competitors.php', 'stats.php', `scans.php?id=${scanId}`, 'reports.php?id=1'];
      for (const path of paths) {
        const [a, b] = [await call(plain, path), await call(named, path)];
        expect(b.text).toBe(a.text);
      }
      const post = { body: { project_id: projectId, format: 'json' } };
      expect((await call(named, 'reports.php', post)).text).toBe((await call(plain, 'reports.php', post)).text);
    } finally {
      await Promise.all([plain.close(), named.close()]);
    }
  });
});

async function classicReport(): Promise<Json> {
  const data = obj((await call(sim('classic'), 'reports.php', { body: { project_id: projectId, format: 'json' } })).json['data']);
  return obj(data['report']);
}

describe('compact differs from classic in placement, forms and names', () => {
  it('report: at data, sections at its top level, numeric strings, maps keyed by platform name', async () => {
    const classic = await classicReport();
    const sections = obj(classic['sections']);
    const data = expectEnvelope(await call(sim('compact'), 'reports.php', { body: { project_id: projectId, format: 'json' } }));
    // placement
    expect(data['report']).toBeUndefined();
    expect(data['sections']).toEqual(classic['include']);
    expect(data['status']).toBe('done');
    // forms and names
    const scores = obj(data['scores']);
    const classicScores = obj(sections['scores']);
    expect(scores['geo']).toBe(String(classicScores['geo_score']));
    expect(scores['seo']).toBe(String(classicScores['seo_score']));
    expect(obj(scores['assistants'])['chatgpt']).toBe(`${String(obj(classicScores['ai_visibility'])['chatgpt'])}%`);
    const classicMetrics = obj(sections['metrics']);
    expect(obj(data['metrics'])['share_of_voice']).toBe(`${String(obj(classicMetrics['share_of_voice'])['value'])}%`);
    expect(obj(data['metrics'])['ai_mentions']).toBe(String(classicMetrics['ai_mentions']));
    const platform = obj(list(obj(sections['trust'])['review_platforms'])[0]);
    const compactPlatform = obj(obj(obj(data['trust'])['platforms'])[String(platform['name'])]);
    expect(compactPlatform).toMatchObject({ stars: String(platform['rating']), reviews: String(platform['reviews_count']), link: platform['url'] });
    const history = list(data['history']).map(obj);
    expect(history[0]?.['month']).toMatch(/^\d{4}-\d{2}$/);
    const rec = obj(list(data['recommendations'])[0]);
    const classicRec = obj(list(sections['recommendations'])[0]);
    expect(rec).toMatchObject({ id: String(classicRec['id']), name: classicRec['title'], summary: classicRec['description'] });
  });

  it('competitors and stats: rows keyed by project id, flat benchmark, short names as strings', async () => {
    const classic = obj((await call(sim('classic'), 'competitors.php')).json['data']);
    const data = expectEnvelope(await call(sim('compact'), 'competitors.php'));
    const benchmark = obj(data['benchmark']);
    expect(benchmark['avg_geo']).toBe(String(obj(obj(classic['benchmark'])['geo_score'])['average']));
    expect(benchmark['geo_score']).toBeUndefined();
    const row = obj(list(classic['projects'])[1]);
    const compactRow = obj(obj(data['projects'])[String(row['project_id'])]);
    expect(compactRow['geo']).toBe(String(obj(row['scores'])['geo_score']));
    expect(compactRow['percentile']).toBe(String(row['percentile']));
    const delta = Number(obj(row['vs_benchmark'])['geo_score']);
    expect(obj(compactRow['vs_benchmark'])['geo']).toBe(delta > 0 ? `+${delta}` : String(delta));
    const stats = expectEnvelope(await call(sim('compact'), 'stats.php'));
    expect(stats['avg_geo']).toMatch(/^\d+(\.\d)?$/);
    expect(obj(list(stats['evolution'])[0])['month']).toMatch(/^\d{4}-\d{2}$/);
  });

  it('errors: a message string and a separate code', async () => {
    const body = expectEnvelope(await call(sim('compact'), 'reports.php?id=999999'), 404);
    expect(body['error']).toMatch(/not found/);
    expect(body['error_code']).toBe('not_found');
  });
});

describe('nested differs from classic in placement, forms and names', () => {
  it('report: sections under content, lists as { items, count }, ISO timestamps, long names', async () => {
    const classic = await classicReport();
    const sections = obj(classic['sections']);
    const data = expectEnvelope(await call(sim('nested'), 'reports.php', { body: { project_id: projectId, format: 'json' } }));
    const report = obj(data['report']);
    expect(report['sections']).toBeUndefined();
    expect(report['status']).toBe('completed');
    expect(obj(report['project'])['id']).toBe(projectId);
    const content = obj(report['content']);
    expect(obj(content['scores'])['ai_visibility_score']).toBe(obj(sections['scores'])['geo_score']);
    const history = obj(content['history']);
    expect(history['count']).toBe(list(sections['history']).length);
    expect(obj(list(history['items'])[0])['measured_at']).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\+00:00$/);
    const metrics = list(obj(content['metrics'])['items']).map(obj);
    expect(metrics.find((m) => m['metric'] === 'share_of_voice')).toMatchObject({ unit: 'percent' });
    const site = obj(list(obj(obj(content['trust'])['review_sites'])['items'])[0]);
    const platform = obj(list(obj(sections['trust'])['review_platforms'])[0]);
    expect(site).toMatchObject({
      platform: { name: platform['name'], url: platform['url'] },
      rating: { value: platform['rating'], scale: 5 },
      review_count: platform['reviews_count'],
    });
    const rec = obj(list(obj(content['recommendations'])['items'])[0]);
    expect(rec['label']).toBe(obj(list(sections['recommendations'])[0])['title']);
  });

  it('competitors and stats: benchmark per score with mean, rows with a nested project, percentile_rank', async () => {
    const classic = obj((await call(sim('classic'), `competitors.php?project_id=${projectId}`)).json['data']);
    const data = expectEnvelope(await call(sim('nested'), `competitors.php?project_id=${projectId}`));
    expect(obj(data['project'])['id']).toBe(projectId);
    expect(obj(obj(data['global_benchmark'])['ai_visibility_score'])['mean']).toBe(obj(obj(classic['benchmark'])['geo_score'])['average']);
    expect(obj(data['comparison'])['percentile_rank']).toBe(classic['percentile']);
    const others = obj(data['other_projects']);
    expect(others['count']).toBe(list(classic['other_projects']).length);
    const stats = expectEnvelope(await call(sim('nested'), 'stats.php'));
    expect(obj(obj(stats['totals'])['projects'])['count']).toBe(8);
    expect(obj(list(obj(stats['evolution'])['items'])[0])['period']).toMatch(/^\d{4}-\d{2}-01T00:00:00\+00:00$/);
  });

  it('errors: a list of { code, detail }', async () => {
    const body = expectEnvelope(await call(sim('nested'), 'reports.php?id=999999'), 404);
    expect(body['errors']).toEqual([{ code: 'not_found', detail: 'Report 999999 not found.' }]);
  });
});

describe('the dialects differ from each other', () => {
  // strict reshapes the scans and the ids only (below): its content answers are classic's.
  const reshaping = DIALECT_NAMES.filter((name) => name !== 'strict');
  it('no two dialects answer the same report, competitors or stats text', async () => {
    for (const path of ['competitors.php', 'stats.php', `scores.php?project_id=${projectId}`, `recommendations.php?project_id=${projectId}`]) {
      const texts = await Promise.all(reshaping.map(async (name) => JSON.stringify((await call(sim(name), path)).json['data'])));
      expect(new Set(texts).size).toBe(reshaping.length);
    }
  });
});

describe('strict reads the spec to the letter', () => {
  it('refuses a parameter value the spec does not name with a 400 that names it; the values it names pass', async () => {
    const refused = await call(sim('strict'), `scans.php?id=${scanId}&include=seo_audit,geo&seo_steps=step4_keywords,step3_serp`);
    expect(refused.status).toBe(400);
    expect(refused.json['success']).toBe(false);
    expect(refused.text).toContain('unknown seo_steps: step4_keywords');
    expect(refused.text).not.toContain('step3_serp,');
    // classic takes the same request: the refusal is strict's reading, not a bad request.
    expect((await call(sim('classic'), `scans.php?id=${scanId}&include=seo_audit,geo&seo_steps=step4_keywords,step3_serp`)).status).toBe(200);
    expect((await call(sim('strict'), `scans.php?id=${scanId}&include=seo_audit&seo_steps=step3_serp,step6_report`)).status).toBe(200);
    const badFormat = await call(sim('strict'), 'reports.php', { body: { project_id: projectId, format: 'pdf', include: ['scores'] } });
    expect(badFormat.status).toBe(400);
    expect(badFormat.text).toContain('unknown format: pdf');
  });

  it("sends ids as strings, a scan's sections under result, its date as performed_at, geo as prompts with their engines", async () => {
    const data = expectEnvelope(await call(sim('strict'), `scans.php?id=${scanId}&include=geo,seo_audit`));
    const scan = obj(data['scan']);
    expect(scan['id']).toBe(String(scanId));
    expect(scan['project_id']).toBe(String(projectId));
    expect(scan['geo']).toBeUndefined();
    expect(String(scan['performed_at'])).toMatch(/^\d{4}-\d{2}-\d{2}T.*\+00:00$/);
    const result = obj(scan['result']);
    expect(Object.keys(result).sort()).toEqual(['geo', 'seo_audit']);
    const geo = obj(result['geo']);
    expect(geo['questions']).toBeUndefined();
    expect(geo['positions']).toBeUndefined();
    const prompts = list(geo['prompts']).map(obj);
    expect(prompts.length).toBeGreaterThan(2);
    const engines = obj(prompts[0]?.['engines']);
    expect(Object.keys(engines).length).toBeGreaterThan(2);
    for (const engine of Object.values(engines).map(obj)) expect(['true', 'false']).toContain(engine['cited']);
  });
});

describe('custom dialects in process', () => {
  it('a data transform and an error transform choose names nobody could guess', async () => {
    const seen: string[] = [];
    const custom = await startSimulator({
      ...BASE,
      dialect: {
        name: 'zz',
        data(answer: ClassicAnswer) {
          seen.push(answer.endpoint);
          if (answer.endpoint !== 'reports.php') return answer.data;
          const report = obj(obj(answer.data)['report']);
          const scores = obj(obj(report['sections'])['scores']);
          return { zz_doc: { id: report['id'], format: report['format'], blob: { scores: { zz_vis: scores['geo_score'] } } } };
        },
        error: (failure) => ({ zz_fault: `${failure.status}:${failure.code}` }),
      },
    });
    const shorthand = await startSimulator({ ...BASE, dialect: (answer) => ({ wrapped: answer.data }) });
    try {
      const data = expectEnvelope(await call(custom, 'reports.php', { body: { project_id: projectId, format: 'json', include: ['scores'] } }));
      expect(obj(obj(obj(obj(data['zz_doc'])['blob'])['scores']))['zz_vis']).toEqual(expect.any(Number));
      expect(seen).toEqual(['reports.php']);
      const missing = expectEnvelope(await call(custom, 'reports.php?id=999999'), 404);
      expect(missing['zz_fault']).toBe('404:not_found');
      const wrapped = expectEnvelope(await call(shorthand, 'stats.php'));
      expect(obj(wrapped['wrapped'])['projects_count']).toBe(8);
    } finally {
      await Promise.all([custom.close(), shorthand.close()]);
    }
  });

  it('the simulator command serves the dialect it is given', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    let announce: (url: string) => void = () => undefined;
    const listening = new Promise<string>((resolve) => (announce = resolve));
    const running = runSimulatorCommand({
      port: 0,
      seed: 42,
      projectCount: 8,
      dialect: 'nested',
      signal: controller.signal,
      out: (line) => {
        lines.push(line);
        const url = /listening on (\S+)/.exec(line)?.[1];
        if (url) announce(url);
      },
    });
    const url = await listening;
    try {
      const res = await fetch(`${url}/api/v1/stats.php`, { headers: { authorization: `Bearer ${DEMO_TOKEN}` } });
      const body = (await res.json()) as Json;
      expect(obj(obj(body['data'])['totals'])['scans']).toEqual({ count: expect.any(Number) });
    } finally {
      controller.abort();
      await running;
    }
    expect(lines).toContain('Dialect: nested');
  });
});
