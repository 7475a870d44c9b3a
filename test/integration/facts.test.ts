// One figure per fact, read back from what the batch wrote: two months on a simulator whose scores carry halves
// (76.5) and whose service revises September's GEO score between the two runs. The headline, the history table,
// the summary, the manifest (what the mail, the site and the index read) and the export write the same figures;
// October's "last month" is the figure September's report showed, and the revision is said once.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import type { Fact } from '../../src/report/facts.js';
import { startSimulator, type ClassicAnswer, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { toMonth } from '../../src/period.js';

const TOKEN = 'tok-facts-7e3a9c1d5b2f4086';
/** How far the service revises September's GEO score before the October run. */
const REVISION = -3;

interface ClassicReport {
  project_id?: number;
  sections?: { scores?: { geo_score?: number }; history?: Array<{ date: string; geo_score?: number }> };
}

let rig: BatchRig;
let sim: SimulatorHandle;
let root: string;
let out: string;
let revised = false;
let clientIds: number[] = [];

/** Every GEO score half a point up (76 → 76.5: raw and shown differ); once `revised`, September's history point moved. */
function halvesAndRevision(answer: ClassicAnswer): unknown {
  const report = (answer.data as { report?: ClassicReport } | null)?.report;
  const sections = report?.sections;
  if (answer.endpoint !== 'reports.php' || sections === undefined) return answer.data;
  const scores = sections.scores === undefined ? undefined : { ...sections.scores, geo_score: (sections.scores.geo_score ?? 0) + 0.5 };
  const history = sections.history?.map((point) => ({
    ...point,
    geo_score: (point.geo_score ?? 0) + 0.5 + (revised && point.date.startsWith('2026-09') ? REVISION : 0),
  }));
  return { ...(answer.data as object), report: { ...report, sections: { ...sections, scores, history } } };
}

async function json<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

const figureOf = (facts: readonly Fact[], key: string): number | undefined => facts.find((f) => f.key === key)?.figure;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-facts-'));
  out = join(root, 'out');
  rig = await startBatchRig();
  let now = new Date('2026-10-04T06:00:00Z');
  sim = await startSimulator({ projectCount: 6, tokens: [TOKEN], clock: () => now, dialect: halvesAndRevision });
  clientIds = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .slice(0, 2)
    .map((p) => p.id);
  const [, french] = clientIds;
  const config = ConfigSchema.parse({
    agency: { name: 'Northwind Digital' },
    report: { maxScoreDrop: 100, sections: { keywords: true, pageExperience: true, aiAnswers: true }, goals: [{ metric: 'geo', target: 90, by: '2027-06' }] },
    clients: { [String(french)]: { language: 'fr', displayName: 'Boulangerie Martin' } },
  });
  const batch = { baseUrl: sim.url, tokens: [TOKEN], outDir: out, config, selection: { statuses: ['active' as const], projectIds: clientIds } };
  // September, then the service revises September, then October: the two runs of rig.runSeptemberThenOctober, split.
  now = new Date('2026-10-04T06:00:00Z');
  const september = await rig.run({ ...batch, period: toMonth('2026-09'), clock: () => now });
  revised = true;
  now = new Date('2026-11-04T06:00:00Z');
  const october = await rig.run({ ...batch, period: toMonth('2026-10'), clock: () => now });
  for (const result of [september, october]) expect(result.summary.failed).toBe(0);
}, 180_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

async function entries(period: string): Promise<ProjectEntry[]> {
  const manifest = Manifest.parse(await json(join(out, period, 'manifest.json')));
  return manifest.projects.filter((p) => p.status === 'done');
}

async function factsOf(period: string, entry: ProjectEntry): Promise<Fact[]> {
  return (await json<{ facts?: Fact[] }>(join(out, period, entry.files.data as string))).facts ?? [];
}

