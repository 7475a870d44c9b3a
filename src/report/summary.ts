// The summary paragraphs at the top of a report, built from rules in the client's language (no network, no model).
// An account manager signs it, so it reads only the figures the page shows (the cards, rows and section views, all
// from the fact table) and never says what the page contradicts: the verdict agrees with the month's largest move,
// the rank agrees with the gap to the benchmark, "first report" is said only when no earlier month is shown, and
// the words for a move follow its size. It opens with what happened to that client (a first report, a goal
// reached, a keyword entering the top 3, the largest move, else the month's verdict with its figures), so two
// clients share a first sentence only when their months were alike. Every word is a phrase of the locale files;
// plurals are the phrases' own (Intl.PluralRules categories), never a rule here.
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
import { nestQuotes } from '../i18n/typography.js';
import { changeMeaning, knownValue } from '../content/values.js';
import { monthOfDate, monthsBetween, periodLabel, toMonth, type MonthPeriod } from '../period.js';
import type { AiAnswersView } from '../sections/ai-answers/view.js';
import type { KeywordsView } from '../sections/keywords/view.js';
import type { PageExperienceView } from '../sections/page-experience/view.js';
import { asShown, changeDirection } from './deltas.js';
import type { ScoreRevision } from './facts.js';
import type { Delta, GoalView, HistoryPoint, MetricRow, ReportModel, TrackedRecommendation } from './model.js';

/** The scan sections' views the summary speaks of (each null or absent when the report does not show it). */
export interface SummarySections {
  keywords?: KeywordsView | null;
  pageExperience?: PageExperienceView | null;
  aiAnswers?: AiAnswersView | null;
}

export interface SummaryInput {
  language: string;
  phrases: Phrases;
  clientName: string;
  period: MonthPeriod;
  /** Period of the previous report compared with; null on the first period. */
  previousPeriod: MonthPeriod | null;
  /** Month the GEO and SEO changes are measured from (the history's month before). @default previousPeriod */
  scoresSince?: MonthPeriod | null;
  scores: ReportModel['scores'];
  metrics: ReportModel['metrics'];
  recommendations: ReportModel['recommendations'];
  /** The client's goals; those just achieved or behind are named. @default none */
  goals?: readonly GoalView[] | null;
  /** Months' scores the service revised after a report showed them: each said once. @default none */
  revisions?: readonly ScoreRevision[];
  /** The history table the page shows: a month in it before the period means this is not a first report. @default none */
  history?: readonly HistoryPoint[] | null;
  /** The scan sections the report shows, whose sentences the summary writes. @default none */
  sections?: SummarySections;
  /** The sentence on the agency's latest work (annotations.ts), said after the recommendations. @default none */
  annotation?: string | null;
}

export type PercentileTier = 'top10' | 'top20' | 'topQuarter' | 'upperHalf' | 'lowerHalf' | 'bottomQuarter';

/**
 * Words for a percentile (share of tracked sites scored above); null when it is not a number. A percentile places
 * the site against the median, not the mean, so its words are halves: "below average" beside a score above the
 * benchmark average would be a contradiction on the page.
 */
export function percentileTier(percentile: number | null): PercentileTier | null {
  if (percentile === null || !Number.isFinite(percentile)) return null;
  if (percentile >= 90) return 'top10';
  if (percentile >= 80) return 'top20';
  if (percentile >= 75) return 'topQuarter';
  if (percentile >= 50) return 'upperHalf';
  if (percentile >= 25) return 'lowerHalf';
  return 'bottomQuarter';
}

/** How many actions the summary names at most. */
export const SUMMARY_MAX_ACTIONS = 3;

