// Goals an agency agreed with a client ("GEO 70 by 2027-03") → an honest status each month, from values the
// batch already has: this month's report, the report's own history, earlier periods' data.json. No request.
import type { ReportContent } from '../content/report.js';
import { assistantLabel, fieldLabel, formatNumber, formatWithUnit, phrase, pluralPhrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { addMonths, monthOfDateOrNull, monthsBetween, periodLabel, type MonthPeriod } from '../period.js';
import { readKeywordRankings, type KeywordRead } from '../sections/keywords/read.js';
import { keywordFigure } from '../sections/keywords/view.js';
import { readPageExperience, VITALS, type Vital } from '../sections/page-experience/read.js';
import { readAiAnswers } from '../sections/ai-answers/read.js';
import { countAnswers, voiceByAssistant, voiceOverall, type VoiceSite } from '../sections/ai-answers/voice.js';
import type { JsonRecord } from '../spec/find.js';
import { figureOf } from '../i18n/figures.js';
import type { GoalDirection, GoalStatus, GoalView } from './model.js';
import type { Fact } from './facts.js';
import { placeScore } from './months.js';

export { GOAL_DIRECTIONS, GOAL_STATUSES, type GoalDirection, type GoalStatus } from './model.js';

/** A goal as the config states it. */
export interface Goal {
  /** `geo`, `seo`, `trust`, `ai:<assistant>`, `metric:<key>`, `keyword:<keyword>`, `cwv:lcp|inp|cls`, `sov` or `sov:<assistant>`. */
  metric: string;
  target: number;
  /** YYYY-MM: the last month the target may be met in. */
  by: MonthPeriod;
  label?: string | undefined;
  /** `up`: higher is better; `down`: lower is better. @default `down` for a position or a Core Web Vital, else `up` */
  direction?: GoalDirection | undefined;
}

export type GoalMetric =
  | { kind: 'geo' | 'seo' | 'trust' }
  | { kind: 'ai'; assistant: string }
  | { kind: 'metric'; key: string }
  | { kind: 'keyword'; keyword: string }
  | { kind: 'cwv'; vital: Vital }
  /** Share of voice in the AI answers of the period's scan: one assistant's, or every assistant's together (null). */
  | { kind: 'sov'; assistant: string | null };

/** The metric forms a goal may name; what the config's check says when a metric is none of them. */
export const GOAL_METRIC_FORMS = [
  'geo',
  'seo',
  'trust',
  'ai:<assistant>',
  'metric:<key>',
  'keyword:<keyword>',
  'cwv:lcp',
  'cwv:inp',
  'cwv:cls',
  'sov',
  'sov:<assistant>',
] as const;

/** `ai:chatgpt` → { kind: 'ai', assistant: 'chatgpt' }; null when the text is none of GOAL_METRIC_FORMS. */
export function parseGoalMetric(text: string): GoalMetric | null {
  if (text === 'geo' || text === 'seo' || text === 'trust') return { kind: text };
  if (text === 'sov') return { kind: 'sov', assistant: null };
  const match = /^(ai|metric|keyword|cwv|sov):(\S.*)$/.exec(text);
  if (match === null) return null;
  const name = (match[2] ?? '').trim();
  if (name === '') return null;
  switch (match[1]) {
    case 'ai':
      return { kind: 'ai', assistant: name };
    case 'sov':
      return { kind: 'sov', assistant: name.toLowerCase() };
    case 'keyword':
      return { kind: 'keyword', keyword: name };
    case 'cwv':
      return (VITALS as readonly string[]).includes(name) ? { kind: 'cwv', vital: name as Vital } : null;
    default:
      return { kind: 'metric', key: name };
  }
}

/** Why the config's check refuses a goal's metric, in words that say the fix; null for a metric it accepts. */
export function goalMetricProblem(text: string): string | null {
  if (parseGoalMetric(text) !== null) return null;
  if (/^keyword:\s*$/.test(text)) return 'a keyword goal names its keyword after "keyword:", e.g. "keyword:plumber lyon"';
  const vital = /^cwv:(.*)$/.exec(text);
  if (vital !== null) return `unknown Core Web Vital "${(vital[1] ?? '').trim()}"; expected cwv:lcp, cwv:inp or cwv:cls`;
  return `unknown metric; expected one of ${GOAL_METRIC_FORMS.join(', ')} (e.g. "geo", "ai:chatgpt", "metric:ai_citations", "keyword:plumber lyon")`;
}

/** A goal's direction: its own, else lower is better for a position or a Core Web Vital, higher for the rest. */
export function goalDirection(goal: Pick<Goal, 'metric' | 'direction'>): GoalDirection {
  if (goal.direction !== undefined) return goal.direction;
  const kind = parseGoalMetric(goal.metric)?.kind;
  return kind === 'keyword' || kind === 'cwv' ? 'down' : 'up';
}

/** What goals on scan data read from one period's scan: null for a part the scan lacks or whose section is off. */
export interface ScanGoalSource {
  keywords: KeywordRead[] | null;
  /** LCP and INP in ms, CLS unitless. */
  vitals: Record<Vital, number | null> | null;
  /** Share of voice in %, per assistant and for every assistant together (`all`), as the AI answers section counts it. */
  voice?: ReadonlyMap<string, number | null> | null;
}

/** The scan sections a goal on scan data needs switched on for its client. */
export interface ScanGoalSwitches {
  keywords: boolean;
  pageExperience: boolean;
  /** @default false */
  aiAnswers?: boolean;
}

/** The parts of a period's scan (data.json's `scan.data`) goals read; a part that cannot be read is no value. */
export function scanGoalSource(scan: JsonRecord | null, on: ScanGoalSwitches, site: VoiceSite = { name: '', domain: null }): ScanGoalSource {
  const safely = <T>(read: () => T | null): T | null => {
    try {
      return read();
    } catch {
      return null; // the section's own note says why; the goal shows no data
    }
  };
  return {
    keywords: scan === null || !on.keywords ? null : safely(() => readKeywordRankings(scan)),
    vitals: scan === null || !on.pageExperience ? null : safely(() => readPageExperience(scan)?.vitals ?? null),
    voice: scan === null || on.aiAnswers !== true ? null : safely(() => voiceFigures(scan, site)),
  };
}

/** Each assistant's share of voice in a scan, and `all`: the figures the AI answers section shows. */
function voiceFigures(scan: JsonRecord, site: VoiceSite): Map<string, number | null> | null {
  const read = readAiAnswers(scan);
  if (read === null) return null;
  const answers = countAnswers(read, site);
  const figure = (value: number | null): number | null => (value === null ? null : figureOf(value, 'percent'));
  return new Map([
    ...voiceByAssistant(answers).map((voice) => [voice.assistant, figure(voice.shareOfVoice)] as const),
    ['all', figure(voiceOverall(answers).shareOfVoice)] as const,
  ]);
}

const keywordKey = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** A goal's value from the scan: a keyword's average position where the site appeared, LCP in s, INP in ms, CLS. */
function scanValue(metric: GoalMetric, scan: ScanGoalSource | null | undefined): number | null {
  if (metric.kind === 'sov') return scan?.voice?.get(metric.assistant ?? 'all') ?? null;
  if (metric.kind === 'keyword') {
    const rows = scan?.keywords ?? [];
    const row = rows.find((k) => k.keyword === metric.keyword) ?? rows.find((k) => keywordKey(k.keyword) === keywordKey(metric.keyword));
    // The keyword table's own figure: the service's position, rounded as the table shows it; a keyword in no
    // trial's top 10 has no position it reached (the table says "not in the top 10"), never a rank 11.
    return row === undefined || (row.trials > 0 && row.found.length === 0) ? null : keywordFigure(row);
  }
  if (metric.kind === 'cwv') {
    const value = scan?.vitals?.[metric.vital] ?? null;
    if (value === null) return null;
    // The units the page experience section writes: LCP in seconds, INP in milliseconds.
    return metric.vital === 'lcp' ? Math.round(value / 10) / 100 : metric.vital === 'inp' ? Math.round(value) : value;
  }
  return null;
}

/** Fewer known monthly values than this: no trend is drawn. */
export const GOAL_MIN_TREND_VALUES = 3;
/** The trend line goes through at most this many of the latest monthly values. */
export const GOAL_TREND_WINDOW = 6;

/** One month's value of a goal's metric. */
export interface MonthlyValue {
  /** YYYY-MM */
  period: MonthPeriod;
  value: number;
}

export interface GoalEvaluation {
  status: GoalStatus;
  /** This month's value; null when the report has none. */
  value: number | null;
  /** The earliest known value. */
  start: number | null;
  /** How near this month's value is to the target, 0 to 1 (value ÷ target; target ÷ value for a down goal); null without a value. */
  progress: number | null;
  /** The trend line's value in the month `by`; null without a trend. */
  projected: number | null;
  /** Change per month still needed to meet the target by `by`; null when achieved, missed or due this month. */
  paceNeeded: number | null;
  /** Change per month of the trend line (at least two values); null otherwise. */
  recentPace: number | null;
  /** Months from this period to `by` (0 in the month itself, negative once past). */
  monthsLeft: number;
  /** How many monthly values the status was decided from. */
  known: number;
}

const normalName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A number, or a string that is one written plainly ("23.8"); anything else is no value. */
export function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+(?:[.,]\d+)?\s*$/.test(value)) return Number(value.trim().replace(',', '.'));
  return null;
}

