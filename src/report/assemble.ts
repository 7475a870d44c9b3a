// API data of one client and period (+ last period's data) → ReportModel: merged, compared, tracked, checked, summarised.
import { PRIORITIES, type Project, type ReportSection } from '../api/schemas.js';
import type { BenchmarkFigures, RankingRow } from '../content/competitors.js';
import type { MetricContent, RecommendationContent, ReportContent } from '../content/report.js';
import { annotationViews, sinceAnnotationSentence, type Annotation } from './annotations.js';
import { runPreSendChecks } from './checks.js';
import { checkConsistency } from './consistency.js';
import { buildGlossary } from './glossary.js';
import { buildGoalViews, type EarlierReport, type Goal, type ScanGoalSource } from './goals.js';
import { finiteNumber } from './deltas.js';
import { FactTableBuilder, factFigure, figureChange, figureOf, type Fact, type FactUnit, type ScoreRevision } from './facts.js';
import { isEmptyValue, toKeyValues, toKeyValueValue, type LabelContext } from './key-values.js';
import { assistantLabel, fieldLabel, phrase } from '../i18n/format.js';
import { loadPhrases, type Phrases } from '../i18n/locales.js';
import { typeset } from '../i18n/typography.js';
import { serviceText } from '../i18n/service-text.js';
import { monthsBetween, periodLabel, yearBefore, type MonthPeriod } from '../period.js';
import {
  currentValuesAsOf,
  historyValue,
  isAfterPeriod,
  monthOf,
  readAfterPeriod,
  periodHistory,
  placeScore,
  previousScore,
  type PlacedValue,
  type ScoreKind,
} from './months.js';
import type {
  Branding,
  HistoryPoint,
  KeyValue,
  Language,
  MetricRow,
  YearAgo,
  RecommendationGroup,
  ReportModel,
  ReviewPlatform,
  ScoreCard,
  TrackedRecommendation,
} from './model.js';
import { madeBeforePeriodEnd, periodWording } from './period-wording.js';
import type { ScanVisibility } from './scan-visibility.js';
import { buildSummary, type SummarySections } from './summary.js';
import { carryFirstSeen, periodsOpen, recommendationKey, trackRecommendations } from './tracking.js';

export { recommendationKey } from './tracking.js';

/** How this project compares with the global benchmark (competitors.php, as read). */
export interface Ranking {
  row: RankingRow | null;
  benchmark: { geo: BenchmarkFigures | null; seo: BenchmarkFigures | null; sampleSize: number | null };
}

/** Last period's report, as read from its data.json. */
export interface PreviousContent {
  /** YYYY-MM */
  period: MonthPeriod;
  report: ReportContent;
  recommendationsFirstSeen: Readonly<Record<string, MonthPeriod>>;
  /** The figures that report showed (its saved fact table); absent for a month saved before the table. */
  facts?: readonly Fact[];
}

/** A month's report as saved: its period and the figures it showed (data.json's fact table). */
export interface SavedMonth {
  period: MonthPeriod;
  facts?: readonly Fact[] | undefined;
}

export interface AssembleInput {
  /** YYYY-MM */
  period: MonthPeriod;
  /** ISO 8601 timestamp of rendering (from the caller's clock). */
  generatedAt: string;
  language: Language;
  project: Project;
  /** The report answer, as the content readers found it. */
  report: ReportContent;
  ranking: Ranking | null;
  /** Last period's report; ignored unless it is from an earlier period. */
  previous: PreviousContent | null;
  /** The report saved for the same month a year before (its fact table): what it showed wins over the history. @default none */
  yearAgo?: SavedMonth | null;
  /** Already resolved (logo inlined) by the caller. */
  branding: Branding;
  client: {
    displayName?: string;
    /** The account manager's note: this period's, else the one for every month. */
    note?: string;
    sections: Record<ReportSection, boolean>;
    /** The agency's work on the timeline, oldest first. @default none */
    annotations?: readonly Annotation[];
  };
  checks: { requiredSections: ReportSection[]; maxScoreDrop: number };
  /** The client's goals (its own, else the agency's default list). @default none */
  goals?: readonly Goal[];
  /** Reports of earlier periods, for the goals' trend. @default the previous period's, when there is one */
  earlier?: readonly EarlierReport[];
  /** This period's scan as goals on scan data read it (`keyword:`, `cwv:`). @default none: those goals show no data */
  goalScan?: ScanGoalSource | null;
  /** AI visibility per assistant from the period's scan and last period's (readScanVisibility). @default none: the report's values */
  visibility?: { scan: ScanVisibility | null; before: ScanVisibility | null };
  /** The language the service writes its own text in (recommendation titles, AI questions). @default 'en': the spec says none */
  sourceLanguage?: string;
  /** The agency's translations into the report's language of the service's text (report.translations). @default none */
  translations?: ReadonlyMap<string, string> | null;
  /** Phrases of `language`, loaded once by a caller that assembles many reports. @default loadPhrases(language) */
  phrases?: Phrases;
  /** The agency's language, in which what only the agency reads (why a report is held) is written. @default the report's */
  agency?: { language: Language; phrases: Phrases };
  /** The scan sections' views (scan-sections.ts, readScanSections), which the summary speaks of. @default none */
  scanSections?: SummarySections;
}