/** A score that moved less than this (points out of 100) did not move, for the verdict: a point or so is noise, not news. */
export const VERDICT_NOISE = 2;
/** An assistant's visibility that moved less than this is not worth a sentence. */
export const AI_MOVER_NOISE = 2;
/** A move of this many points or more (a score, an assistant, the share of AI answers naming the site) is large: told first, and a verdict it contradicts is "mixed". */
export const LARGE_MOVE = 8;
/** The share of AI answers naming the site moves by whole answers (one of 25 is 4 points): large from this many points. */
export const AI_ANSWERS_LARGE = 15;
/** A move of a 0–100 figure under this many points is a small one ("edged up", "slipped"). */
export const SMALL_MOVE = 3;
/** A metric whose change is smaller than this (points for a percentage, relative otherwise) is not worth a sentence. */
export const METRIC_NOISE = { points: 0.5, relative: 0.02 } as const;
/** A metric's change from which its words say "markedly": points for a percentage, relative otherwise. */
export const METRIC_LARGE = { points: 5, relative: 0.25 } as const;

export type Verdict = 'first' | 'good' | 'mixed' | 'hard' | 'steady';
/** How the same month last year is told: against the month's way ("over the year, though…"), or over the year alone. */
export type YearNews = 'against' | 'over';

/**
 * Whether the change since the same month last year says something the month's change does not, and how: a year's
 * move beyond the noise is told when the month went the other way or held ("against"), when there is no month's
 * change to tell, or when it is large and the month's was not ("over"). A year that agrees with the month is not.
 */
export function yearNews(monthChange: number | null, yearChange: number): YearNews | null {
  if (Math.abs(yearChange) < VERDICT_NOISE) return null;
  if (monthChange === null) return 'over';
  const monthWay = Math.abs(monthChange) < VERDICT_NOISE ? 0 : Math.sign(monthChange);
  if (monthWay !== Math.sign(yearChange)) return 'against';
  return Math.abs(yearChange) >= LARGE_MOVE && Math.abs(monthChange) < LARGE_MOVE ? 'over' : null;
}
export type MoveSize = 'small' | 'medium' | 'large';

/** The words' size for a move of `points` out of 100. */
export function moveSize(points: number): MoveSize {
  const size = Math.abs(points);
  return size < SMALL_MOVE ? 'small' : size < LARGE_MOVE ? 'medium' : 'large';
}

/**
 * How the month went, from the GEO and SEO changes and the other moves the page shows (assistants, the share of AI
 * answers naming the site, the performance score, in points): a large move against the scores' way makes it mixed,
 * and a large move when the scores held gives the month its way. Null without a score.
 */
export function monthVerdict(scores: ReportModel['scores'], otherMoves: ReadonlyArray<{ value: number; large: number }> = []): Verdict | null {
  if (scores === null || (scores.geo.value === null && scores.seo.value === null)) return null;
  if (scores.geo.change === null && scores.seo.change === null) return 'first';
  const changes = [scores.geo.change, scores.seo.change].flatMap((change) => (change === null ? [] : [change.value]));
  const up = changes.some((value) => value >= VERDICT_NOISE) || otherMoves.some((m) => m.value >= m.large);
  const down = changes.some((value) => value <= -VERDICT_NOISE) || otherMoves.some((m) => m.value <= -m.large);
  return up && down ? 'mixed' : up ? 'good' : down ? 'hard' : 'steady';
}

/** One move the page shows, in points out of 100, with the words that tell it. */
interface Move {
  /** geo, seo, ai:<assistant>, aiAnswers, performance */
  key: string;
  value: number;
  /** From how many points the move is large. */
  large: number;
  clause: string;
}

class SummaryWriter {
  /** Moves and goals already told by an earlier sentence: never told twice. */
  private readonly told = new Set<string>();

  constructor(private readonly input: SummaryInput) {}

  private get language(): string {
    return this.input.language;
  }

  /** A text in the language's quotation marks, the quotations it holds in the marks of a quotation inside one. */
  private quote(title: string): string {
    return this.t('summary.quote', { title: nestQuotes(title, this.language) });
  }

  private t(key: string, params?: Record<string, string | number>): string {
    return phrase(this.input.phrases, key, params);
  }

  private plural(key: string, count: number, params?: Record<string, string | number>): string {
    return pluralPhrase(this.input.phrases, this.language, key, count, params);
  }

  private num(value: number, digits = 1): string {
    return formatNumber(value, this.language, { maximumFractionDigits: digits });
  }

  private points(value: number): string {
    return this.plural('summary.points', asShown(Math.abs(value)));
  }

