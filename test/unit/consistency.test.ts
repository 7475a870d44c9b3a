// One value per month, and a report that checks itself: the rule that places each value in the report's period
// (report/months.ts), and the consistency check over the model (report/consistency.ts), on fixtures, on generated
// reports and on every reading of the API the simulator has.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readReport, type HistoryContent, type ReportContent } from '../../src/content/report.js';
import { addMonths, monthlyRunDay, periodBefore, toMonth } from '../../src/period.js';
import { assembleReport } from '../../src/report/assemble.js';
import { checkConsistency } from '../../src/report/consistency.js';
import type { Goal } from '../../src/report/goals.js';
import type { ReportModel } from '../../src/report/model.js';
import { placeScore } from '../../src/report/months.js';
import { createWorld } from '../../src/simulator/app.js';
import { DIALECT_NAMES, resolveDialect } from '../../src/simulator/dialects.js';
import { reports } from '../../src/simulator/endpoints.js';
import { REPORT_SECTIONS } from '../../src/spec/vocabulary.js';
import { ALL_SECTIONS, assembleInput, BRANDING, PHRASES, project } from '../fixtures/api-fixtures.js';
import type { BuiltInLanguage } from '../../src/i18n/locales.js';
import { reportModel } from '../fixtures/report-model.js';

const PERIOD = toMonth('2026-10');
const rules = (model: ReportModel): string[] => checkConsistency(model, PHRASES[model.meta.language as BuiltInLanguage]).map((r) => r.rule);
const monthsOf = (model: ReportModel): string[] => (model.history ?? []).map((p) => p.date.slice(0, 7));

function content(parts: Partial<ReportContent>): ReportContent {
  return {
    id: 1,
    projectId: 101,
    status: 'ready',
    state: 'finished',
    present: ['scores', 'history', 'metrics', 'trust', 'recommendations'],
    scores: null,
    history: null,
    metrics: null,
    trust: null,
    recommendations: [],
    other: [],
    keys: [],
    leftOut: [],
    ...parts,
  };
}

/** The value, which the test's own data guarantees. */
function defined<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('the test data lacks a value it needs');
  return value;
}

const scores = (geo: number | null, measuredAt: string | null = null) => ({ geo, seo: null, measuredAt, aiVisibility: [] });