/** The goal's metric as one report (and its period's scan) states it; null when they do not have it. */
export function goalValue(metric: GoalMetric, content: ReportContent, scan?: ScanGoalSource | null): number | null {
  switch (metric.kind) {
    case 'keyword':
    case 'cwv':
    case 'sov':
      return scanValue(metric, scan);
    case 'geo':
    case 'seo':
      return numeric(content.scores?.[metric.kind]);
    case 'trust':
      return numeric(content.trust?.score);
    case 'ai': {
      const list = content.scores?.aiVisibility ?? [];
      // The API's own name first; then the same name written another way ("Mistral Le Chat", "mistral_le_chat").
      const found = list.find((v) => v.assistant === metric.assistant) ?? list.find((v) => normalName(v.assistant) === normalName(metric.assistant));
      return numeric(found?.value);
    }
    case 'metric': {
      const list = content.metrics ?? [];
      const found = list.find((m) => m.key === metric.key) ?? list.find((m) => normalName(m.key) === normalName(metric.key));
      return found === undefined || found.structure !== undefined ? null : numeric(found.value);
    }
  }
}

/** The unit of a goal's metric as the report gives it ("%" for a percentage); null for scores and unitless figures. */
export function goalUnit(metric: GoalMetric, content: ReportContent): string | null {
  if (metric.kind === 'cwv') return metric.vital === 'lcp' ? 's' : metric.vital === 'inp' ? 'ms' : null;
  if (metric.kind === 'sov') return '%';
  if (metric.kind !== 'metric') return null;
  const list = content.metrics ?? [];
  const found = list.find((m) => m.key === metric.key) ?? list.find((m) => normalName(m.key) === normalName(metric.key));
  return found?.unit ?? null;
}