  private since(previous: MonthPeriod | null = this.input.previousPeriod): string {
    if (previous === null) return '';
    return monthsBetween(previous, this.input.period) === 1
      ? this.t('summary.since.lastMonth')
      : this.t('summary.since.period', { period: periodLabel(previous, this.language) });
  }

  /** "rose sharply, by 11 points, to 66": the verb by the move's way and size. */
  private move(change: number, value: number): string {
    const way = changeDirection(change);
    if (way === 'flat') return this.t('summary.move.flat', { value: this.num(value) });
    return this.t(`summary.move.${way}.${moveSize(change)}`, { delta: this.num(Math.abs(change)), points: this.points(change), value: this.num(value) });
  }

  /** Every move the page shows that the summary may tell, each in points out of 100. */
  private moves(): Move[] {
    const moves: Move[] = [];
    const scores = this.input.scores;
    if (scores !== null) {
      for (const [name, card] of [
        ['geo', scores.geo],
        ['seo', scores.seo],
      ] as const) {
        if (card.value === null || card.change === null) continue;
        const subject = this.t('summary.subject.score', { score: this.t(`summary.score.${name}`) });
        moves.push({
          key: name,
          value: card.change.value,
          large: LARGE_MOVE,
          clause: this.t('summary.moved', { subject, move: this.move(card.change.value, card.value) }),
        });
      }
      for (const row of scores.aiVisibility) {
        if (row.value === null || row.change === null || row.change.direction === 'flat') continue;
        const subject = this.t('summary.subject.assistant', { assistant: row.label });
        moves.push({
          key: `ai:${row.assistant}`,
          value: row.change.value,
          large: LARGE_MOVE,
          clause: this.t('summary.moved', { subject, move: this.move(row.change.value, row.value) }),
        });
      }
    }
    const answers = this.input.sections?.aiAnswers?.mentions;
    if (answers !== undefined && answers.before !== null && answers.asked > 0 && answers.before.asked > 0) {
      // The share of answers naming the site, in points, so that it weighs against the scores on one scale.
      const value = asShown((answers.mentioned / answers.asked - answers.before.mentioned / answers.before.asked) * 100);
      if (value !== 0) moves.push({ key: 'aiAnswers', value, large: AI_ANSWERS_LARGE, clause: this.aiAnswersClause(answers) });
    }
    const performance = this.input.sections?.pageExperience?.scores.find((row) => row.key === 'performance');
    if (performance?.value != null && performance.change !== null && performance.change !== 0) {
      const subject = this.t('summary.subject.performance');
      moves.push({
        key: 'performance',
        value: performance.change,
        large: LARGE_MOVE,
        clause: this.t('summary.moved', { subject, move: this.move(performance.change, performance.value) }),
      });
    }
    return moves;
  }

  /** "AI assistants mentioned your site in 4 of 25 answers, against 12 of 25 last month" (all, none and one said so). */
  private aiAnswersClause(mentions: AiAnswersView['mentions']): string {
    // All, none or some of the answers; "some" agrees with the answers that named the site ("1 réponse sur 25").
    const said = (key: string, { mentioned, asked }: { mentioned: number; asked: number }): string => {
      const share = mentioned === asked ? 'all' : mentioned === 0 ? 'none' : 'some';
      return this.plural(`${key}.${share}`, share === 'some' ? mentioned : asked, { mentioned: this.num(mentioned, 0), asked: this.num(asked, 0) });
    };
    const now = said('summary.aiAnswers', mentions);
    return mentions.before === null ? now : now + said('summary.aiAnswers.before', mentions.before);
  }

  /** Whether the page shows a month before the period: then this is no first report, whatever the saved data says. */
  private hasEarlierMonth(): boolean {
    return (this.input.history ?? []).some((point) => monthOfDate(point.date) < this.input.period && (point.geo !== null || point.seo !== null));
  }

  private standing(): string | null {
    const scores = this.input.scores;
    if (scores === null) return null;
    const standing: string[] = [];
    if (scores.geo.value !== null) standing.push(this.t('summary.standing.geo', { value: this.num(scores.geo.value) }));
    if (scores.seo.value !== null) standing.push(this.t('summary.standing.seo', { value: this.num(scores.seo.value) }));
    return standing.length === 0 ? null : formatList(standing, this.language);
  }