describe('the month of a value', () => {
  it("takes the headline from the history's point of the period, never from a later scan", () => {
    // The service's latest scan (1 November) is the scores section's value and the history's newest point.
    const history: HistoryContent[] = [
      { date: '2026-09-01', geo: 51, seo: null },
      { date: '2026-10-01', geo: 54, seo: null },
      { date: '2026-11-01', geo: 57, seo: null },
    ];
    const placed = placeScore(content({ scores: scores(57), history }), 'geo', PERIOD);
    expect(placed).toEqual({ value: 54, measuredAt: '2026-10-01', inPeriod: true });
  });

  it('takes the latest point of the period when it holds several', () => {
    const history: HistoryContent[] = [
      { date: '2026-10-01', geo: 54, seo: null },
      { date: '2026-10-20', geo: 56, seo: null },
    ];
    expect(placeScore(content({ scores: scores(56), history }), 'geo', PERIOD).value).toBe(56);
  });

  it('uses the scores\' own date when it is in the period, and shows an earlier value "as of" its date', () => {
    expect(placeScore(content({ scores: scores(60, '2026-10-31') }), 'geo', PERIOD)).toEqual({ value: 60, measuredAt: '2026-10-31', inPeriod: true });
    const paused = content({ scores: scores(48), history: [{ date: '2026-08-01', geo: 48, seo: null }] });
    expect(placeScore(paused, 'geo', PERIOD)).toEqual({ value: 48, measuredAt: '2026-08-01', inPeriod: false });
  });

  it('never shows a value dated only after the period, and shows an undated one as of the run', () => {
    const later = content({ scores: scores(57), history: [{ date: '2026-11-01', geo: 57, seo: null }] });
    expect(placeScore(later, 'geo', PERIOD).value).toBeNull();
    expect(placeScore(content({ scores: scores(57, '2026-11-02') }), 'geo', PERIOD).value).toBeNull();
    expect(placeScore(content({ scores: scores(57) }), 'geo', PERIOD)).toEqual({ value: 57, measuredAt: null, inPeriod: false });
  });

  it('assembles a report of the period from an answer whose latest scan is in the next month', () => {
    const input = assembleInput();
    const history = [...(input.report.history ?? []), { date: '2026-11-01', geo: 80, seo: 70 }];
    const model = assembleReport({ ...input, report: { ...input.report, history, scores: { ...defined(input.report.scores), geo: 80, seo: 70 } } });
    expect(model.scores?.geo.value).toBe(71);
    expect(model.scores?.geo.asOf).toBeNull();
    expect(model.scores?.geo.change?.previous).toBe(67);
    expect(monthsOf(model)).not.toContain('2026-11');
    // The API's gap to the benchmark was computed from 80: the gap shown is the period's figure's (71 against 59).
    expect(model.scores?.geo.vsBenchmark).toBe(12);
    expect(model.held).toEqual([]);
  });

  it('holds a report whose only GEO score is dated after the period: it has none for its period', () => {
    const input = assembleInput();
    const later = [{ date: '2026-11-01', geo: 80, seo: 70 }];
    const model = assembleReport({ ...input, report: { ...input.report, history: later } });
    expect(model.scores?.geo.value).toBeNull();
    expect(model.history).toEqual([]);
    expect(model.held).toEqual(['The GEO score is missing from the API report.', 'The score history is empty, although the previous report had one.']);
  });

  it('shows no change of a metric whose unit changed since last period', () => {
    const input = assembleInput();
    const metrics = (input.report.metrics ?? []).map((m) => (m.key === 'share_of_voice' ? { ...m, unit: null } : m));
    const model = assembleReport({ ...input, report: { ...input.report, metrics } });
    expect(model.metrics?.find((row) => row.key === 'share_of_voice')?.change).toBeNull();
    expect(model.metrics?.find((row) => row.key === 'ai_mentions')?.change).not.toBeNull();
  });

  it('shows a goal\'s month "as of" like the value it is: the period\'s GEO not, an undated visibility as of the run', () => {
    const goals: Goal[] = [
      { metric: 'geo', target: 80, by: toMonth('2027-03') },
      { metric: 'ai:chatgpt', target: 70, by: toMonth('2027-03') },
    ];
    const model = assembleReport(assembleInput({ goals, visibility: { scan: null, before: null } }));
    expect(model.goals?.map((goal) => [goal.metric, goal.value, goal.asOf])).toEqual([
      ['geo', 71, null],
      ['ai:chatgpt', 62, '2026-11-04'],
    ]);
    // From the period's scan, the visibility is the month's own: no "as of".
    const scanned = assembleReport(assembleInput({ goals }));
    expect(scanned.goals?.map((goal) => [goal.metric, goal.value, goal.asOf])).toEqual([
      ['geo', 71, null],
      ['ai:chatgpt', 62, null],
    ]);
  });

  it('says "as of" the run for values nothing dates, in both languages', () => {
    const input = assembleInput();
    const model = assembleReport({ ...input, report: { ...input.report, history: null } });
    expect(model.scores?.geo).toMatchObject({ value: 71, asOf: '2026-11-04' });
    expect(model.meta.currentAsOf).toBe('2026-11-04');
    expect(PHRASES.en['values.asOf']).toBe('As of {date}');
    expect(PHRASES.fr['values.asOf']).toBe('En date du {date}');
  });
});

