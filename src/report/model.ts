// ReportModel: everything one client report shows, already merged and computed.
// `report/assemble.ts` builds it from API data; `render/` turns it into HTML and PDF and computes nothing.
import type { Category, Priority } from '../api/schemas.js';
import type { StatsContent } from '../content/competitors.js';
import type { Language } from '../i18n/locales.js';
import type { GoalDirection, GoalStatus } from './goals.js';

export type { Language };

/** Change against the previous period. `direction` is the non-colour cue (arrow + sign). */
export interface Delta {
  /** current − previous, rounded for display by the renderer. */
  value: number;
  direction: 'up' | 'down' | 'flat';
  /** Previous period's value. */
  previous: number;
}

export interface Branding {
  agencyName: string;
  /** `data:` URI of the logo, already inlined; absent → the agency name is set as a word mark. */
  logoDataUri?: string;
  colors: { primary: string; accent: string; text: string; muted: string; background: string };
  /** CSS font-family stack; the Inter face is embedded in the HTML as a data: URI. */
  fontFamily: string;
  footer: string;
  contact: { email?: string; phone?: string; website?: string };
}

export interface ScoreCard {
  /** 0–100, or null when the API gave none. */
  value: number | null;
  benchmarkAverage: number | null;
  /** value − benchmark average, as the API computed it (`vs_benchmark`). */
  vsBenchmark: number | null;
  change: Delta | null;
}

export interface TrackedRecommendation {
  /** Recommendation id, or a stable key built from category + title when the API gives none. */
  key: string;
  title: string;
  description: string | null;
  priority: Priority;
  /** null when the API gave none of the spec's categories. */
  category: Category | null;
  /** Every other field the API sent, shown as key/value so nothing is dropped. */
  extra: KeyValue[];
  /** Periods in a row this recommendation has been open, this one included (1 = new). */
  periodsOpen: number;
}

export interface RecommendationGroup {
  priority: Priority;
  items: TrackedRecommendation[];
}

export interface KeyValue {
  key: string;
  /** Human label (translated when known, otherwise the key made readable). */
  label: string;
  /** Scalars are shown as text; nested objects / arrays as nested key/value lists. */
  value: string | number | boolean | null | KeyValue[];
}

export interface MetricRow {
  key: string;
  label: string;
  value: number | string | null;
  unit: string | null;
  change: Delta | null;
}

export interface ReviewPlatform {
  name: string;
  rating: number | null;
  reviews: number | null;
  /** The client's page on the platform, shown as text (never fetched, never a live link in the PDF). */
  url: string | null;
}

export interface HistoryPoint {
  /** ISO date (YYYY-MM-DD). */
  date: string;
  geo: number | null;
  seo: number | null;
}

/** One goal agreed with the client and where it stands this month. */
export interface GoalView {
  /** As configured: `geo`, `seo`, `trust`, `ai:<assistant>` or `metric:<key>`. */
  metric: string;
  /** The metric's name in the report's language ("GEO score", "Visibility in ChatGPT"). */
  metricName: string;
  /** The configured label, or the metric's name and the target. */
  label: string;
  direction: GoalDirection;
  target: number;
  /** YYYY-MM: the month the target is due. */
  by: string;
  /** Localised, e.g. "March 2027". */
  byLabel: string;
  /** This month's value; null when the report has none (status `no_data`). */
  value: number | null;
  /** The earliest known value, where the progress bar starts. */
  start: number | null;
  status: GoalStatus;
  /** The status in words, in the report's language. */
  statusLabel: string;
  /** 0–100: how far from `start` to the target this month's value has come; null without a value. */
  progress: number | null;
  /** Change per month still needed to meet the target by `by`; null when achieved, missed or due this month. */
  paceNeeded: number | null;
  /** Change per month of the trend line through the latest values (two or more); null otherwise. */
  recentPace: number | null;
  /** The trend line's value in the month `by`; null without a trend. */
  projected: number | null;
  /** Months left until `by`: 0 in that month, negative once it has passed. */
  monthsLeft: number;
  /** How many monthly values are known (this month and earlier). */
  known: number;
  /** Achieved this month and not last month. */
  justAchieved: boolean;
}