type OtherSection = ReportModel['otherSections'][number];

/** A score as the report shows it in its period, with its last-period value (see months.ts), both as figures. */
interface ShownScore {
  placed: PlacedValue;
  /** The figure of the placed value (FACT_RULES.score); null when there is none. */
  figure: number | null;
  previous: { value: number | null; period: MonthPeriod | null };
  /** The service changed a month's value after a report showed it: what the client was told, and the new figure. */
  revision: ScoreRevision | null;
}

/** The date a placed value is shown "as of": null when it is the period's own, else its date or the run's day. */
function shownAsOf(placed: PlacedValue, runDate: string): string | null {
  return placed.value === null || placed.inPeriod ? null : (placed.measuredAt ?? runDate);
}

/** Where a placed score was read, for its fact. */
function placedSource(placed: PlacedValue): Fact['source'] {
  if (placed.measuredAt === null) return 'snapshot';
  return placed.inPeriod ? 'history' : 'report';
}

/**
 * The GEO or SEO score of the period and of last month, as facts. "Last month" is what the previous report showed
 * (its saved figure) when it showed that same month: a value the service has revised since is said, never swapped in.
 */
function shownScore(facts: FactTableBuilder, content: ReportContent, kind: ScoreKind, period: MonthPeriod, previous: PreviousContent | null): ShownScore {
  const placed = placeScore(content, kind, period);
  const current = facts.add({
    key: `scores.${kind}`,
    value: placed.value,
    unit: 'score',
    month: placed.measuredAt === null ? null : placed.inPeriod ? period : monthOf(placed.measuredAt),
    date: placed.measuredAt,
    source: placedSource(placed),
  });
  const before = previousScore(placed, content, kind, period, previous);
  const toldFact = previous?.facts?.find((fact) => fact.key === `scores.${kind}`) ?? null;
  let revision: ScoreRevision | null = null;
  let previousFact: Fact | null = null;
  if (before.period !== null && toldFact !== null && toldFact.month === before.period) {
    previousFact = facts.add({ ...toldFact, key: `scores.${kind}.previous`, value: toldFact.value, source: 'told' });
    const now = historyValue(content.history, kind, before.period);
    if (now !== null && previousFact !== null && figureOf(now, 'score') !== previousFact.figure) {
      revision = { kind, month: before.period, told: previousFact.figure, now: figureOf(now, 'score') };
    }
  } else if (before.period !== null) {
    previousFact = facts.add({
      key: `scores.${kind}.previous`,
      value: before.value,
      unit: 'score',
      month: before.period,
      date: null,
      source: historyValue(content.history, kind, before.period) === before.value ? 'history' : 'told',
    });
  }
  return {
    placed,
    figure: current?.figure ?? null,
    previous: { value: previousFact?.figure ?? null, period: previousFact === null ? null : before.period },
    revision,
  };
}

/**
 * The same month a year before, beside a score that is the period's own: the figure the report of that month showed
 * (what was told stays told), else the history's point of that month; the change is that of the two figures. Null
 * when the history and the saved months do not reach back a year.
 */
