// The simulator's `classic` dialect as strict schemas: what tests of that dialect expect field by field.
// The product itself reads content through src/content/ and requires none of this.
import { z } from 'zod';
import { CATEGORIES, PRIORITIES } from '../../src/api/schemas.js';

const id = z.number().int().nonnegative();
const idLike = z.union([id, z.string().regex(/^\d+$/).transform(Number)]);
const score = z.number().nullable();

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
  scores: z.looseObject({ geo_score: score, seo_score: score.optional(), ai_visibility: AiVisibility.optional() }).optional(),
  recommendations: z.array(Recommendation).optional(),
  history: z.array(z.looseObject({ date: z.string(), geo_score: score, seo_score: score.optional() })).optional(),
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
