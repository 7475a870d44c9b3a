// The summary paragraphs at the top of a report, built from rules in the client's language (no network, no model).
import {
  digitsFor,
  formatList,
  formatNumber,
  formatPointsChange,
  formatSignedPercent,
  formatWithUnit,
  inSentence,
  ofPeriod,
  phrase,
  pluralPhrase,
} from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { changeMeaning, knownValue } from '../content/values.js';
import { monthsBetween, periodLabel } from '../period.js';
import { asShown, changeDirection } from './deltas.js';
import type { ScoreRevision } from './facts.js';
import type { Delta, GoalView, MetricRow, ReportModel, TrackedRecommendation } from './model.js';

export interface SummaryInput {
  language: string;
  phrases: Phrases;
  clientName: string;
  period: string;
  /** Period of the previous report compared with; null on the first period. */
  previousPeriod: string | null;
  /** Month the GEO and SEO changes are measured from (the history's month before). @default previousPeriod */
  scoresSince?: string | null;
  scores: ReportModel['scores'];
  metrics: ReportModel['metrics'];
  recommendations: ReportModel['recommendations'];
  /** The client's goals; those just achieved or behind are named. @default none */
  goals?: readonly GoalView[] | null;
  /** Months' scores the service revised after a report showed them: each said once. @default none */
  revisions?: readonly ScoreRevision[];
}

export type PercentileTier = 'top10' | 'top20' | 'topQuarter' | 'aboveAverage' | 'belowAverage' | 'bottomQuarter';

/** Words for a percentile (share of tracked sites scored above); null when it is not a number. */
export function percentileTier(percentile: number | null): PercentileTier | null {
  if (percentile === null || !Number.isFinite(percentile)) return null;
  if (percentile >= 90) return 'top10';
  if (percentile >= 80) return 'top20';
  if (percentile >= 75) return 'topQuarter';
  if (percentile >= 50) return 'aboveAverage';
  if (percentile >= 25) return 'belowAverage';
  return 'bottomQuarter';
}

/** How many actions the summary names at most. */
export const SUMMARY_MAX_ACTIONS = 3;

/** A score that moved less than this (points out of 100) did not move, for the verdict: a point or so is noise, not news. */
export const VERDICT_NOISE = 2;
/** An assistant's visibility that moved less than this is not worth a sentence. */
export const AI_MOVER_NOISE = 2;
/** A metric whose change is smaller than this (points for a percentage, relative otherwise) is not worth a sentence. */
export const METRIC_NOISE = { points: 0.5, relative: 0.02 } as const;

export type Verdict = 'first' | 'goodBoth' | 'goodGeo' | 'goodSeo' | 'mixedGeoUp' | 'mixedSeoUp' | 'hardBoth' | 'hardGeo' | 'hardSeo' | 'steady';

/** How the month went, in one word, from the GEO and SEO changes; null without a score. */
export function monthVerdict(scores: ReportModel['scores']): Verdict | null {
  if (scores === null || (scores.geo.value === null && scores.seo.value === null)) return null;
  if (scores.geo.change === null && scores.seo.change === null) return 'first';
  const way = (change: Delta | null): 'up' | 'down' | 'flat' =>
    change === null || Math.abs(change.value) < VERDICT_NOISE ? 'flat' : change.value > 0 ? 'up' : 'down';
  const geo = way(scores.geo.change);
  const seo = way(scores.seo.change);
  if (geo === 'up') return seo === 'up' ? 'goodBoth' : seo === 'down' ? 'mixedGeoUp' : 'goodGeo';
  if (geo === 'down') return seo === 'down' ? 'hardBoth' : seo === 'up' ? 'mixedSeoUp' : 'hardGeo';
  return seo === 'up' ? 'goodSeo' : seo === 'down' ? 'hardSeo' : 'steady';
}

class SummaryWriter {
  constructor(private readonly input: SummaryInput) {}

  private get language(): string {
    return this.input.language;
  }

  private t(key: string, params?: Record<string, string | number>): string {
    return phrase(this.input.phrases, key, params);
  }