function yearAgoScore(
  facts: FactTableBuilder,
  content: ReportContent,
  kind: ScoreKind,
  period: MonthPeriod,
  shown: ShownScore,
  saved: SavedMonth | null,
  language: string,
): YearAgo | null {
  // A headline shown "as of" another date is no month's figure: a year's change from it would compare other months.
  if (shown.figure === null || !shown.placed.inPeriod) return null;
  const month = yearBefore(period);
  const told = saved?.period === month ? (saved.facts?.find((fact) => fact.key === `scores.${kind}` && fact.month === month) ?? null) : null;
  const before =
    told !== null
      ? facts.add({ ...told, key: `scores.${kind}.yearAgo`, source: 'told' })
      : facts.add({
          key: `scores.${kind}.yearAgo`,
          value: historyValue(content.history, kind, month),
          unit: 'score',
          month,
          source: 'history',
        });
  const change = figureChange(shown.figure, before?.figure ?? null, 'score');
  if (change === null) return null;
  facts.add({ key: `scores.${kind}.yearChange`, value: change.value, unit: 'score', month: period, source: before?.source ?? 'history' });
  return { period: month, periodLabel: periodLabel(month, language), change };
}

function scoreCard(
  facts: FactTableBuilder,
  kind: ScoreKind,
  shown: ShownScore,
  latest: number | null,
  benchmarkAverage: number | null,
  apiVsBenchmark: number | null,
  runDate: string,
  yearAgo: YearAgo | null,
): ScoreCard {
  const current = shown.figure;
  const benchmark = facts.add({ key: `benchmark.${kind}`, value: benchmarkAverage, unit: 'score', source: 'competitors' })?.figure ?? null;
  // The difference to the benchmark is that of the two figures shown beside each other ("48 … 0.5 above" cannot be).
  // Only without an average is the API's own difference shown, and only for the value it was computed from.
  const vsBenchmark =
    current !== null && benchmark !== null
      ? figureOf(current - benchmark, 'score')
      : current !== null && shown.placed.value === latest && apiVsBenchmark !== null
        ? figureOf(apiVsBenchmark, 'score')
        : null;
  if (vsBenchmark !== null) facts.add({ key: `vsBenchmark.${kind}`, value: vsBenchmark, unit: 'score', source: 'competitors' });
  return {
    value: current,
    benchmarkAverage: benchmark,
    vsBenchmark,
    change: figureChange(current, shown.previous.value, 'score'),
    asOf: shownAsOf(shown.placed, runDate),
    // Only a card with a year to compare with says so: the others are as they were.
    ...(yearAgo === null ? {} : { yearAgo }),
  };
}

/** The figure last period's report showed for `key`, else the raw value it had, rounded by the same rule. */
function previousFigure(previous: PreviousContent | null, key: string, raw: number | null | undefined, unit: FactUnit): number | null {
  const told = factFigure(previous?.facts, key);
  if (told !== null) return told;
  const value = finiteNumber(raw);
  return value === null ? null : figureOf(value, unit);
}

function buildScores(
  facts: FactTableBuilder,
  content: ReportContent,
  shown: Record<ScoreKind, ShownScore>,
  previous: PreviousContent | null,
  ranking: Ranking | null,
  phrases: Phrases,
  runDate: string,
  currentAsOf: string | null,
  period: MonthPeriod,
  visibility: PeriodVisibility,
  yearAgo: Record<ScoreKind, YearAgo | null>,
): NonNullable<ReportModel['scores']> | null {
  const scores = content.scores;
  if (scores === null) return null;
  const row = ranking?.row ?? null;
  const percentile = facts.add({ key: 'percentile', value: row?.percentile, unit: 'percentile', source: 'competitors' });
  return {
    geo: scoreCard(facts, 'geo', shown.geo, scores.geo, ranking?.benchmark.geo?.average ?? null, row?.vsBenchmark.geo ?? null, runDate, yearAgo.geo),
    seo: scoreCard(facts, 'seo', shown.seo, scores.seo, ranking?.benchmark.seo?.average ?? null, row?.vsBenchmark.seo ?? null, runDate, yearAgo.seo),
    percentile: percentile?.figure ?? null,
    benchmarkSampleSize: facts.add({ key: 'benchmark.sampleSize', value: ranking?.benchmark.sampleSize, unit: 'count', source: 'competitors' })?.figure ?? null,
    aiVisibility: aiVisibilityRows(facts, scores.aiVisibility, visibility, previous, phrases, currentAsOf, period),
    visibilityAsOf: visibility.scan === null ? currentAsOf : null,
  };
}

