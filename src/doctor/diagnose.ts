// `geo-reports doctor`: a few requests to the live API, read by the same readers as the batch, and for every
// value the product uses, where it was found or that it was not; every key nothing reads, with a sample.
import type { ApiClient } from '../api/client.js';
import { ApiError, AuthenticationError, TokensSpentError } from '../api/errors.js';
import type { Project } from '../api/schemas.js';
import { pause } from '../pause.js';
import { DOCTOR_MAX_REQUESTS } from './budget.js';
import { latestScan } from '../sections/scan.js';
import { ScanAsk } from '../sections/scan-ask.js';
import { REPORT_SECTIONS } from '../spec/vocabulary.js';
import { readCompetitors, readStats } from '../content/competitors.js';
import { FIELD_NAMES, FIELDS, type FieldMap, type FieldName } from '../content/fields.js';
import { Reading } from '../content/reading.js';
import { answerAsKept, readReport, type ReportContent } from '../content/report.js';
import { errorMessage } from '../errors.js';
import { knowsField } from '../i18n/format.js';
import { isEmptyValue } from '../report/key-values.js';
import { FALLBACK_LANGUAGE, loadPhrases, type Phrases } from '../i18n/locales.js';

export { DOCTOR_MAX_REQUESTS } from './budget.js';
/** Of the budget, what the scan sections take: the project's scans listed, the latest read. */
const SCAN_REQUESTS = 2;
const FIRST_READ_MS = 1_000;
const MAX_READ_MS = 8_000;

export type AnswerName = 'projects' | 'competitors' | 'stats' | 'report';

export interface FieldFinding {
  field: FieldName;
  label: string;
  source: string;
  /** Path where it was found (from the answer's `data`, or from the item for item fields); null when not found. */
  path: string | null;
}

export interface Diagnosis {
  project: { id: number; name: string | null } | null;
  reportId: number | null;
  reportStatus: string | null;
  findings: FieldFinding[];
  /** Keys of each answer that nothing reads, with a short sample of their value. */
  unread: Array<{ answer: AnswerName; path: string; sample: string }>;
  /** Keys of the report's unread data that no locale names: the report shows them as the API names them. */
  unnamed: string[];
  notes: string[];
  /** The answers' `data`, as sent (for --save). */
  answers: Partial<Record<AnswerName, unknown>>;
  requests: number;
  /** The project list and one report with a GEO score were read. */
  essentialsRead: boolean;
  /** What stopped the diagnosis early, when something did. */
  problems: string[];
  /** Each scan section (src/sections): whether the project's latest scan has its input; null when no scan was read. */
  sections: Array<{ name: string; needs: string; scanId: number | null; found: boolean | null; where: string | null }>;
  /** How the service took `seo_steps` on the scan read: taken, refused (and read without it), or not asked. */
  seoSteps: string;
}

export interface DiagnoseOptions {
  client: ApiClient;
  fields: FieldMap;
  /** Project whose report is read. @default the first active project, else the first one */
  projectId?: number;
  /** Waits between two reads of a report that is not ready yet. @default pause (a timer) */
  sleep?: (ms: number) => Promise<void>;
}