  private num(value: number, digits = 1): string {
    return formatNumber(value, this.language, { maximumFractionDigits: digits });
  }

  private points(value: number): string {
    return pluralPhrase(this.input.phrases, this.language, 'summary.points', asShown(Math.abs(value)));
  }

  private since(previous: string | null = this.input.previousPeriod): string {
    if (previous === null) return '';
    return monthsBetween(previous, this.input.period) === 1
      ? this.t('summary.since.lastMonth')
      : this.t('summary.since.period', { period: periodLabel(previous, this.language) });
  }

  /** Paragraph 1: what moved since the previous period, or where the client stands. */
  movement(): string | null {
    const sentences: string[] = [];
    const scores = this.input.scores;
    const changes: string[] = [];
    if (scores !== null) {
      for (const [name, card] of [
        ['geo', scores.geo],
        ['seo', scores.seo],
      ] as const) {
        if (card.value === null || card.change === null) continue;
        changes.push(
          this.t(`summary.change.${card.change.direction}`, {
            score: this.t(`summary.score.${name}`),
            delta: this.num(Math.abs(card.change.value)),
            points: this.points(card.change.value),
            value: this.num(card.value),
          }),
        );
      }
    }
    const verdict = monthVerdict(scores);
    if (verdict !== null) sentences.push(this.t(`summary.verdict.${verdict}`));
    if (changes.length > 0) {
      sentences.push(
        capitalise(
          this.t('summary.change.sentence', {
            since: this.since(this.input.scoresSince ?? this.input.previousPeriod),
            changes: formatList(changes, this.language),
          }),
        ),
      );
    } else if (scores !== null) {
      const standing: string[] = [];
      if (scores.geo.value !== null) standing.push(this.t('summary.standing.geo', { value: this.num(scores.geo.value) }));
      if (scores.seo.value !== null) standing.push(this.t('summary.standing.seo', { value: this.num(scores.seo.value) }));
      if (standing.length > 0) {
        sentences.push(this.t('summary.standing.sentence', { scores: formatList(standing, this.language) }));
      }
      const best = bestAssistant(scores.aiVisibility);
      if (best !== null && best.value !== null) {
        sentences.push(this.t('summary.standing.bestAssistant', { assistant: best.label, value: this.num(best.value) }));
      }
    }
    // "Last month" is what the last report said; a value the service changed since is told, once, here.
    for (const revision of this.input.revisions ?? []) {
      sentences.push(
        this.t('summary.revised', {
          month: ofPeriod(periodLabel(revision.month, this.language), this.input.phrases),
          score: this.t(`summary.score.${revision.kind}`),
          told: this.num(revision.told),
          now: this.num(revision.now),
        }),
      );
    }
    const aiMover = scores === null ? null : biggestAiMover(scores.aiVisibility);
    if (aiMover !== null && aiMover.value !== null && aiMover.change !== null && Math.abs(aiMover.change.value) >= AI_MOVER_NOISE) {
      sentences.push(
        this.t(`summary.aiMover.${aiMover.change.direction === 'up' ? 'up' : 'down'}`, {
          assistant: aiMover.label,
          delta: this.num(Math.abs(aiMover.change.value)),
          points: this.points(aiMover.change.value),
          value: this.num(aiMover.value),
        }),
      );
    }
    const metricMover = biggestMetricMover(this.input.metrics ?? []);
    if (metricMover !== null && !isNoise(metricMover.row, metricMover.change)) {
      const { row, change, current } = metricMover;
      // A percentage changes in points, as in the metrics table; any other change is named relative, never bare.
      const ratio =
        row.unit === '%'
          ? this.t('summary.metricMover.points', { change: formatPointsChange(change.value, this.input.phrases, this.language) })
          : change.previous === 0
            ? ''
            : this.t('summary.metricMover.relative', { ratio: formatSignedPercent(change.value / Math.abs(change.previous), this.language) });
      // The verb says whether the change is good news for this value (a lower position is); unknown ones: "changed".
      const known = knownValue(row.key);
      const meaning = changeMeaning(row.key, change.value);
      const named = this.input.phrases[`metric.${row.key}.the`];
      sentences.push(
        pluralPhrase(this.input.phrases, this.language, `summary.metricMover.${meaning}`, known?.plural === true ? 2 : 1, {
          metric: named ?? inSentence(row.label),
          previous: formatWithUnit(change.previous, row.unit, this.language),
          value: formatWithUnit(current, row.unit, this.language),
          ratio,
        }),
      );
    }
    return sentences.length === 0 ? null : sentences.join(' ');
  }