describe('the consistency check', () => {
  it('finds nothing to say about a consistent report', () => {
    expect(rules(reportModel('en'))).toEqual([]);
    expect(rules(reportModel('fr'))).toEqual([]);
    expect(assembleReport(assembleInput()).held).toEqual([]);
  });

  it('holds a month after the period, with the month named', () => {
    const model = reportModel('en');
    model.history = [...(model.history ?? []), { date: '2026-11-01', geo: 75, seo: 74 }];
    const reasons = checkConsistency(model, PHRASES.en);
    expect(reasons.map((r) => r.rule)).toEqual(['month-after-period']);
    expect(reasons[0]?.message).toBe("The history shows November 2026, after the report's month (October 2026).");
  });

  it("holds a headline that is not the history's value for the period", () => {
    const model = reportModel('fr');
    const shown = defined(model.scores);
    shown.geo = { ...shown.geo, value: 75, change: { value: 9, direction: 'up', previous: 66 } };
    const reasons = checkConsistency(model, PHRASES.fr);
    expect(reasons.map((r) => r.rule)).toEqual(['headline-history']);
    expect(reasons[0]?.message).toBe('Score GEO affiché\u00a0: 75, alors que l’historique donne 72 pour octobre 2026.');
  });

  it("holds a last period that is not the history's month before", () => {
    const model = reportModel('en');
    const shown = defined(model.scores);
    shown.seo = { ...shown.seo, change: { value: 3, direction: 'up', previous: 70 } };
    expect(rules(model)).toEqual(['last-period']);
  });

  it('holds a change that is not the difference it claims, or one without a value', () => {
    const model = reportModel('en');
    const chatgpt = defined(defined(model.scores).aiVisibility[0]);
    chatgpt.change = { value: 12.7, direction: 'up', previous: 63 };
    expect(rules(model)).toEqual(['change-difference']);
    chatgpt.change = { value: -8, direction: 'up', previous: 79 };
    expect(rules(model)).toEqual(['change-difference']);
    chatgpt.change = { value: 8, direction: 'up', previous: 63 };
    const metric = defined(defined(model.metrics).find((row) => row.change !== null));
    metric.value = 'n/a';
    expect(rules(model)).toEqual(['change-difference']);
  });

  it("holds a goal whose month is not the report's value", () => {
    const input = assembleInput({ goals: [{ metric: 'geo', target: 80, by: toMonth('2027-03') }] });
    const model = assembleReport(input);
    expect(model.goals?.[0]?.value).toBe(71);
    expect(rules(model)).toEqual([]);
    const goals = defined(model.goals);
    goals[0] = { ...defined(goals[0]), value: 75 };
    const reasons = checkConsistency(model, PHRASES.en);
    expect(reasons.map((r) => r.rule)).toEqual(['goal-headline']);
    expect(reasons[0]?.message).toBe('The goal “GEO score: 80 points or more” shows 75 this month where the report shows 71.');
  });
});

// ---------------------------------------------------------------- generated reports

const MONTHS = Array.from({ length: 17 }, (_, i) => addMonths(PERIOD, i - 14));
const day = fc.integer({ min: 1, max: 28 }).map((d) => String(d).padStart(2, '0'));
const dateIn = (months: readonly string[]) => fc.tuple(fc.constantFrom(...months), day).map(([m, d]) => `${m}-${d}`);
const score = fc.option(
  fc.integer({ min: 0, max: 1000 }).map((n) => n / 10),
  { nil: null },
);
const point = fc.record({ date: dateIn(MONTHS), geo: score, seo: score });
const generatedContent = fc.record({
  history: fc.option(fc.array(point, { maxLength: 14 }), { nil: null }),
  geo: score,
  seo: score,
  measuredAt: fc.option(dateIn(MONTHS), { nil: null }),
  chatgpt: score,
  trust: score,
  mentions: score,
  share: score,
});
type Generated = typeof generatedContent extends fc.Arbitrary<infer T> ? T : never;

function generatedReport(g: Generated): ReportContent {
  return content({
    scores: { geo: g.geo, seo: g.seo, measuredAt: g.measuredAt, aiVisibility: [{ assistant: 'chatgpt', value: g.chatgpt }] },
    history: g.history === null ? null : [...g.history].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
    metrics: [
      { key: 'ai_mentions', value: g.mentions, unit: null, extra: {}, structure: undefined },
      { key: 'share_of_voice', value: g.share, unit: '%', extra: {}, structure: undefined },
    ],
    trust: { score: g.trust, platforms: [], extra: {} },
  });
}

const GOALS: Goal[] = [
  { metric: 'geo', target: 70, by: toMonth('2027-03') },
  { metric: 'seo', target: 40, by: toMonth('2026-12'), direction: 'down' },
  { metric: 'trust', target: 80, by: toMonth('2027-01') },
  { metric: 'ai:ChatGPT', target: 60, by: toMonth('2027-06') },
  { metric: 'metric:share_of_voice', target: 30, by: toMonth('2027-02') },
];

