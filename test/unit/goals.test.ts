import { describe, expect, it } from 'vitest';
import type { ReportContent } from '../../src/content/report.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { buildSummary } from '../../src/report/summary.js';
import {
  buildGoalViews,
  evaluateGoal,
  goalDirection,
  goalLabel,
  goalMetricProblem,
  goalTarget,
  goalValue,
  historyValues,
  monthlySeries,
  parseGoalMetric,
  scanGoalSource,
  type Goal,
  type MonthlyValue,
} from '../../src/report/goals.js';
import { formatPeriod, toMonth, type MonthPeriod } from '../../src/period.js';

/** Monthly values ending in `last`, one a month, oldest first. */
function series(last: string, values: number[]): MonthlyValue[] {
  const [year, month] = last.split('-').map(Number) as [number, number];
  return values.map((value, i) => {
    const index = year * 12 + (month - 1) - (values.length - 1 - i);
    return { period: formatPeriod({ year: Math.floor(index / 12), month: (index % 12) + 1 }), value };
  });
}

const geo70 = (by: string, extra: Partial<Goal> = {}): Goal => ({ metric: 'geo', target: 70, by: toMonth(by), ...extra });

describe('the status of a goal', () => {
  it('is on track when a rising line reaches the target by the month due', () => {
    // +2 a month from 56: 64 in 2026-10, 70 three months later.
    const result = evaluateGoal(geo70('2027-01'), toMonth('2026-10'), series('2026-10', [56, 58, 60, 62, 64]));
    expect(result.status).toBe('on_track');
    expect(result.recentPace).toBeCloseTo(2, 10);
    expect(result.projected).toBeCloseTo(70, 10);
    expect(result.paceNeeded).toBeCloseTo(2, 10);
    expect(result.monthsLeft).toBe(3);
  });

  it('is behind when the same rise is one month short', () => {
    const result = evaluateGoal(geo70('2026-12'), toMonth('2026-10'), series('2026-10', [56, 58, 60, 62, 64]));
    expect(result.status).toBe('behind');
    expect(result.projected).toBeCloseTo(68, 10);
    expect(result.paceNeeded).toBeCloseTo(3, 10);
  });

  it('is behind on a falling or flat series', () => {
    expect(evaluateGoal(geo70('2027-06'), toMonth('2026-10'), series('2026-10', [66, 65, 64, 63])).status).toBe('behind');
    expect(evaluateGoal(geo70('2027-06'), toMonth('2026-10'), series('2026-10', [60, 60, 60, 60])).status).toBe('behind');
  });

  it('fits the least-squares line through a noisy series, not the last two points', () => {
    // Slope of the fit: Sxy / Sxx = 24 / 17.5 a month; the last jump alone (+8) would promise far more.
    const noisy = series('2026-10', [50, 54, 51, 55, 52, 60]);
    const result = evaluateGoal(geo70('2027-02'), toMonth('2026-10'), noisy);
    expect(result.recentPace).toBeCloseTo(24 / 17.5, 10);
    // The line passes through the means (x 2.5 months back, y 161/3); 2027-02 is 6.5 months after that point.
    expect(result.projected).toBeCloseTo(161 / 3 + (24 / 17.5) * 6.5, 10);
    expect(result.status).toBe('behind');
  });

  it('uses the last six values at most', () => {
    // Ten months: a long fall, then six months of a steady rise of 3 a month.
    const values = [90, 85, 80, 75, 50, 53, 56, 59, 62, 65];
    const result = evaluateGoal(geo70('2026-12'), toMonth('2026-10'), series('2026-10', values));
    expect(result.recentPace).toBeCloseTo(3, 10);
    expect(result.status).toBe('on_track');
    expect(result.known).toBe(10);
    expect(result.start).toBe(90);
  });

  it('draws no trend from one or two values', () => {
    const one = evaluateGoal(geo70('2027-03'), toMonth('2026-10'), series('2026-10', [60]));
    expect(one).toMatchObject({ status: 'no_trend', recentPace: null, projected: null, known: 1 });
    expect(one.paceNeeded).toBeCloseTo(2, 10);
    const two = evaluateGoal(geo70('2027-03'), toMonth('2026-10'), series('2026-10', [58, 60]));
    expect(two).toMatchObject({ status: 'no_trend', projected: null, known: 2 });
    expect(two.recentPace).toBeCloseTo(2, 10);
  });

  it('is achieved as soon as this month meets the target, whatever the trend or the date', () => {
    expect(evaluateGoal(geo70('2027-03'), toMonth('2026-10'), series('2026-10', [70])).status).toBe('achieved');
    expect(evaluateGoal(geo70('2026-01'), toMonth('2026-10'), series('2026-10', [90, 80, 71])).status).toBe('achieved');
    expect(evaluateGoal(geo70('2027-03'), toMonth('2026-10'), series('2026-10', [40, 72])).progress).toBe(1);
  });

  it('is missed once the period is after the month due', () => {
    const result = evaluateGoal(geo70('2026-09'), toMonth('2026-10'), series('2026-10', [60, 62, 64, 66]));
    expect(result).toMatchObject({ status: 'missed', paceNeeded: null, monthsLeft: -1 });
  });

  it('is behind in the month due itself when that month misses the target, even if the line would say otherwise', () => {
    // The line through 50, 50, 80, 69 ends above 70 in 2026-10, but 69 is the month's own value.
    const result = evaluateGoal(geo70('2026-10'), toMonth('2026-10'), series('2026-10', [50, 50, 80, 69]));
    expect(result).toMatchObject({ status: 'behind', paceNeeded: null, monthsLeft: 0 });
  });

  it('reads a down goal the other way: lower is better', () => {
    const position = (by: string): Goal => ({ metric: 'metric:avg_ai_position', target: 2, by: toMonth(by), direction: 'down' });
    expect(evaluateGoal(position('2027-01'), toMonth('2026-10'), series('2026-10', [5, 4.5, 4, 3.5])).status).toBe('on_track');
    expect(evaluateGoal(position('2027-01'), toMonth('2026-10'), series('2026-10', [3, 3.2, 3.4, 3.5])).status).toBe('behind');
    expect(evaluateGoal(position('2027-01'), toMonth('2026-10'), series('2026-10', [3, 1.9])).status).toBe('achieved');
    const progress = evaluateGoal(position('2027-01'), toMonth('2026-10'), series('2026-10', [6, 5, 4])).progress;
    expect(progress).toBeCloseTo(0.5, 10);
  });

  it('has no data when this month has no value, whatever the months before', () => {
    const earlier = series('2026-09', [60, 62, 64]);
    const result = evaluateGoal(geo70('2027-03'), toMonth('2026-10'), earlier);
    expect(result).toMatchObject({ status: 'no_data', value: null, progress: null });
  });

  it('measures progress as how near this month is to the target, whatever the months before: 26 of 40 is not an empty bar', () => {
    const forty: Goal = { metric: 'metric:citations', target: 40, by: toMonth('2027-03') };
    expect(evaluateGoal(forty, toMonth('2026-10'), series('2026-10', [26])).progress).toBeCloseTo(0.65, 10);
    expect(evaluateGoal(forty, toMonth('2026-10'), series('2026-10', [30, 26])).progress).toBeCloseTo(0.65, 10);
    expect(evaluateGoal(geo70('2027-03'), toMonth('2026-10'), series('2026-10', [50, 60])).progress).toBeCloseTo(60 / 70, 10);
    expect(evaluateGoal(forty, toMonth('2026-10'), series('2026-10', [-3])).progress).toBe(0);
  });
});

