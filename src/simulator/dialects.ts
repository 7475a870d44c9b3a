// Dialects: other faithful readings of API v1, each a transform of the classic answer (same data, another wire form).
//
// The spec names only the envelope, meta.usage, the project list (`projects`, `total`), project `id`/`status`, the
// recommendation `priority`/`category` values, a report's `id`/`format`/section names, the webhook record
// (`id`, `name`, `url`, `events`), the scan `id`/`project_id`/`audit_id`, `seo_audit.keyword_rankings` entries
// and `vs_benchmark`. Every dialect keeps those exactly and reshapes everything the spec leaves "not shown".
//
// `classic` is the answer as the endpoint handlers build it (the source of truth, unchanged byte for byte).
//
// ─── compact ── a terse designer: flat placement, short names, numbers as numeric strings, maps keyed by name/id ───
//   value                        where                                              form
//   report                       data (no `report` wrapper)                          object
//   report sections              data.<section> (top level, no wrapper)              see below
//   chosen sections              data.sections                                       array of section names
//   report status                data.status                                         'done' (ready) | 'working' (processing)
//   report date                  data.created                                        'YYYY-MM-DD'
//   report project               data.project_id                                     integer
//   GEO score                    scores.geo                                          numeric string "65"
//   SEO score                    scores.seo                                          numeric string "50"
//   AI visibility per assistant  scores.assistants                                   map assistant → "79%"
//   recommendation               recommendations[]                                   { id: "10217", name, summary, priority, category, impact, effort }
//   history point                history[]                                           { month: 'YYYY-MM', geo: "67", seo: "40" }
//   metrics                      metrics                                             map name → "88" | "20.6%" (percent folded in)
//   trust score                  trust.score                                         numeric string
//   review platforms             trust.platforms                                     map platform name → { stars: "4.5", reviews: "364", link }
//   scores.php project           data.{ project_id, current, history[] }             snapshot { scan_id, month, geo, seo, trust, assistants }
//   scores.php scan              data.{ scan_id, project_id, month, geo, seo, trust, assistants } (flat)
//   recommendations.php          data.{ recommendations[], count }                   + since: 'YYYY-MM', project_id, scan_id per row
//   scans.php list               data.{ scans[], count }                             { id, project_id, audit_id, status: 'done', trigger, question_type, date: 'YYYY-MM-DD',
//                                                                                      scores: { geo: "65", seo: "50" } }
//   scans.php one                data (the scan, no wrapper), sections top level     the list row's fields + finished (ISO); geo.geo, geo.assistants; seo_audit.seo;
//                                                                                    trust and metrics as in reports; keyword_rankings untouched;
//                                                                                    lighthouse { perf, a11y, best_practices, seo: "62", cwv { lcp: "2.4" (s), inp, cls } };
//                                                                                    geo.positions map assistant → [{ question_id, mentioned: 'yes'|'no', position: "3",
//                                                                                      competitors: "a.example, b.example" }];
//                                                                                    geo.responses [{ question_id, assistant, answer }]
//   competitors benchmark        benchmark                                           flat: avg_geo, median_geo, p75_geo, p90_geo, avg_seo, median_seo,
//                                                                                    p75_seo, p90_seo, sites (all numeric strings)
//   competitor rows (all)        data.projects                                       map project id → { name, geo, seo, percentile: "81", vs_benchmark: { geo: "+18.9", seo: "-7" } }
//   competitors (project_id)     data.{ project_id, name, geo, seo, percentile, vs_benchmark, benchmark, others (map id → row) }
//   stats                        data.{ project_count, by_status (map status → "4"), scan_count, avg_geo,
//                                       top[] { project_id, name, geo }, evolution[] { month: 'YYYY-MM', avg_geo, scans } }  numbers as strings
//   projects.php row             { id, name, site, status, lang, created: 'YYYY-MM-DD', last_scan: 'YYYY-MM-DD' | null }; list keeps projects,total,limit,offset
//   projects.php?id              data (the project, no wrapper)
//   analyze.php                  data (the analysis, no wrapper)                     { id, project_id, type, status: pending|running|done|failed,
//                                                                                      progress: "40%", scan_id, error, created, finished }
//   webhooks create              data (the record, no wrapper)                       { id, name, url, events, secret, created }
//   webhooks test                data.{ webhook_id, ok, http_status: "200" | null }
//   webhooks list                data.{ webhooks[] (+ created, enabled), count }
//   reports list                 data.{ reports[] (compact report without content), count }
//   error body                   { success: false, error: "<message>", error_code: "<code>", meta }
//
// ─── nested ── a verbose designer: deep placement, long names, lists wrapped { items, count }, maps as records ───
//   value                        where                                              form
//   report                       data.report                                         object
//   report sections              data.report.content.<section>                       see below
//   chosen sections              data.report.requested_sections                      array of section names
//   report status                data.report.status                                  'completed' (ready) | 'pending' (processing)
//   report date                  data.report.generated_at                            ISO timestamp with +00:00
//   report project               data.report.project                                 { id, name }
//   GEO score                    content.scores.ai_visibility_score                  number
//   SEO score                    content.scores.seo_score                            number
//   AI visibility per assistant  content.scores.visibility_by_assistant              { items: [{ assistant, visibility }], count }
//   recommendation               content.recommendations.items[]                     { id, label, details, priority, category, estimate: { impact, effort } }
//   history point                content.history.items[]                             { measured_at: ISO timestamp, scores: { ai_visibility_score, seo_score } }
//   metrics                      content.metrics.{ items, count }                    items { metric, value, unit? } (unit 'percent' where classic has '%');
//                                                                                    a scan's metrics add period: ISO timestamp of the month's first day
//   trust score                  content.trust.trust_score                           number
//   review platforms             content.trust.review_sites.items[]                  { platform: { name, url }, rating: { value, scale: 5 }, review_count }
//   scores.php project           data.{ project: { id, name }, latest_result, history: { items, count } }
//                                snapshot { scan: { id }, measured_at, scores: { ai_visibility_score, seo_score, trust_score }, visibility_by_assistant }
//   scores.php scan              data.{ scan: { id }, project: { id, name }, result: snapshot }
//   recommendations.php          data.recommendations.{ items, count }               + detected_at (ISO), project: { id, name }, scan: { id } | null
//   scans.php list               data.scans.{ items, count }                         { id, project_id, audit_id, state: 'completed', trigger, question_type,
//                                                                                      started_at, results: { ai_visibility_score, seo_score } }
//   scans.php one                data.scan, its sections under data.scan.sections    the list row's fields + finished_at; geo.ai_visibility_score, geo.visibility_by_assistant;
//                                                                                    seo_audit.score; trust and metrics as in reports; keyword_rankings untouched;
//                                                                                    geo.positions[].competitors { items: [{ name }], count };
//                                                                                    lighthouse { categories.<name>.score 0–1, metrics.<vital> { value, unit } }
//   competitors benchmark        global_benchmark                                    per score: { ai_visibility_score: { mean, median, p75, p90 }, seo_score: {…}, sample_size }
//   competitor rows (all)        data.projects.items[]                               { project: { id, name }, scores: { ai_visibility_score, seo_score },
//                                                                                      comparison: { percentile_rank, vs_benchmark: { ai_visibility_score, seo_score } } }
//   competitors (project_id)     data.{ project, scores, comparison, global_benchmark, other_projects: { items, count } }
//   stats                        data.{ totals: { projects: { count, by_status: [{ status, count }] }, scans: { count } },
//                                       ai_visibility_score: { mean }, top_projects: { items: [{ rank, project: { id, name }, ai_visibility_score }], count },
//                                       evolution: { items: [{ period: ISO timestamp of the month's first day, ai_visibility_score: { mean }, scan_count }], count } }
//   projects.php row             { id, title, status, website: { domain }, locale, timestamps: { created_at, last_scan_at } }; list: projects, total, page: { limit, offset }
//   projects.php?id              data.project
//   analyze.php                  data.analysis                                       { id, project: { id, name }, question_type,
//                                                                                      state: { code: queued|in_progress|completed|failed, progress: { value, unit: 'percent' } },
//                                                                                      scan: { id } | null, error: { message } | null, timestamps: { created_at, finished_at } }
//   webhooks create              data.webhook                                        { id, name, url, events, signing_secret, timestamps: { created_at } }
//   webhooks test                data.test                                           { webhook: { id }, delivery: { delivered, response_status } }
//   webhooks list                data.webhooks.{ items, count }                      records + timestamps: { created_at }, enabled
//   reports list                 data.reports.{ items, count }                       nested report without content
//   error body                   { success: false, errors: [{ code, detail }], meta }
//
// Timestamps in `nested` are ISO 8601 with "+00:00"; classic dates 'YYYY-MM-DD' become 'YYYY-MM-DDT00:00:00+00:00'.
// Sections or keys a dialect does not know (e.g. a report's `local_presence`) are carried through unchanged.