  /** The first sentence: what happened to this client this month, or null when the verdict sentence opens. */
  private opening(moves: readonly Move[]): string | null {
    const scores = this.input.scores;
    const first = this.input.previousPeriod === null && !this.hasEarlierMonth() && scores !== null && scores.geo.change === null && scores.seo.change === null;
    if (first) {
      const standing = this.standing();
      return standing === null ? this.t('summary.opening.first') : this.t('summary.opening.firstWith', { scores: standing });
    }
    const goal = (this.input.goals ?? []).find((g) => g.justAchieved);
    if (goal !== undefined) {
      this.told.add(`goal:${goal.metric}`);
      return this.goalReached(goal);
    }
    const keywords = this.input.sections?.keywords;
    if (keywords != null && keywords.top3.before !== null) {
      // A keyword whose shown figure is 3 or better now and was not last month (or was not in the top 10 at all).
      const entered = keywords.rows.filter(
        (row) => row.position !== null && row.position <= 3 && (row.previous === null || row.previous > 3) && row.move !== 'first',
      );
      const best = [...entered].sort((a, b) => (a.position ?? 0) - (b.position ?? 0))[0];
      if (best !== undefined) {
        return this.plural('summary.opening.top3', entered.length, {
          count: this.num(entered.length, 0),
          keyword: this.quote(best.keyword),
          position: best.positionText,
        });
      }
    }
    const largest = largestMove(moves);
    const scoreLargest = Math.max(0, ...moves.filter((m) => m.key === 'geo' || m.key === 'seo').map((m) => Math.abs(m.value)));
    if (
      largest !== null &&
      largest.key !== 'geo' &&
      largest.key !== 'seo' &&
      Math.abs(largest.value) >= largest.large &&
      Math.abs(largest.value) > scoreLargest
    ) {
      this.told.add(largest.key);
      return capitalise(this.t('summary.opening.largest', { move: largest.clause }));
    }
    return null;
  }

  private goalReached(goal: GoalView): string {
    const name = this.quote(goal.label);
    // A time keeps its unit ("at 2.1 s"); a percentage and a bare figure are written as before.
    const reached = goal.value ?? goal.target;
    const value = goal.unit !== null && goal.unit !== '%' ? formatWithUnit(reached, goal.unit, this.language) : this.num(reached, 2);
    return this.t('summary.goals.achieved', { goal: name, value });
  }

  /** Paragraph 1: what happened, the verdict with the scores' moves, and the biggest movers left to tell. */
  movement(): string | null {
    const sentences: string[] = [];
    const scores = this.input.scores;
    const moves = this.moves();
    const opening = this.opening(moves);
    if (opening !== null) sentences.push(opening);
    // "Last month" is what the last report said; a value the service changed since is told, once, before the change.
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
    const scoreMoves = moves.filter((m) => m.key === 'geo' || m.key === 'seo');
    const others = moves.filter((m) => m.key !== 'geo' && m.key !== 'seo');
    const verdict = monthVerdict(scores, others);
    if (scoreMoves.length > 0 && verdict !== null && verdict !== 'first') {
      // The largest move against the verdict's way is said in the same sentence: the verdict never stands alone beside it.
      const against = others.filter((m) => !this.told.has(m.key) && Math.abs(m.value) >= AI_MOVER_NOISE && isAgainst(verdict, m, scoreMoves));
      const counter = largestMove(against);
      if (counter !== null) this.told.add(counter.key);
      sentences.push(
        tidy(
          this.t(counter === null ? 'summary.scores.sentence' : 'summary.scores.while', {
            verdict: this.t(`summary.verdict.${verdict}`),
            changes: formatList(
              scoreMoves.map((m) => m.clause),
              this.language,
            ),
            since: this.since(this.input.scoresSince ?? this.input.previousPeriod),
            counter: counter?.clause ?? '',
          }),
        ),
      );
    } else if (scores !== null && opening === null) {
      const standing = this.standing();
      if (standing !== null) sentences.push(this.t('summary.standing.sentence', { scores: standing }));
    }
    const year = this.yearAgo();
    if (year !== null) sentences.push(year);
    if (scores !== null && scoreMoves.length === 0) {
      const best = bestAssistant(scores.aiVisibility);
      if (best !== null && best.value !== null) {
        sentences.push(this.t('summary.standing.bestAssistant', { assistant: best.label, value: this.num(best.value) }));
      }
    }
    const aiMover = largestMove(others.filter((m) => m.key.startsWith('ai:')));
    if (aiMover !== null && !this.told.has(aiMover.key) && Math.abs(aiMover.value) >= AI_MOVER_NOISE) {
      this.told.add(aiMover.key);
      sentences.push(this.t('summary.aiMover', { move: aiMover.clause }));
    }
    const metric = this.metricMover();
    if (metric !== null) sentences.push(metric);
    return sentences.length === 0 ? null : sentences.join(' ');
  }

