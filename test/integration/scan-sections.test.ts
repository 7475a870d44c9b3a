// The scan sections (src/sections) through the real batch on the simulator over two periods: the period's scan
// picked by the month rule, read once with only what the sections need, last month's movement in the PDF's text in
// English and French; the requests equal the plan's floor with the sections on and off; a redo reads no scan again.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchResult } from '../../src/batch/run.js';
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { diagnose, DOCTOR_MAX_REQUESTS } from '../../src/doctor/diagnose.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { DIALECT_NAMES, type ClassicAnswer } from '../../src/simulator/dialects.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import type { PlanSummary } from '../../src/batch/period-state.js';
import { describePlan } from '../../src/batch/progress.js';
import { brandingFrom } from '../../src/config/branding.js';
import { openPreviewData } from '../../src/preview/data.js';
import { MODEL_STEPS, runSteps } from '../../src/preview/render.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const TOKEN = 'tok-sections-4b8e1f2a9c7d3e60';

let sim: SimulatorHandle;
let rig: BatchRig;
let root: string;
let now = new Date('2026-10-04T06:00:00Z');
let frenchId: number;
/** Project id → the keyword its goal names. */
const keywordGoals = new Map<number, string>();
let on: Config;
let off: Config;
const runs: Record<string, { result: BatchResult; requests: Array<{ endpoint: string; query: Record<string, string> }> }> = {};

const outOn = (): string => join(root, 'on');
const outOff = (): string => join(root, 'off');

async function batch(name: string, period: string, outDir: string, config: Config, redo = false): Promise<BatchResult> {
  const before = sim.state.requests.length;
  const result = await rig.run({
    baseUrl: sim.url,
    tokens: [TOKEN],
    period: toMonth(period),
    outDir,
    config,
    clock: () => now,
    ...(redo ? { selection: { statuses: ['active'], projectIds: [], redo: true } } : {}),
  });
  runs[name] = { result, requests: sim.state.requests.slice(before).map((r) => ({ endpoint: r.endpoint, query: r.query })) };
  return result;
}

async function manifestOf(outDir: string, period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(outDir, period, 'manifest.json'), 'utf8')));
}

