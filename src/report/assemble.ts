// API data of one client and period (+ last period's data) → ReportModel: merged, compared, tracked, checked, summarised.
import {
  PRIORITIES,
  REPORT_SECTIONS,
  type Benchmark,
  type CompetitorRow,
  type Project,
  type Recommendation,
  type Report,
  type ReportSection,
  type ReportSections,
  type Stats,
} from '../api/schemas.js';
import { runPreSendChecks } from './checks.js';
import { computeDelta, difference, finiteNumber } from './deltas.js';
import { isPlainObject, toKeyValues, toKeyValueValue, type LabelContext } from './key-values.js';
import { assistantLabel, fieldLabel, phrase } from '../i18n/format.js';
import { loadPhrases, type Phrases } from '../i18n/locales.js';
import { monthsBetween, periodLabel } from '../period.js';
import type {
  Branding,
  HistoryPoint,
  KeyValue,
  Language,
  MetricRow,
  RecommendationGroup,
  ReportModel,
  ReviewPlatform,
  ScoreCard,
  TrackedRecommendation,
} from './model.js';
import type { PeriodData } from './period-data.js';
import { buildSummary } from './summary.js';
import { carryFirstSeen, periodsOpen, recommendationKey, trackRecommendations } from './tracking.js';

export { recommendationKey } from './tracking.js';

export interface AssembleInput {
  /** YYYY-MM */
  period: string;
  /** ISO 8601 timestamp of rendering (from the caller's clock). */
  generatedAt: string;
  language: Language;
  project: Project;
  report: Report;
  competitor: CompetitorRow | null;
  benchmark: Benchmark | null;
  stats: Stats | null;
  /** Last period's data; ignored unless it is from an earlier period. */
  previous: PeriodData | null;
  /** Already resolved (logo inlined) by the caller. */
  branding: Branding;
  client: {
    displayName?: string;
    note?: string;
    sections: Record<ReportSection, boolean>;
  };
  checks: { requiredSections: ReportSection[]; maxScoreDrop: number };
  /** Phrases of `language`, loaded once by a caller that assembles many reports. @default loadPhrases(language) */
  phrases?: Phrases;
}

type OtherSection = ReportModel['otherSections'][number];

const KNOWN_SECTIONS: ReadonlySet<string> = new Set(REPORT_SECTIONS);
const RECOMMENDATION_FIELDS: ReadonlySet<string> = new Set(['id', 'title', 'description', 'priority', 'category']);
const TRUST_FIELDS: ReadonlySet<string> = new Set(['trust_score', 'review_platforms']);
const PLATFORM_FIELDS: ReadonlySet<string> = new Set(['name', 'rating', 'reviews_count', 'url']);

function omit(record: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !fields.has(key)));
}

/** The score named `name` in a `vs_benchmark` record, which may key it "geo_score" or "geo". */
function vsBenchmarkOf(competitor: CompetitorRow | null, name: 'geo' | 'seo'): number | null {
  if (competitor === null) return null;
  const record = competitor.vs_benchmark;
  return finiteNumber(record[`${name}_score`]) ?? finiteNumber(record[name]);
}

function scoreCard(
  value: unknown,
  benchmarkAverage: unknown,
  vsBenchmark: number | null,
  previous: unknown,
): ScoreCard {
  const current = finiteNumber(value);
  const average = finiteNumber(benchmarkAverage);
  return {
    value: current,
    benchmarkAverage: average,
    // The API's own difference; computed from the average only when the API gave none.
    vsBenchmark: vsBenchmark ?? (current !== null && average !== null ? difference(current, average) : null),
    change: computeDelta(current, previous),
  };
}

function buildScores(
  sections: ReportSections,
  previous: ReportSections | null,
  competitor: CompetitorRow | null,
  benchmark: Benchmark | null,
  phrases: Phrases,
): NonNullable<ReportModel['scores']> | null {
  const scores = sections.scores;
  if (scores === undefined) return null;
  const before = previous?.scores;
  const ai = scores.ai_visibility ?? {};
  const aiBefore = before?.ai_visibility ?? {};
  const sampleSize = finiteNumber(benchmark?.sample_size);
  const percentile = finiteNumber(competitor?.percentile);
  return {
    geo: scoreCard(scores.geo_score, benchmark?.geo_score.average, vsBenchmarkOf(competitor, 'geo'), before?.geo_score),
    seo: scoreCard(scores.seo_score, benchmark?.seo_score?.average, vsBenchmarkOf(competitor, 'seo'), before?.seo_score),
    percentile: percentile === null ? null : Math.min(100, Math.max(0, percentile)),
    benchmarkSampleSize: sampleSize,
    aiVisibility: Object.entries(ai).map(([assistant, value]) => ({
      assistant,
      label: assistantLabel(phrases, assistant),
      value: finiteNumber(value),
      change: computeDelta(value, aiBefore[assistant]),
    })),
  };
}

