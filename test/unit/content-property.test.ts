// Another faithful server's wire form must lose nothing: real answers renamed, re-nested, stringified and stripped
// of keys the spec does not name are read to the same values, assembled and rendered without a throw.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCompetitors, readStats, type CompetitorsContent, type StatsContent } from '../../src/content/competitors.js';
import { readReport, type ReportContent } from '../../src/content/report.js';
import { assembleReport } from '../../src/report/assemble.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { mutatedAnswer, type Mutation } from '../support/mutate.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
// The report as the classic dialect sends it: wrapped once more in `report`.
const REPORT = { report: fixture('api-report-2026-10.json') };
const COMPETITORS = fixture('api-competitors-2026-10.json');
const STATS = fixture('api-stats-2026-10.json');

/** Classic paths the mutator dropped; a value under one of them may be gone, any other must be read. */
function droppedUnder(mutations: readonly Mutation[]): (path: string) => boolean {
  const dropped = mutations.filter((m) => m.kind === 'drop').map((m) => m.path);
  return (path) => dropped.some((d) => path === d || path.startsWith(`${d}.`));
}

/** What a client's report shows of one report answer, whatever its wire form; `gone` filters what was dropped. */
function shown(content: ReportContent, gone: (path: string) => boolean = () => false) {
  const base = 'report.sections';
  const byKey = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    geo: content.scores?.geo ?? null,
    seo: content.scores?.seo ?? null,
    ai: byKey(
      (content.scores?.aiVisibility ?? []).filter((a) => !gone(`${base}.scores.ai_visibility.${a.assistant}`)),
      (a) => a.assistant,
    ),
    history: (content.history ?? []).map((p) => ({ month: p.date.slice(0, 7), geo: p.geo, seo: p.seo })),
    metrics: byKey(
      (content.metrics ?? []).filter((m) => !gone(`${base}.metrics.${m.key}`)).map((m) => ({ key: m.key, value: m.value })),
      (m) => m.key,
    ),
    trust: content.trust?.score ?? null,
    platforms: byKey(
      (content.trust?.platforms ?? []).map((p) => ({ name: p.name, rating: p.rating, reviews: p.reviews, url: p.url })),
      (p) => p.name,
    ),
    recommendations: byKey(
      (content.recommendations ?? []).map((r) => ({
        id: String(r.id),
        title: r.title,
        description: r.description,
        priority: r.priority,
        category: r.category,
      })),
      (r) => `${r.id}|${r.title}`,
    ),
  };
}

function ranking(content: CompetitorsContent, gone: (path: string) => boolean = () => false) {
  return {
    geo: content.benchmark.geo?.average ?? null,
    seo: content.benchmark.seo?.average ?? null,
    sample: gone('benchmark.sample_size') ? null : content.benchmark.sampleSize,
    rows: [...content.rows].map((r) => ({ id: r.projectId, geo: r.geo, seo: r.seo, percentile: r.percentile, vs: r.vsBenchmark })).sort((a, b) => a.id - b.id),
  };
}

function stats(content: StatsContent) {
  return {
    projects: content.projects,
    scans: content.scans,
    average: content.averageScore,
    top: content.topProjects.map((p) => ({ id: p.projectId, geo: p.geo })),
    evolution: content.evolution,
  };
}

let renderer: HtmlRenderer;
beforeAll(async () => {
  renderer = await createHtmlRenderer();
});

describe('content readers against seeded rewrites of real answers', () => {
  const original = readReport(REPORT);
  const expectedRanking = ranking(readCompetitors(COMPETITORS));
  const expectedStats = stats(readStats(STATS));

  it('reads the original answers completely (the baseline the rewrites are held to)', () => {
    const baseline = shown(original);
    expect(baseline.geo).toBe(71.4);
    expect(baseline.ai.map((a) => a.assistant)).toContain('chatgpt');
    expect(baseline.recommendations.length).toBeGreaterThan(3);
    expect(baseline.platforms.length).toBeGreaterThan(1);
    expect(expectedRanking.geo).not.toBeNull();
    expect(expectedRanking.rows.filter((r) => r.percentile !== null).length).toBeGreaterThan(1);
    expect(expectedStats.evolution.length).toBeGreaterThan(0);
  });

  it('a report keeps every value it still carries, and assembles and renders (500 seeds)', () => {
    fc.assert(
      fc.property(mutatedAnswer(REPORT), ({ value, mutations }) => {
        const gone = droppedUnder(mutations);
        const content = readReport(value);
        expect(shown(content), JSON.stringify(mutations)).toEqual(shown(original, gone));
        const model = assembleReport({ ...assembleInput({ previous: null }), report: content });
        expect(renderer.renderReport(model)).toContain('Boulangerie Martin');
      }),
      { numRuns: 500, seed: 20261122 },
    );
  });

  it('competitors and statistics keep every value they still carry (300 seeds each)', () => {
    fc.assert(
      fc.property(mutatedAnswer(COMPETITORS), ({ value, mutations }) => {
        expect(ranking(readCompetitors(value)), JSON.stringify(mutations)).toEqual(ranking(readCompetitors(COMPETITORS), droppedUnder(mutations)));
      }),
      { numRuns: 300, seed: 11 },
    );
    fc.assert(
      fc.property(mutatedAnswer(STATS), ({ value, mutations }) => {
        expect(stats(readStats(value)), JSON.stringify(mutations)).toEqual(expectedStats);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('never throws, and still renders, when values the product shows are dropped too (500 seeds)', () => {
    fc.assert(
      fc.property(
        mutatedAnswer(REPORT, { dropValued: true, rate: 0.5 }),
        mutatedAnswer(COMPETITORS, { dropValued: true, rate: 0.5 }),
        (report, competitors) => {
          const content = readReport(report.value);
          const read = readCompetitors(competitors.value);
          const model = assembleReport({
            ...assembleInput({ previous: null }),
            report: content,
            ranking: { row: read.rows.find((r) => r.projectId === 101) ?? null, benchmark: read.benchmark },
          });
          expect(renderer.renderReport(model)).not.toMatch(/NaN|undefined|\[object Object\]/);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
