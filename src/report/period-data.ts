// What one client's month leaves behind (<out>/<period>/<slug>/data.json): the raw API data, read back next
// month for changes and recommendation tracking.
import { z } from 'zod';
import {
  Benchmark,
  CompetitorRow,
  Project,
  Report,
  Stats,
} from '../api/schemas.js';
import type {
  Benchmark as BenchmarkData,
  CompetitorRow as CompetitorRowData,
  Project as ProjectData,
  Report as ReportData,
  Stats as StatsData,
} from '../api/schemas.js';
import { PERIOD_PATTERN } from '../period.js';
import { carryFirstSeen } from './tracking.js';

export const PERIOD_DATA_SCHEMA_VERSION = 1;

const period = z.string().regex(PERIOD_PATTERN);

export const PeriodDataSchema = z.object({
  schemaVersion: z.literal(PERIOD_DATA_SCHEMA_VERSION),
  period,
  fetchedAt: z.string().min(1),
  project: Project,
  report: Report,
  competitor: CompetitorRow.nullable(),
  benchmark: Benchmark.nullable(),
  stats: Stats.nullable(),
  recommendationsFirstSeen: z.record(z.string(), period),
});

export interface PeriodData {
  schemaVersion: 1;
  /** YYYY-MM */
  period: string;
  /** ISO 8601 */
  fetchedAt: string;
  /** Raw, as the API sent it. */
  project: ProjectData;
  /** Raw report including its sections. */
  report: ReportData;
  competitor: CompetitorRowData | null;
  benchmark: BenchmarkData | null;
  stats: StatsData | null;
  /** Derived and carried forward: recommendation key → first period it was seen (for "open for N periods"). */
  recommendationsFirstSeen: Record<string, string>;
}

/**
 * A previous period's data.json, validated; null when it is unreadable or from another schema version,
 * because a broken previous file must not stop this month's report (the caller logs it).
 */
export function parsePeriodData(json: unknown): PeriodData | null {
  const parsed = PeriodDataSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The fields of PeriodData the batch has at hand, and last period's data to carry first-seen periods from. */
export type BuildPeriodDataInput = Omit<PeriodData, 'schemaVersion' | 'recommendationsFirstSeen'> & {
  /** Last period's data as parsePeriodData returned it; null on the first period or when unreadable. */
  previous: PeriodData | null;
};

/** This period's data, with the first-seen period of every open recommendation carried from `previous`. */
export function buildPeriodData(input: BuildPeriodDataInput): PeriodData {
  const previous =
    input.previous === null
      ? null
      : {
          period: input.previous.period,
          recommendations: input.previous.report.sections?.recommendations ?? null,
          recommendationsFirstSeen: input.previous.recommendationsFirstSeen,
        };
  return {
    schemaVersion: 1,
    period: input.period,
    fetchedAt: input.fetchedAt,
    project: input.project,
    report: input.report,
    competitor: input.competitor,
    benchmark: input.benchmark,
    stats: input.stats,
    recommendationsFirstSeen: carryFirstSeen(input.report.sections?.recommendations ?? [], input.period, previous),
  };
}