/** AI visibility per assistant by the month rule: the period's scan, else the report's values (see aiVisibilityRows). */
export interface PeriodVisibility {
  /** The period's scan's values, dated by it; null when the period has no scan or it holds none. */
  scan: ScanVisibility | null;
  /** Last period's scan's values, what a scan's values are compared with when the previous report told none dated. */
  before: ScanVisibility | null;
  /** True when the report's own values were read after the period (dated after it, or read on a late run): never shown. */
  snapshotAfterPeriod: boolean;
}

/**
 * The AI visibility rows. The period's scan wins: its values are the month's, compared with what the previous report
 * told for its month (else last period's scan). Without it, the report's values are the month's only when dated in
 * it; undated, they are shown "as of" the run (meta.currentAsOf) and never compared; read after the period, none.
 */
function aiVisibilityRows(
  facts: FactTableBuilder,
  reported: ReadonlyArray<{ assistant: string; value: number | null }>,
  visibility: PeriodVisibility,
  previous: PreviousContent | null,
  phrases: Phrases,
  currentAsOf: string | null,
  period: MonthPeriod,
): NonNullable<ReportModel['scores']>['aiVisibility'] {
  const fromScan = visibility.scan;
  if (fromScan === null && currentAsOf !== null && visibility.snapshotAfterPeriod) return [];
  const dated = fromScan !== null || currentAsOf === null;
  const list = fromScan?.values ?? reported;
  const scanBefore = new Map((visibility.before?.values ?? []).map((v) => [v.assistant, v.value]));
  const reportedBefore = new Map((previous?.report.scores?.aiVisibility ?? []).map((v) => [v.assistant, v.value]));
  return list.map(({ assistant, value }) => {
    const key = `ai.${assistant}`;
    const fact = facts.add({
      key,
      value,
      unit: 'score',
      month: dated ? period : null,
      date: fromScan?.date ?? currentAsOf,
      source: fromScan !== null ? 'scan' : dated ? 'report' : 'snapshot',
    });
    const figure = fact?.figure ?? null;
    return {
      assistant,
      label: assistantLabel(phrases, assistant),
      value: figure,
      change: dated ? figureChange(figure, previousVisibility(previous, key, fromScan !== null ? scanBefore : reportedBefore, assistant), 'score') : null,
    };
  });
}

/** Last month's figure of an assistant: what the previous report told for its month, else the earlier dated reading; never a snapshot. */
function previousVisibility(previous: PreviousContent | null, key: string, earlier: ReadonlyMap<string, number | null>, assistant: string): number | null {
  if (previous === null) return null;
  const told = previous.facts?.find((fact) => fact.key === key);
  // What the previous report showed undated was no month's figure: nothing to compare with but a dated reading.
  if (told !== undefined && told.month === previous.period) return told.figure;
  const value = finiteNumber(earlier.get(assistant));
  return value === null ? null : figureOf(value, 'score');
}

/** The history's months as figures, each a fact of its month (the table, the chart and its text write these). */
function buildHistory(facts: FactTableBuilder, content: ReportContent, period: MonthPeriod): HistoryPoint[] | null {
  if (content.history === null) return null;
  return periodHistory(content.history, period).map((point) => {
    const month = monthOf(point.date);
    const figure = (kind: ScoreKind): number | null =>
      facts.add({ key: `history.${kind}.${month}`, value: point[kind], unit: 'score', month, date: point.date, source: 'history' })?.figure ?? null;
    return { date: point.date, geo: figure('geo'), seo: figure('seo') };
  });
}

/** The unit a metric's figure is rounded by: a percentage keeps one decimal, anything else two at most. */
function metricUnit(unit: string | null): FactUnit {
  return unit === '%' ? 'percent' : 'number';
}