async function pdfText(outDir: string, period: string, entry: ProjectEntry): Promise<string> {
  const { stdout } = await exec('pdftotext', [join(outDir, period, entry.files.pdf as string), '-']);
  return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The page experience section in the PDF's text: each vital's value, rating in words and sign, thresholds, change. */
function expectPageExperience(text: string, language: 'en' | 'fr'): void {
  const en = language === 'en';
  // What AI assistants answer, with last month's count; a quote; who was named instead.
  expect(text).toContain(en ? 'What AI assistants answer' : 'Ce que répondent les assistants IA');
  expect(text).toMatch(
    en ? /Mentioned in \d+ of \d+ answers \(\d+ of \d+ last month\)/ : /Mentionné dans \d+ réponses sur \d+ \(\d+ sur \d+ le mois dernier\)/,
  );
  expect(text).toMatch(en ? /[✓✕] ChatGPT: (mentioned, position \d|not mentioned)/ : /[✓✕] ChatGPT : (mentionné, position \d|non mentionné)/);
  expect(text).toMatch(/“[^”]+”/);
  expect(text).toContain(en ? 'Page experience' : 'Expérience de la page');
  for (const label of ['Largest Contentful Paint (LCP)', 'Interaction to Next Paint (INP)', 'Cumulative Layout Shift (CLS)']) expect(text).toContain(label);
  expect(text).toMatch(en ? /\d[\d.]* s [✓!✕] (good|needs improvement|poor)/ : /\d[\d,]* s [✓!✕] (bon|à améliorer|mauvais)/);
  expect(text).toContain(en ? '(good ≤ 2.5 s, poor > 4 s)' : '(bon ≤ 2,5 s, mauvais > 4 s)');
  expect(text).toContain(en ? '(good ≤ 200 ms, poor > 500 ms)' : '(bon ≤ 200 ms, mauvais > 500 ms)');
  expect(text).toContain(en ? '(good ≤ 0.1, poor > 0.25)' : '(bon ≤ 0,1, mauvais > 0,25)');
  // Last month's movement of every vital and score.
  expect(text.match(en ? /\d[\d.]* (s|ms) (better|worse)|unchanged/g : /\d[\d,]* (s|ms) de (mieux|moins bien)|inchangé/g)?.length ?? 0).toBeGreaterThanOrEqual(
    1,
  );
  expect(text).toMatch(/Performance \d+ [▲▼=] ?[+\-−]?\d+/);
  expect(text).toMatch(en ? /Core Web Vitals: LCP (good|needs improvement|poor) \(/ : /Core Web Vitals : LCP (bon|à améliorer|mauvais) \(/);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-sections-'));
  sim = await startSimulator({ projectCount: 6, tokens: [TOKEN], clock: () => now });
  rig = await startBatchRig();
  const active = sim.state.projects().filter((p) => p.status === 'active');
  frenchId = active[0]?.id as number;
  const englishId = active[1]?.id as number;
  const configs = (clients: Record<string, unknown>) => ({
    on: ConfigSchema.parse({ report: { language: 'en', maxScoreDrop: 100, sections: { keywords: true, pageExperience: true, aiAnswers: true } }, clients }),
    off: ConfigSchema.parse({ report: { language: 'en', maxScoreDrop: 100, sections: { keywords: false, pageExperience: false, aiAnswers: false } }, clients }),
  });
  ({ on, off } = configs({ [String(frenchId)]: { language: 'fr' } }));

  now = new Date('2026-10-04T06:00:00Z');
  expect((await batch('sep-on', '2026-09', outOn(), on)).summary.failed).toBe(0);
  expect((await batch('sep-off', '2026-09', outOff(), off)).summary.failed).toBe(0);
  // From October, a goal on a keyword September's scan ranked and one on LCP, for the French client and an English one.
  const september = await manifestOf(outOn(), '2026-09');
  for (const id of [frenchId, englishId]) {
    const entry = september.projects.find((p) => p.id === id) as ProjectEntry;
    const saved = parsePeriodData(JSON.parse(await readFile(join(outOn(), '2026-09', entry.files.data as string), 'utf8')));
    const rankings = (saved?.scan?.data['seo_audit'] as { keyword_rankings: Array<{ keyword: string }> }).keyword_rankings;
    keywordGoals.set(id, rankings[0]?.keyword as string);
  }
  const goalsOf = (id: number) => [
    { metric: `keyword:${keywordGoals.get(id) as string}`, target: 10, by: '2027-06' },
    { metric: 'cwv:lcp', target: 2.5, by: '2027-06' },
  ];
  ({ on, off } = configs({ [String(frenchId)]: { language: 'fr', goals: goalsOf(frenchId) }, [String(englishId)]: { goals: goalsOf(englishId) } }));
  now = new Date('2026-11-04T06:00:00Z');
  expect((await batch('oct-on', '2026-10', outOn(), on)).summary.failed).toBe(0);
  expect((await batch('oct-off', '2026-10', outOff(), off)).summary.failed).toBe(0);
  await cp(outOn(), join(root, 'redo'), { recursive: true });
  expect((await batch('oct-redo', '2026-10', join(root, 'redo'), on, true)).summary.failed).toBe(0);
}, 300_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('scan sections in the monthly batch', () => {
  it('sends exactly the requests its plan printed, with the sections on and off; off, no scan request', () => {
    for (const name of ['sep-on', 'sep-off', 'oct-on', 'oct-off']) {
      const run = runs[name];
      expect(run?.requests.length, name).toBe(run?.result.plan.floor);
    }
    const done = runs['oct-on']?.result.plan.toDo.length ?? 0;
    expect(done).toBeGreaterThanOrEqual(3);
    expect(runs['oct-on']?.result.plan.scanRequests).toBe(2 * done);
    expect(runs['oct-off']?.result.plan.scanRequests).toBe(0);
    expect(runs['oct-off']?.requests.filter((r) => r.endpoint === 'scans.php')).toEqual([]);
    expect((runs['oct-on']?.result.plan.floor ?? 0) - (runs['oct-off']?.result.plan.floor ?? 0)).toBe(2 * done);
  });

  it('lists the scans, then reads the period scan with include and seo_steps limited to what the section needs', () => {
    const scans = runs['oct-on']?.requests.filter((r) => r.endpoint === 'scans.php') ?? [];
    const reads = scans.filter((r) => r.query['id'] !== undefined);
    expect(scans.filter((r) => r.query['project_id'] !== undefined)).toHaveLength(reads.length);
    for (const read of reads) {
      expect(read.query).toMatchObject({ include: 'geo,seo_audit', seo_steps: 'step1_lighthouse,step4_keywords' });
      // The month rule: the simulator numbers a monthly scan …YYMM; October 2026 is 2610.
      expect(Number(read.query['id']) % 10_000).toBe(2610);
    }
  });

  it('reads a period scan once: a redo of the period takes it from data.json', async () => {
    expect(runs['oct-redo']?.result.plan.scanRequests).toBe(0);
    expect(runs['oct-redo']?.requests.filter((r) => r.endpoint === 'scans.php')).toEqual([]);
    expect(runs['oct-redo']?.requests.length).toBe(runs['oct-redo']?.result.plan.floor);
    const october = await manifestOf(outOn(), '2026-10');
    for (const entry of october.projects.filter((p) => p.status === 'done')) {
      const data = parsePeriodData(JSON.parse(await readFile(join(outOn(), '2026-10', entry.files.data as string), 'utf8')));
      expect(data?.scan?.date.slice(0, 7)).toBe('2026-10');
      expect(data?.scan?.include).toEqual(['geo', 'seo_audit']);
    }
  });

  it('previews a saved period with the scan sections its report showed, without a request', async () => {
    const before = sim.state.requests.length;
    const data = await openPreviewData({ outDir: outOn(), period: toMonth('2026-10'), clock: () => now });
    expect(data.kind).toBe('saved');
    const id = data.projects.find((p) => p.id !== frenchId)?.id as number;
    const work = await runSteps(
      await data.load(id, on),
      {
        config: on,
        period: toMonth('2026-10'),
        periodDir: join(outOn(), '2026-10'),
        renderer: rig.renderer,
        printer: () => Promise.reject(new Error('no printing here')),
        branding: await brandingFrom(on),
        clock: () => now,
      },
      MODEL_STEPS,
    );
    const manifest = await manifestOf(outOn(), '2026-10');
    const saved = JSON.parse(await readFile(join(outOn(), '2026-10', manifest.projects.find((p) => p.id === id)?.files.data as string), 'utf8')) as {
      scan: { data: Record<string, unknown> };
    };
    const sections = work.model?.sections as Record<string, { title: string; rows?: unknown[] } | null>;
    expect(sections['keywords']?.title).toBe('Keyword rankings');
    expect(sections['keywords']?.rows?.length).toBe((saved.scan.data['seo_audit'] as { keyword_rankings: unknown[] }).keyword_rankings.length);
    expect(sections['pageExperience']?.title).toBe('Page experience');
    expect(sections['aiAnswers']?.title).toBe('What AI assistants answer');
    expect(sim.state.requests.length).toBe(before);
  });

  it("shows keyword rankings with last month's movement in the PDF, in English and French; none when off", async () => {
    const october = await manifestOf(outOn(), '2026-10');
    const done = october.projects.filter((p) => p.status === 'done');
    let moved = 0;
    for (const entry of done) {
      const text = await pdfText(outOn(), '2026-10', entry);
      if (entry.id === frenchId) {
        expectPageExperience(text, 'fr');
        expect(text).toContain('Positions sur les mots-clés');
        expect(text).toContain('le mois dernier :');
        expect(text).toMatch(
          /\d+ des \d+ mots-clés suivis (?:est|sont) dans le top 10|[Ll]es \d+ mots-clés suivis sont tous dans le top 10|[Aa]ucun des \d+ mots-clés suivis/,
        );
        expect(text).not.toContain('Keyword rankings');
      } else {
        expectPageExperience(text, 'en');
        expect(text).toContain('Keyword rankings');
        expect(text).toMatch(/\d+ in the top 3 and \d+ in the top 10 of \d+ keywords \(last month: \d+ and \d+\)/);
        // "all 6" rather than "6 of 6", "none of the 6" rather than "0 of 6".
        expect(text).toMatch(
          /(?:\d+ of \d+|All \d+) tracked keywords (?:is|are) in the top 10 of search results \(\d+ last month\)|None of the \d+ tracked keywords/,
        );
      }
      // Never a rank the site did not reach: the first place outside the top 10 is never shown as a position.
      const from = text.slice(text.search(/Keyword rankings Average position in|Positions sur les mots-clés Position moyenne dans/));
      // Up to the page's footer (its page number), or the next section's title.
      const section = from.slice(
        0,
        from.search(/Page \d+ (of|sur) \d+|Page experience|Expérience de la page|What these words mean|Ce que veulent dire ces mots/),
      );
      expect(section.length).toBeGreaterThan(100);
      expect(section).not.toMatch(/\b(1[1-9]|[2-9]\d)(?:[.,]\d)?\b(?! trials| essais| keywords| mots-clés)/);
      if (/up \d|down \d|new in the top 10|dropped out|gagne|perd|nouveau dans|sorti du/.test(text)) moved += 1;
      const offEntry = (await manifestOf(outOff(), '2026-10')).projects.find((p) => p.id === entry.id) as ProjectEntry;
      const offText = await pdfText(outOff(), '2026-10', offEntry);
      expect(offText).not.toMatch(/Keyword rankings|Positions sur les mots-clés|Page experience|Expérience de la page/);
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('shows a goal on a keyword and one on LCP from the scan, with the sections on; no data with them off', async () => {
    const october = await manifestOf(outOn(), '2026-10');
    const offOctober = await manifestOf(outOff(), '2026-10');
    for (const [id, keyword] of keywordGoals) {
      const fr = id === frenchId;
      const entry = october.projects.find((p) => p.id === id) as ProjectEntry;
      const saved = parsePeriodData(JSON.parse(await readFile(join(outOn(), '2026-10', entry.files.data as string), 'utf8')));
      const audit = saved?.scan?.data['seo_audit'] as {
        keyword_rankings: Array<{ keyword: string; position: number; values: Array<number | null> }>;
        lighthouse: { core_web_vitals: { lcp_ms: number } };
      };
      const ranking = audit.keyword_rankings.find((k) => k.keyword === keyword);
      const found = (ranking?.values ?? []).filter((v): v is number => v !== null);
      // The service's position, as the keyword table shows it (one decimal); none in the top 10: no data, never an 11.
      const position = found.length === 0 || ranking === undefined ? null : Math.round(ranking.position * 10) / 10;
      const written = (n: number, digits: number) => n.toLocaleString(fr ? 'fr-FR' : 'en-US', { maximumFractionDigits: digits });
      const lcp = Math.round(audit.lighthouse.core_web_vitals.lcp_ms / 10) / 100;
      const label = fr ? `Position sur “${keyword}” :` : `Position for ‘${keyword}’:`;
      // The label up to its threshold: in French its last words wrap in the cell ("2,5 ou | moins"), and pdftotext reads
      // the value of the column beside it in between.
      const lcpLabel = fr ? 'Largest Contentful Paint (LCP) : 2,5' : 'Largest Contentful Paint (LCP): 2.5';
      // The goals' table, as pdftotext reads its columns: each label with its value a few words before or after. It ends
      // at the Scores heading after it (the contents page after the cover names Scores before the goals begin).
      const goalsOf = (text: string) => {
        const start = text.indexOf(fr ? 'Objectifs Les objectifs' : 'Goals The targets');
        return start < 0 ? '' : text.slice(start, text.indexOf('Scores', start));
      };
      const near = (label: string, value: string) =>
        new RegExp(
          `${escapeRegExp(label)}.{0,40}(?<![\\d,.])${escapeRegExp(value)}(?![\\d,.])|(?<![\\d,.])${escapeRegExp(value)}(?![\\d,.]).{0,40}${escapeRegExp(label)}`,
        );
      const goals = goalsOf(await pdfText(outOn(), '2026-10', entry));
      expect(goals).toMatch(near(label, position === null ? '—' : written(position, 2)));
      expect(goals).toMatch(near(lcpLabel, `${written(lcp, 2)} s`));
      expect(goals).toMatch(fr ? /10 d’ici juin 2027 .*2,5 s d’ici juin/ : /10 by June 2027 .*2\.5 s by June/);
      const offEntry = offOctober.projects.find((p) => p.id === id) as ProjectEntry;
      const offGoals = goalsOf(await pdfText(outOff(), '2026-10', offEntry));
      expect(offGoals).toMatch(near(label, '—'));
      expect(offGoals).toMatch(near(lcpLabel, '—'));
      expect(offGoals.match(fr ? /Pas de données/g : /No data/g)?.length).toBe(2);
    }
    const withoutData = runs['oct-off']?.result.summary.goalsWithoutData ?? [];
    expect(withoutData.map((g) => g.id).sort()).toEqual([...keywordGoals.keys()].sort());
    for (const client of withoutData) expect(client.metrics).toEqual([`keyword:${keywordGoals.get(client.id) as string}`, 'cwv:lcp']);
    expect((runs['oct-on']?.result.summary.goalsWithoutData ?? []).flatMap((g) => g.metrics)).not.toContain('cwv:lcp');
  });
});

/** Requests of the two-month run per dialect, with the sections on and off (printed for the record). */
const measured: Array<{ dialect: string; on: number; off: number; onFloor: number; offFloor: number }> = [];

describe.each(DIALECT_NAMES)('scan sections from the %s dialect', (dialect) => {
  let dsim: SimulatorHandle;
  let out: string;
  const dialectRuns: BatchResult[] = [];
  const counts: number[] = [];
  const offCounts: number[] = [];
  const offRuns: BatchResult[] = [];
  const reads: Array<Array<{ query: Record<string, string>; status: number }>> = [];
  let defaults: Config;

  beforeAll(async () => {
    out = join(root, dialect);
    dsim = await startSimulator({ projectCount: 3, tokens: [TOKEN], clock: () => now, dialect });
    // No switch in the config: the three sections are on by default.
    defaults = ConfigSchema.parse({ report: { maxScoreDrop: 100 }, clients: { [String(frenchId)]: { language: 'fr' } } });
    for (const [period, day] of [
      ['2026-09', '2026-10-04T06:00:00Z'],
      ['2026-10', '2026-11-04T06:00:00Z'],
    ] as const) {
      now = new Date(day);
      let before = dsim.state.requests.length;
      const result = await rig.run({ baseUrl: dsim.url, tokens: [TOKEN], period: toMonth(period), outDir: out, config: defaults, clock: () => now });
      dialectRuns.push(result);
      counts.push(dsim.state.requests.length - before);
      reads.push(dsim.state.requests.slice(before).filter((r) => r.endpoint === 'scans.php' && r.query['id'] !== undefined));
      before = dsim.state.requests.length;
      const offResult = await rig.run({ baseUrl: dsim.url, tokens: [TOKEN], period: toMonth(period), outDir: `${out}-off`, config: off, clock: () => now });
      offRuns.push(offResult);
      offCounts.push(dsim.state.requests.length - before);
    }
    measured.push({
      dialect,
      on: counts.reduce((a, b) => a + b, 0),
      off: offCounts.reduce((a, b) => a + b, 0),
      onFloor: dialectRuns.reduce((a, r) => a + r.plan.floor, 0),
      offFloor: offRuns.reduce((a, r) => a + r.plan.floor, 0),
    });
  }, 400_000);

  afterAll(async () => {
    await dsim.close();
    if (measured.length === DIALECT_NAMES.length) {
      console.log(
        `Requests of the two-month run (September then October, 3 projects):\n${measured.map((m) => `  ${m.dialect}: on ${m.on} (floor ${m.onFloor}), off ${m.off} (floor ${m.offFloor})`).join('\n')}`,
      );
    }
  });

  it("doctor says the latest scan has every section's input and where, within its budget", async () => {
    const client = new ApiClient({ baseUrl: dsim.url, tokens: new TokenPool([TOKEN], { clock: () => now }), clock: () => now });
    try {
      const diagnosis = await diagnose({ client, fields: {}, sleep: async () => {} });
      expect(diagnosis.sections.map((s) => [s.name, s.found])).toEqual([
        ['keywords', true],
        ['pageExperience', true],
        ['aiAnswers', true],
      ]);
      for (const section of diagnosis.sections) expect(section.where).toMatch(dialect === 'strict' ? /^result\./ : /\w/);
      expect(diagnosis.sections[0]?.scanId).not.toBeNull();
      expect(diagnosis.seoSteps).toMatch(dialect === 'strict' ? /^refused \(.*unknown seo_steps: step1_lighthouse, step4_keywords/ : /^taken$/);
      expect(diagnosis.requests).toBeLessThanOrEqual(DOCTOR_MAX_REQUESTS);
    } finally {
      await client.close();
    }
  });

  it("makes every report with the three sections on by default: the requests equal the floor, last month's movement in the PDF, English and French", async () => {
    for (const [i, result] of dialectRuns.entries()) {
      expect(result.summary.failed).toBe(0);
      expect(result.summary.pending).toBe(0);
      expect(result.summary.sectionsLeftOut).toEqual([]);
      expect(result.plan.scanRequests).toBe(2 * result.plan.toDo.length);
      expect(counts[i]).toBe(result.plan.floor);
      // Off, no scan request: the floor without them.
      expect(offCounts[i]).toBe(offRuns[i]?.plan.floor);
      expect(offRuns[i]?.plan.scanRequests).toBe(0);
      // A service that refuses seo_steps: the first read asked again without it (counted in the plan), none after.
      const refused = reads[i]?.filter((r) => r.status === 400) ?? [];
      expect(refused).toHaveLength(dialect === 'strict' ? 1 : 0);
      expect(result.plan.scanRetries).toBe(dialect === 'strict' ? 1 : 0);
      expect(reads[i]?.filter((r) => r.status === 200)).toHaveLength(result.plan.toDo.length);
      if (dialect === 'strict') expect(reads[i]?.filter((r) => r.status === 200 && r.query['seo_steps'] !== undefined)).toEqual([]);
    }
    const october = await manifestOf(out, '2026-10');
    const done = october.projects.filter((p) => p.status === 'done');
    expect(done.length).toBeGreaterThan(0);
    expect(done.map((p) => p.id)).toContain(frenchId);
    for (const entry of done) {
      expect(entry.notes.join(' ')).not.toContain('left out');
      expect(entry.sectionsLeftOut).toBeUndefined();
      const text = await pdfText(out, '2026-10', entry);
      const language = entry.id === frenchId ? 'fr' : 'en';
      expect(text).toMatch(
        language === 'en'
          ? /\d+ in the top 3 and \d+ in the top 10 of \d+ keywords \(last month: \d+ and \d+\)/
          : /\d+ dans le top 3 et \d+ dans le top 10 sur \d+ mots-clés \(le mois dernier : \d+ et \d+\)/,
      );
      expectPageExperience(text, language);
    }
  });
});

describe('a scan section the service does not carry', () => {
  /** The classic answers, the scan's `geo` gone for one project: its AI answers section cannot be read. */
  let withoutGeo: number;
  const noGeo = (answer: ClassicAnswer): unknown => {
    if (answer.endpoint !== 'scans.php' || answer.query['id'] === undefined || Math.floor(Number(answer.query['id']) / 10_000) !== withoutGeo)
      return answer.data;
    const data = structuredClone(answer.data) as { scan: Record<string, unknown> };
    delete data.scan['geo'];
    return data;
  };

  it('leaves that section out, never the report, names it with the client and why; held only when the agency requires it', async () => {
    now = new Date('2026-11-04T06:00:00Z');
    const gsim = await startSimulator({ projectCount: 3, tokens: [TOKEN], clock: () => now, dialect: noGeo });
    try {
      withoutGeo = gsim.state.projects().find((p) => p.status === 'active')?.id as number;
      const run = (outDir: string, config: Config) =>
        rig.run({ baseUrl: gsim.url, tokens: [TOKEN], period: toMonth('2026-10'), outDir, config, clock: () => now });
      const lenient = await run(join(root, 'no-geo'), ConfigSchema.parse({ report: { language: 'en', maxScoreDrop: 100 } }));
      expect(lenient.summary.failed).toBe(0);
      expect(lenient.summary.held).toBe(0);
      expect(lenient.summary.sectionsLeftOut).toEqual([
        { id: withoutGeo, name: expect.any(String), sections: [{ section: 'aiAnswers', reason: expect.stringMatching(/has none of its input \(geo\)/) }] },
      ]);
      const index = await readFile(join(root, 'no-geo', '2026-10', 'index.html'), 'utf8');
      expect(index).toMatch(/Left out of the report:<\/p>\s*<ul class="sections-left-out"><li>AI answers: scan \d+ has none of its input \(geo\)<\/li>/);
      const entry = lenient.manifest.projects.find((p) => p.id === withoutGeo) as ProjectEntry;
      const text = await pdfText(join(root, 'no-geo'), '2026-10', entry);
      expect(text).not.toContain('What AI assistants answer');
      expect(text).toContain('Keyword rankings');

      const strictAgency = await run(
        join(root, 'no-geo-required'),
        ConfigSchema.parse({ report: { language: 'en', maxScoreDrop: 100, requiredSections: ['scores', 'aiAnswers'] } }),
      );
      expect(strictAgency.summary.failed).toBe(0);
      expect(strictAgency.summary.held).toBe(1);
      const held = strictAgency.manifest.projects.find((p) => p.id === withoutGeo)?.held ?? [];
      expect(held).toEqual([expect.stringContaining('The AI answers section was left out')]);
    } finally {
      await gsim.close();
    }
  }, 200_000);
});

describe('scan sections and the daily quota', () => {
  it('stop with the quota like reports and finish on later days, each period scan read once', async () => {
    let day = new Date('2026-11-04T06:00:00Z');
    const qsim = await startSimulator({ projectCount: 10, tokens: [TOKEN], dailyLimit: 9, clock: () => day });
    try {
      const out = join(root, 'quota');
      const active = qsim.state.projects().filter((p) => p.status === 'active').length;
      const first = await rig.run({ baseUrl: qsim.url, tokens: [TOKEN], period: toMonth('2026-10'), outDir: out, config: on, clock: () => day });
      expect(first.status).toBe('quota_exhausted');
      expect(first.summary.pending).toBeGreaterThan(0);
      let last = first;
      for (let i = 0; i < 8 && last.status === 'quota_exhausted'; i += 1) {
        day = new Date(day.getTime() + 86_400_000);
        last = await rig.run({ baseUrl: qsim.url, tokens: [TOKEN], period: toMonth('2026-10'), outDir: out, config: on, clock: () => day });
      }
      expect(last.status).toBe('complete');
      expect(last.summary.done).toBe(active);
      // Never refused: the ledger stopped before the quota; every scan read once, every report asked once.
      expect(qsim.state.requests.some((r) => r.status === 429)).toBe(false);
      const reads = qsim.state.requests.filter((r) => r.endpoint === 'scans.php' && r.query['id'] !== undefined).map((r) => r.query['id']);
      expect(reads).toHaveLength(active);
      expect(new Set(reads).size).toBe(active);
      expect(qsim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'POST')).toHaveLength(active);
      for (const entry of (await manifestOf(out, '2026-10')).projects.filter((p) => p.status === 'done')) {
        expect(await pdfText(out, '2026-10', entry)).toMatch(/Keyword rankings|Positions sur les mots-clés/);
      }
    } finally {
      await qsim.close();
    }
  }, 300_000);
});

describe('run --dry-run', () => {
  it('prints the scan requests in the floor, and sends none of them', async () => {
    const dir = join(root, 'dry');
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(join(dir, 'config', 'geo-reports.json'), JSON.stringify({ report: { sections: { keywords: true, aiAnswers: true } } }));
    now = new Date('2026-11-04T06:00:00Z');
    const before = sim.state.requests.length;
    const result = await runCli(['run', '--dry-run', '--period', '2026-10', '--out', 'out', '--base-url', sim.url], {
      cwd: dir,
      env: { ...process.env, AGENCY_API_TOKEN: TOKEN },
      timeoutMs: 60_000,
    });
    const plan = result.stdout
      .split('\n')
      .filter((line) => line.includes('"type":"plan"'))
      .map((line) => (JSON.parse(line) as { plan: PlanSummary }).plan)[0] as PlanSummary;
    const active = sim.state.projects().filter((p) => p.status === 'active').length;
    expect(plan).toMatchObject({ toDo: active, scanRequests: 2 * active, floor: 1 + 2 + 3 * active });
    expect(describePlan(plan)).toContain(
      `Requests needed: at least ${plan.floor} (${2 * active} of them listing and reading the period's scans for the scan sections, and 1 more if the service refuses seo_steps)`,
    );
    expect(sim.state.requests.slice(before).filter((r) => r.endpoint === 'scans.php')).toEqual([]);
  });
});

describe('the demo', () => {
  it('shows the three scan sections with last month, in English and French, without a switch in the config', async () => {
    const dir = join(root, 'demo');
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(join(dir, 'config', 'geo-reports.json'), JSON.stringify({ report: { maxScoreDrop: 100 }, clients: { '101': { language: 'fr' } } }));
    const result = await runCli(['demo', '--period', '2026-10', '--projects', '4', '--out', 'out'], { cwd: dir, env: { ...process.env }, timeoutMs: 180_000 });
    expect(result.code).toBe(0);
    const october = await manifestOf(join(dir, 'out'), '2026-10');
    const done = october.projects.filter((p) => p.status === 'done');
    expect(done.map((p) => p.id)).toContain(101);
    for (const entry of done) {
      const text = await pdfText(join(dir, 'out'), '2026-10', entry);
      // 101 pinned French; the others in their project's language, as the service marks it (the demo's config gives none).
      const language = entry.id === 101 || entry.language === 'fr' ? 'fr' : 'en';
      expect(entry.language).toBe(language);
      expectPageExperience(text, language);
      expect(text).toMatch(language === 'en' ? /\(last month: \d+ and \d+\)/ : /\(le mois dernier : \d+ et \d+\)/);
    }
  }, 200_000);
});
