// What one client's month leaves behind (<out>/<period>/<slug>/data.json): the raw API data, read back next
// month for changes and recommendation tracking (through the same content readers, so a field map added later
// applies to old months too).
import { z } from 'zod';
import { Project, type Project as ProjectData } from '../api/schemas.js';
import type { FieldMap } from '../content/fields.js';
import { readReport, type ReportContent } from '../content/report.js';
import type { PreviousContent, Ranking } from './assemble.js';
import { PERIOD_PATTERN, toMonth, type MonthPeriod } from '../period.js';
import { carryFirstSeen } from './tracking.js';
import { FactTableSchema, type FactTable } from './facts.js';

export const PERIOD_DATA_SCHEMA_VERSION = 2;

const period = z.string().regex(PERIOD_PATTERN).transform(toMonth);

const benchmarkFigures = z.object({ average: z.number().nullable(), figures: z.array(z.object({ name: z.string(), value: z.number() })) }).nullable();
const RankingSchema = z.object({
  row: z
    .object({
      projectId: z.number(),
      name: z.string().nullable(),
      geo: z.number().nullable(),
      seo: z.number().nullable(),
      percentile: z.number().nullable(),
      vsBenchmark: z.object({ geo: z.number().nullable(), seo: z.number().nullable() }),
    })
    .nullable(),
  benchmark: z.object({ geo: benchmarkFigures, seo: benchmarkFigures, sampleSize: z.number().nullable() }),
});

/** The scan the period's scan sections were read from (src/sections), as the API sent it: read once a period. */
export const SavedScanSchema = z.object({
  id: z.number(),
  /** YYYY-MM-DD the scan is dated. */
  date: z.string(),
  /** What it was read with: a later need outside these is read again. */
  include: z.array(z.string()),
  seoSteps: z.array(z.string()),
  data: z.record(z.string(), z.unknown()),
});
export type SavedScan = z.infer<typeof SavedScanSchema>;

const common = {
  period,
  fetchedAt: z.string().min(1),
  project: Project,
  recommendationsFirstSeen: z.record(z.string(), period),
};

export const PeriodDataSchema = z.union([
  z.object({
    schemaVersion: z.literal(2),
    ...common,
    /** The `data` of the report answer, as the API sent it. */
    report: z.record(z.string(), z.unknown()),
    ranking: RankingSchema.nullable(),
    /** The `data` of stats.php, as the API sent it. */
    stats: z.unknown(),
    notes: z.array(z.string()),
    scan: SavedScanSchema.optional(),
    facts: FactTableSchema.optional(),
  }),
  // Written before the content readers: the report is the API's `data` too, kept with loose validation.
  z
    .looseObject({ schemaVersion: z.literal(1), ...common, report: z.record(z.string(), z.unknown()), stats: z.unknown() })
    .transform((v1) => ({ ...v1, schemaVersion: 2 as const, ranking: null, notes: [] as string[] })),
]);

export interface PeriodData {
  schemaVersion: 2;
  /** YYYY-MM */
  period: MonthPeriod;
  /** ISO 8601 */
  fetchedAt: string;
  /** Raw, as the API sent it. */
  project: ProjectData;
  /** Raw `data` of the report answer. */
  report: unknown;
  /** The benchmark figures and this project's row, as read from competitors.php. */
  ranking: Ranking | null;
  /** Raw `data` of stats.php. */
  stats: unknown;
  /** Data-quality notes of this report (values not found, elements left out). */
  notes: string[];
  /** Derived and carried forward: recommendation key → first period it was seen (for "open for N periods"). */
  recommendationsFirstSeen: Record<string, MonthPeriod>;
  /** The scan the scan sections were read from; absent when none was read. */
  scan?: SavedScan;
  /** The figures the report showed (report/facts.ts): next month's "last month"; absent in months saved before it. */
  facts?: FactTable;
}

/**
 * A previous period's data.json, validated; null when it is unreadable or from an unknown schema version,
 * because a broken previous file must not stop this month's report (the caller logs it).
 */
export function parsePeriodData(json: unknown): PeriodData | null {
  const parsed = PeriodDataSchema.safeParse(json);
  if (!parsed.success) return null;
  const data = parsed.data;
  return {
    schemaVersion: 2,
    period: data.period,
    fetchedAt: data.fetchedAt,
    project: data.project,
    report: data.report,
    ranking: data.ranking,
    stats: data.stats ?? null,
    notes: data.notes,
    recommendationsFirstSeen: data.recommendationsFirstSeen,
    ...('scan' in data && data.scan !== undefined ? { scan: data.scan } : {}),
    ...('facts' in data && data.facts !== undefined ? { facts: data.facts } : {}),
  };
}

/** Last period's data as the assembly compares with it: its report read with today's readers and field map. */
export function previousContent(data: PeriodData, fields: FieldMap = {}): PreviousContent {
  return {
    period: data.period,
    report: readReport(data.report, fields),
    recommendationsFirstSeen: data.recommendationsFirstSeen,
    ...(data.facts === undefined ? {} : { facts: data.facts }),
  };
}

export interface BuildPeriodDataInput {
  period: MonthPeriod;
  fetchedAt: string;
  project: ProjectData;
  report: unknown;
  /** This period's report as read (for the first-seen periods). */
  content: ReportContent;
  ranking: Ranking | null;
  stats: unknown;
  notes: string[];
  /** Last period's data, read; null on the first period or when unreadable. */
  previous: PreviousContent | null;
  scan?: SavedScan | null;
  /** The report's fact table: what it showed. */
  facts?: FactTable;
}

/** This period's data, with the first-seen period of every open recommendation carried from `previous`. */
export function buildPeriodData(input: BuildPeriodDataInput): PeriodData {
  const previous =
    input.previous === null
      ? null
      : {
          period: input.previous.period,
          recommendations: input.previous.report.recommendations,
          recommendationsFirstSeen: input.previous.recommendationsFirstSeen,
        };
  return {
    schemaVersion: 2,
    period: input.period,
    fetchedAt: input.fetchedAt,
    project: input.project,
    report: input.report,
    ranking: input.ranking,
    stats: input.stats,
    notes: input.notes,
    recommendationsFirstSeen: carryFirstSeen(input.content.recommendations ?? [], input.period, previous),
    ...(input.scan == null ? {} : { scan: input.scan }),
    ...(input.facts === undefined ? {} : { facts: input.facts }),
  };
}