function buildMetrics(
  facts: FactTableBuilder,
  content: ReportContent,
  previous: PreviousContent | null,
  context: LabelContext,
  otherSections: OtherSection[],
  asOf: { month: string | null; date: string | null },
): MetricRow[] | null {
  if (content.metrics === null) return null;
  const before = new Map((previous?.report.metrics ?? []).map((m) => [m.key, m]));
  const rows: MetricRow[] = [];
  for (const metric of content.metrics) {
    const label = fieldLabel(context.phrases, metric.key);
    if (metric.structure !== undefined) {
      const value = toKeyValueValue(metric.structure, context);
      if (Array.isArray(value)) {
        if (value.length > 0) otherSections.push({ key: `metrics.${metric.key}`, label, entries: value });
      } else if (!isEmptyValue(value)) {
        rows.push({ key: metric.key, label, value: typeof value === 'boolean' ? String(value) : value, unit: null, change: null });
      }
      continue;
    }
    const value = shownMetricValue(metric, context);
    const previousMetric = before.get(metric.key);
    // A change across units (a share sent as "%" one month and as a fraction the next, "s" then "ms") is no change.
    const previousValue = (previousMetric?.unit ?? '') === (metric.unit ?? '') ? previousMetric?.value : undefined;
    // A metric sent without a value is no figure: no row.
    if (!isEmptyValue(value)) {
      const unit = metricUnit(metric.unit);
      const key = `metrics.${metric.key}`;
      const fact =
        typeof value === 'number'
          ? facts.add({ key, value, unit, month: asOf.month, date: asOf.date, source: asOf.month === null ? 'snapshot' : 'report' })
          : null;
      const figure = fact?.figure ?? null;
      rows.push({
        key: metric.key,
        label,
        value: figure ?? value,
        unit: metric.unit === '' ? null : metric.unit,
        change:
          figure === null
            ? null
            : figureChange(
                figure,
                previousValue === undefined ? null : previousFigure(previous, key, typeof previousValue === 'number' ? previousValue : null, unit),
                unit,
              ),
      });
    }
    // Fields beside value and unit (a trend, a source…) are kept where the reader can see them.
    const extra = toKeyValues(metric.extra, context);
    if (extra.length > 0) otherSections.push({ key: `metrics.${metric.key}`, label, entries: extra });
  }
  return rows;
}

function shownMetricValue(metric: MetricContent, context: LabelContext): number | string | null {
  if (typeof metric.value === 'boolean') return phrase(context.phrases, metric.value ? 'metric.value.yes' : 'metric.value.no');
  if (typeof metric.value === 'number') return finiteNumber(metric.value);
  return metric.value;
}

function buildTrust(
  facts: FactTableBuilder,
  content: ReportContent,
  previous: PreviousContent | null,
  context: LabelContext,
  asOf: { month: string | null; date: string | null },
): NonNullable<ReportModel['trust']> | null {
  const trust = content.trust;
  if (trust === null) return null;
  const platforms: ReviewPlatform[] = [];
  const platformDetails: KeyValue[] = [];
  for (const [index, platform] of trust.platforms.entries()) {
    platforms.push({ name: platform.name, rating: platform.rating, reviews: platform.reviews, url: platform.url });
    const details = toKeyValues(platform.extra, context);
    if (details.length > 0) platformDetails.push({ key: String(index), label: platform.name, value: details });
  }
  const extra = toKeyValues(trust.extra, context);
  if (platformDetails.length > 0) {
    extra.push({ key: 'review_platforms', label: fieldLabel(context.phrases, 'review_platforms'), value: platformDetails });
  }
  const score =
    facts.add({
      key: 'trust.score',
      value: trust.score,
      unit: 'score',
      month: asOf.month,
      date: asOf.date,
      source: asOf.month === null ? 'snapshot' : 'report',
    })?.figure ?? null;
  return { score, change: figureChange(score, previousFigure(previous, 'trust.score', previous?.report.trust?.score, 'score'), 'score'), platforms, extra };
}

function trackedRecommendation(
  rec: RecommendationContent,
  firstSeen: Readonly<Record<string, MonthPeriod>>,
  period: MonthPeriod,
  context: LabelContext,
): TrackedRecommendation {
  const key = recommendationKey(rec);
  // Impact and status are shown with the other details the API sent.
  const details: Record<string, unknown> = {};
  if (rec.impact !== null) details['impact'] = rec.impact;
  if (rec.status !== null) details['status'] = rec.status;
  return {
    key,
    title: rec.title,
    description: rec.description,
    priority: rec.priority,
    category: rec.category,
    extra: toKeyValues({ ...details, ...rec.extra }, context),
    periodsOpen: periodsOpen(firstSeen[key], period),
  };
}

/** The language of the service's own text when it is not the report's; null when it is. */
export function sourceLangOf(language: Language, sourceLanguage: string | undefined): string | null {
  const source = sourceLanguage ?? 'en';
  return source === language ? null : source;
}

/** A text of the service's as the report shows it: the agency's translation when its file has one, and the language it reads in. */
type ServiceWords = (text: string) => { text: string; lang: string | null };