/** The month's value of geo or seo from the report's own history (the latest point of each month). */
export function historyValues(metric: GoalMetric, content: ReportContent): MonthlyValue[] {
  if (metric.kind !== 'geo' && metric.kind !== 'seo') return [];
  const byMonth = new Map<MonthPeriod, { date: string; value: number }>();
  for (const point of content.history ?? []) {
    const value = numeric(point[metric.kind]);
    const month = monthOfDateOrNull(point.date);
    if (value === null || month === null) continue;
    const seen = byMonth.get(month);
    if (seen === undefined || point.date >= seen.date) byMonth.set(month, { date: point.date, value });
  }
  return [...byMonth].map(([period, { value }]) => ({ period, value }));
}

/**
 * Every known monthly value up to `period`, one per month, oldest first. Sources in order of trust: this
 * month's report, then each earlier period's own report (what its client was shown), then the report's history.
 */
export function monthlySeries(period: MonthPeriod, current: number | null, earlier: MonthlyValue[], history: MonthlyValue[]): MonthlyValue[] {
  const byMonth = new Map<MonthPeriod, number>();
  for (const source of [history, earlier]) {
    for (const { period: month, value } of source) if (month < period) byMonth.set(month, value);
  }
  if (current !== null) byMonth.set(period, current);
  else byMonth.delete(period);
  return [...byMonth].map(([month, value]) => ({ period: month, value })).sort((a, b) => (a.period < b.period ? -1 : 1));
}

