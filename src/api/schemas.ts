// Wire shapes of Agency Integration API v1.
// Strict on the fields the tool computes with; loose (`z.looseObject`) everywhere else, so keys the
// tool has never seen are kept, never dropped. Where the spec says "not shown", the shape here is the one
// the simulator serves and docs/api-assumptions.md records what the client tolerates beyond it.
import { z } from 'zod';

import { CATEGORIES, PRIORITIES, PROJECT_STATUSES } from './vocabulary.js';

export * from './vocabulary.js';

const id = z.number().int().nonnegative();
/** Ids are integers in the spec; a server that sends them as numeric strings is tolerated. */
const idLike = z.union([id, z.string().regex(/^\d+$/).transform(Number)]);
const score = z.number().nullable();

// ---------------------------------------------------------------- envelope

export const Usage = z.looseObject({
  daily_used: z.number().int().nonnegative(),
  daily_limit: z.number().int().nonnegative(),
  daily_remaining: z.number().int(),
});
export type Usage = z.infer<typeof Usage>;

export const Meta = z.looseObject({
  timestamp: z.iso.datetime({ offset: true }),
  api_version: z.string(),
  usage: Usage,
});
export type Meta = z.infer<typeof Meta>;

/** Envelope of a successful response; `data` is validated by the endpoint's own schema. */
export const Envelope = z.looseObject({
  success: z.boolean(),
  data: z.unknown(),
  meta: Meta,
});

/** Envelope of an error response: every part optional, the body shape is not shown in the spec. */
export const ErrorEnvelope = z.looseObject({
  success: z.boolean().optional(),
  error: z
    .union([z.string(), z.looseObject({ code: z.string().optional(), message: z.string().optional() })])
    .optional(),
  message: z.string().optional(),
  meta: z.looseObject({ usage: Usage.optional() }).optional(),
});

// ---------------------------------------------------------------- projects

