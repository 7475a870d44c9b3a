// Goals through the real batch on the simulator, over two periods: every metric form, the status the rule gives
// from the data the reports were made from, in English and French, in the PDF's text and the agency index; not
// one request more than without goals; a bad goal stops the CLI before any request, naming its key.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { evaluateGoal, type Goal, type GoalStatus, type MonthlyValue } from '../../src/report/goals.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { ReportOne } from '../support/classic-schemas.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { runCli, type CliResult } from '../support/cli.js';
import { monthOfDate, toMonth, type MonthPeriod } from '../../src/period.js';

const exec = promisify(execFile);
const TOKEN = 'tok-goals-7d1e4b9a2c6f3e05';

// One goal of every metric form, each picked so that the two periods meet several statuses.
const GOALS: Goal[] = [
  { metric: 'geo', target: 95, by: toMonth('2027-06') },
  { metric: 'seo', target: 1, by: toMonth('2027-06'), label: 'SEO score kept above 1' },
  { metric: 'trust', target: 100, by: toMonth('2026-09') },
  { metric: 'ai:chatgpt', target: 99, by: toMonth('2027-03') },
  { metric: 'metric:citations', target: 0, by: toMonth('2027-03'), direction: 'down' },
  { metric: 'ai:nobody_asks_this', target: 50, by: toMonth('2027-03') },
];

const STATUS_WORDS: Record<'en' | 'fr', Record<GoalStatus, string>> = {
  en: { no_data: 'No data', achieved: 'Achieved', missed: 'Missed', no_trend: 'No trend yet', on_track: 'On track', behind: 'Behind' },
  fr: { no_data: 'Pas de données', achieved: 'Atteint', missed: 'Manqué', no_trend: 'Pas encore de tendance', on_track: 'En bonne voie', behind: 'En retard' },
};

let sim: SimulatorHandle;
let rig: BatchRig;
let root: string;
let now = new Date('2026-10-04T06:00:00Z');
let frenchId: number;
let withGoals: Config;
let requests: { withGoals: number; without: number };

const outWith = (): string => join(root, 'with-goals');
const outWithout = (): string => join(root, 'without-goals');

function batch(period: MonthPeriod, outDir: string, config: Config) {
  return rig.run({ baseUrl: sim.url, tokens: [TOKEN], period, outDir, config, clock: () => now });
}

async function manifestOf(outDir: string, period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(outDir, period, 'manifest.json'), 'utf8')));
}

/** The goal's monthly values as the raw API data of both periods says them (classic wire form), oldest first. */
async function rawSeries(entryOf: (period: string) => ProjectEntry, goal: Goal): Promise<MonthlyValue[]> {
  const byMonth = new Map<MonthPeriod, number>();
  for (const period of [toMonth('2026-09'), toMonth('2026-10')]) {
    const entry = entryOf(period);
    const data = parsePeriodData(JSON.parse(await readFile(join(outWith(), period, entry.files.data as string), 'utf8')));
    const sections = ReportOne.parse(data?.report).sections ?? {};
    if (goal.metric === 'geo' || goal.metric === 'seo') {
      for (const point of sections.history ?? []) {
        const value = (point as Record<string, unknown>)[`${goal.metric}_score`];
        const month = monthOfDate(String((point as { date: unknown }).date));
        if (typeof value === 'number' && month <= period) byMonth.set(month, value);
      }
    }
    const value =
      goal.metric === 'geo'
        ? sections.scores?.geo_score
        : goal.metric === 'seo'
          ? sections.scores?.seo_score
          : goal.metric === 'trust'
            ? sections.trust?.trust_score
            : goal.metric === 'ai:chatgpt'
              ? sections.scores?.ai_visibility?.['chatgpt']
              : goal.metric === 'metric:citations'
                ? sections.metrics?.['citations']
                : undefined;
    if (typeof value === 'number') byMonth.set(period, value);
    else byMonth.delete(period);
  }
  return [...byMonth].sort(([a], [b]) => (a < b ? -1 : 1)).map(([period, value]) => ({ period, value }));
}