  /** One sentence on the same month last year, for the first score (GEO, then SEO) whose year says more than its month. */
  private yearAgo(): string | null {
    const scores = this.input.scores;
    if (scores === null) return null;
    for (const kind of ['geo', 'seo'] as const) {
      const card = scores[kind];
      const yearAgo = card.yearAgo ?? null;
      if (card.value === null || yearAgo === null) continue;
      const news = yearNews(card.change?.value ?? null, yearAgo.change.value);
      if (news === null) continue;
      return this.t(`summary.yearAgo.${news}.${yearAgo.change.value > 0 ? 'up' : 'down'}`, {
        score: this.t(`summary.score.${kind}`),
        delta: this.num(Math.abs(yearAgo.change.value)),
        points: this.points(yearAgo.change.value),
        period: yearAgo.periodLabel,
        before: this.num(yearAgo.change.previous),
        value: this.num(card.value),
      });
    }
    return null;
  }

  private metricMover(): string | null {
    const metricMover = biggestMetricMover(this.input.metrics ?? []);
    if (metricMover === null || isNoise(metricMover.row, metricMover.change)) return null;
    const { row, change, current } = metricMover;
    // A percentage changes in points, as in the metrics table; any other change is named relative, never bare.
    const relative = change.previous === 0 ? null : change.value / Math.abs(change.previous);
    const ratio =
      row.unit === '%'
        ? this.t('summary.metricMover.points', { change: formatPointsChange(change.value, this.input.phrases, this.language) })
        : relative === null
          ? ''
          : this.t('summary.metricMover.relative', { ratio: formatSignedPercent(relative, this.language) });
    // The verb says whether the change is good news for this value (a lower position is), and how large it is.
    const known = knownValue(row.key);
    const meaning = changeMeaning(row.key, change.value);
    const large = row.unit === '%' ? Math.abs(change.value) >= METRIC_LARGE.points : relative === null || Math.abs(relative) >= METRIC_LARGE.relative;
    const named = this.input.phrases[`metric.${row.key}.the`];
    return this.plural(`summary.metricMover.${meaning}${large && meaning !== 'changed' ? '.large' : ''}`, known?.plural === true ? 2 : 1, {
      metric: named ?? inSentence(row.label),
      previous: formatWithUnit(change.previous, row.unit, this.language),
      value: formatWithUnit(current, row.unit, this.language),
      ratio,
    });
  }