/**
 * The service's words in a report of `language`: the agency's translation (report.translations) in the report's
 * language, else the service's text in its own (null when that is the report's, nothing to mark).
 */
function serviceWords(language: Language, sourceLanguage: string | undefined, translations: ReadonlyMap<string, string> | null): ServiceWords {
  const source = sourceLangOf(language, sourceLanguage);
  return (text) => {
    const translated = translations?.get(serviceText(text));
    return translated === undefined ? { text, lang: source } : { text: translated, lang: language };
  };
}

/** A recommendation as shown: title and description in the agency's words when translated, each with its language. */
function inWords<R extends { title: string; description?: string | null }>(
  rec: R,
  words: ServiceWords,
): R & { titleLang: string | null; descriptionLang?: string | null } {
  const title = words(rec.title);
  if (rec.description === undefined) return { ...rec, title: title.text, titleLang: title.lang };
  const description = rec.description === null ? null : words(rec.description);
  return { ...rec, title: title.text, titleLang: title.lang, description: description?.text ?? null, descriptionLang: description?.lang ?? null };
}

function buildRecommendations(
  content: ReportContent,
  previous: PreviousContent | null,
  period: MonthPeriod,
  context: LabelContext,
  words: ServiceWords,
): NonNullable<ReportModel['recommendations']> | null {
  const recommendations = content.recommendations;
  if (recommendations === null) return null;
  const previousRecommendations = previous?.report.recommendations ?? null;
  const firstSeen = carryFirstSeen(
    recommendations,
    period,
    previous === null
      ? null
      : { period: previous.period, recommendations: previousRecommendations, recommendationsFirstSeen: previous.recommendationsFirstSeen },
  );
  // Tracked by the service's words (a key made of the title stays the same), then shown in the agency's.
  const tracked = recommendations.map((rec) => inWords(trackedRecommendation(rec, firstSeen, period, context), words));
  const groups: RecommendationGroup[] = PRIORITIES.map((priority) => ({
    priority,
    items: tracked.filter((rec) => rec.priority === priority),
  })).filter((group) => group.items.length > 0);
  return {
    total: tracked.length,
    groups,
    // Nothing to compare with on the first period, or when last period's report left recommendations out.
    tracking: previous === null || previousRecommendations === null ? null : shownTracking(trackRecommendations(tracked, previousRecommendations), words),
  };
}

/** Last month's recommendations resolved since are the service's words too: each in the agency's when translated. */
function shownTracking(tracking: ReturnType<typeof trackRecommendations>, words: ServiceWords): ReturnType<typeof trackRecommendations> {
  return { ...tracking, resolved: tracking.resolved.map((rec) => ({ ...rec, ...(rec.titleLang === undefined ? inWords(rec, words) : {}) })) };
}

function buildOtherSections(content: ReportContent, context: LabelContext): OtherSection[] {
  return content.other.flatMap(({ key, value }) => {
    if (isEmptyValue(value)) return [];
    const label = fieldLabel(context.phrases, key);
    const shown = toKeyValueValue(value, context);
    return [{ key, label, entries: Array.isArray(shown) ? shown : [{ key, label, value: shown }] }];
  });
}

/** Client name: the configured display name, else the project's name, else "Project <id>". */
/** The name a report calls its client by: the configured display name, else the service's project name. */
export function clientName(input: Pick<ValuesInput, 'project'> & { client: { displayName?: string } }, phrases: Phrases): string {
  const configured = input.client.displayName?.trim();
  if (configured !== undefined && configured !== '') return configured;
  const name = input.project.name?.trim();
  if (name !== undefined && name !== '') return name;
  return phrase(phrases, 'summary.projectFallback', { id: String(input.project.id) });
}

/** What the values of a report are computed from: the report's input without its look, checks, goals and notes. */
export type ValuesInput = Pick<
  AssembleInput,
  | 'period'
  | 'generatedAt'
  | 'language'
  | 'project'
  | 'report'
  | 'ranking'
  | 'previous'
  | 'yearAgo'
  | 'phrases'
  | 'visibility'
  | 'sourceLanguage'
  | 'translations'
> & {
  client: Pick<AssembleInput['client'], 'displayName' | 'sections'>;
};