describe('one figure per fact', () => {
  it('saves the fact table with data.json: raw value, unit, month, source and the figure by the unit’s rule', async () => {
    const done = await entries('2026-09');
    expect(done.map((e) => e.id).sort()).toEqual([...clientIds].sort());
    for (const entry of done) {
      const geo = (await factsOf('2026-09', entry)).find((f) => f.key === 'scores.geo');
      expect(geo, entry.name).toMatchObject({ unit: 'score', month: '2026-09', source: 'history' });
      // 76.5 is written 77: a half rounds away from zero, and the figure is whole.
      expect(Number.isInteger(geo?.value), entry.name).toBe(false);
      expect(geo?.figure, entry.name).toBe(Math.round(geo?.value ?? Number.NaN));
    }
  });

  it('takes October’s "last month" from what September’s report showed, and says the revision once', async () => {
    const september = new Map((await entries('2026-09')).map((e) => [e.id, e]));
    const october = await entries('2026-10');
    expect(october.map((e) => e.language).sort()).toEqual(['en', 'fr']);
    for (const entry of october) {
      const before = september.get(entry.id) as ProjectEntry;
      const told = figureOf(await factsOf('2026-09', before), 'scores.geo');
      const facts = await factsOf('2026-10', entry);
      const previous = facts.find((f) => f.key === 'scores.geo.previous');
      expect(previous, entry.name).toMatchObject({ figure: told, month: '2026-09', source: 'told' });
      const now = figureOf(facts, 'scores.geo') as number;
      // What the mail, the site page and the index read: the manifest's figures, the same change.
      expect(entry.geo, entry.name).toBe(now);
      expect(entry.geoChange, entry.name).toBe(now - (told as number));
      const html = await readFile(join(out, '2026-10', entry.files.html as string), 'utf8');
      const french = entry.language === 'fr';
      const revisedTo = (told as number) + REVISION;
      const sentence = french
        ? `Le score GEO de septembre 2026 a été révisé par le service de ${told} à ${revisedTo}`
        : `September 2026’s GEO score was revised by the service from ${told} to ${revisedTo}`;
      expect(html.split(sentence).length - 1, entry.name).toBe(1);
      // The headline writes the figure, and its change is the difference of the two figures.
      const headline = /score-card--geo[\s\S]*?score-card__number"[^>]*>([^<]+)</.exec(html)?.[1];
      expect(headline, entry.name).toBe(String(now));
      expect(html).not.toMatch(new RegExp(`score-card__number"[^>]*>${now}[.,]\\d`));
    }
  });

  it('writes the same GEO figures and changes in the export as in the reports', async () => {
    const file = join(root, 'export.jsonl');
    const result = await runCli(['export', '--out', out, '--format', 'json', '--file', file], {
      env: { PATH: process.env['PATH'] ?? '', HOME: root },
      cwd: root,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const rows = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const period of ['2026-09', '2026-10']) {
      for (const entry of await entries(period)) {
        const row = rows.find((r) => r['period'] === period && r['project_id'] === entry.id && r['key'] === 'geo_score');
        expect(row, `${period} ${entry.name}`).toMatchObject({ value: entry.geo, change: entry.geoChange });
        // The figure the report printed, never the service's half point beside it.
        expect(Number.isInteger(row?.['value']), `${period} ${entry.name}`).toBe(true);
      }
    }
    // Every section's facts, as the report's fact table holds them, each value a number with its unit.
    for (const entry of await entries('2026-10')) {
      const facts = await factsOf('2026-10', entry);
      const mine = rows.filter((r) => r['period'] === '2026-10' && r['project_id'] === entry.id);
      for (const section of ['keywords', 'pageExperience', 'aiAnswers', 'goals']) {
        const sectionRows = mine.filter((r) => r['section'] === section);
        expect(sectionRows.length, `${entry.name} ${section}`).toBeGreaterThan(0);
        for (const row of sectionRows) {
          expect(typeof row['value'], `${section} ${String(row['key'])}`).toBe('number');
          expect(row['unit'], `${section} ${String(row['key'])}`).toEqual(expect.any(String));
          expect(row['value']).toBe(figureOf(facts, `${section}.${String(row['key'])}`));
        }
      }
      expect(mine.find((r) => r['section'] === 'goals' && r['key'] === 'geo.value')?.['value']).toBe(entry.geo);
    }
  });
});
