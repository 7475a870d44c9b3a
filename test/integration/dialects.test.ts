// Every reading of the spec, not only ours: the batch, the one-off commands and doctor against each simulator
// dialect, and a field map for a dialect whose names no default knows.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchResult } from '../../src/batch/run.js';
import { main } from '../../src/cli.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { readReport } from '../../src/content/report.js';
import { Manifest } from '../../src/output/store.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { DIALECT_NAMES, type ClassicAnswer, type DialectOption } from '../../src/simulator/dialects.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { toMonth } from '../../src/period.js';

const PERIOD = toMonth('2026-10');
const NOW = new Date('2026-11-04T06:00:00Z');
const clock = (): Date => NOW;

let rig: BatchRig;
let root: string;

beforeAll(async () => {
  rig = await startBatchRig();
  root = await mkdtemp(join(tmpdir(), 'geo-dialects-'));
});

afterAll(async () => {
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

async function withSimulator<T>(dialect: DialectOption, use: (sim: SimulatorHandle) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ seed: 11, projectCount: 10, clock, dialect });
  try {
    return await use(sim);
  } finally {
    await sim.close();
  }
}

function batch(sim: SimulatorHandle, out: string, config: Config = ConfigSchema.parse({ report: { language: 'en' } })): Promise<BatchResult> {
  return rig.run({ baseUrl: sim.url, tokens: [DEMO_TOKEN], period: PERIOD, outDir: out, config, clock });
}

/** The CLI in this process, with its output captured. */
async function cli(argv: string[], sim: SimulatorHandle, cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url },
    cwd,
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    handleSignals: false,
  });
  return { code, stdout, stderr };
}

/** What a client's report is made of, per project, read back from the period's data.json files. */
async function reportValues(out: string, fields: Config['api']['fields'] = {}) {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
  const values: Record<number, unknown> = {};
  for (const entry of manifest.projects) {
    const data = parsePeriodData(JSON.parse(await readFile(join(out, PERIOD, entry.files.data as string), 'utf8')));
    if (data === null) throw new Error(`unreadable data.json for project ${entry.id}`);
    const content = readReport(data.report, fields);
    values[entry.id] = {
      geo: content.scores?.geo,
      seo: content.scores?.seo,
      ai: content.scores?.aiVisibility,
      history: content.history,
      metrics: content.metrics?.map((m) => [m.key, m.value]),
      trust: content.trust?.score,
      platforms: content.trust?.platforms.map((p) => [p.name, p.rating, p.reviews, p.url]),
      recommendations: content.recommendations?.map((r) => [String(r.id), r.title, r.priority, r.category]),
      benchmark: data.ranking?.benchmark.geo?.average,
      benchmarkSeo: data.ranking?.benchmark.seo?.average,
      percentile: data.ranking?.row?.percentile,
      vs: data.ranking?.row?.vsBenchmark,
      goals: entry.goals,
    };
  }
  return { manifest, values };
}

// One goal of every metric form: each must find its value in every wire form.
const WITH_GOALS = ConfigSchema.parse({
  report: {
    language: 'en',
    goals: [
      { metric: 'geo', target: 90, by: '2027-06' },
      { metric: 'seo', target: 90, by: '2027-06' },
      { metric: 'trust', target: 90, by: '2027-06' },
      { metric: 'ai:chatgpt', target: 90, by: '2027-06' },
      { metric: 'metric:citations', target: 90, by: '2027-06' },
    ],
  },
});

interface DialectBatch {
  out: string;
  result: BatchResult;
  /** Active projects of the simulator, and the requests it received. */
  active: number;
  requests: number;
  read: Awaited<ReturnType<typeof reportValues>>;
}