describe('the values a goal reads', () => {
  const content = {
    scores: {
      geo: 64,
      seo: null,
      measuredAt: null,
      aiVisibility: [
        { assistant: 'mistral_le_chat', value: 22 },
        { assistant: 'chatgpt', value: '48' as unknown as number },
      ],
    },
    trust: { score: 74, platforms: [], extra: {} },
    metrics: [
      { key: 'ai_citations', value: 36, unit: null, extra: {}, structure: undefined },
      { key: 'top_pages', value: null, unit: null, extra: {}, structure: ['/', '/a'] },
      { key: 'label', value: 'high', unit: null, extra: {}, structure: undefined },
    ],
    history: [
      { date: '2026-08-05', geo: 60, seo: 61 },
      { date: '2026-09-01', geo: 61, seo: 62 },
      { date: '2026-09-28', geo: 62, seo: 63 },
    ],
  } as unknown as ReportContent;

  it('knows every metric form and refuses anything else', () => {
    expect(parseGoalMetric('geo')).toEqual({ kind: 'geo' });
    expect(parseGoalMetric('ai:chatgpt')).toEqual({ kind: 'ai', assistant: 'chatgpt' });
    expect(parseGoalMetric('metric:ai_citations')).toEqual({ kind: 'metric', key: 'ai_citations' });
    for (const bad of ['GEO', 'ai:', 'metric: ', 'score', 'ai', 'trust:x']) expect(parseGoalMetric(bad)).toBeNull();
  });

  it('finds each value in the report, by the API name or the same name written another way', () => {
    const value = (metric: string): number | null => {
      const parsed = parseGoalMetric(metric);
      if (parsed === null) throw new Error(`not a metric: ${metric}`);
      return goalValue(parsed, content);
    };
    expect(value('geo')).toBe(64);
    expect(value('seo')).toBeNull();
    expect(value('trust')).toBe(74);
    expect(value('ai:chatgpt')).toBe(48);
    expect(value('ai:Mistral Le Chat')).toBe(22);
    expect(value('ai:perplexity')).toBeNull();
    expect(value('metric:ai_citations')).toBe(36);
    expect(value('metric:top_pages')).toBeNull();
    expect(value('metric:label')).toBeNull();
  });

  it('takes the latest point of each month of the history for geo and seo only', () => {
    expect(historyValues({ kind: 'geo' }, content)).toEqual([
      { period: toMonth('2026-08'), value: 60 },
      { period: toMonth('2026-09'), value: 62 },
    ]);
    expect(historyValues({ kind: 'trust' }, content)).toEqual([]);
  });

  it('prefers this month, then earlier reports, then the history, one value a month', () => {
    const merged = monthlySeries(
      toMonth('2026-10'),
      64,
      [
        { period: toMonth('2026-09'), value: 61.5 },
        { period: toMonth('2026-11'), value: 99 },
      ],
      [
        { period: toMonth('2026-08'), value: 60 },
        { period: toMonth('2026-09'), value: 62 },
        { period: toMonth('2026-10'), value: 1 },
      ],
    );
    expect(merged).toEqual([
      { period: toMonth('2026-08'), value: 60 },
      { period: toMonth('2026-09'), value: 61.5 },
      { period: toMonth('2026-10'), value: 64 },
    ]);
  });
});

