// The demo's summaries as an account manager reads them before signing: the 25 active clients of the demo's account
// (seed 42, 36 projects, the example config's goals, notes and display names), September then October, on every
// dialect of the simulator. The batch writes each client in its configured language, and the batch's own assemble
// step makes every client's October again, from the data the run saved, in English, French and each client's language.
// For each dialect and language: no first sentence shared by more than 3 clients, few sentences shared word for word,
// and none of the contradictions test/support/summary-checks.ts knows.
import { readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import type { Manifest } from '../../src/output/store.js';
import { configInLanguage, openPreviewData } from '../../src/preview/data.js';
import { MODEL_STEPS, runSteps } from '../../src/preview/render.js';
import type { Fact } from '../../src/report/facts.js';
import type { Language } from '../../src/report/model.js';
import { DIALECT_NAMES, type DialectName } from '../../src/simulator/dialects.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { firstSentence, sentencesOf, summaryProblems, type SummaryCase } from '../support/summary-checks.js';
import { toMonth } from '../../src/period.js';

/** At most this many clients may open with the same sentence (their months were alike). */
const SAME_OPENING_MAX = 3;
/** Sentences written word for word in two clients' summaries or more, at most (30 before the summary chose by client). */
const SHARED_SENTENCES_MAX = 12;

let rig: BatchRig;
let root: string;
let config: Config;
/** Per dialect and language, each client's summary with its facts. */
const cases = new Map<string, SummaryCase[]>();
/** Per dialect, what the batch itself wrote: each client's summary in its configured language. */
const written = new Map<DialectName, Manifest['projects']>();
/** Per dialect and language, each client's October made again by the assemble step: id → summary. */
const remade = new Map<string, Map<number, string[]>>();

async function json<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

async function summariesOf(dialect: DialectName): Promise<void> {
  const out = join(root, dialect);
  let now = new Date('2026-10-04T06:00:00Z');
  const sim = await startSimulator({ tokens: [DEMO_TOKEN], clock: () => now, dialect });
  try {
    const results = await rig.runSeptemberThenOctober({ baseUrl: sim.url, tokens: [DEMO_TOKEN], outDir: out, config }, (at) => (now = at));
    for (const result of results) expect(result.summary.failed, dialect).toBe(0);
  } finally {
    await sim.close();
  }
  const october = await json<Manifest>(join(out, '2026-10', 'manifest.json'));
  const september = await json<Manifest>(join(out, '2026-09', 'manifest.json'));
  written.set(dialect, october.projects);
  const data = await openPreviewData({ outDir: out, period: toMonth('2026-10'), clock: () => now });
  // English and French for the checks below; every other language the batch wrote a client in, to compare with it.
  const languages = new Set<Language>(['en', 'fr']);
  for (const project of october.projects) if (project.language != null) languages.add(project.language);
  for (const language of languages) {
    const inLanguage = configInLanguage(config, language);
    const list: SummaryCase[] = [];
    const summaries = new Map<number, string[]>();
    for (const project of data.projects) {
      const work = await runSteps(
        await data.load(project.id, inLanguage),
        {
          config: inLanguage,
          period: toMonth('2026-10'),
          periodDir: join(out, '2026-10'),
          renderer: rig.renderer,
          printer: () => Promise.reject(new Error('the summaries need no printing')),
          branding: await brandingFrom(inLanguage),
          clock: () => now,
        },
        MODEL_STEPS,
      );
      summaries.set(project.id, work.model?.summary ?? []);
      if (language !== 'en' && language !== 'fr') continue;
      const before = september.projects.find((p) => p.id === project.id);
      const beforeFacts = before?.files.data == null ? null : ((await json<{ facts?: Fact[] }>(join(out, '2026-09', before.files.data))).facts ?? null);
      list.push({
        client: `${project.id} ${project.name}`,
        language,
        period: toMonth('2026-10'),
        summary: work.model?.summary ?? [],
        facts: work.model?.facts ?? [],
        before: beforeFacts,
      });
    }
    remade.set(`${dialect}/${language}`, summaries);
    if (language === 'en' || language === 'fr') cases.set(`${dialect}/${language}`, list);
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-summaries-'));
  // The example config as the demo reads it, its logo left out (a path beside the config file).
  const example = await json<{ agency: Record<string, unknown> }>(resolve(import.meta.dirname, '../../config/geo-reports.json'));
  const { logo: _logo, ...agency } = example.agency;
  config = ConfigSchema.parse({ ...example, agency, output: { dir: root } });
  rig = await startBatchRig();
  for (const dialect of DIALECT_NAMES) await summariesOf(dialect);
}, 900_000);

afterAll(async () => {
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

describe.each(DIALECT_NAMES.flatMap((dialect) => (['en', 'fr'] as const).map((language) => [dialect, language] as const)))(
  'the demo summaries on the %s dialect in %s',
  (dialect, language) => {
    const list = (): SummaryCase[] => cases.get(`${dialect}/${language}`) ?? [];

    it('are the 25 active clients, each with a summary', () => {
      expect(list()).toHaveLength(25);
      for (const c of list()) expect(c.summary.length, c.client).toBeGreaterThan(2);
    });

    it('open with a sentence shared by at most 3 clients', () => {
      const openings = new Map<string, string[]>();
      for (const c of list()) openings.set(firstSentence(c.summary), [...(openings.get(firstSentence(c.summary)) ?? []), c.client]);
      const crowded = [...openings].filter(([, clients]) => clients.length > SAME_OPENING_MAX);
      expect(crowded).toEqual([]);
    });

    it('share few sentences word for word between clients', () => {
      const clientsOf = new Map<string, Set<string>>();
      for (const c of list()) for (const s of sentencesOf(c.summary)) clientsOf.set(s, (clientsOf.get(s) ?? new Set()).add(c.client));
      const shared = [...clientsOf].filter(([, clients]) => clients.size > 1).map(([sentence]) => sentence);
      expect(shared.length, shared.join('\n')).toBeLessThanOrEqual(SHARED_SENTENCES_MAX);
    });

    it('never contradict the page or themselves', () => {
      expect(list().flatMap(summaryProblems)).toEqual([]);
    });
  },
);

describe('what the batch wrote', () => {
  it.each(DIALECT_NAMES)('on %s: each summary is the one the assemble step makes again from the saved data', (dialect) => {
    const projects = written.get(dialect) ?? [];
    expect(projects.filter((p) => p.status === 'done')).toHaveLength(25);
    for (const project of projects) {
      // Made again in the language the batch wrote the client in (the example config has clients in all seven).
      const language = project.language ?? 'en';
      const again = remade.get(`${dialect}/${language}`)?.get(project.id);
      expect(again, `${project.id} made again in ${language}`).toBeDefined();
      expect(project.summary, `${project.id}`).toEqual(again);
    }
  });
});