  /** Paragraph 2: position among tracked sites and the gap to the benchmark average. */
  benchmark(): string | null {
    const scores = this.input.scores;
    if (scores === null) return null;
    const sentences: string[] = [];
    const tier = percentileTier(scores.percentile);
    if (tier !== null) {
      const size = scores.benchmarkSampleSize;
      const sites =
        size !== null && Number.isFinite(size) && size > 0
          ? this.t('summary.benchmark.sites.count', { count: this.num(size, 0) })
          : this.t('summary.benchmark.sites.unknown');
      sentences.push(this.t(`summary.benchmark.${tier}`, { sites }));
    }
    const { value, vsBenchmark, benchmarkAverage } = scores.geo;
    if (value !== null && vsBenchmark !== null) {
      const side = { flat: 'level', up: 'above', down: 'below' }[changeDirection(vsBenchmark)];
      const group = benchmarkAverage === null ? 'gapNoAverage' : 'gap';
      sentences.push(
        this.t(`summary.benchmark.${group}.${side}`, {
          value: this.num(value),
          gap: this.num(Math.abs(vsBenchmark)),
          points: this.points(vsBenchmark),
          average: benchmarkAverage === null ? '' : this.num(benchmarkAverage),
        }),
      );
    }
    return sentences.length === 0 ? null : sentences.join(' ');
  }

  /** Paragraph 3: the most important open actions, critical first, then high. */
  actions(): string | null {
    const recommendations = this.input.recommendations;
    if (recommendations === null) return null;
    const urgent: TrackedRecommendation[] = [];
    for (const priority of ['critical', 'high'] as const) {
      const group = recommendations.groups.find((g) => g.priority === priority);
      if (group !== undefined) urgent.push(...group.items);
    }
    const titles = urgent
      .map((rec) => rec.title.trim())
      .filter((title) => title !== '')
      .slice(0, SUMMARY_MAX_ACTIONS)
      .map((title) => this.t('summary.quote', { title }));
    if (titles.length === 0) return this.t('summary.actions.none');
    return pluralPhrase(this.input.phrases, this.language, 'summary.actions', titles.length, {
      actions: formatList(titles, this.language),
    });
  }

  /** Paragraph 5: goals reached this month, and goals the trend says will be missed, with the pace they need. */
  goals(): string | null {
    const sentences: string[] = [];
    for (const goal of this.input.goals ?? []) {
      const name = this.t('summary.quote', { title: goal.label });
      if (goal.justAchieved) {
        // A time keeps its unit ("at 2.1 s"); a percentage and a bare figure are written as before.
        const reached = goal.value ?? goal.target;
        const value = goal.unit !== null && goal.unit !== '%' ? formatWithUnit(reached, goal.unit, this.language) : this.num(reached, 2);
        sentences.push(this.t('summary.goals.achieved', { goal: name, value }));
      } else if (goal.status === 'behind') {
        // A percentage's pace is in points; a small need keeps the digits that make it non-zero.
        // A score's pace is in points out of 100, as its changes are: "+6 points a month", never a bare "+6".
        const score = ['geo', 'seo', 'trust'].includes(goal.metric) || goal.metric.startsWith('ai:');
        const pace = (value: number | null): string => {
          if (value === null) return '';
          if (goal.unit === '%') return formatPointsChange(value, this.input.phrases, this.language);
          const text = formatNumber(value, this.language, { maximumFractionDigits: digitsFor(value), signDisplay: 'exceptZero' });
          return score ? `${text} ${this.points(value)}` : goal.unit === null ? text : `${text}\u00a0${goal.unit}`;
        };
        const needed = goal.paceNeeded === null ? null : pace(goal.paceNeeded);
        // Behind means a trend was drawn, so the recent pace is known; in the month due, no pace is left to need.
        const key = needed === null ? 'summary.goals.behindDue' : 'summary.goals.behind';
        sentences.push(this.t(key, { goal: name, by: periodLabel(goal.by, this.language), needed: needed ?? '', pace: pace(goal.recentPace) }));
      }
    }
    return sentences.length === 0 ? null : sentences.join(' ');
  }