describe('the monthly batch against every dialect', () => {
  const batches = new Map<string, Promise<DialectBatch>>();
  /** The batch against a dialect, run once by whichever test needs it first; the tests only read it. */
  function batchOf(dialect: (typeof DIALECT_NAMES)[number]): Promise<DialectBatch> {
    let made = batches.get(dialect);
    if (made === undefined) {
      const out = join(root, `batch-${dialect}`);
      made = withSimulator(dialect, async (sim) => {
        const result = await batch(sim, out, WITH_GOALS);
        return { result, active: sim.state.projects().filter((p) => p.status === 'active').length, requests: sim.state.requests.length };
      }).then(async (run) => ({ ...run, out, read: await reportValues(out) }));
      batches.set(dialect, made);
    }
    return made;
  }

  for (const dialect of DIALECT_NAMES) {
    it(`${dialect}: every active project reported, nothing lost, requests at the floor`, async () => {
      const { out, result, active, requests, read } = await batchOf(dialect);
      expect(result.summary).toMatchObject({ done: active, failed: 0, pending: 0 });
      expect(result.summary.requests.total).toBe(result.plan.floor);
      expect(requests).toBe(result.plan.floor);
      for (const entry of read.manifest.projects) {
        // Nothing the reports use was missing: no data-quality note on any project.
        expect(entry.notes, `project ${entry.id}`).toEqual([]);
        expect(entry.geo).not.toBeNull();
        expect(entry.percentile).not.toBeNull();
        // Every goal's metric was found, whatever the wire form: none is left without data.
        expect(
          entry.goals?.map((g) => g.status),
          `goals of ${entry.id}`,
        ).not.toContain('no_data');
        expect(entry.goals).toHaveLength(WITH_GOALS.report.goals.length);
        const values = read.values[entry.id] as Record<string, unknown[] | number | null | undefined>;
        for (const key of ['geo', 'seo', 'trust', 'benchmark', 'benchmarkSeo', 'percentile'])
          expect(values[key], `${key} of ${entry.id}`).toEqual(expect.any(Number));
        for (const key of ['ai', 'history', 'metrics', 'platforms', 'recommendations']) {
          expect((values[key] as unknown[] | undefined)?.length, `${key} of ${entry.id}`).toBeGreaterThan(0);
        }
        const html = await readFile(join(out, PERIOD, entry.files.html as string), 'utf8');
        expect(html).not.toContain('Ranking not available');
      }
      const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
      expect(index).toContain('Average GEO score');
    });
  }

  it('reads the same values from every dialect (the same data in three wire forms)', async () => {
    const classic = (await batchOf('classic')).read.values;
    expect(Object.keys(classic).length).toBeGreaterThan(0);
    for (const dialect of DIALECT_NAMES.filter((d) => d !== 'classic')) expect((await batchOf(dialect)).read.values, dialect).toEqual(classic);
  }, 240_000);
});

describe('one-off commands against every dialect', () => {
  for (const dialect of DIALECT_NAMES) {
    it(`${dialect}: competitors, stats, scores, scans, recommendations and reports print what the readers found`, async () => {
      await withSimulator(dialect, async (sim) => {
        const project = sim.state.projects().find((p) => p.status === 'active');
        if (project === undefined) throw new Error('no active project');
        const id = String(project.id);
        const [competitors, stats, scores, scans, recommendations, created] = await Promise.all([
          cli(['competitors'], sim),
          cli(['stats'], sim),
          cli(['scores', '--project', id], sim),
          cli(['scans', '--project', id], sim),
          cli(['recommendations', '--project', id], sim),
          cli(['reports', 'create', id], sim),
        ]);
        for (const result of [competitors, stats, scores, scans, recommendations, created]) expect(result.stderr).toBe('');
        expect(competitors.code).toBe(0);
        expect(competitors.stdout).toMatch(/Benchmark average: GEO \d/);
        expect(competitors.stdout).toContain(project.name);
        expect(competitors.stdout).toMatch(new RegExp(`^\\s*${id}\\s+.*\\s\\d+\\s+\\d+\\s+\\d+`, 'm'));
        expect(stats.code).toBe(0);
        expect(stats.stdout).toMatch(/^\s*10\s+\d+\s+\d/m);
        expect(stats.stdout).toMatch(/\d{4}-\d{2}\s+\d/);
        expect(scores.code).toBe(0);
        expect(scores.stdout).toMatch(new RegExp(`Project ${id}: latest GEO \\d+(\\.\\d)?, SEO \\d`));
        expect(scans.code).toBe(0);
        expect(recommendations.code).toBe(0);
        expect(recommendations.stdout).toMatch(/\d+ recommendation\(s\)/);
        expect(recommendations.stdout).not.toMatch(/^0 recommendation/m);
        expect(created.code).toBe(0);
        expect(created.stdout).toMatch(/scores\s+GEO \d/);
        const reportId = /^\s*(\d+)\s+\d+/m.exec(created.stdout)?.[1];
        const got = await cli(['reports', 'get', reportId ?? '0'], sim);
        expect(got.code).toBe(0);
        expect(got.stdout).toMatch(/recommendations\s+\d+ recommendation\(s\)/);
      });
    });
  }
});