  /** Paragraph 2: the gap to the benchmark average and the position among tracked sites, in one sentence that agrees. */
  benchmark(): string | null {
    const scores = this.input.scores;
    if (scores === null) return null;
    const tier = percentileTier(scores.percentile);
    const size = scores.benchmarkSampleSize;
    const sites =
      size !== null && Number.isFinite(size) && size > 0
        ? this.plural('summary.benchmark.sites.count', size, { count: this.num(size, 0) })
        : this.t('summary.benchmark.sites.unknown');
    const rank = tier === null ? null : this.t(`summary.benchmark.${tier}`, { sites });
    const { value, vsBenchmark, benchmarkAverage } = scores.geo;
    if (value === null || vsBenchmark === null) return rank === null ? null : capitalise(this.t('summary.benchmark.rankOnly', { rank }));
    const side = { flat: 'level', up: 'above', down: 'below' }[changeDirection(vsBenchmark)] as 'level' | 'above' | 'below';
    const gap = this.t(`summary.benchmark.${benchmarkAverage === null ? 'gapNoAverage' : 'gap'}.${side}`, {
      value: this.num(value),
      gap: this.num(Math.abs(vsBenchmark)),
      points: this.points(vsBenchmark),
      average: benchmarkAverage === null ? '' : this.num(benchmarkAverage),
    });
    if (rank === null) return this.t('summary.benchmark.gapOnly', { gap });
    // The rank joins the gap as a consequence when they point the same way, else as a contrast ("while").
    const upper = tier === 'top10' || tier === 'top20' || tier === 'topQuarter' || tier === 'upperHalf';
    const agree = side === 'level' || (side === 'above') === upper;
    return this.t(agree ? 'summary.benchmark.agree' : 'summary.benchmark.contrast', { gap, rank });
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
      .map((title) => this.quote(title));
    if (titles.length === 0) return this.t('summary.actions.none');
    return this.plural('summary.actions', titles.length, { actions: formatList(titles, this.language) });
  }

  /** Paragraph 5: goals reached this month, and goals the trend says will be missed, with the pace they need. */
  goals(): string | null {
    const sentences: string[] = [];
    for (const goal of this.input.goals ?? []) {
      if (this.told.has(`goal:${goal.metric}`)) continue;
      const name = this.quote(goal.label);
      if (goal.justAchieved) {
        sentences.push(this.goalReached(goal));
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
        sentences.push(this.t(key, { goal: name, by: periodLabel(toMonth(goal.by), this.language), needed: needed ?? '', pace: pace(goal.recentPace) }));
      }
    }
    return sentences.length === 0 ? null : sentences.join(' ');
  }

  /** Paragraph 4: recommendations resolved and new since the previous period, and the one open longest, in one sentence. */
  tracking(): string | null {
    const tracking = this.input.recommendations?.tracking ?? null;
    if (tracking === null || this.input.previousPeriod === null) return null;
    const resolvedCount = tracking.resolved.length;
    const newCount = tracking.new.length;
    const counts = {
      resolved: this.plural('summary.tracking.resolved', resolvedCount, { count: this.num(resolvedCount, 0) }),
      since: this.since(),
      new: this.plural('summary.tracking.new', newCount, { count: this.num(newCount, 0) }),
    };
    const oldest = tracking.persistent[0];
    if (oldest === undefined || oldest.title.trim() === '') return this.t('summary.tracking.sentence', counts);
    return this.t('summary.tracking.withPersistent', {
      ...counts,
      persistent: this.plural('summary.tracking.persistent', oldest.periodsOpen, {
        title: this.quote(oldest.title.trim()),
        count: this.num(oldest.periodsOpen, 0),
      }),
    });
  }

  /** The keyword rankings in a sentence: how many are in the top 10, with last month, and how many moved which way. */
  keywords(): string | null {
    const view = this.input.sections?.keywords;
    if (view == null || view.rows.length === 0) return null;
    const total = view.rows.length;
    const top10 = view.top10.now;
    const share = top10 === total ? 'all' : top10 === 0 ? 'none' : 'some';
    const params = { top10: this.num(top10, 0), total: this.num(total, 0) };
    let sentence = share === 'some' ? this.plural('summary.keywords.some', top10, params) : this.plural(`summary.keywords.${share}`, total, params);
    if (view.top10.before !== null) {
      sentence += this.t('summary.keywords.before', { before: this.num(view.top10.before, 0) });
      const up = view.rows.filter((r) => r.move === 'up' || r.move === 'new').length;
      const down = view.rows.filter((r) => r.move === 'down' || r.move === 'lost').length;
      // Only the ways keywords moved: "2 moved down", never "0 moved up and 2 moved down".
      const moved = [
        ...(up > 0 ? [this.plural('summary.keywords.up', up, { count: this.num(up, 0) })] : []),
        ...(down > 0 ? [this.plural('summary.keywords.down', down, { count: this.num(down, 0) })] : []),
      ];
      sentence += moved.length === 0 ? this.t('summary.keywords.noMove') : this.t('summary.keywords.moves', { moves: formatList(moved, this.language) });
    }
    return `${capitalise(sentence)}.`;
  }