describe('the goals of a report', () => {
  const content = {
    scores: { geo: 64, seo: 70, measuredAt: null, aiVisibility: [{ assistant: 'chatgpt', value: 48 }] },
    trust: null,
    metrics: [],
    history: [
      { date: '2026-07-05', geo: 58, seo: 60 },
      { date: '2026-08-05', geo: 60, seo: 64 },
      { date: '2026-09-05', geo: 62, seo: 68 },
      { date: '2026-10-05', geo: 64, seo: 70 },
    ],
  } as unknown as ReportContent;
  const earlierChatgpt = (period: string, value: number): { period: MonthPeriod; report: ReportContent } => ({
    period: toMonth(period),
    report: { ...content, scores: { geo: 64, seo: 70, measuredAt: null, aiVisibility: [{ assistant: 'chatgpt', value }] } },
  });

  it('labels, words and figures each goal in the report language', () => {
    for (const language of ['en', 'fr'] as const) {
      const views = buildGoalViews({
        goals: [
          { metric: 'geo', target: 70, by: toMonth('2027-01') },
          { metric: 'seo', target: 68, by: toMonth('2027-01'), label: 'SEO above 68' },
          { metric: 'ai:chatgpt', target: 60, by: toMonth('2026-12') },
          { metric: 'trust', target: 80, by: toMonth('2027-06') },
        ],
        period: toMonth('2026-10'),
        language,
        phrases: loadPhrases(language),
        content,
        earlier: [earlierChatgpt('2026-09', 47), earlierChatgpt('2026-08', 46)],
      });
      expect(views.map((v) => v.status)).toEqual(['on_track', 'achieved', 'behind', 'no_data']);
      const [geo, seo, chatgpt, trust] = views;
      expect(geo?.label).toBe(language === 'en' ? 'GEO score: 70 points or more' : 'Score GEO\u00a0: 70 points ou plus');
      expect(geo?.statusLabel).toBe(language === 'en' ? 'On track' : 'En bonne voie');
      expect(geo?.byLabel).toBe(language === 'en' ? 'January 2027' : 'janvier 2027');
      expect(geo?.progress).toBeCloseTo(91.4, 10); // 64 of 70
      expect(seo).toMatchObject({ label: 'SEO above 68', justAchieved: false, progress: 100 });
      expect(chatgpt?.label).toBe(language === 'en' ? 'Visibility on ChatGPT: 60 points or more' : 'Visibilité sur ChatGPT\u00a0: 60 points ou plus');
      expect(chatgpt?.recentPace).toBeCloseTo(1, 10);
      expect(trust?.statusLabel).toBe(language === 'en' ? 'No data' : 'Pas de données');
    }
  });

  it('says a goal was just achieved only in the month it is first met', () => {
    const view = (earlierValue: number): boolean | undefined =>
      buildGoalViews({
        goals: [{ metric: 'ai:chatgpt', target: 48, by: toMonth('2027-01') }],
        period: toMonth('2026-10'),
        language: 'en',
        phrases: loadPhrases('en'),
        content,
        earlier: [earlierChatgpt('2026-09', earlierValue)],
      })[0]?.justAchieved;
    expect(view(47)).toBe(true);
    expect(view(49)).toBe(false);
    // No earlier month known: met, but not news of this month.
    const first = buildGoalViews({
      goals: [{ metric: 'ai:chatgpt', target: 48, by: toMonth('2027-01') }],
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content,
      earlier: [],
    })[0];
    expect(first).toMatchObject({ status: 'achieved', justAchieved: false });
  });

  it('keeps the projection of a score within 0 to 100, and shows no recent pace without this month’s value', () => {
    const [steep] = buildGoalViews({
      goals: [{ metric: 'ai:chatgpt', target: 99, by: toMonth('2030-12') }],
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content,
      earlier: [earlierChatgpt('2026-09', 20), earlierChatgpt('2026-08', 5)],
    });
    expect(steep?.status).toBe('on_track');
    expect(steep?.projected).toBe(100);
    // ChatGPT known in August and September, not in this month's report.
    const [noData] = buildGoalViews({
      goals: [{ metric: 'ai:chatgpt', target: 99, by: toMonth('2030-12') }],
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content: { ...content, scores: { geo: 64, seo: 70, measuredAt: null, aiVisibility: [] } },
      earlier: [earlierChatgpt('2026-09', 20), earlierChatgpt('2026-08', 5)],
    });
    expect(noData?.status).toBe('no_data');
    expect(noData?.recentPace).toBeNull();
  });

  it('shows no pace beside "no trend yet": two months are no trend', () => {
    const [young] = buildGoalViews({
      goals: [{ metric: 'ai:chatgpt', target: 60, by: toMonth('2027-06') }],
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content,
      earlier: [earlierChatgpt('2026-09', 48)],
    });
    expect(young).toMatchObject({ status: 'no_trend', recentPace: null, projected: null });
    expect(young?.paceNeeded).toBeCloseTo(12 / 8, 10);
  });

  it('gives a goal on a percentage its unit, so that its pace is written in points', () => {
    const withShare = { ...content, metrics: [{ key: 'share_of_voice', value: 14.2, unit: '%', extra: {}, structure: undefined }] } as unknown as ReportContent;
    const [share, geo] = buildGoalViews({
      goals: [
        { metric: 'metric:share_of_voice', target: 15, by: toMonth('2027-06') },
        { metric: 'geo', target: 70, by: toMonth('2027-06') },
      ],
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content: withShare,
      earlier: [],
    });
    expect(share?.unit).toBe('%');
    expect(geo?.unit).toBeNull();
  });
});