describe('doctor', () => {
  for (const dialect of DIALECT_NAMES) {
    it(`${dialect}: finds every value the dialect carries, in at most 10 requests`, async () => {
      await withSimulator(dialect, async (sim) => {
        const result = await cli(['doctor', '--json'], sim);
        expect(result.code).toBe(0);
        const report = JSON.parse(result.stdout) as { requests: number; essentialsRead: boolean; findings: Array<{ field: string; path: string | null }> };
        expect(report.requests).toBeLessThanOrEqual(10);
        expect(sim.state.requests.length).toBeLessThanOrEqual(10);
        expect(report.essentialsRead).toBe(true);
        const missing = report.findings.filter((f) => f.path === null).map((f) => f.field);
        // No dialect gives a measurement date or a recommendation status; compact has no sections wrapper and
        // folds the unit into the metric value.
        const notCarried = { classic: [], compact: ['report.sections', 'metric.unit'], nested: [], strict: [] }[dialect];
        expect(missing.sort()).toEqual(['recommendation.status', 'scores.measuredAt', ...notCarried].sort());
      });
    });
  }

  it('saves the raw answers without the token, and the table names every value', async () => {
    await withSimulator('nested', async (sim) => {
      const dir = join(root, 'doctor-saved');
      const result = await cli(['doctor', '--save', dir], sim);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Values the reports use: \d+ of \d+ found/);
      expect(result.stdout).toContain('report.content.scores.ai_visibility_score');
      expect(result.stdout).toContain('Keys nothing reads');
      for (const name of ['projects', 'competitors', 'stats', 'report']) {
        const text = await readFile(join(dir, `${name}.json`), 'utf8');
        expect(text).not.toContain(DEMO_TOKEN);
        expect(JSON.parse(text)).toBeTypeOf('object');
      }
    });
  });
});

/** An API that sends "unit": null on every metric it has no unit for, and empty keys beside its other data. */
const nullUnits = (answer: ClassicAnswer): unknown => {
  if (answer.endpoint !== 'reports.php') return answer.data;
  const data = structuredClone(answer.data) as { report?: { sections?: Record<string, Record<string, unknown> | undefined> } };
  const metrics = data.report?.sections?.['metrics'];
  if (metrics !== undefined) {
    for (const [key, value] of Object.entries(metrics)) metrics[key] = typeof value === 'number' ? { value, unit: null } : value;
  }
  const local = data.report?.sections?.['local_presence'];
  if (local !== undefined) Object.assign(local, { notes: '', badges: [], extra: {}, verified_at: null });
  return data;
};

describe('keys without a value ("unit": null on every metric)', () => {
  it('gives no empty box in the report, and doctor still lists them', async () => {
    await withSimulator(nullUnits, async (sim) => {
      const out = join(root, 'null-units');
      const result = await batch(sim, out);
      expect(result.status).toBe('complete');
      const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
      let withLocal = 0;
      for (const entry of manifest.projects) {
        // The data the report was made from carries the nulls.
        const data = JSON.parse(await readFile(join(out, PERIOD, entry.files.data as string), 'utf8')) as {
          report: { report: { sections: { metrics: Record<string, unknown> } } };
        };
        expect(data.report.report.sections.metrics['ai_mentions']).toHaveProperty('unit', null);
        const html = await readFile(join(out, PERIOD, entry.files.html as string), 'utf8');
        // The page without its inline styles and fonts: what a reader sees.
        const body = html.slice(html.indexOf('<body'));
        // The metrics are there, with their figures; no row, box or list says "Unit" or shows an empty value.
        expect(body).toContain('AI mentions');
        expect(body.match(/<dt>\s*(Unit|Notes|Badges|Extra|Verified at)\s*<\/dt>/)?.[0] ?? null).toBeNull();
        expect(body.match(/<h3>\s*AI mentions\s*<\/h3>/)?.[0] ?? null).toBeNull();
        expect(body.match(/<dd>\s*(None|—)?\s*<\/dd>/)?.[0] ?? null).toBeNull();
        const other = body.indexOf('class="section section--other"');
        if (other >= 0) {
          withLocal += 1;
          expect(body.slice(other, other + 2000)).toMatch(/<dt>\s*Google business profile\s*<\/dt>/);
        }
      }
      expect(withLocal).toBeGreaterThan(0);

      const doctor = await cli(['doctor', '--json'], sim);
      const diagnosis = JSON.parse(doctor.stdout) as { unread: Array<{ answer: string; path: string }>; unnamed: string[] };
      const unread = diagnosis.unread.map((u) => u.path);
      // The field's common keys (local presence, business profile, NAP consistency…) have our labels in every
      // language now: none is shown as the API names it.
      expect(diagnosis.unnamed).toEqual([]);
      expect(unread.filter((path) => /^report\.sections\.metrics\.[a-z_]+\.unit$/.test(path)).length).toBeGreaterThan(3);
      expect(unread).toContain('report.sections.local_presence');
    });
  }, 120_000);
});

/** Names nobody would guess: every key of the classic content, reversed and prefixed (`geo_score` → `x_erocs_oeg`). */
function strange(value: unknown, keep: ReadonlySet<string>, keepNames = false): unknown {
  if (Array.isArray(value)) return value.map((item) => strange(item, keep));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      keepNames || keep.has(key) || /^\d+$/.test(key) ? key : `x_${Array.from(key).reverse().join('')}`,
      // The assistants are data, not field names: they keep their names.
      strange(inner, keep, key === 'ai_visibility'),
    ]),
  );
}