/** Least-squares line through the points (x in months); null for fewer than two. */
function leastSquares(points: Array<{ x: number; y: number }>): { slope: number; intercept: number } | null {
  if (points.length < 2) return null;
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - meanX) * (p.y - meanY);
    sxx += (p.x - meanX) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}

const meets = (value: number, target: number, direction: GoalDirection): boolean => (direction === 'up' ? value >= target : value <= target);

/**
 * The status of one goal in `period`, decided in this order: no data (no value this month), achieved, missed
 * (the period is after `by`), no trend yet (fewer than 3 monthly values), then on track or behind: the
 * least-squares line through the latest 6 values, carried to `by`, meets the target or not. In the month `by`
 * itself the month's own value is final: not met is behind.
 */
export function evaluateGoal(goal: Goal, period: MonthPeriod, series: MonthlyValue[]): GoalEvaluation {
  const direction = goalDirection(goal);
  const known = series.filter((v) => v.period <= period);
  const value = known.find((v) => v.period === period)?.value ?? null;
  const monthsLeft = monthsBetween(period, goal.by);
  const start = known[0]?.value ?? null;
  const window = known.slice(-GOAL_TREND_WINDOW);
  const line = leastSquares(window.map((v) => ({ x: monthsBetween(period, v.period), y: v.value })));
  const recentPace = line === null ? null : line.slope;
  const base = { value, start, monthsLeft, known: known.length, recentPace };
  if (value === null) return { ...base, status: 'no_data', progress: null, projected: null, paceNeeded: null };

  const progress = progressOf(value, goal.target, direction);
  if (meets(value, goal.target, direction)) return { ...base, status: 'achieved', progress: 1, projected: null, paceNeeded: null };
  if (monthsLeft < 0) return { ...base, status: 'missed', progress, projected: null, paceNeeded: null };

  const paceNeeded = monthsLeft > 0 ? (goal.target - value) / monthsLeft : null;
  if (known.length < GOAL_MIN_TREND_VALUES || line === null) {
    return { ...base, status: 'no_trend', progress, projected: null, paceNeeded };
  }
  const projected = line.intercept + line.slope * monthsLeft;
  const onTrack = monthsLeft > 0 && meets(projected, goal.target, direction);
  return { ...base, status: onTrack ? 'on_track' : 'behind', progress, projected, paceNeeded };
}

/**
 * How near `value` is to `target`, 0 to 1: the share of the target reached (26 of 40: 0.65), or for a down goal the
 * target's share of the value (4 against 2 or less: 0.5). What the bar shows is what the row says: "26 of 40".
 */
function progressOf(value: number, target: number, direction: GoalDirection): number {
  if (meets(value, target, direction)) return 1;
  const share = direction === 'up' ? (target > 0 ? value / target : 0) : value > 0 ? target / value : 0;
  return Math.min(1, Math.max(0, share));
}

/** The earlier months a goal's status can use: the trend window before `period`. */
export function goalLookback(period: MonthPeriod): MonthPeriod[] {
  return Array.from({ length: GOAL_TREND_WINDOW - 1 }, (_, i) => addMonths(period, -(i + 1)));
}

/** An earlier period's report, as read from its data.json. */
export interface EarlierReport {
  /** YYYY-MM */
  period: MonthPeriod;
  report: ReportContent;
  /** The parts of that period's scan goals read (data.json's `scan`); none when it read no scan. */
  scan?: ScanGoalSource | null;
}