describe('generated reports', () => {
  it('agree with themselves and show no month after their period, whatever the dates the service sends', () => {
    fc.assert(
      fc.property(
        generatedContent,
        fc.option(generatedContent, { nil: null }),
        fc.boolean(),
        fc.constantFrom('en' as const, 'fr' as const),
        (now, before, skipped, language) => {
          const report = generatedReport(now);
          const previousPeriod = skipped ? addMonths(PERIOD, -2) : periodBefore(PERIOD);
          const model = assembleReport({
            ...assembleInput({ language, goals: GOALS }),
            report,
            previous: before === null ? null : { period: previousPeriod, report: generatedReport(before), recommendationsFirstSeen: {} },
          });
          expect(checkConsistency(model, PHRASES[language])).toEqual([]);
          expect(monthsOf(model).every((month) => month <= PERIOD)).toBe(true);
          expect(new Set(monthsOf(model)).size).toBe(monthsOf(model).length);
          // A value dated only after the period is never the headline.
          const dated = [
            ...(report.history ?? []).filter((p) => p.geo !== null).map((p) => p.date),
            ...(now.geo !== null && now.measuredAt !== null ? [now.measuredAt] : []),
          ];
          if (dated.length > 0 && dated.every((date) => date.slice(0, 7) > PERIOD)) expect(model.scores?.geo.value).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are caught when one number is moved', () => {
    fc.assert(
      fc.property(generatedContent, fc.integer({ min: 1, max: 50 }), (now, shift) => {
        const model = assembleReport({ ...assembleInput({ goals: GOALS }), report: generatedReport(now) });
        fc.pre(model.scores !== null && model.scores.geo.value !== null);
        const geo = defined(model.scores).geo;
        geo.value = defined(geo.value) + shift / 10;
        // Moved, the headline disagrees with the history, its change or its goal: at least one of them says so.
        const disagrees = (model.history ?? []).some((p) => p.date.startsWith(PERIOD) && p.geo !== null) || geo.change !== null || model.goals !== null;
        expect(rules(model).length > 0).toBe(disagrees);
      }),
      { numRuns: 200 },
    );
  });
});

// ---------------------------------------------------------------- every reading of the simulator's API

describe("the simulator's readings", () => {
  it.each(DIALECT_NAMES)('%s: a run days or weeks after the period gives a report of the period only', (name) => {
    const dialect = resolveDialect(name);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 40 }), (seed, projectIndex, daysLate) => {
        // The service's clock: `daysLate` days into the month after the period (the monthly scan of the 1st included).
        const runAt = new Date(Date.UTC(2026, 10, 1, 6) + daysLate * 86_400_000);
        const world = createWorld({ seed, projectCount: 12 }, () => monthlyRunDay(periodBefore(PERIOD)));
        const projectId = defined(world.dataset.projects[projectIndex]).id;
        const answer = (at: Date) => {
          const body = { project_id: projectId, include: [...REPORT_SECTIONS], format: 'json' };
          const data = reports(world, { method: 'POST', query: {}, body, now: at });
          const projectName = (id: number) => world.dataset.projects.find((p) => p.id === id)?.name ?? null;
          return readReport(dialect.data({ endpoint: 'reports.php', method: 'POST', query: {}, body, data, projectName }));
        };
        const model = assembleReport({
          period: PERIOD,
          generatedAt: runAt.toISOString(),
          language: 'en',
          project: { ...project(), id: projectId },
          report: answer(runAt),
          ranking: null,
          previous: { period: periodBefore(PERIOD), report: answer(monthlyRunDay(periodBefore(PERIOD))), recommendationsFirstSeen: {} },
          branding: BRANDING,
          client: { sections: { ...ALL_SECTIONS } },
          checks: { requiredSections: [], maxScoreDrop: 100 },
          goals: GOALS,
          phrases: PHRASES.en,
        });
        expect(checkConsistency(model, PHRASES.en)).toEqual([]);
        expect(monthsOf(model).every((month) => month <= PERIOD)).toBe(true);
        const october = (model.history ?? []).find((p) => p.date.startsWith(PERIOD));
        if (october !== undefined) expect(model.scores?.geo.value).toBe(october.geo);
      }),
      { numRuns: 40 },
    );
  });
});