/** The values a report shows, with who and when: what the export writes, as the report computes them. */
export type ReportValues = Pick<ReportModel, 'scores' | 'metrics' | 'trust' | 'recommendations' | 'otherSections' | 'facts'> & {
  meta: Pick<ReportModel['meta'], 'projectId' | 'period' | 'language'>;
  client: Pick<ReportModel['client'], 'name' | 'domain'>;
};

/** The values and what the rest of the report is built from them with. */
interface Computed {
  values: ReportValues;
  phrases: Phrases;
  previous: PreviousContent | null;
  shown: Record<ScoreKind, ShownScore>;
  currentAsOf: string | null;
  runDate: string;
  history: HistoryPoint[] | null;
}

function computeValues(input: ValuesInput): Computed {
  const { period, language } = input;
  const phrases = input.phrases ?? loadPhrases(language);
  const gap = input.previous === null ? null : monthsBetween(input.previous.period, period);
  // Only an earlier period is a "previous" one: a file of this same month would show no change at all.
  const previous = input.previous !== null && gap !== null && gap > 0 ? input.previous : null;
  const content = input.report;
  const show = input.client.sections;
  const context: LabelContext = { phrases, language };
  const otherSections: OtherSection[] = [];

  const runDate = input.generatedAt.slice(0, 10);
  const currentAsOf = currentValuesAsOf(content, period, runDate);
  // A run made after the month that follows the period reads the benchmark and the ranking of a later month: none shown.
  const late = readAfterPeriod(period, runDate);
  const ranking = late ? null : input.ranking;
  const measuredAt = content.scores?.measuredAt ?? null;
  const visibility: PeriodVisibility = {
    scan: input.visibility?.scan ?? null,
    before: input.visibility?.before ?? null,
    snapshotAfterPeriod: late || (measuredAt !== null && isAfterPeriod(measuredAt, period)),
  };
  const facts = new FactTableBuilder(language);
  const shown = { geo: shownScore(facts, content, 'geo', period, previous), seo: shownScore(facts, content, 'seo', period, previous) };
  // Values without a history of their own (AI visibility, metrics, trust) belong to the period only when dated in it.
  const asOf = { month: currentAsOf === null ? period : null, date: currentAsOf };
  const saved = input.yearAgo ?? null;
  const yearAgo =
    show.scores && content.scores !== null
      ? {
          geo: yearAgoScore(facts, content, 'geo', period, shown.geo, saved, language),
          seo: yearAgoScore(facts, content, 'seo', period, shown.seo, saved, language),
        }
      : { geo: null, seo: null };
  const scores = show.scores ? buildScores(facts, content, shown, previous, ranking, phrases, runDate, currentAsOf, period, visibility, yearAgo) : null;
  const history = show.history ? buildHistory(facts, content, period) : null;
  const metrics = show.metrics ? buildMetrics(facts, content, previous, context, otherSections, asOf) : null;
  const trust = show.trust ? buildTrust(facts, content, previous, context, asOf) : null;
  const recommendations = show.recommendations
    ? buildRecommendations(content, previous, period, context, serviceWords(language, input.sourceLanguage, input.translations ?? null))
    : null;
  otherSections.unshift(...buildOtherSections(content, context));
  const values: ReportValues = {
    meta: { projectId: input.project.id, period, language },
    client: { name: clientName(input, phrases), domain: input.project.domain ?? null },
    scores,
    metrics,
    trust,
    recommendations,
    otherSections,
    facts: facts.table(),
  };
  return { values, phrases, previous, shown, currentAsOf, runDate, history };
}

/** The values of a report alone (no summary, goals, glossary or checks): the numbers its assembly shows, by the same code. */
export function reportValues(input: ValuesInput): ReportValues {
  return computeValues(input).values;
}