  /** Core Web Vitals rated, and the performance score with its change (when not told already). */
  pageExperience(): string | null {
    const view = this.input.sections?.pageExperience;
    if (view == null) return null;
    const measured = view.vitals.filter((v) => v.rating !== null);
    const performance = view.scores.find((s) => s.key === 'performance');
    if (measured.length === 0 && performance?.value == null) return null;
    const parts: string[] = [];
    if (measured.length > 0) {
      const list = measured.map((v) => this.t('summary.pageExperience.vital', { name: v.key.toUpperCase(), rating: v.ratingText, value: v.valueText }));
      parts.push(this.t('summary.pageExperience.vitals', { list: list.join(', ') }));
    }
    if (performance?.value != null) {
      let text = this.t('summary.pageExperience.performance', { value: performance.valueText });
      if (performance.change !== null && !this.told.has('performance')) {
        const way = changeDirection(performance.change);
        text +=
          way === 'flat'
            ? this.t('summary.pageExperience.unchanged')
            : this.t('summary.pageExperience.change', {
                change: formatNumber(performance.change, this.language, { maximumFractionDigits: 0, signDisplay: 'exceptZero' }),
                points: this.points(performance.change),
              });
      }
      parts.push(text);
    }
    return capitalise(this.t('summary.pageExperience.sentence', { parts: parts.join(this.t('summary.pageExperience.join')) }));
  }

  /** What AI assistants answered: how many answers named the site (unless told already), and who they named instead. */
  aiAnswers(): string | null {
    const view = this.input.sections?.aiAnswers;
    if (view == null || view.mentions.asked === 0) return null;
    const named = view.mentions.namedInstead;
    const list = formatList(named, this.language);
    if (this.told.has('aiAnswers')) return named.length === 0 ? null : this.t('summary.aiAnswers.namedOnly', { list });
    const clause = this.aiAnswersClause(view.mentions);
    return `${capitalise(clause)}${named.length === 0 ? '' : this.t('summary.aiAnswers.named', { list })}.`;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** A phrase whose optional part was empty: no doubled space, no space before a full stop or a comma. */
function tidy(text: string): string {
  return text.replace(/ {2,}/g, ' ').replace(/ ([.,])/g, '$1');
}

/** Whether a move goes against the verdict: down in a good month, up in a hard one, the larger way of the scores otherwise. */
function isAgainst(verdict: Verdict, move: Move, scoreMoves: readonly Move[]): boolean {
  if (verdict === 'good') return move.value < 0;
  if (verdict === 'hard') return move.value > 0;
  if (verdict === 'steady') return Math.abs(move.value) >= move.large;
  const scoresWay = scoreMoves.reduce((sum, m) => sum + m.value, 0);
  return scoresWay === 0 ? false : Math.sign(move.value) !== Math.sign(scoresWay);
}

function largestMove(moves: readonly Move[]): Move | null {
  let largest: Move | null = null;
  for (const move of moves) if (largest === null || Math.abs(move.value) > Math.abs(largest.value)) largest = move;
  return largest;
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

/** 0 to 8 short paragraphs; a paragraph with nothing to say is left out. The scan sections' sentences come last. */
export function buildSummary(input: SummaryInput): string[] {
  const writer = new SummaryWriter(input);
  // The movement paragraph first: it decides what is told there and not again (a goal, the largest move).
  const movement = writer.movement();
  return [
    movement,
    writer.goals(),
    writer.benchmark(),
    writer.actions(),
    writer.tracking(),
    input.annotation ?? null,
    writer.keywords(),
    writer.pageExperience(),
    writer.aiAnswers(),
    // The share of voice's own sentence (src/sections/ai-answers/voice-view.ts): only when it moved beyond the noise.
    input.sections?.aiAnswers?.voice?.sentence ?? null,
  ].filter((paragraph): paragraph is string => paragraph !== null && paragraph.trim() !== '');
}