// What the spec names stays as it is; everything else is renamed, and project names and assistants keep theirs.
const SPEC_NAMED = new Set([
  'id',
  'project_id',
  'status',
  'format',
  'priority',
  'category',
  'projects',
  'total',
  'scores',
  'recommendations',
  'history',
  'metrics',
  'trust',
  'vs_benchmark',
]);
const strangeDialect = (answer: ClassicAnswer): unknown =>
  ['reports.php', 'competitors.php', 'stats.php'].includes(answer.endpoint) ? strange(answer.data, SPEC_NAMED) : answer.data;

describe('a field map for names nobody guessed', () => {
  it('doctor cannot read them alone; with the map in the config it finds them, --write-config makes it explicit, and the batch then reads everything', async () => {
    await withSimulator(strangeDialect, async (sim) => {
      const blind = await cli(['doctor', '--json'], sim);
      expect(blind.code).toBe(1);
      expect((JSON.parse(blind.stdout) as { essentialsRead: boolean }).essentialsRead).toBe(false);

      // What an agency writes after reading doctor's list of unread keys.
      const dir = await mkdtemp(join(root, 'fieldmap-'));
      const given = join(dir, 'given.json');
      await writeFile(
        given,
        JSON.stringify({
          api: {
            fields: {
              'report.sections': 'x_troper.x_snoitces',
              'scores.geo': 'x_troper.x_snoitces.scores.x_erocs_oeg',
              'scores.seo': 'x_troper.x_snoitces.scores.x_erocs_oes',
              'scores.aiVisibility': 'x_troper.x_snoitces.scores.x_ytilibisiv_ia',
              'history.period': 'x_etad',
              'history.geo': 'x_erocs_oeg',
              'history.seo': 'x_erocs_oes',
              'trust.score': 'x_troper.x_snoitces.trust.x_erocs_tsurt',
              'trust.platforms': 'x_troper.x_snoitces.trust.x_smroftalp_weiver',
              'platform.name': 'x_eman',
              'platform.rating': 'x_gnitar',
              'platform.count': 'x_tnuoc_sweiver',
              'platform.link': 'x_lru',
              'recommendation.title': 'x_eltit',
              'recommendation.description': 'x_noitpircsed',
              'recommendation.impact': 'x_tcapmi',
              benchmark: 'x_kramhcneb',
              'benchmark.geoAverage': 'x_kramhcneb.x_erocs_oeg.x_egareva',
              'benchmark.seoAverage': 'x_kramhcneb.x_erocs_oes.x_egareva',
              'benchmark.sampleSize': 'x_kramhcneb.x_ezis_elpmas',
              'competitor.geo': 'scores.x_erocs_oeg',
              'competitor.seo': 'scores.x_erocs_oes',
              'competitor.percentile': 'x_elitnecrep',
              'stats.projects': 'x_tnuoc_stcejorp',
              'stats.scans': 'x_tnuoc_snacs',
              'stats.averageScore': 'x_erocs_egareva',
              'stats.topProjects': 'x_stcejorp_pot',
              'topProject.name': 'x_eman',
              'topProject.geo': 'x_erocs_oeg',
              'stats.evolution': 'x_noitulove',
              'evolution.period': 'x_htnom',
              'evolution.value': 'x_erocs_egareva',
            },
          },
        }),
      );
      const written = join(dir, 'written.json');
      const mapped = await cli(['doctor', '--config', given, '--write-config', written, '--json'], sim);
      expect(mapped.code).toBe(0);
      const found = JSON.parse(mapped.stdout) as { findings: Array<{ field: string; path: string | null }> };
      expect(found.findings.find((f) => f.field === 'scores.geo')?.path).toBe('x_troper.x_snoitces.scores.x_erocs_oeg');

      // The batch, with only the file doctor wrote as its config, reads every value.
      const config = ConfigSchema.parse(JSON.parse(await readFile(written, 'utf8')));
      expect(Object.keys(config.api.fields).length).toBeGreaterThan(20);
      const out = join(dir, 'out');
      const result = await batch(sim, out, config);
      expect(result.summary.failed).toBe(0);
      expect(result.summary.pending).toBe(0);
      const read = await reportValues(out, config.api.fields);
      for (const entry of read.manifest.projects) {
        expect(entry.notes, `project ${entry.id}`).toEqual([]);
        const values = read.values[entry.id] as Record<string, unknown[] | number | null | undefined>;
        for (const key of ['geo', 'seo', 'trust', 'benchmark', 'percentile']) expect(values[key], `${key} of ${entry.id}`).toEqual(expect.any(Number));
        for (const key of ['ai', 'history', 'platforms', 'recommendations']) expect((values[key] as unknown[]).length).toBeGreaterThan(0);
      }
    });
  });
});