async function pdfText(outDir: string, period: string, entry: ProjectEntry): Promise<string> {
  const { stdout } = await exec('pdftotext', [join(outDir, period, entry.files.pdf as string), '-']);
  return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
}

/** The CLI against the simulator, in `cwd`; a batch may take minutes on a loaded machine. */
const cli = (cwd: string, args: string[]): Promise<CliResult> =>
  runCli([...args, '--base-url', sim.url], { cwd, env: { ...process.env, AGENCY_API_TOKEN: TOKEN }, timeoutMs: 300_000 });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-goals-'));
  sim = await startSimulator({ projectCount: 8, tokens: [TOKEN], clock: () => now });
  rig = await startBatchRig();
  frenchId = sim.state.projects().filter((p) => p.status === 'active')[0]?.id as number;
  const clients = { [String(frenchId)]: { language: 'fr' } };
  // An English agency: only the client pinned French gets a French report, whatever the service marks.
  withGoals = ConfigSchema.parse({ report: { language: 'en', goals: GOALS }, clients });
  const without = ConfigSchema.parse({ report: { language: 'en' }, clients });

  now = new Date('2026-10-04T06:00:00Z');
  expect((await batch(toMonth('2026-09'), outWith(), withGoals)).summary.failed).toBe(0);
  await cp(outWith(), outWithout(), { recursive: true });
  now = new Date('2026-11-04T06:00:00Z');
  let before = sim.state.requests.length;
  expect((await batch(toMonth('2026-10'), outWith(), withGoals)).summary.failed).toBe(0);
  const withCount = sim.state.requests.length - before;
  before = sim.state.requests.length;
  expect((await batch(toMonth('2026-10'), outWithout(), without)).summary.failed).toBe(0);
  requests = { withGoals: withCount, without: sim.state.requests.length - before };
}, 240_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('goals in the monthly reports', () => {
  it('costs no request: the run with goals asks exactly what the run without them asks', () => {
    expect(requests.withGoals).toBeGreaterThan(0);
    expect(requests.withGoals).toBe(requests.without);
  });

  it('gives each goal of every metric form the status the rule gives from the data, in the PDF, in English and French', async () => {
    const september = await manifestOf(outWith(), '2026-09');
    const october = await manifestOf(outWith(), '2026-10');
    const done = october.projects.filter((p) => p.status === 'done');
    expect(done.length).toBeGreaterThanOrEqual(4);
    const seen = new Set<GoalStatus>();
    for (const entry of done) {
      const entryOf = (period: string): ProjectEntry => (period === '2026-10' ? october : september).projects.find((p) => p.id === entry.id) as ProjectEntry;
      const language = entry.id === frenchId ? 'fr' : 'en';
      const text = await pdfText(outWith(), '2026-10', entry);
      expect(text).toContain(language === 'en' ? 'Goals' : 'Objectifs');
      expect(entry.goals?.map((g) => g.metric)).toEqual(GOALS.map((g) => g.metric));
      for (const [i, goal] of GOALS.entries()) {
        const expected = evaluateGoal(goal, toMonth('2026-10'), await rawSeries(entryOf, goal)).status;
        seen.add(expected);
        expect(entry.goals?.[i]?.status, `${entry.name}: ${goal.metric}`).toBe(expected);
        expect(text).toContain(STATUS_WORDS[language][expected]);
      }
      expect(text).toContain(language === 'en' ? 'GEO score: 95 points or more' : 'Score GEO : 95 points ou plus');
      expect(text).toContain('SEO score kept above 1');
      expect(text).toContain(language === 'en' ? 'Visibility on ChatGPT: 99 points or more' : 'Visibilité sur ChatGPT : 99 points ou plus');
      expect(text).toContain(language === 'en' ? 'by June 2027' : 'd’ici juin 2027');
      if (language === 'fr') expect(text).not.toMatch(/On track|Behind|No trend yet|Achieved/);
      // A need is never written 0, no pace stands beside "no trend yet", and each bar is filled as far as its row says.
      expect(text).not.toMatch(/(Needed|Nécessaire) ?: ▶ 0 /);
      const html = await readFile(join(outWith(), '2026-10', entry.files.html as string), 'utf8');
      const rows = html.split('<tr class="goal goal--').slice(1);
      expect(rows.length).toBe(GOALS.length);
      for (const row of rows) {
        if (row.startsWith('no_trend')) expect(row.split('</tr>')[0]).not.toMatch(/Recent pace|Rythme récent|At this pace|À ce rythme/);
        const bar = /aria-label="([-\d.,\u202f]+) (?:of|sur) ([-\d.,\u202f]+)"><div class="bar__fill" style="width: ([\d.]+)%"/.exec(row);
        if (bar === null) continue;
        const number = (text: string | undefined): number => Number((text ?? '').replace(/[\u202f,]/g, (c) => (c === ',' && language === 'fr' ? '.' : '')));
        const [value, target, width] = [number(bar[1]), number(bar[2]), Number(bar[3])];
        expect(width, `${entry.name}: ${bar[0]}`).toBeCloseTo(Math.min(100, Math.max(0, (value / target) * 100)), 0);
      }
    }
    // Over the clients and goals, the rule's every outcome but one can be met by these two periods.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['achieved', 'missed', 'no_data', 'no_trend']));
    expect(seen.has('on_track') || seen.has('behind')).toBe(true);
  });

  it('names a goal behind in the summary, and lists goals behind or missed on the agency index', async () => {
    const october = await manifestOf(outWith(), '2026-10');
    const behind = october.projects.find((p) => p.status === 'done' && p.id !== frenchId && p.goals?.some((g) => g.status === 'behind'));
    if (behind !== undefined) {
      const label = behind.goals?.find((g) => g.status === 'behind')?.label as string;
      expect(behind.summary?.join(' ')).toContain(`The goal “${label}” is behind: reaching it by`);
    }
    const index = await readFile(join(outWith(), '2026-10', 'index.html'), 'utf8');
    expect(index).toContain('Goals off track');
    // Trust 100 by September 2026 cannot have been met by any client.
    expect(index).toContain('Trust score: 100 points or more: missed');
    const plain = await readFile(join(outWithout(), '2026-10', 'index.html'), 'utf8');
    expect(plain).not.toContain('Goals off track');
  });

  it('shows no goals section for a client without goals', async () => {
    const october = await manifestOf(outWithout(), '2026-10');
    const entry = october.projects.find((p) => p.status === 'done' && p.id !== frenchId) as ProjectEntry;
    expect(entry.goals).toBeUndefined();
    expect(await pdfText(outWithout(), '2026-10', entry)).not.toContain('Goals');
  });
});