/** The metric's name in the report's language. */
export function goalMetricName(metric: GoalMetric, phrases: Phrases): string {
  switch (metric.kind) {
    case 'geo':
    case 'seo':
    case 'trust':
      return phrase(phrases, `goals.metric.${metric.kind}`);
    case 'ai':
      return phrase(phrases, 'goals.metric.ai', { assistant: assistantLabel(phrases, metric.assistant) });
    case 'metric':
      return fieldLabel(phrases, metric.key);
    case 'keyword':
      return phrase(phrases, 'goals.metric.keyword', { keyword: metric.keyword });
    case 'cwv':
      return phrase(phrases, `goals.metric.cwv.${metric.vital}`);
    case 'sov':
      return metric.assistant === null
        ? phrase(phrases, 'goals.metric.sov')
        : phrase(phrases, 'goals.metric.sovAssistant', { assistant: assistantLabel(phrases, metric.assistant) });
  }
}

/**
 * A goal's target with its unit, in the language: "80 points" for a score or an assistant's visibility, "30%" for a
 * share, "2.5 s" for LCP, "40 citations" for a count the locale names (goals.unit.count.<metric key>), a position as
 * its number. `unit` is the metric's unit as the report gives it (goalUnit); absent: read from the metric alone.
 */
export function goalTarget(metric: GoalMetric, target: number, phrases: Phrases, language: string, unit: string | null = null): string {
  const number = formatNumber(target, language, { maximumFractionDigits: 2 });
  switch (metric.kind) {
    case 'geo':
    case 'seo':
    case 'trust':
    case 'ai':
      return pluralPhrase(phrases, language, 'goals.unit.points', target, { value: number });
    case 'sov':
      return formatWithUnit(target, '%', language);
    case 'cwv':
      return formatWithUnit(target, metric.vital === 'lcp' ? 's' : metric.vital === 'inp' ? 'ms' : null, language);
    case 'keyword':
      return number;
    case 'metric': {
      const key = metric.key.toLowerCase();
      if (unit !== null && unit !== '' && unit !== 'count') return formatWithUnit(target, unit, language);
      if (phrases[`goals.unit.count.${key}.other`] === undefined) return number;
      return pluralPhrase(phrases, language, `goals.unit.count.${key}`, target, { value: number });
    }
  }
}

/**
 * The goal's label: the agency's own words when the config gives them, else "GEO score: 80 points or more" in the
 * language, the target with its unit (goalTarget; `unit` as goalUnit gives it for the client's report).
 */
export function goalLabel(goal: Goal, phrases: Phrases, language: string, unit: string | null = null): string {
  const own = goal.label?.trim();
  if (own !== undefined && own !== '') return own;
  const metric = parseGoalMetric(goal.metric);
  if (metric === null) {
    const target = formatNumber(goal.target, language, { maximumFractionDigits: 2 });
    return phrase(phrases, `goals.defaultLabel.${goalDirection(goal)}`, { metric: goal.metric, target });
  }
  const target = goalTarget(metric, goal.target, phrases, language, unit);
  return phrase(phrases, `goals.defaultLabel.${goalDirection(goal)}`, { metric: goalMetricName(metric, phrases), target });
}

/** A projection within what the metric can be, whatever a steep line says: a score 0–100, a position from 1, a vital from 0. */
function shownProjection(metric: GoalMetric, projected: number | null): number | null {
  if (projected === null) return null;
  switch (metric.kind) {
    case 'metric':
      return projected;
    case 'keyword':
      return Math.max(1, projected);
    case 'cwv':
      return Math.max(0, projected);
    default:
      return Math.min(100, Math.max(0, projected));
  }
}

export interface GoalViewsInput {
  goals: readonly Goal[];
  period: MonthPeriod;
  language: string;
  phrases: Phrases;
  content: ReportContent;
  /** The GEO and SEO scores the report shows for its period (report/months.ts). @default the scores section's */
  shown?: { geo: number | null; seo: number | null };
  /** The report's fact table: a goal on a value the report shows reads that value's figure. @default none */
  facts?: readonly Fact[];
  /** The date each value is shown "as of" when it is not the period's own (report/months.ts). @default none */
  asOf?: { geo: string | null; seo: string | null; current: string | null };
  /** The AI visibility the report had was read after the period and is not shown: an `ai:` goal has no value either. @default false */
  aiWithheld?: boolean;
  /** Earlier periods' reports (any order; later ones than `period` are ignored). */
  earlier: readonly EarlierReport[];
  /** This period's scan, as goals on scan data read it. @default none: those goals show no data */
  scan?: ScanGoalSource | null;
}