export async function diagnose(options: DiagnoseOptions): Promise<Diagnosis> {
  const { client, fields } = options;
  const sleep = options.sleep ?? pause;
  let requests = 0;
  const counted = async <T>(call: () => Promise<T>): Promise<T> => {
    requests += 1;
    return call();
  };
  const problems: string[] = [];
  const answers: Diagnosis['answers'] = {};

  const list = await counted(() => client.listProjects({ limit: 100 }));
  answers.projects = list;
  const project = pickProject(list.projects, options.projectId);
  if (options.projectId !== undefined && project === null) {
    problems.push(`Project ${options.projectId} is not on the first page of the project list; it is read anyway.`);
  }
  const projectId = options.projectId ?? project?.id ?? null;

  const competitorsReading = new Reading(fields);
  const statsReading = new Reading(fields);
  const reportReading = new Reading(fields);
  const [competitors, stats] = await Promise.all([
    counted(() => client.getCompetitors()).catch((error: unknown) => failed('competitors', error)),
    counted(() => client.getStats()).catch((error: unknown) => failed('stats', error)),
  ]);
  if (competitors !== null) {
    answers.competitors = competitors;
    readCompetitors(competitors, fields, competitorsReading);
  }
  if (stats !== null) {
    answers.stats = stats;
    readStats(stats, fields, statsReading);
  }

  let content: ReportContent | null = null;
  if (projectId === null) {
    problems.push('The account has no project: no report could be read.');
  } else {
    let answer: unknown = await counted(() => client.createReport({ projectId, include: [...REPORT_SECTIONS], format: 'json' }));
    content = readReport(answer, fields, new Reading(fields));
    let delay = FIRST_READ_MS;
    // Read back until it has content, a status saying it failed, or the budget is spent.
    while (content.id !== null && content.present.length === 0 && content.state !== 'failed' && requests < DOCTOR_MAX_REQUESTS - SCAN_REQUESTS) {
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_READ_MS);
      const id = content.id;
      answer = await counted(() => client.getReport(id, { projectId }));
      content = readReport(answer, fields, new Reading(fields));
    }
    content = readReport(answer, fields, reportReading);
    answers.report = answerAsKept(answer, content);
    if (content.present.length === 0) {
      problems.push(
        `Report ${content.id ?? '(no id)'} of project ${projectId} carried none of the sections (status "${content.status ?? 'none'}"; keys: ${content.keys.join(', ') || 'none'}).`,
      );
    }
  }

  // The scan sections: the latest scan, read with every section's needs, and whether each finds its input there.
  let scan: { id: number; data: Record<string, unknown> } | null = null;
  const scanAsk = new ScanAsk();
  // Loaded here, not at start-up: `doctor --help` loads no schema.
  const { SECTIONS } = await import('../sections/index.js');
  if (projectId !== null && SECTIONS.length > 0) {
    const scans = await counted(() => client.listScans(projectId)).catch((error: unknown) => failed('scans', error));
    const latest = scans === null ? null : latestScan(scans.scans);
    if (scans !== null && latest === null) problems.push(`Project ${projectId} has no completed scan: the scan sections cannot be checked.`);
    if (latest !== null) {
      // Asked as the batch asks: `seo_steps` unless the service refuses it, then once more without it.
      const asked = await scanAsk
        .read(
          SECTIONS,
          (options) => counted(() => client.getScanData({ id: latest.id }, options)),
          () => true,
        )
        .catch((error: unknown) => failed(`scan ${latest.id}`, error));
      if (asked !== null) scan = { id: latest.id, data: asked.data };
    }
  }
  const sections = SECTIONS.map((section) => ({
    name: section.name,
    needs: [...section.needs.scan, ...section.needs.seoSteps].join(', '),
    scanId: scan?.id ?? null,
    found: scan === null ? null : section.readable(scan.data),
    where: scan === null ? null : section.locate(scan.data),
  }));

  const readings: Record<'report' | 'competitors' | 'stats', Reading> = {
    report: reportReading,
    competitors: competitorsReading,
    stats: statsReading,
  };
  const findings = FIELD_NAMES.map((field): FieldFinding => {
    const spec = FIELDS[field];
    const reading = readings[spec.source.startsWith('report') ? 'report' : spec.source.startsWith('competitors') ? 'competitors' : 'stats'];
    return { field, label: spec.label, source: spec.source, path: reading.found.get(field) ?? null };
  });
  const unread: Diagnosis['unread'] = [];
  for (const [name, reading] of [
    ['report', reportReading],
    ['competitors', competitorsReading],
    ['stats', statsReading],
  ] as const) {
    if (answers[name] === undefined) continue;
    for (const { path, value } of reading.unread(answers[name], '')) unread.push({ answer: name, path, sample: sample(value) });
  }
  const unnamed = content === null ? [] : unnamedKeys(content, loadPhrases(FALLBACK_LANGUAGE));
  return {
    project: projectId === null ? null : { id: projectId, name: project?.name ?? null },
    reportId: content?.id ?? null,
    reportStatus: content?.status ?? null,
    findings,
    unread,
    unnamed,
    notes: [...reportReading.notes, ...competitorsReading.notes, ...statsReading.notes],
    answers,
    requests,
    essentialsRead: content?.scores?.geo != null,
    problems,
    sections,
    seoSteps: scanAsk.describe(),
  };

  function failed(what: string, error: unknown): null {
    // Quota and authentication end the diagnosis like any command; other failures are findings.
    if (isFatal(error)) throw error;
    problems.push(`${what}: ${errorMessage(error)}`);
    return null;
  }
}

function isFatal(error: unknown): boolean {
  return error instanceof TokensSpentError || error instanceof AuthenticationError || (error instanceof ApiError && error.call.status === 429);
}

function pickProject(projects: Project[], wanted: number | undefined): Project | null {
  if (wanted !== undefined) return projects.find((p) => p.id === wanted) ?? null;
  return projects.find((p) => p.status === 'active') ?? projects[0] ?? null;
}

/**
 * The keys the report shows (metrics, other data, the extra fields of items, at any depth, with a value) that the
 * phrases give no label: sorted, once each. List positions are not keys.
 */
function unnamedKeys(content: ReportContent, phrases: Phrases): string[] {
  const found = new Set<string>();
  const visit = (key: string | null, value: unknown): void => {
    // An empty value gets no row on the report: its key is shown nowhere.
    if (isEmptyValue(value)) return;
    if (key !== null && !knowsField(phrases, key)) found.add(key);
    if (Array.isArray(value)) for (const item of value) visit(null, item);
    // `{ value, unit }` is shown as one figure ("92.5%"): its two keys are no labels.
    else if (value !== null && typeof value === 'object' && !isFigure(value)) for (const [inner, v] of Object.entries(value)) visit(inner, v);
  };
  for (const { key, value } of content.other) visit(key, value);
  for (const metric of content.metrics ?? []) {
    visit(metric.key, metric.structure);
    visit(null, metric.extra);
  }
  visit(null, content.trust?.extra);
  for (const platform of content.trust?.platforms ?? []) visit(null, platform.extra);
  for (const rec of content.recommendations ?? []) visit(null, rec.extra);
  return [...found].sort();
}

function isFigure(value: object): boolean {
  const keys = Object.keys(value).sort();
  return keys.length === 2 && keys[0] === 'unit' && keys[1] === 'value';
}

/** A value in at most 60 characters, for a table. */
function sample(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- JSON.stringify gives undefined for undefined, a function or a symbol; its type leaves that out
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** The `api.fields` block that makes every found value explicit (paths this API uses). */
export function fieldMapOf(diagnosis: Diagnosis): Partial<Record<FieldName, string[]>> {
  const map: Partial<Record<FieldName, string[]>> = {};
  for (const finding of diagnosis.findings) {
    // A value read from a map key (`{ chatgpt: 76 }`) has no path of its own to write down.
    if (finding.path !== null && !/[\s()]/.test(finding.path)) map[finding.field] = [finding.path];
  }
  return map;
}