describe('goals on the scan’s data', () => {
  const content = { scores: { geo: 64, seo: 70, measuredAt: null, aiVisibility: [] }, trust: null, metrics: [], history: [] } as unknown as ReportContent;
  const rank = (keyword: string, values: Array<number | null>) => {
    const counted_as = values.map((v) => v ?? 11);
    return { keyword, position: counted_as.reduce((a, b) => a + b, 0) / counted_as.length, values, counted_as };
  };
  const scan = (keywords: unknown[], vitals: { lcp_ms: number; inp_ms: number; cls: number }) => ({
    seo_audit: { keyword_rankings: keywords, lighthouse: { performance: 70, accessibility: 90, best_practices: 80, seo: 85, core_web_vitals: vitals } },
  });
  const on = { keywords: true, pageExperience: true };
  const september = scan([rank('plumber lyon', [5, 6, 5, 6]), rank('boiler repair', [9, 9, 8])], { lcp_ms: 3600, inp_ms: 240, cls: 0.2 });
  const october = scan([rank('plumber lyon', [2, 3, 3]), rank('boiler repair', [8, 9, 9]), rank('best plumber', [null, null])], {
    lcp_ms: 3140,
    inp_ms: 180,
    cls: 0.08,
  });
  const goals: Goal[] = [
    { metric: 'keyword:plumber lyon', target: 3, by: toMonth('2027-03') },
    { metric: 'keyword:Boiler  Repair', target: 5, by: toMonth('2026-12') },
    { metric: 'keyword:emergency plumber', target: 3, by: toMonth('2027-03') },
    { metric: 'keyword:best plumber', target: 5, by: toMonth('2027-03') },
    { metric: 'cwv:lcp', target: 2.5, by: toMonth('2027-03') },
    { metric: 'cwv:inp', target: 200, by: toMonth('2027-03') },
    { metric: 'cwv:cls', target: 0.1, by: toMonth('2027-03') },
  ];
  const views = (language: 'en' | 'fr', switches = on, earlierScan: ReturnType<typeof scanGoalSource> | null = scanGoalSource(september, on)) =>
    buildGoalViews({
      goals,
      period: toMonth('2026-10'),
      language,
      phrases: loadPhrases(language),
      content,
      earlier: [
        { period: toMonth('2026-09'), report: content, scan: earlierScan },
        {
          period: toMonth('2026-08'),
          report: content,
          scan: scanGoalSource(scan([rank('boiler repair', [9, 10, 9])], { lcp_ms: 3900, inp_ms: 260, cls: 0.25 }), on),
        },
      ],
      scan: scanGoalSource(october, switches),
    });

  it('knows keyword: and cwv: and refuses an empty keyword or a vital it does not measure', () => {
    expect(parseGoalMetric('keyword:plumber lyon')).toEqual({ kind: 'keyword', keyword: 'plumber lyon' });
    expect(parseGoalMetric('cwv:lcp')).toEqual({ kind: 'cwv', vital: 'lcp' });
    for (const bad of ['keyword:', 'keyword: ', 'cwv:fid', 'cwv:', 'cwv:LCP']) expect(parseGoalMetric(bad)).toBeNull();
    expect(goalMetricProblem('keyword:')).toMatch(/names its keyword.*"keyword:plumber lyon"/);
    expect(goalMetricProblem('cwv:fid')).toBe('unknown Core Web Vital "fid"; expected cwv:lcp, cwv:inp or cwv:cls');
    expect(goalMetricProblem('cwv:cls')).toBeNull();
  });

  it('reads a position or a vital as lower is better unless the goal says otherwise', () => {
    expect(goalDirection({ metric: 'keyword:plumber lyon' })).toBe('down');
    expect(goalDirection({ metric: 'cwv:inp' })).toBe('down');
    expect(goalDirection({ metric: 'cwv:inp', direction: 'up' })).toBe('up');
    expect(goalDirection({ metric: 'geo' })).toBe('up');
  });

  it('reads each keyword’s figure as its table shows it, and the vitals in the units the section writes', () => {
    const [plumber, boiler, emergency, best, lcp, inp, cls] = views('en');
    // 2, 3 and 3: the service's position 2.67, shown 2.7 as in the keyword table.
    expect(plumber).toMatchObject({ value: 2.7, status: 'achieved', direction: 'down', unit: null, justAchieved: true, progress: 100 });
    expect(plumber?.label).toBe('Position for ‘plumber lyon’: 3 or less');
    // 9.3 in August, 8.7 in September, 8.7 now: the line stays far from 5 by December.
    expect(boiler).toMatchObject({ value: 8.7, status: 'behind', known: 3, start: 9.3 });
    expect(boiler?.progress).toBeCloseTo(57.5, 1); // 5 ÷ 8.7
    expect(boiler?.paceNeeded).toBeCloseTo((5 - 8.7) / 2, 10);
    // Not in the scan at all; in the scan but in no trial's top 10: no value either way, never a rank 11.
    expect(emergency).toMatchObject({ value: null, status: 'no_data', statusLabel: 'No data' });
    expect(best).toMatchObject({ value: null, status: 'no_data' });
    // 3.9 s, 3.6 s, 3.14 s: −0.38 s a month, under 2.5 s well before March.
    expect(lcp).toMatchObject({ value: 3.14, unit: 's', status: 'on_track', label: 'Largest Contentful Paint (LCP): 2.5\u00a0s or less', start: 3.9 });
    expect(lcp?.recentPace).toBeCloseTo(-0.38, 10);
    expect(lcp?.projected).toBeCloseTo((3.9 + 3.6 + 3.14) / 3 - 0.38 * 6, 10);
    expect(inp).toMatchObject({ value: 180, unit: 'ms', status: 'achieved', justAchieved: true });
    expect(cls).toMatchObject({ value: 0.08, unit: null, status: 'achieved' });
  });

  it('reads a keyword absent from some trials at the service’s position, the figure its table shows', () => {
    const partly = scanGoalSource(scan([rank('plumber lyon', [2, 3, null, 3])], { lcp_ms: 3140, inp_ms: 180, cls: 0.08 }), on);
    const [plumber] = buildGoalViews({
      goals: goals.slice(0, 1),
      period: toMonth('2026-10'),
      language: 'en',
      phrases: loadPhrases('en'),
      content,
      earlier: [],
      scan: partly,
    });
    // (2 + 3 + 11 + 3) ÷ 4 = 4.75, shown 4.8: the table's figure, not 2.7 from the trials where it appeared.
    expect(plumber).toMatchObject({ value: 4.8, status: 'no_trend' });
  });

  it('names a time goal reached, and a keyword goal behind, in the summary with their units', () => {
    const summary = buildSummary({
      language: 'en',
      phrases: loadPhrases('en'),
      clientName: 'Sample',
      period: toMonth('2026-10'),
      previousPeriod: toMonth('2026-09'),
      scores: null,
      metrics: null,
      recommendations: null,
      goals: views('en'),
    }).join(' ');
    expect(summary).toContain('The goal “Interaction to Next Paint (INP): 200\u00a0ms or less” was reached this month, at 180\u00a0ms.');
    // The keyword in the inner quotes of the summary's: ‘ ’ inside “ ”.
    expect(summary).toContain('The goal “Position for ‘plumber lyon’: 3 or less” was reached this month, at 2.7.');
    expect(summary).toContain('The goal “Position for ‘Boiler  Repair’: 5 or less” is behind: reaching it by December 2026 needs −1.8 a month');
  });

  it('says the French labels in French typography', () => {
    const [plumber, , , , lcp] = views('fr');
    // “ ” inside the « » the summary quotes a goal in.
    expect(plumber?.label).toBe('Position sur “plumber lyon”\u00a0: 3 ou moins');
    expect(lcp?.statusLabel).toBe('En bonne voie');
  });

  it('shows no data when the client’s section is off, and no trend when earlier months read no scan', () => {
    const off = views('en', { keywords: false, pageExperience: false });
    expect(off.map((v) => v.status)).toEqual(Array(7).fill('no_data'));
    const firstScan = views('en', on, null);
    // August's scan alone is earlier: the boiler goal has two months, no trend; LCP likewise.
    expect(firstScan[1]).toMatchObject({ value: 8.7, status: 'no_trend', known: 2 });
    expect(firstScan[4]).toMatchObject({ value: 3.14, status: 'no_trend', known: 2, projected: null });
    expect(goalValue({ kind: 'cwv', vital: 'lcp' }, content)).toBeNull();
  });
});