export const Project = z.looseObject({
  id: idLike,
  status: z.enum(PROJECT_STATUSES),
  name: z.string().optional(),
  domain: z.string().optional(),
  created_at: z.string().optional(),
  language: z.string().optional(),
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.looseObject({
  projects: z.array(Project),
  total: z.number().int().nonnegative(),
});
export type ProjectList = z.infer<typeof ProjectList>;

/** One project: `{ project: {...} }`, or the project itself as `data`. */
export const ProjectOne = z.union([
  z.looseObject({ project: Project }).transform((d) => d.project),
  Project,
]);

// ---------------------------------------------------------------- analyses

export const Analysis = z.looseObject({
  id: idLike,
  project_id: idLike.optional(),
  status: z.string(),
  question_type: z.string().optional(),
  progress: z.number().optional(),
  scan_id: idLike.nullable().optional(),
  error: z.string().nullable().optional(),
});
export type Analysis = z.infer<typeof Analysis>;
export const AnalysisOne = z.union([
  z.looseObject({ analysis: Analysis }).transform((d) => d.analysis),
  Analysis,
]);

// ---------------------------------------------------------------- scores

export const AiVisibility = z.record(z.string(), score);
export const ScoreSnapshot = z.looseObject({
  scan_id: idLike.optional(),
  date: z.string(),
  geo_score: score,
  seo_score: score.optional(),
  ai_visibility: AiVisibility.optional(),
});
export type ScoreSnapshot = z.infer<typeof ScoreSnapshot>;

export const ProjectScores = z.looseObject({
  project_id: idLike,
  latest: ScoreSnapshot.nullable(),
  history: z.array(ScoreSnapshot),
});
export type ProjectScores = z.infer<typeof ProjectScores>;

export const ScanScores = z.looseObject({
  scan_id: idLike,
  scores: ScoreSnapshot,
});
export type ScanScores = z.infer<typeof ScanScores>;

// ---------------------------------------------------------------- recommendations

export const Recommendation = z.looseObject({
  id: z.union([z.number(), z.string()]).optional(),
  title: z.string(),
  description: z.string().optional(),
  priority: z.enum(PRIORITIES),
  category: z.enum(CATEGORIES),
});
export type Recommendation = z.infer<typeof Recommendation>;

export const RecommendationList = z.looseObject({
  recommendations: z.array(Recommendation),
  total: z.number().int().nonnegative().optional(),
});
export type RecommendationList = z.infer<typeof RecommendationList>;

// ---------------------------------------------------------------- scans

export const KeywordRanking = z.looseObject({
  keyword: z.string(),
  /** Average retained rank; a trial where the site was absent counts as 11 (first place outside the top 10). */
  position: z.number(),
  /** Each observed rank; null where the site did not appear in that trial. */
  values: z.array(z.number().nullable()),
  /** Each trial as counted in `position`: an absent trial is counted as 11. */
  counted_as: z.array(z.number()),
});
export type KeywordRanking = z.infer<typeof KeywordRanking>;

export const ScanSummary = z.looseObject({
  id: idLike,
  project_id: idLike,
  audit_id: idLike.nullable().optional(),
  status: z.string().optional(),
  created_at: z.string().optional(),
});
export type ScanSummary = z.infer<typeof ScanSummary>;

export const ScanList = z.looseObject({
  scans: z.array(ScanSummary),
  total: z.number().int().nonnegative().optional(),
});

export const Scan = ScanSummary.extend({
  seo_audit: z.looseObject({ keyword_rankings: z.array(KeywordRanking).optional() }).optional(),
});
export type Scan = z.infer<typeof Scan>;
export const ScanOne = z.union([z.looseObject({ scan: Scan }).transform((d) => d.scan), Scan]);

// ---------------------------------------------------------------- competitors

export const BenchmarkStat = z.looseObject({
  average: z.number(),
  median: z.number().optional(),
  p75: z.number().optional(),
  p90: z.number().optional(),
});
export const Benchmark = z.looseObject({
  geo_score: BenchmarkStat,
  seo_score: BenchmarkStat.optional(),
  sample_size: z.number().int().optional(),
});
export type Benchmark = z.infer<typeof Benchmark>;

export const CompetitorRow = z.looseObject({
  project_id: idLike,
  name: z.string().optional(),
  scores: z.looseObject({ geo_score: score, seo_score: score.optional() }),
  /** 0–100: share of tracked sites this project scores above. */
  percentile: z.number().nullable(),
  /** Difference to the benchmark average, per score. */
  vs_benchmark: z.record(z.string(), z.number().nullable()),
});
export type CompetitorRow = z.infer<typeof CompetitorRow>;

/** Without project_id: every project of the caller against the benchmark. */
export const CompetitorsAll = z.looseObject({
  benchmark: Benchmark,
  projects: z.array(CompetitorRow),
});
export type CompetitorsAll = z.infer<typeof CompetitorsAll>;

/** With project_id: that project, the benchmark, and the caller's other projects. */
export const CompetitorsOne = CompetitorRow.extend({
  benchmark: Benchmark,
  other_projects: z.array(z.looseObject({ project_id: idLike, name: z.string().optional() })).optional(),
});
export type CompetitorsOne = z.infer<typeof CompetitorsOne>;

// ---------------------------------------------------------------- webhooks

export const Webhook = z.looseObject({
  id: idLike,
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
});
export type Webhook = z.infer<typeof Webhook>;
export const WebhookList = z.looseObject({ webhooks: z.array(Webhook) });
/** Create: the stored webhook; `secret` (the HMAC key) is returned only here. */
export const WebhookCreated = z.union([
  z.looseObject({ webhook: Webhook.extend({ secret: z.string().optional() }) }).transform((d) => d.webhook),
  Webhook.extend({ secret: z.string().optional() }),
]);
export type WebhookCreated = z.infer<typeof WebhookCreated>;
export const WebhookTestResult = z.looseObject({
  delivered: z.boolean().optional(),
  status_code: z.number().int().nullable().optional(),
});
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;

/** Body of a delivery sent by the service to a webhook URL. */
export const WebhookDelivery = z.looseObject({
  id: z.string().optional(),
  event: z.string(),
  created_at: z.string().optional(),
  data: z.unknown().optional(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

// ---------------------------------------------------------------- reports

export const TrustSection = z.looseObject({
  trust_score: score.optional(),
  review_platforms: z
    .array(
      z.looseObject({
        name: z.string(),
        rating: z.number().nullable().optional(),
        reviews_count: z.number().int().nullable().optional(),
        url: z.string().optional(),
      }),
    )
    .optional(),
});
export type TrustSection = z.infer<typeof TrustSection>;

export const ReportSections = z.looseObject({
  scores: z
    .looseObject({ geo_score: score, seo_score: score.optional(), ai_visibility: AiVisibility.optional() })
    .optional(),
  recommendations: z.array(Recommendation).optional(),
  history: z
    .array(z.looseObject({ date: z.string(), geo_score: score, seo_score: score.optional() }))
    .optional(),
  /** Metric name → number, string, or { value, unit }. */
  metrics: z.record(z.string(), z.unknown()).optional(),
  trust: TrustSection.optional(),
});
export type ReportSections = z.infer<typeof ReportSections>;

export const Report = z.looseObject({
  id: idLike,
  project_id: idLike.optional(),
  format: z.string().optional(),
  /** `processing` while the service builds it; `ready` (or absent) when sections are there; `failed`. */
  status: z.string().optional(),
  created_at: z.string().optional(),
  include: z.array(z.string()).optional(),
  sections: ReportSections.optional(),
});
export type Report = z.infer<typeof Report>;
/** `{ report: {...} }`, or the report itself as `data`. */
export const ReportOne = z.union([z.looseObject({ report: Report }).transform((d) => d.report), Report]);
export const ReportList = z.looseObject({
  reports: z.array(Report.omit({ sections: true })),
  total: z.number().int().nonnegative().optional(),
});
export type ReportList = z.infer<typeof ReportList>;

// ---------------------------------------------------------------- stats

export const Stats = z.looseObject({
  projects_count: z.number().int().nonnegative(),
  scans_count: z.number().int().nonnegative(),
  average_score: z.number().nullable(),
  top_projects: z.array(z.looseObject({ project_id: idLike, name: z.string().optional(), geo_score: score })),
  evolution: z.array(z.looseObject({ month: z.string(), average_score: z.number().nullable() })),
});
export type Stats = z.infer<typeof Stats>;