export interface ReportModel {
  meta: {
    projectId: number;
    reportId: number | null;
    /** YYYY-MM */
    period: string;
    /** Localised, e.g. "October 2026" / "octobre 2026". */
    periodLabel: string;
    /** ISO 8601 timestamp of rendering. */
    generatedAt: string;
    language: Language;
    /** Document title, used for <title> and the PDF metadata. */
    title: string;
  };
  branding: Branding;
  client: { name: string; domain: string | null; note: string | null };
  /** Rule-built summary paragraphs, already localised. Empty when there is nothing to say. */
  summary: string[];
  /** The client's goals and their status; null when none is set (no section). */
  goals: GoalView[] | null;
  /** null when the report left out the scores section. */
  scores: {
    geo: ScoreCard;
    seo: ScoreCard;
    /** 0–100: share of tracked sites this client scores above; null when unknown. */
    percentile: number | null;
    benchmarkSampleSize: number | null;
    aiVisibility: Array<{ assistant: string; label: string; value: number | null; change: Delta | null }>;
  } | null;
  /** null when the report left out the history section. */
  history: HistoryPoint[] | null;
  metrics: MetricRow[] | null;
  trust: {
    score: number | null;
    change: Delta | null;
    platforms: ReviewPlatform[];
    /** Other trust keys the API sent. */
    extra: KeyValue[];
  } | null;
  recommendations: {
    total: number;
    groups: RecommendationGroup[];
    /** Month-over-month tracking; null on the first period (nothing to compare with). */
    tracking: {
      new: TrackedRecommendation[];
      resolved: Array<Pick<TrackedRecommendation, 'key' | 'title' | 'priority' | 'category'>>;
      /** Open for two periods or more, longest first. */
      persistent: TrackedRecommendation[];
    } | null;
  } | null;
  /** Sections or keys the tool does not know, shown generically so nothing is dropped. */
  otherSections: Array<{ key: string; label: string; entries: KeyValue[] }>;
  /** Pre-send check: reasons this report is held (empty when it may be sent). */
  held: string[];
}

/** The agency overview of one period (`<out>/<period>/index.html`): for the agency, not for clients. */
export interface IndexModel {
  period: string;
  periodLabel: string;
  generatedAt: string;
  language: Language;
  branding: Branding;
  /** The account's statistics (projects, scans, average score, top projects, evolution); null when not read. */
  account: StatsContent | null;
  /** Some client has goals: the overview shows which are behind or missed. */
  showGoals: boolean;
  rows: IndexRow[];
  totals: { done: number; failed: number; pending: number; skipped: number; held: number };
}

export interface IndexRow {
  projectId: number;
  name: string;
  status: 'done' | 'failed' | 'pending' | 'skipped';
  /** Pre-send check reasons; non-empty means the report is held. */
  held: string[];
  geo: number | null;
  change: Delta | null;
  percentile: number | null;
  openCritical: number;
  /** Links relative to the period folder. */
  htmlHref: string | null;
  pdfHref: string | null;
  error: string | null;
  /** Data-quality notes: values not found or left out (for the agency, never in the client's report). */
  notes: string[];
  /** The client's goals that are behind or missed, by label. */
  goalsOff: Array<{ label: string; status: 'behind' | 'missed' }>;
  email: IndexEmail;
}

/** Where the client's email stands: never sent, sent (when), failed (why), or unknown (may have arrived). */
export interface IndexEmail {
  status: 'not_sent' | 'sent' | 'failed' | 'unknown';
  /** ISO 8601 time of the last change; null when never sent. */
  at: string | null;
  /** Why it failed, or why the outcome is unknown. */
  reason: string | null;
}