/** Everything one client report shows, merged and computed; pure apart from reading the phrase file by default. */
export function assembleReport(input: AssembleInput): ReportModel {
  const { period, language } = input;
  const { values, phrases, previous, shown, currentAsOf, runDate, history } = computeValues(input);
  const { scores, metrics, trust, recommendations, otherSections, facts } = values;
  const content = input.report;
  const show = input.client.sections;
  const name = values.client.name;
  // A report made before its period ended (`--partial`) says so wherever the period is named: it shows part of a month.
  const label = periodWording(period, language, phrases, madeBeforePeriodEnd(period, input.generatedAt));
  // The checks judge each report by what it shows of its own period: a history of later months only is none.
  const ofPeriod = (report: ReportContent, month: MonthPeriod): ReportContent =>
    report.history === null ? report : { ...report, history: periodHistory(report.history, month) };
  const held = runPreSendChecks({
    language: input.agency?.language ?? language,
    phrases: input.agency?.phrases ?? phrases,
    report: ofPeriod(content, period),
    previousReport: previous === null ? null : ofPeriod(previous.report, previous.period),
    geo: { value: shown.geo.placed.value, previous: shown.geo.previous.value },
    sections: show,
    requiredSections: input.checks.requiredSections,
    maxScoreDrop: input.checks.maxScoreDrop,
  }).map((reason) => reason.message);

  const goalList = input.goals ?? [];
  const goals =
    goalList.length === 0
      ? null
      : buildGoalViews({
          goals: goalList,
          period,
          language,
          phrases,
          content,
          shown: { geo: shown.geo.figure, seo: shown.seo.figure },
          facts,
          asOf: { geo: shownAsOf(shown.geo.placed, runDate), seo: shownAsOf(shown.seo.placed, runDate), current: currentAsOf },
          aiWithheld: scores !== null && scores.aiVisibility.length === 0 && (content.scores?.aiVisibility.length ?? 0) > 0,
          earlier: input.earlier ?? (previous === null ? [] : [{ period: previous.period, report: previous.report }]),
          scan: input.goalScan ?? null,
        });

  // Each goal's figures join the table: its value as the goal card writes it, its target and its progress.
  const goalFacts = new FactTableBuilder(language);
  for (const goal of goals ?? []) {
    const unit: FactUnit = goal.unit === '%' ? 'percent' : ['geo', 'seo', 'trust'].includes(goal.metric) || goal.metric.startsWith('ai:') ? 'score' : 'number';
    const direction = goal.direction === 'down' ? 'lower' : 'higher';
    const month = goal.asOf === null ? period : null;
    goalFacts.add({ key: `goals.${goal.metric}.value`, value: goal.value, unit, direction, month, date: goal.asOf, source: 'report' });
    goalFacts.add({ key: `goals.${goal.metric}.target`, value: goal.target, unit, direction, month: goal.by, source: 'report' });
    goalFacts.add({ key: `goals.${goal.metric}.progress`, value: goal.progress, unit: 'percent', month, date: goal.asOf, source: 'report' });
  }
  // The agency's own words are typed on a keyboard: set by the report's language like the phrases around them.
  const note = input.client.note === undefined ? undefined : typeset(input.client.note.trim(), language);
  const annotations = annotationViews(input.client.annotations ?? [], period, history, phrases).map((a) => ({ ...a, text: typeset(a.text, language) }));
  const sinceAnnotation = sinceAnnotationSentence({ annotations, history, geo: scores?.geo ?? null, period, language, phrases });
  const withoutGlossary: Omit<ReportModel, 'glossary'> = {
    meta: {
      projectId: input.project.id,
      reportId: content.id,
      period,
      periodLabel: label,
      generatedAt: input.generatedAt,
      currentAsOf,
      language,
      sourceLang: sourceLangOf(language, input.sourceLanguage),
      title: phrase(phrases, 'report.documentTitle', { client: name, period: label }),
    },
    branding: input.branding,
    client: { name, domain: values.client.domain, note: note === undefined || note === '' ? null : note },
    summary: buildSummary({
      language,
      phrases,
      clientName: name,
      period,
      previousPeriod: previous?.period ?? null,
      scoresSince: shown.geo.previous.period ?? shown.seo.previous.period ?? previous?.period ?? null,
      scores,
      metrics,
      recommendations,
      goals,
      revisions: [shown.geo.revision, shown.seo.revision].filter((revision) => revision !== null),
      history,
      sections: input.scanSections ?? {},
      annotation: sinceAnnotation,
    }),
    goals,
    scores,
    history,
    annotations,
    metrics,
    trust,
    recommendations,
    otherSections,
    facts: [...facts, ...goalFacts.table()],
    held,
  };
  const model: ReportModel = { ...withoutGlossary, glossary: buildGlossary(withoutGlossary, phrases) };
  // The report checks itself before it is printed: a number that disagrees with another holds it.
  held.push(...checkConsistency(model, input.agency?.phrases ?? phrases).map((reason) => reason.message));
  return model;
}