//
// ─── strict ── a designer who reads the spec to the letter and writes the rest in its own way ───
//   refuses                      any parameter value the spec does not name: 400 "unknown <parameter>: <values>"
//                                (seo_steps beyond step3_serp and step6_report; include, format, status, priority,
//                                category, question_type outside their lists)
//   ids                          every `id`, `project_id`, `audit_id`, `scan_id` as a string ("100001")
//   scans.php list               data.scans[] { id, project_id, audit_id, state: 'COMPLETED', performed_at (ISO) }
//   scans.php one                data.scan { id, project_id, audit_id, state, performed_at, result: { <section>: … } }
//   geo                          result.geo.prompts[] { prompt_id, prompt, engines: { <assistant>: { cited: 'true'|'false',
//                                rank: "3" | null, answer_text? } } }, visibility map kept; no competitor field (the
//                                competitors an answer names are in its text only)
//   everything else              as classic
import { CATEGORIES, PRIORITIES, PROJECT_STATUSES, QUESTION_TYPES, REPORT_SECTIONS, SCAN_SECTIONS } from '../spec/vocabulary.js';
import { monthOfDateOrNull } from '../period.js';

export const DIALECT_NAMES = ['classic', 'compact', 'nested', 'strict'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

export const DIALECT_SUMMARIES: Record<DialectName, string> = {
  classic: 'the reference answers (report sections under `sections`, numbers, lists)',
  compact: 'flat placement, short names, numeric strings, maps keyed by name or id',
  nested: 'deep placement, long names, lists wrapped as { items, count }, ISO timestamps',
  strict: 'refuses parameter values the spec does not name (400), ids as strings, scan sections under `result`',
};

/** A successful classic answer, as a dialect sees it. */
export interface ClassicAnswer {
  /** Last path segment, e.g. 'reports.php'. */
  endpoint: string;
  method: string;
  query: Record<string, string>;
  body: unknown;
  /** The classic `data`. */
  data: unknown;
  /** Name of a project of the dataset, for dialects that nest `{ id, name }`. */
  projectName(id: number): string | null;
}

/** A failed classic answer (any status but 200). */
export interface ClassicError {
  endpoint: string;
  status: number;
  code: string;
  message: string;
}

/** A request as a dialect judges it, before it is handled. */
export interface DialectRequest {
  endpoint: string;
  method: string;
  query: Record<string, string>;
  body: unknown;
}

export interface Dialect {
  name: string;
  /** The `data` to send instead of the classic one. */
  data(answer: ClassicAnswer): unknown;
  /** Why the request is refused (a 400 with that message); null to handle it. @default none refused */
  refuse?(request: DialectRequest): string | null;
  /** The members of an error body beside `success` and `meta`. @default classic `{ error: { code, message } }` */
  error?(failure: ClassicError): Record<string, unknown>;
}

/** A custom dialect given in-process: a Dialect, or only its `data` transform. */
export type DialectOption = DialectName | Dialect | ((answer: ClassicAnswer) => unknown);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asObject = (value: unknown): Json => (isObject(value) ? value : {});
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asNumber = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** Numeric string, null kept. */
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of the classic answer, as text
const numeric = (value: unknown): string | null => (typeof value === 'number' ? String(value) : value === null || value === undefined ? null : String(value));
const percent = (value: unknown): string | null => (typeof value === 'number' ? `${value}%` : null);
const signed = (value: unknown): string | null => (typeof value === 'number' ? (value > 0 ? `+${value}` : String(value)) : null);
const dateOnly = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, 10) : null);
const monthOf = (value: unknown): string | null => (typeof value === 'string' ? monthOfDateOrNull(value) : null);
/** 'YYYY-MM-DD', 'YYYY-MM' or an ISO 'Z' timestamp → ISO timestamp with an explicit +00:00 offset. */
function offsetTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (/^\d{4}-\d{2}$/.test(value)) return `${value}-01T00:00:00+00:00`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00+00:00`;
  return value.replace(/\.\d{3}Z$/, '+00:00').replace(/Z$/, '+00:00');
}
const wrapped = (items: unknown[]): Json => ({ items, count: items.length });
const mapValues = (record: unknown, f: (value: unknown) => unknown): Json => Object.fromEntries(Object.entries(asObject(record)).map(([k, v]) => [k, f(v)]));

const REPORT_STATUS: Record<'compact' | 'nested', Record<string, string>> = {
  compact: { ready: 'done', processing: 'working' },
  nested: { ready: 'completed', processing: 'pending' },
};
const statusWord = (dialect: 'compact' | 'nested', status: unknown) => (typeof status === 'string' ? (REPORT_STATUS[dialect][status] ?? status) : status);

// ─────────────────────────────── compact ───────────────────────────────

const compactParts = {
  scores(scores: unknown): Json {
    const { geo_score, seo_score, ai_visibility, ...rest } = asObject(scores);
    return { geo: numeric(geo_score), seo: numeric(seo_score), assistants: mapValues(ai_visibility, percent), ...rest };
  },
  recommendation(rec: unknown): Json {
    const { id, title, description, priority, category, impact, effort, detected_at, project_id, scan_id, ...rest } = asObject(rec);
    return {
      id: numeric(id),
      name: title,
      summary: description,
      priority,
      category,
      impact,
      effort,
      ...(detected_at === undefined ? {} : { since: monthOf(detected_at) }),
      ...(project_id === undefined ? {} : { project_id }),
      ...(scan_id === undefined ? {} : { scan_id }),
      ...rest,
    };
  },
  historyPoint(point: unknown): Json {
    const { date, geo_score, seo_score, ...rest } = asObject(point);
    return { month: monthOf(date), geo: numeric(geo_score), seo: numeric(seo_score), ...rest };
  },
  metrics(metrics: unknown): Json {
    return mapValues(metrics, (value) => {
      if (isObject(value) && typeof value['value'] === 'number') {
        const unit = value['unit'];
        return unit === '%' ? `${value['value']}%` : `${value['value']}${typeof unit === 'string' || typeof unit === 'number' ? unit : ''}`;
      }
      return typeof value === 'number' ? String(value) : value;
    });
  },
  trust(trust: unknown): Json {
    const { trust_score, review_platforms, ...rest } = asObject(trust);
    const platforms = Object.fromEntries(
      asList(review_platforms).map((platform) => {
        const { name, rating, reviews_count, url, ...other } = asObject(platform);
        return [String(name), { stars: numeric(rating), reviews: numeric(reviews_count), link: url, ...other }];
      }),
    );
    return { score: numeric(trust_score), platforms, ...rest };
  },
  snapshot(snapshot: unknown): Json | null {
    if (!isObject(snapshot)) return null;
    const { scan_id, date, geo_score, seo_score, trust_score, ai_visibility, ...rest } = snapshot;
    return {
      scan_id,
      month: monthOf(date),
      geo: numeric(geo_score),
      seo: numeric(seo_score),
      trust: numeric(trust_score),
      assistants: mapValues(ai_visibility, percent),
      ...rest,
    };
  },
  section(name: string, content: unknown): unknown {
    switch (name) {
      case 'scores':
        return compactParts.scores(content);
      case 'recommendations':
        return asList(content).map((item) => compactParts.recommendation(item));
      case 'history':
        return asList(content).map((item) => compactParts.historyPoint(item));
      case 'metrics':
        return compactParts.metrics(content);
      case 'trust':
        return compactParts.trust(content);
      default:
        return content;
    }
  },
  report(report: unknown): Json {
    const { id, project_id, format, status, created_at, include, sections, ...rest } = asObject(report);
    const out: Json = { id, project_id, format, status: statusWord('compact', status) };
    if (created_at !== undefined) out['created'] = dateOnly(created_at);
    if (include !== undefined) out['sections'] = include;
    for (const [name, content] of Object.entries(asObject(sections))) out[name] = compactParts.section(name, content);
    return { ...out, ...rest };
  },
  benchmark(benchmark: unknown): Json {
    const { geo_score, seo_score, sample_size, ...rest } = asObject(benchmark);
    const flat: Json = {};
    for (const [suffix, figures] of [
      ['geo', geo_score],
      ['seo', seo_score],
    ] as const) {
      const { average, median, p75, p90 } = asObject(figures);
      Object.assign(flat, {
        [`avg_${suffix}`]: numeric(average),
        [`median_${suffix}`]: numeric(median),
        [`p75_${suffix}`]: numeric(p75),
        [`p90_${suffix}`]: numeric(p90),
      });
    }
    return { ...flat, sites: numeric(sample_size), ...rest };
  },
  competitorRow(row: unknown): Json {
    const { project_id: _id, name, scores, percentile, vs_benchmark, ...rest } = asObject(row);
    const own = asObject(scores);
    const deltas = asObject(vs_benchmark);
    return {
      name,
      geo: numeric(own['geo_score']),
      seo: numeric(own['seo_score']),
      percentile: numeric(percentile),
      vs_benchmark: { geo: signed(deltas['geo_score']), seo: signed(deltas['seo_score']) },
      ...rest,
    };
  },
  rowsById(rows: unknown): Json {
    return Object.fromEntries(asList(rows).map((row) => [String(asObject(row)['project_id']), compactParts.competitorRow(row)]));
  },
  project(project: unknown): Json {
    const { id, name, domain, status, language, created_at, last_scan_at, ...rest } = asObject(project);
    return { id, name, site: domain, status, lang: language, created: dateOnly(created_at), last_scan: dateOnly(last_scan_at), ...rest };
  },
  scanSummary(scan: Json): Json {
    const { id, project_id, audit_id, status, trigger, question_type, created_at, geo_score, seo_score, completed_at, ...sections } = scan;
    return {
      id,
      project_id,
      audit_id,
      status: status === 'completed' ? 'done' : status,
      trigger,
      question_type,
      date: dateOnly(created_at),
      // The scan's own `geo` section owns the name `geo`, so the summary scores sit under `scores`.
      scores: { geo: numeric(geo_score), seo: numeric(seo_score) },
      ...(completed_at === undefined ? {} : { finished: completed_at }),
      ...sections,
    };
  },
  scanSection(name: string, content: unknown): unknown {
    if (!isObject(content)) return content;
    switch (name) {
      case 'geo': {
        const { geo_score, ai_visibility, positions, raw_responses, ...rest } = content;
        return {
          geo: numeric(geo_score),
          assistants: mapValues(ai_visibility, percent),
          ...compactAnswers(positions, raw_responses),
          ...rest,
        };
      }
      case 'seo_audit': {
        const { seo_score, lighthouse, steps, ...rest } = content;
        return { seo: numeric(seo_score), ...withLighthouse(lighthouse, steps, compactLighthouse), ...rest };
      }
      case 'trust':
        return compactParts.trust(content);
      case 'metrics':
        return compactParts.metrics(content);
      default:
        return content;
    }
  },
  webhook(record: unknown): Json {
    const { id, name, url, events, created_at, active, ...rest } = asObject(record);
    return { id, name, url, events, ...rest, created: created_at, ...(active === undefined ? {} : { enabled: active }) };
  },
};

const COMPACT_ANALYSIS_STATUS: Record<string, string> = { queued: 'pending', running: 'running', completed: 'done', failed: 'failed' };

const compactEndpoints: Record<string, (data: Json, answer: ClassicAnswer) => unknown> = {
  'projects.php': (data) => {
    if (data['project'] !== undefined) return compactParts.project(data['project']);
    return { ...data, projects: asList(data['projects']).map((item) => compactParts.project(item)) };
  },
  'analyze.php': (data) => {
    const { id, project_id, question_type, created_at, status, progress, scan_id, error, finished_at, ...rest } = asObject(data['analysis']);
    return {
      id,
      project_id,
      type: question_type,
      status: typeof status === 'string' ? (COMPACT_ANALYSIS_STATUS[status] ?? status) : status,
      progress: percent(progress),
      scan_id,
      error,
      created: created_at,
      ...(finished_at === undefined ? {} : { finished: finished_at }),
      ...rest,
    };
  },
  'scores.php': (data) => {
    if (data['scan_id'] !== undefined) {
      return { project_id: data['project_id'], ...compactParts.snapshot(data['scores']) };
    }
    return {
      project_id: data['project_id'],
      current: compactParts.snapshot(data['latest']),
      history: asList(data['history']).map((item) => compactParts.snapshot(item)),
    };
  },
  'recommendations.php': (data) => {
    const list = asList(data['recommendations']).map((item) => compactParts.recommendation(item));
    return { recommendations: list, count: list.length };
  },
  'scans.php': (data) => {
    if (data['scan'] !== undefined) {
      const summary = compactParts.scanSummary(asObject(data['scan']));
      return Object.fromEntries(Object.entries(summary).map(([name, content]) => [name, compactParts.scanSection(name, content)]));
    }
    const list = asList(data['scans']).map((scan) => compactParts.scanSummary(asObject(scan)));
    return { scans: list, count: list.length };
  },
  'competitors.php': (data) => {
    if (data['other_projects'] === undefined)
      return { benchmark: compactParts.benchmark(data['benchmark']), projects: compactParts.rowsById(data['projects']) };
    const { benchmark, other_projects, project_id, ...row } = data;
    return { project_id, ...compactParts.competitorRow(row), benchmark: compactParts.benchmark(benchmark), others: compactParts.rowsById(other_projects) };
  },
  'stats.php': (data) => {
    const { projects_count, projects_by_status, scans_count, average_score, top_projects, evolution, ...rest } = data;
    return {
      project_count: numeric(projects_count),
      by_status: mapValues(projects_by_status, numeric),
      scan_count: numeric(scans_count),
      avg_geo: numeric(average_score),
      top: asList(top_projects).map((entry) => {
        const { project_id, name, geo_score } = asObject(entry);
        return { project_id, name, geo: numeric(geo_score) };
      }),
      evolution: asList(evolution).map((entry) => {
        const { month, average_score: avg, scans } = asObject(entry);
        return { month, avg_geo: numeric(avg), scans: numeric(scans) };
      }),
      ...rest,
    };
  },
  'webhooks.php': (data) => {
    if (data['webhook'] !== undefined) return compactParts.webhook(data['webhook']);
    if (data['webhooks'] !== undefined) {
      const list = asList(data['webhooks']).map((item) => compactParts.webhook(item));
      return { webhooks: list, count: list.length };
    }
    const statusCode = asNumber(data['status_code']);
    return { webhook_id: data['webhook_id'], ok: data['delivered'], http_status: statusCode === null ? null : String(statusCode) };
  },
  'reports.php': (data) => {
    if (data['report'] !== undefined) return compactParts.report(data['report']);
    const list = asList(data['reports']).map((item) => compactParts.report(item));
    return { reports: list, count: list.length };
  },
};

export const compactDialect: Dialect = {
  name: 'compact',
  data(answer) {
    const transform = compactEndpoints[answer.endpoint];
    return transform && isObject(answer.data) ? transform(answer.data, answer) : answer.data;
  },
  error: ({ code, message }) => ({ error: message, error_code: code }),
};

// ─────────────────────────────── nested ───────────────────────────────

const NESTED_UNITS: Record<string, string> = { '%': 'percent' };
const NESTED_ANALYSIS_STATUS: Record<string, string> = { queued: 'queued', running: 'in_progress', completed: 'completed', failed: 'failed' };

function nestedProject(id: unknown, answer: ClassicAnswer): Json {
  return { id, name: typeof id === 'number' ? answer.projectName(id) : null };
}

const nestedParts = {
  byAssistant(visibility: unknown): Json {
    return wrapped(Object.entries(asObject(visibility)).map(([assistant, value]) => ({ assistant, visibility: value })));
  },
  scores(scores: unknown): Json {
    const { geo_score, seo_score, ai_visibility, ...rest } = asObject(scores);
    return { ai_visibility_score: geo_score, seo_score, visibility_by_assistant: nestedParts.byAssistant(ai_visibility), ...rest };
  },
  recommendation(rec: unknown, answer: ClassicAnswer): Json {
    const { id, title, description, priority, category, impact, effort, detected_at, project_id, scan_id, ...rest } = asObject(rec);
    return {
      id,
      label: title,
      details: description,
      priority,
      category,
      estimate: { impact, effort },
      ...(detected_at === undefined ? {} : { detected_at: offsetTimestamp(detected_at) }),
      ...(project_id === undefined ? {} : { project: nestedProject(project_id, answer) }),
      ...(scan_id === undefined ? {} : { scan: scan_id === null ? null : { id: scan_id } }),
      ...rest,
    };
  },
  historyPoint(point: unknown): Json {
    const { date, geo_score, seo_score, ...rest } = asObject(point);
    return { measured_at: offsetTimestamp(date), scores: { ai_visibility_score: geo_score, seo_score }, ...rest };
  },
  metrics(metrics: unknown): Json {
    const { month, ...named } = asObject(metrics);
    const items = Object.entries(named).map(([metric, value]) => {
      if (isObject(value) && 'value' in value) {
        const unit = typeof value['unit'] === 'string' ? (NESTED_UNITS[value['unit']] ?? value['unit']) : value['unit'];
        return { metric, value: value['value'], unit };
      }
      return { metric, value };
    });
    return { ...(month === undefined ? {} : { period: offsetTimestamp(month) }), ...wrapped(items) };
  },
  trust(trust: unknown): Json {
    const { trust_score, review_platforms, ...rest } = asObject(trust);
    const sites = asList(review_platforms).map((platform) => {
      const { name, rating, reviews_count, url, ...other } = asObject(platform);
      return { platform: { name, url }, rating: { value: rating, scale: 5 }, review_count: reviews_count, ...other };
    });
    return { trust_score, review_sites: wrapped(sites), ...rest };
  },
  snapshot(snapshot: unknown): Json | null {
    if (!isObject(snapshot)) return null;
    const { scan_id, date, geo_score, seo_score, trust_score, ai_visibility, ...rest } = snapshot;
    return {
      scan: { id: scan_id },
      measured_at: offsetTimestamp(date),
      scores: { ai_visibility_score: geo_score, seo_score, trust_score },
      visibility_by_assistant: nestedParts.byAssistant(ai_visibility),
      ...rest,
    };
  },
  section(name: string, content: unknown, answer: ClassicAnswer): unknown {
    switch (name) {
      case 'scores':
        return nestedParts.scores(content);
      case 'recommendations':
        return wrapped(asList(content).map((rec) => nestedParts.recommendation(rec, answer)));
      case 'history':
        return wrapped(asList(content).map((item) => nestedParts.historyPoint(item)));
      case 'metrics':
        return nestedParts.metrics(content);
      case 'trust':
        return nestedParts.trust(content);
      default:
        return content;
    }
  },
  report(report: unknown, answer: ClassicAnswer): Json {
    const { id, project_id, format, status, created_at, include, sections, ...rest } = asObject(report);
    const out: Json = { id, status: statusWord('nested', status) };
    if (project_id !== undefined) out['project'] = nestedProject(project_id, answer);
    if (format !== undefined) out['format'] = format;
    if (created_at !== undefined) out['generated_at'] = offsetTimestamp(created_at);
    if (include !== undefined) out['requested_sections'] = include;
    if (sections !== undefined)
      out['content'] = Object.fromEntries(Object.entries(asObject(sections)).map(([name, content]) => [name, nestedParts.section(name, content, answer)]));
    return { ...out, ...rest };
  },
  benchmark(benchmark: unknown): Json {
    const { geo_score, seo_score, sample_size, ...rest } = asObject(benchmark);
    const perScore = (figures: unknown) => {
      const { average, ...others } = asObject(figures);
      return { mean: average, ...others };
    };
    return { ai_visibility_score: perScore(geo_score), seo_score: perScore(seo_score), sample_size, ...rest };
  },
  competitorRow(row: unknown): Json {
    const { project_id, name, scores, percentile, vs_benchmark, ...rest } = asObject(row);
    const own = asObject(scores);
    const deltas = asObject(vs_benchmark);
    return {
      project: { id: project_id, name },
      scores: { ai_visibility_score: own['geo_score'], seo_score: own['seo_score'] },
      comparison: { percentile_rank: percentile, vs_benchmark: { ai_visibility_score: deltas['geo_score'], seo_score: deltas['seo_score'] } },
      ...rest,
    };
  },
  projectRow(project: unknown): Json {
    const { id, name, domain, status, language, created_at, last_scan_at, ...rest } = asObject(project);
    return {
      id,
      title: name,
      status,
      website: { domain },
      locale: language,
      timestamps: { created_at: offsetTimestamp(created_at), last_scan_at: offsetTimestamp(last_scan_at) },
      ...rest,
    };
  },
  scanSummary(scan: Json): Json {
    const { id, project_id, audit_id, status, trigger, question_type, created_at, geo_score, seo_score, completed_at, ...sections } = scan;
    const out: Json = {
      id,
      project_id,
      audit_id,
      state: status,
      trigger,
      question_type,
      started_at: offsetTimestamp(created_at),
      results: { ai_visibility_score: geo_score, seo_score },
    };
    if (completed_at !== undefined) out['finished_at'] = offsetTimestamp(completed_at);
    if (Object.keys(sections).length > 0)
      out['sections'] = Object.fromEntries(Object.entries(sections).map(([name, content]) => [name, nestedParts.scanSection(name, content)]));
    return out;
  },
  scanSection(name: string, content: unknown): unknown {
    if (!isObject(content)) return content;
    switch (name) {
      case 'geo': {
        const { geo_score, ai_visibility, positions, ...rest } = content;
        return {
          ai_visibility_score: geo_score,
          visibility_by_assistant: nestedParts.byAssistant(ai_visibility),
          ...(positions === undefined ? {} : { positions: nestedPositions(positions) }),
          ...rest,
        };
      }
      case 'seo_audit': {
        const { seo_score, lighthouse, steps, ...rest } = content;
        return { score: seo_score, ...withLighthouse(lighthouse, steps, nestedLighthouse), ...rest };
      }
      case 'trust':
        return nestedParts.trust(content);
      case 'metrics':
        return nestedParts.metrics(content);
      default:
        return content;
    }
  },
  webhook(record: unknown): Json {
    const { id, name, url, events, secret, created_at, active, ...rest } = asObject(record);
    return {
      id,
      name,
      url,
      events,
      ...(secret === undefined ? {} : { signing_secret: secret }),
      timestamps: { created_at: offsetTimestamp(created_at) },
      ...(active === undefined ? {} : { enabled: active }),
      ...rest,
    };
  },
};

const nestedEndpoints: Record<string, (data: Json, answer: ClassicAnswer) => unknown> = {
  'projects.php': (data) => {
    if (data['project'] !== undefined) return { project: nestedParts.projectRow(data['project']) };
    const { projects, total, limit, offset, ...rest } = data;
    return { projects: asList(projects).map((item) => nestedParts.projectRow(item)), total, page: { limit, offset }, ...rest };
  },
  'analyze.php': (data, answer) => {
    const { id, project_id, question_type, created_at, status, progress, scan_id, error, finished_at, ...rest } = asObject(data['analysis']);
    return {
      analysis: {
        id,
        project: nestedProject(project_id, answer),
        question_type,
        state: { code: typeof status === 'string' ? (NESTED_ANALYSIS_STATUS[status] ?? status) : status, progress: { value: progress, unit: 'percent' } },
        scan: scan_id === null || scan_id === undefined ? null : { id: scan_id },
        error: typeof error === 'string' ? { message: error } : null,
        timestamps: { created_at: offsetTimestamp(created_at), finished_at: offsetTimestamp(finished_at) },
        ...rest,
      },
    };
  },
  'scores.php': (data, answer) => {
    if (data['scan_id'] !== undefined) {
      return { scan: { id: data['scan_id'] }, project: nestedProject(data['project_id'], answer), result: nestedParts.snapshot(data['scores']) };
    }
    return {
      project: nestedProject(data['project_id'], answer),
      latest_result: nestedParts.snapshot(data['latest']),
      history: wrapped(asList(data['history']).map((item) => nestedParts.snapshot(item))),
    };
  },
  'recommendations.php': (data, answer) => ({
    recommendations: wrapped(asList(data['recommendations']).map((rec) => nestedParts.recommendation(rec, answer))),
  }),
  'scans.php': (data) => {
    if (data['scan'] !== undefined) return { scan: nestedParts.scanSummary(asObject(data['scan'])) };
    return { scans: wrapped(asList(data['scans']).map((scan) => nestedParts.scanSummary(asObject(scan)))) };
  },
  'competitors.php': (data) => {
    if (data['other_projects'] === undefined) {
      return {
        global_benchmark: nestedParts.benchmark(data['benchmark']),
        projects: wrapped(asList(data['projects']).map((row) => nestedParts.competitorRow(row))),
      };
    }
    const { benchmark, other_projects, ...row } = data;
    return {
      ...nestedParts.competitorRow(row),
      global_benchmark: nestedParts.benchmark(benchmark),
      other_projects: wrapped(asList(other_projects).map((other) => nestedParts.competitorRow(other))),
    };
  },
  'stats.php': (data) => {
    const { projects_count, projects_by_status, scans_count, average_score, top_projects, evolution, ...rest } = data;
    return {
      totals: {
        projects: { count: projects_count, by_status: Object.entries(asObject(projects_by_status)).map(([status, count]) => ({ status, count })) },
        scans: { count: scans_count },
      },
      ai_visibility_score: { mean: average_score },
      top_projects: wrapped(
        asList(top_projects).map((entry, index) => {
          const { project_id, name, geo_score } = asObject(entry);
          return { rank: index + 1, project: { id: project_id, name }, ai_visibility_score: geo_score };
        }),
      ),
      evolution: wrapped(
        asList(evolution).map((entry) => {
          const { month, average_score: mean, scans } = asObject(entry);
          return { period: offsetTimestamp(month), ai_visibility_score: { mean }, scan_count: scans };
        }),
      ),
      ...rest,
    };
  },
  'webhooks.php': (data) => {
    if (data['webhook'] !== undefined) return { webhook: nestedParts.webhook(data['webhook']) };
    if (data['webhooks'] !== undefined) return { webhooks: wrapped(asList(data['webhooks']).map((item) => nestedParts.webhook(item))) };
    return { test: { webhook: { id: data['webhook_id'] }, delivery: { delivered: data['delivered'], response_status: data['status_code'] } } };
  },
  'reports.php': (data, answer) => {
    if (data['report'] !== undefined) return { report: nestedParts.report(data['report'], answer) };
    return { reports: wrapped(asList(data['reports']).map((report) => nestedParts.report(report, answer))) };
  },
};

export const nestedDialect: Dialect = {
  name: 'nested',
  data(answer) {
    const transform = nestedEndpoints[answer.endpoint];
    return transform && isObject(answer.data) ? transform(answer.data, answer) : answer.data;
  },
  error: ({ code, message }) => ({ errors: [{ code, detail: message }] }),
};

// ─────────────────────────────── selection ───────────────────────────────

export const classicDialect: Dialect = { name: 'classic', data: (answer) => answer.data };

// ─────────────────────────────── strict ───────────────────────────────

/** The values the spec names for each parameter that has a closed list (seo_steps: the two it shows). */
const SPEC_VALUES: Record<string, readonly string[]> = {
  seo_steps: ['step3_serp', 'step6_report'],
  include: [...SCAN_SECTIONS, 'all'],
  exclude: SCAN_SECTIONS,
  status: PROJECT_STATUSES,
  priority: PRIORITIES,
  category: CATEGORIES,
  question_type: QUESTION_TYPES,
  format: ['json'],
};
const SPEC_REPORT_INCLUDE: readonly string[] = REPORT_SECTIONS;

const ID_KEYS = new Set(['id', 'project_id', 'audit_id', 'scan_id', 'question_id']);
/** Every id of a value as a string, at any depth. */
function idsAsStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(idsAsStrings);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ID_KEYS.has(k) && typeof v === 'number' ? String(v) : idsAsStrings(v)]));
}

/** The values of `raw` (a comma list, or a JSON array) the spec does not name for `parameter`. */
function unnamedValues(raw: unknown, named: readonly string[]): string[] {
  const values = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : [];
  return values.filter((v) => v !== '' && !named.includes(v));
}

const strictParts = {
  scanSummary(scan: Json): Json {
    const { id, project_id, audit_id, status, created_at, completed_at, trigger, question_type, geo_score, seo_score, ...sections } = scan;
    const out: Json = {
      id,
      project_id,
      audit_id,
      state: typeof status === 'string' ? status.toUpperCase() : status,
      performed_at: offsetTimestamp(completed_at ?? created_at),
      trigger,
      question_type,
      scores: { geo: geo_score, seo: seo_score },
    };
    if (Object.keys(sections).length > 0)
      out['result'] = Object.fromEntries(Object.entries(sections).map(([name, content]) => [name, name === 'geo' ? strictGeo(content) : content]));
    return out;
  },
};

/** geo: each prompt with its engines' answers nested in it, flags and ranks as text. */
function strictGeo(content: unknown): unknown {
  if (!isObject(content)) return content;
  const { questions, positions, raw_responses, ...rest } = content;
  const prompts = asList(questions).map((question) => {
    const { id, question: text, ...other } = asObject(question);
    const engines: Json = {};
    for (const row of asList(positions)) {
      const { question_id, ai, mentioned, position } = asObject(row);
      if (question_id !== id) continue;
      const answer = asList(raw_responses)
        .map(asObject)
        .find((r) => r['question_id'] === id && r['ai'] === ai);
      engines[String(ai)] = {
        cited: mentioned === true ? 'true' : 'false',
        rank: numeric(position),
        ...(answer === undefined ? {} : { answer_text: answer['response'] }),
      };
    }
    return { prompt_id: id, prompt: text, engines, ...other };
  });
  return { ...rest, prompts };
}

export const strictDialect: Dialect = {
  name: 'strict',
  refuse({ endpoint, query, body }) {
    const bodyRecord = asObject(body);
    const problems: string[] = [];
    for (const [parameter, named] of Object.entries(SPEC_VALUES)) {
      // reports.php's `include` is the report's sections, in the body.
      const raw = endpoint === 'reports.php' && parameter === 'include' ? undefined : (query[parameter] ?? bodyRecord[parameter]);
      if (raw === undefined) continue;
      const unknown = unnamedValues(raw, named);
      if (unknown.length > 0) problems.push(`unknown ${parameter}: ${unknown.join(', ')}`);
    }
    if (endpoint === 'reports.php' && bodyRecord['include'] !== undefined) {
      const unknown = unnamedValues(bodyRecord['include'], SPEC_REPORT_INCLUDE);
      if (unknown.length > 0) problems.push(`unknown include: ${unknown.join(', ')}`);
    }
    return problems.length === 0 ? null : problems.join('; ');
  },
  data(answer) {
    if (!isObject(answer.data)) return answer.data;
    if (answer.endpoint === 'scans.php') {
      const data = answer.data;
      if (data['scan'] !== undefined) return idsAsStrings({ scan: strictParts.scanSummary(asObject(data['scan'])) });
      return idsAsStrings({ ...data, scans: asList(data['scans']).map((scan) => strictParts.scanSummary(asObject(scan))) });
    }
    return answer.endpoint === 'projects.php' ? idsAsStrings(answer.data) : answer.data;
  },
};

const BUILT_IN: Record<string, Dialect> = { classic: classicDialect, compact: compactDialect, nested: nestedDialect, strict: strictDialect };

export function isDialectName(name: string): name is DialectName {
  return (DIALECT_NAMES as readonly string[]).includes(name) && BUILT_IN[name] !== undefined;
}

/** The dialect an option names; throws for an unknown name. */
export function resolveDialect(option: DialectOption | undefined): Dialect {
  if (option === undefined) return classicDialect;
  if (typeof option === 'function') return { name: 'custom', data: option };
  if (typeof option === 'string') {
    const dialect = BUILT_IN[option];
    if (!dialect) throw new Error(`Unknown simulator dialect "${option}"; known: ${DIALECT_NAMES.join(', ')}.`);
    return dialect;
  }
  return option;
}

/** The error members of a dialect's error body. */
export function dialectErrorMembers(dialect: Dialect, failure: ClassicError): Record<string, unknown> {
  return dialect.error ? dialect.error(failure) : { error: { code: failure.code, message: failure.message } };
}

/** The audit's Lighthouse (and its step's copy) reshaped; absent keys stay absent. */
function withLighthouse(lighthouse: unknown, steps: unknown, reshape: (value: Json) => Json): Json {
  const out: Json = {};
  if (isObject(lighthouse)) out['lighthouse'] = reshape(lighthouse);
  if (isObject(steps)) {
    out['steps'] = Object.fromEntries(
      Object.entries(steps).map(([name, step]) => {
        if (!isObject(step) || !isObject(step['lighthouse'])) return [name, step];
        return [name, { ...step, lighthouse: reshape(step['lighthouse']) }];
      }),
    );
  } else if (steps !== undefined) out['steps'] = steps;
  return out;
}

/** compact: short names, numbers as strings, LCP in seconds. */
function compactLighthouse(value: Json): Json {
  const { performance, accessibility, best_practices, seo, core_web_vitals, ...rest } = value;
  const vitals = isObject(core_web_vitals) ? core_web_vitals : {};
  const lcp = typeof vitals['lcp_ms'] === 'number' ? String(vitals['lcp_ms'] / 1000) : undefined;
  return {
    perf: numeric(performance),
    a11y: numeric(accessibility),
    best_practices: numeric(best_practices),
    seo: numeric(seo),
    cwv: { lcp, inp: numeric(vitals['inp_ms']), cls: numeric(vitals['cls']) },
    ...rest,
  };
}

/** nested: Lighthouse's own layout, scores as 0–1 under categories, metrics as { value, unit }. */
function nestedLighthouse(value: Json): Json {
  const { performance, accessibility, best_practices, seo, core_web_vitals, ...rest } = value;
  const vitals = isObject(core_web_vitals) ? core_web_vitals : {};
  const fraction = (score: unknown) => ({ score: typeof score === 'number' ? score / 100 : score });
  return {
    categories: { performance: fraction(performance), accessibility: fraction(accessibility), 'best-practices': fraction(best_practices), seo: fraction(seo) },
    metrics: {
      largest_contentful_paint: { value: vitals['lcp_ms'], unit: 'ms' },
      interaction_to_next_paint: { value: vitals['inp_ms'], unit: 'ms' },
      cumulative_layout_shift: { value: vitals['cls'], unit: 'unitless' },
    },
    ...rest,
  };
}

/** nested: each answer's competitors as a wrapped list of records, { items: [{ name }], count }. */
function nestedPositions(positions: unknown): unknown {
  if (!Array.isArray(positions)) return positions;
  return (positions as unknown[]).map((row) => {
    if (!isObject(row) || !Array.isArray(row['competitors'])) return row;
    const names = row['competitors'] as unknown[];
    return { ...row, competitors: { items: names.map((name) => ({ name })), count: names.length } };
  });
}

/** compact: mentions as a map by assistant with flags and positions as text; answers under `responses`. */
function compactAnswers(positions: unknown, responses: unknown): Json {
  const out: Json = {};
  if (Array.isArray(positions)) {
    const byAssistant: Record<string, Json[]> = {};
    for (const row of positions as unknown[]) {
      if (!isObject(row)) continue;
      const { ai, question_id, mentioned, position, competitors } = row;
      (byAssistant[String(ai)] ??= []).push({
        question_id,
        mentioned: mentioned === true ? 'yes' : 'no',
        position: numeric(position),
        // The competitors named as one text, "a.example, b.example".
        ...(Array.isArray(competitors) ? { competitors: (competitors as unknown[]).join(', ') } : {}),
      });
    }
    out['positions'] = byAssistant;
  } else if (positions !== undefined) out['positions'] = positions;
  if (Array.isArray(responses)) {
    out['responses'] = (responses as unknown[]).map((row) => {
      if (!isObject(row)) return row;
      const { ai, response, ...rest } = row;
      return { assistant: ai, answer: response, ...rest };
    });
  } else if (responses !== undefined) out['raw_responses'] = responses;
  return out;
}
