// Wire shapes of Agency Integration API v1: strict on what the spec names (the envelope, `meta.usage`, project
// `id` and `status`, the webhook record, keyword rankings, ids), and nothing more. Content the spec leaves
// "not shown" (scores, reports, competitors, statistics, recommendations) is passed on as the API sent it and
// read by src/content/, which finds each value wherever a faithful server could put it.
import { z } from 'zod';
import { isRecord, listEntries } from '../spec/find.js';
import { readAnalysisInfo, readProjectInfo } from '../spec/project.js';

import { PROJECT_STATUSES } from '../spec/vocabulary.js';

export * from '../spec/vocabulary.js';

const id = z.number().int().nonnegative();
/** Ids are integers in the spec; a server that sends them as numeric strings is tolerated. */
const idLike = z.union([id, z.string().regex(/^\d+$/).transform(Number)]);

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
  error: z.union([z.string(), z.looseObject({ code: z.string().optional(), message: z.string().optional() })]).optional(),
  message: z.string().optional(),
  meta: z.looseObject({ usage: Usage.optional() }).optional(),
});

// ---------------------------------------------------------------- projects

/** `Active` is `active`: the spec's values, written in any case. */
const projectStatus = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.enum(PROJECT_STATUSES));

/** A project: `id` and `status` as the spec names them; name, domain and language found by their synonyms (`title`, `website`, `locale`…). */
export const Project = z.looseObject({ id: idLike, status: projectStatus }).transform((project) => {
  const info = readProjectInfo(project);
  // The language as the service wrote it ("fr-FR", { code: "fr" } read as "fr"): reportLanguage decides what it means.
  return { ...project, name: info.name ?? undefined, domain: info.domain ?? undefined, ...(info.language === null ? {} : { language: info.language }) };
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.looseObject({
  projects: z.array(Project),
  total: z.number().int().nonnegative(),
});
export type ProjectList = z.infer<typeof ProjectList>;

/** One project: `{ project: {...} }`, or the project itself as `data`. */
export const ProjectOne = z.union([z.looseObject({ project: Project }).transform((d) => d.project), Project]);

// ---------------------------------------------------------------- analyses

/**
 * An analysis: `id` as the spec names it. Its states are "not shown": the status is found under `status` or
 * `state` (bare or `{ code }`), and a word saying it finished or failed becomes `completed` / `failed`.
 */
export const Analysis = z.looseObject({ id: idLike }).transform((raw) => {
  const info = readAnalysisInfo(raw);
  return {
    ...raw,
    status: info.status,
    project_id: info.projectId ?? undefined,
    progress: info.progress ?? undefined,
    scan_id: info.scanId,
    error: info.error,
  };
});
export type Analysis = z.infer<typeof Analysis>;
export const AnalysisOne = z.union([z.looseObject({ analysis: Analysis }).transform((d) => d.analysis), Analysis]);

// ---------------------------------------------------------------- content

/**
 * `data` of an answer whose content the spec leaves "not shown" (scores, recommendations, competitors,
 * statistics, reports): an object, as the envelope says, passed on whole to the content readers.
 */
export const ContentData = z.record(z.string(), z.unknown());
export type ContentData = z.infer<typeof ContentData>;

// ---------------------------------------------------------------- scans

export const KeywordRanking = z.looseObject({
  /** The keyword's own name is not named by the spec: absent when the rankings are a map keyed by keyword. */
  keyword: z.string().optional(),
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
});
export type ScanSummary = z.infer<typeof ScanSummary>;

/** The scans of a project: a list under `scans` (placement not shown: also `{ scans: { items: [...] } }` or `items`). */
export const ScanList = z.preprocess(
  (data) => {
    if (!isRecord(data)) return data;
    const entries = listEntries(data['scans'], 'scans', { maps: false }) ?? listEntries(data, '', { maps: false });
    return entries === null ? data : { ...data, scans: entries.map((entry) => entry.value) };
  },
  z.looseObject({ scans: z.array(ScanSummary) }),
);

/** `keyword_rankings` as a list, or as a map keyed by keyword. */
const keywordRankings = z.preprocess(
  (value) => (isRecord(value) ? Object.entries(value).map(([keyword, ranking]) => (isRecord(ranking) ? { keyword, ...ranking } : ranking)) : value),
  z.array(KeywordRanking),
);

export const Scan = ScanSummary.extend({
  seo_audit: z.looseObject({ keyword_rankings: keywordRankings.optional() }).optional(),
});
export type Scan = z.infer<typeof Scan>;
export const ScanOne = z.union([z.looseObject({ scan: Scan }).transform((d) => d.scan), Scan]);
/** One scan as sent, for the scan sections' readers: `{ scan: {...} }` or the scan itself as `data`, never refused for its content. */
export const ScanData = ContentData.transform((data): ContentData => (isRecord(data['scan']) ? data['scan'] : data));

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

/** A report answer: its `data` as sent; the id, status and sections are found by src/content/report.ts. */
export type Report = ContentData;