  /** Paragraph 4: recommendations resolved and new since the previous period, and the one open longest. */
  tracking(): string | null {
    const tracking = this.input.recommendations?.tracking ?? null;
    if (tracking === null || this.input.previousPeriod === null) return null;
    const resolvedCount = tracking.resolved.length;
    const newCount = tracking.new.length;
    const sentences = [
      this.t('summary.tracking.sentence', {
        resolved: pluralPhrase(this.input.phrases, this.language, 'summary.tracking.resolved', resolvedCount, {
          count: this.num(resolvedCount, 0),
        }),
        since: this.since(),
        new: pluralPhrase(this.input.phrases, this.language, 'summary.tracking.new', newCount, { count: this.num(newCount, 0) }),
      }),
    ];
    const oldest = tracking.persistent[0];
    if (oldest !== undefined && oldest.title.trim() !== '') {
      sentences.push(
        this.t('summary.tracking.persistent', {
          title: this.t('summary.quote', { title: oldest.title.trim() }),
          count: this.num(oldest.periodsOpen, 0),
        }),
      );
    }
    return sentences.join(' ');
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

type AiRow = NonNullable<ReportModel['scores']>['aiVisibility'][number];

function bestAssistant(rows: readonly AiRow[]): AiRow | null {
  let best: AiRow | null = null;
  for (const row of rows) {
    if (row.value !== null && (best === null || best.value === null || row.value > best.value)) best = row;
  }
  return best;
}

export function biggestAiMover(rows: readonly AiRow[]): AiRow | null {
  let mover: AiRow | null = null;
  for (const row of rows) {
    if (row.change === null || row.change.direction === 'flat' || row.value === null) continue;
    if (mover === null || Math.abs(row.change.value) > Math.abs(mover.change?.value ?? 0)) mover = row;
  }
  return mover;
}

/** Metrics have different scales, so the biggest mover is the biggest relative change (from zero counts as largest). */
function biggestMetricMover(rows: readonly MetricRow[]): { row: MetricRow; change: Delta; current: number } | null {
  let best: { row: MetricRow; change: Delta; current: number; weight: number } | null = null;
  for (const row of rows) {
    const change = row.change;
    if (change === null || change.direction === 'flat' || typeof row.value !== 'number') continue;
    const weight = change.previous === 0 ? Number.POSITIVE_INFINITY : Math.abs(change.value / change.previous);
    if (best === null || weight > best.weight) best = { row, change, current: row.value, weight };
  }
  return best === null ? null : { row: best.row, change: best.change, current: best.current };
}

/** A metric's change too small to tell the client about: under half a point of a percentage, or 2 % of its value. */
function isNoise(row: MetricRow, change: Delta): boolean {
  if (row.unit === '%') return Math.abs(change.value) < METRIC_NOISE.points;
  return change.previous !== 0 && Math.abs(change.value / change.previous) < METRIC_NOISE.relative;
}

/** 0 to 5 short paragraphs; a paragraph with nothing to say is left out. */
export function buildSummary(input: SummaryInput): string[] {
  const writer = new SummaryWriter(input);
  return [writer.movement(), writer.goals(), writer.benchmark(), writer.actions(), writer.tracking()].filter(
    (paragraph): paragraph is string => paragraph !== null && paragraph.trim() !== '',
  );
}