describe('a goal’s label with its unit, in every language', () => {
  const label = (metric: string, target: number, language: string, unit: string | null = null) =>
    goalLabel({ metric, target, by: toMonth('2027-03') }, loadPhrases(language), language, unit);

  it('writes a score in points, a share in %, a vital in its unit and a count in what it counts', () => {
    const expected: Record<string, string[]> = {
      en: [
        'GEO score: 80 points or more',
        'Citations: 40 citations or more',
        'Organic keywords: 1 keyword or more',
        'Share of voice (service): 30% or more',
        'Largest Contentful Paint (LCP): 2.5\u00a0s or less',
      ],
      fr: [
        'Score GEO\u00a0: 80 points ou plus',
        'Citations\u00a0: 40 citations ou plus',
        'Mots-clés organiques\u00a0: 1 mot-clé ou plus',
        'Part de voix (service)\u00a0: 30\u00a0% ou plus',
        'Largest Contentful Paint (LCP)\u00a0: 2,5\u00a0s ou moins',
      ],
      de: [
        'GEO-Score: 80 Punkte oder mehr',
        'Zitate: 40 Zitate oder mehr',
        'Organische Keywords: 1 Keyword oder mehr',
        'Share of Voice (Dienst): 30\u00a0% oder mehr',
        'Largest Contentful Paint (LCP): 2,5\u00a0s oder weniger',
      ],
      es: [
        'Puntuación GEO: 80 puntos o más',
        'Citas: 40 citas o más',
        'Palabras clave orgánicas: 1 palabra clave o más',
        'Cuota de voz (servicio): 30\u00a0% o más',
        'Largest Contentful Paint (LCP): 2,5\u00a0s o menos',
      ],
      it: [
        'Punteggio GEO: 80 punti o più',
        'Citazioni: 40 citazioni o più',
        'Parole chiave organiche: 1 parola chiave o più',
        'Share of voice (servizio): 30% o più',
        'Largest Contentful Paint (LCP): 2,5\u00a0s o meno',
      ],
      nl: [
        'GEO-score: 80 punten of meer',
        'Citaties: 40 citaties of meer',
        'Organische zoekwoorden: 1 zoekwoord of meer',
        'Share of voice (dienst): 30% of meer',
        'Largest Contentful Paint (LCP): 2,5\u00a0s of minder',
      ],
      pt: [
        'Pontuação GEO: 80 pontos ou mais',
        'Citações: 40 citações ou mais',
        'Palavras-chave orgânicas: 1 palavra-chave ou mais',
        'Share of voice (serviço): 30% ou mais',
        'Largest Contentful Paint (LCP): 2,5\u00a0s ou menos',
      ],
    };
    for (const [language, labels] of Object.entries(expected)) {
      const shown = [
        label('geo', 80, language),
        label('metric:citations', 40, language),
        label('metric:organic_keywords', 1, language),
        label('metric:share_of_voice', 30, language, '%'),
        label('cwv:lcp', 2.5, language),
      ];
      expect(shown.map((text) => text.replace(/\u202f/g, '\u00a0'))).toEqual(labels);
    }
  });

  it('gives the goal’s target with its unit on its own, and a count the locale does not name as its number', () => {
    const phrases = loadPhrases('en');
    expect(goalTarget({ kind: 'ai', assistant: 'chatgpt' }, 1, phrases, 'en')).toBe('1 point');
    expect(goalTarget({ kind: 'sov', assistant: null }, 25, phrases, 'en')).toBe('25%');
    expect(goalTarget({ kind: 'cwv', vital: 'inp' }, 200, phrases, 'en')).toBe('200\u00a0ms');
    expect(goalTarget({ kind: 'cwv', vital: 'cls' }, 0.1, phrases, 'en')).toBe('0.1');
    expect(goalTarget({ kind: 'keyword', keyword: 'plumber lyon' }, 3, phrases, 'en')).toBe('3');
    expect(goalTarget({ kind: 'metric', key: 'widgets' }, 12, phrases, 'en')).toBe('12');
    expect(goalTarget({ kind: 'metric', key: 'load_time' }, 1.5, phrases, 'en', 's')).toBe('1.5\u00a0s');
  });
});