/** "2026-10-01T00:00:00Z" → "2026-10-01"; "2026-10" → "2026-10-01"; anything else as it came. */
function isoDate(date: string): string {
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(date);
  if (day?.[1] !== undefined) return day[1];
  return /^\d{4}-\d{2}$/.test(date) ? `${date}-01` : date;
}

function buildHistory(sections: ReportSections): HistoryPoint[] | null {
  const history = sections.history;
  if (history === undefined) return null;
  return history
    .map((point) => ({ date: isoDate(point.date), geo: finiteNumber(point.geo_score), seo: finiteNumber(point.seo_score) }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The number a metric holds (bare or `{ value }`), for comparing months. */
function metricNumber(raw: unknown): number | null {
  if (isPlainObject(raw)) return finiteNumber(raw['value']);
  return finiteNumber(raw);
}

function buildMetrics(
  sections: ReportSections,
  previous: ReportSections | null,
  context: LabelContext,
  otherSections: OtherSection[],
): MetricRow[] | null {
  const metrics = sections.metrics;
  if (metrics === undefined) return null;
  const before = previous?.metrics ?? {};
  const rows: MetricRow[] = [];
  for (const [key, raw] of Object.entries(metrics)) {
    if (raw === undefined) continue;
    const label = fieldLabel(context.phrases, key);
    const row = (value: number | string | null, unit: string | null): MetricRow => ({
      key,
      label,
      value,
      unit,
      change: typeof value === 'number' ? computeDelta(value, metricNumber(before[key])) : null,
    });
    if (raw === null || typeof raw === 'number') {
      rows.push(row(finiteNumber(raw), null));
    } else if (typeof raw === 'string') {
      rows.push(row(raw, null));
    } else if (typeof raw === 'boolean') {
      rows.push(row(phrase(context.phrases, raw ? 'metric.value.yes' : 'metric.value.no'), null));
    } else if (isPlainObject(raw) && 'value' in raw && !isPlainObject(raw['value']) && !Array.isArray(raw['value'])) {
      const value = raw['value'];
      const unit = typeof raw['unit'] === 'string' && raw['unit'] !== '' ? raw['unit'] : null;
      const shown =
        typeof value === 'number'
          ? finiteNumber(value)
          : typeof value === 'string'
            ? value
            : typeof value === 'boolean'
              ? phrase(context.phrases, value ? 'metric.value.yes' : 'metric.value.no')
              : null;
      rows.push(row(shown, unit));
      // Fields beside value and unit (a trend, a source…) are kept where the reader can see them.
      const rest = omit(raw, new Set(['value', 'unit']));
      if (Object.keys(rest).length > 0) otherSections.push({ key: `metrics.${key}`, label, entries: toKeyValues(rest, context) });
    } else {
      const value = toKeyValueValue(raw, context);
      if (Array.isArray(value)) otherSections.push({ key: `metrics.${key}`, label, entries: value });
      else rows.push(row(typeof value === 'boolean' ? String(value) : value, null));
    }
  }
  return rows;
}

function buildTrust(
  sections: ReportSections,
  previous: ReportSections | null,
  context: LabelContext,
): NonNullable<ReportModel['trust']> | null {
  const trust = sections.trust;
  if (trust === undefined) return null;
  const score = finiteNumber(trust.trust_score);
  const platforms: ReviewPlatform[] = [];
  const platformDetails: KeyValue[] = [];
  for (const [index, platform] of (trust.review_platforms ?? []).entries()) {
    platforms.push({
      name: platform.name,
      rating: finiteNumber(platform.rating),
      reviews: finiteNumber(platform.reviews_count),
      url: typeof platform.url === 'string' && platform.url !== '' ? platform.url : null,
    });
    const rest = omit(platform, PLATFORM_FIELDS);
    if (Object.keys(rest).length > 0) {
      platformDetails.push({ key: String(index), label: platform.name, value: toKeyValues(rest, context) });
    }
  }
  const extra = toKeyValues(omit(trust, TRUST_FIELDS), context);
  if (platformDetails.length > 0) {
    extra.push({ key: 'review_platforms', label: fieldLabel(context.phrases, 'review_platforms'), value: platformDetails });
  }
  return { score, change: computeDelta(score, previous?.trust?.trust_score), platforms, extra };
}

function trackedRecommendation(
  rec: Recommendation,
  firstSeen: Readonly<Record<string, string>>,
  period: string,
  context: LabelContext,
): TrackedRecommendation {
  const key = recommendationKey(rec);
  const description = rec.description;
  return {
    key,
    title: rec.title,
    description: description === undefined || description === '' ? null : description,
    priority: rec.priority,
    category: rec.category,
    extra: toKeyValues(omit(rec, RECOMMENDATION_FIELDS), context),
    periodsOpen: periodsOpen(firstSeen[key], period),
  };
}

function buildRecommendations(
  sections: ReportSections,
  previous: PeriodData | null,
  period: string,
  context: LabelContext,
): NonNullable<ReportModel['recommendations']> | null {
  const recommendations = sections.recommendations;
  if (recommendations === undefined) return null;
  const previousRecommendations = previous?.report.sections?.recommendations ?? null;
  const firstSeen = carryFirstSeen(
    recommendations,
    period,
    previous === null
      ? null
      : { period: previous.period, recommendations: previousRecommendations, recommendationsFirstSeen: previous.recommendationsFirstSeen },
  );
  const tracked = recommendations.map((rec) => trackedRecommendation(rec, firstSeen, period, context));
  const groups: RecommendationGroup[] = PRIORITIES.map((priority) => ({
    priority,
    items: tracked.filter((rec) => rec.priority === priority),
  })).filter((group) => group.items.length > 0);
  return {
    total: tracked.length,
    groups,
    // Nothing to compare with on the first period, or when last period's report left recommendations out.
    tracking: previous === null || previousRecommendations === null ? null : trackRecommendations(tracked, previousRecommendations),
  };
}

function buildOtherSections(sections: ReportSections, context: LabelContext): OtherSection[] {
  const other: OtherSection[] = [];
  for (const [key, value] of Object.entries(sections)) {
    if (KNOWN_SECTIONS.has(key) || value === undefined) continue;
    const label = fieldLabel(context.phrases, key);
    const shown = toKeyValueValue(value, context);
    other.push({ key, label, entries: Array.isArray(shown) ? shown : [{ key, label, value: shown }] });
  }
  return other;
}

/** Client name: the configured display name, else the project's name, else "Project <id>". */
function clientName(input: AssembleInput, phrases: Phrases): string {
  const configured = input.client.displayName?.trim();
  if (configured !== undefined && configured !== '') return configured;
  const name = input.project.name?.trim();
  if (name !== undefined && name !== '') return name;
  return phrase(phrases, 'summary.projectFallback', { id: String(input.project.id) });
}

/** Everything one client report shows, merged and computed; pure apart from reading the phrase file by default. */
export function assembleReport(input: AssembleInput): ReportModel {
  const { period, language } = input;
  const phrases = input.phrases ?? loadPhrases(language);
  const gap = input.previous === null ? null : monthsBetween(input.previous.period, period);
  // Only an earlier period is a "previous" one: a file of this same month would show no change at all.
  const previous = input.previous !== null && gap !== null && gap > 0 ? input.previous : null;
  const sections: ReportSections = input.report.sections ?? {};
  const previousSections: ReportSections | null = previous?.report.sections ?? null;
  const show = input.client.sections;
  const context: LabelContext = { phrases, language };
  const otherSections: OtherSection[] = [];

  const scores = show.scores ? buildScores(sections, previousSections, input.competitor, input.benchmark, phrases) : null;
  const history = show.history ? buildHistory(sections) : null;
  const metrics = show.metrics ? buildMetrics(sections, previousSections, context, otherSections) : null;
  const trust = show.trust ? buildTrust(sections, previousSections, context) : null;
  const recommendations = show.recommendations ? buildRecommendations(sections, previous, period, context) : null;
  otherSections.unshift(...buildOtherSections(sections, context));

  const name = clientName(input, phrases);
  const label = periodLabel(period, language);
  const held = runPreSendChecks({
    language,
    phrases,
    report: input.report,
    previousReport: previous?.report ?? null,
    sections: show,
    requiredSections: input.checks.requiredSections,
    maxScoreDrop: input.checks.maxScoreDrop,
  }).map((reason) => reason.message);

  const note = input.client.note?.trim();
  return {
    meta: {
      projectId: input.project.id,
      reportId: finiteNumber(input.report.id),
      period,
      periodLabel: label,
      generatedAt: input.generatedAt,
      language,
      title: phrase(phrases, 'report.documentTitle', { client: name, period: label }),
    },
    branding: input.branding,
    client: { name, domain: input.project.domain ?? null, note: note === undefined || note === '' ? null : note },
    summary: buildSummary({
      language,
      phrases,
      clientName: name,
      period,
      previousPeriod: previous?.period ?? null,
      scores,
      metrics,
      recommendations,
    }),
    scores,
    history,
    metrics,
    trust,
    recommendations,
    otherSections,
    held,
  };
}