describe('goals in the command line', () => {
  it('refuses a bad goal before any request, naming its key', async () => {
    const cwd = join(root, 'bad');
    await mkdir(join(cwd, 'config'), { recursive: true });
    await writeFile(
      join(cwd, 'config', 'geo-reports.json'),
      JSON.stringify({
        clients: { '109': { goals: [{ metric: 'geo', target: 70, by: '2027-3' }] } },
        report: { goals: [{ metric: 'GEO', target: 1, by: '2027-03' }] },
      }),
    );
    const before = sim.state.requests.length;
    const result = await cli(cwd, ['run', '--period', '2026-10']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('clients."109".goals[0].by: expected a month like "2027-03"');
    expect(result.stderr).toContain('report.goals[0].metric: unknown metric');
    expect(sim.state.requests.length).toBe(before);
  });

  it('says in the run summary which goals had no data', async () => {
    const cwd = join(root, 'cli');
    await mkdir(join(cwd, 'config'), { recursive: true });
    await writeFile(join(cwd, 'config', 'geo-reports.json'), JSON.stringify({ report: { goals: GOALS } }));
    const id = sim.state.projects().filter((p) => p.status === 'active')[1]?.id as number;
    const result = await cli(cwd, ['run', '--period', '2026-10', '--project', String(id)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as { type: string; summary: { goalsWithoutData: unknown } };
    expect(summary.type).toBe('summary');
    expect(summary.summary.goalsWithoutData).toEqual([{ id, name: expect.any(String), metrics: ['ai:nobody_asks_this'] }]);
  }, 60_000);
});