/** The fact a goal's metric is in the report's fact table (report/facts.ts), its name matched as goalValue matches it; null for scan goals. */
function goalFact(metric: GoalMetric, facts: readonly Fact[]): Fact | null {
  const named = (prefix: string, name: string): Fact | null =>
    facts.find((f) => f.key === `${prefix}.${name}`) ??
    facts.find((f) => f.key.startsWith(`${prefix}.`) && normalName(f.key.slice(prefix.length + 1)) === normalName(name)) ??
    null;
  switch (metric.kind) {
    case 'geo':
    case 'seo':
      return named('scores', metric.kind);
    case 'trust':
      return named('trust', 'score');
    case 'ai':
      return named('ai', metric.assistant);
    case 'metric':
      return named('metrics', metric.key);
    default:
      return null;
  }
}

/** The date a goal's value is shown "as of": none for the period's own (a fact of its month, the period's scan's included). */
function goalAsOf(metric: GoalMetric, fact: Fact | null, input: GoalViewsInput): string | null {
  if (metric.kind === 'geo' || metric.kind === 'seo') return input.asOf?.[metric.kind] ?? null;
  if (fact !== null && fact.month === input.period) return null;
  return input.asOf?.current ?? null;
}

/** Every goal of the client with its status this month; a goal naming an unknown metric form is left out. */
export function buildGoalViews(input: GoalViewsInput): GoalView[] {
  const { period, language, phrases } = input;
  const views: GoalView[] = [];
  for (const goal of input.goals) {
    const metric = parseGoalMetric(goal.metric);
    if (metric === null) continue; // the config's check refuses these before any request
    const direction = goalDirection(goal);
    const shown = input.shown;
    const fact = goalFact(metric, input.facts ?? []);
    const current =
      shown !== undefined && (metric.kind === 'geo' || metric.kind === 'seo')
        ? shown[metric.kind]
        : metric.kind === 'ai' && input.aiWithheld === true && fact === null
          ? null
          : (fact?.figure ?? goalValue(metric, input.content, input.scan));
    const earlier = input.earlier.flatMap(({ period: month, report, scan }) => {
      // An earlier report's score is its own period's, by the same rule as this one's.
      const value = metric.kind === 'geo' || metric.kind === 'seo' ? placeScore(report, metric.kind, month).value : goalValue(metric, report, scan);
      return value === null ? [] : [{ period: month, value }];
    });
    const series = monthlySeries(period, current, earlier, historyValues(metric, input.content));
    const evaluation = evaluateGoal(goal, period, series);
    const before = series.filter((v) => v.period < period).at(-1);
    const metricName = goalMetricName(metric, phrases);
    const unit = goalUnit(metric, input.content);
    const label = goalLabel(goal, phrases, language, unit);
    // A trend needs three months: with fewer, the pace of two points is no pace to show beside "no trend yet".
    const paceShown = evaluation.status !== 'no_data' && evaluation.status !== 'no_trend';
    views.push({
      metric: goal.metric,
      metricName,
      label,
      direction,
      target: goal.target,
      by: goal.by,
      byLabel: periodLabel(goal.by, language),
      value: evaluation.value,
      asOf: evaluation.value === null ? null : goalAsOf(metric, fact, input),
      start: evaluation.start,
      status: evaluation.status,
      statusLabel: phrase(phrases, `goals.status.${evaluation.status}`),
      progress: evaluation.progress === null ? null : Math.round(evaluation.progress * 1000) / 10,
      paceNeeded: evaluation.paceNeeded,
      unit,
      // Without this month's value, a pace of earlier months says nothing of where the goal stands.
      recentPace: paceShown ? evaluation.recentPace : null,
      projected: shownProjection(metric, evaluation.projected),
      monthsLeft: evaluation.monthsLeft,
      known: evaluation.known,
      // Only when an earlier month is known and fell short: on a first report, a goal met long ago is not news.
      justAchieved: evaluation.status === 'achieved' && before !== undefined && !meets(before.value, goal.target, direction),
    });
  }
  return views;
}
