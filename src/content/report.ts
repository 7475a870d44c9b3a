// Reads a report answer (`data` of reports.php), wherever a faithful server put its sections and values.
// The spec names the report's `id`, `format` and the five section names; everything inside is "not shown".
import { REPORT_SECTIONS, REPORT_STATUS_WORDS, type ReportSection } from '../spec/vocabulary.js';
import type { FieldMap } from './fields.js';
import { joinPath, normaliseKey, parseText } from '../spec/find.js';
import { deepPlaces, isWithin, MAX_CONTENT_DEPTH, withoutPaths } from './depth.js';
import { Reading, type Located } from './reading.js';
import { findSection, otherData, readProjectId, readReportId, reportObject, sectionContainer } from './report-placement.js';
import { readMetrics, type MetricContent } from './report-metrics.js';
import { readRecommendations, type RecommendationContent } from './report-recommendations.js';
import { readHistory, readScores, type HistoryContent, type ScoresContent } from './report-scores.js';
import { readTrust, type TrustContent } from './report-trust.js';

export { MAP_KEY } from './reading.js';
export { unitText, type MetricContent } from './report-metrics.js';
export { readRecommendation, type RecommendationContent } from './report-recommendations.js';
export type { AiVisibilityValue, HistoryContent, ScoresContent } from './report-scores.js';
export type { PlatformContent, TrustContent } from './report-trust.js';

export type ReportState = 'finished' | 'building' | 'failed' | 'unknown';

export interface ReportContent {
  /** The report's id (spec-named), when the answer carries one. */
  id: number | null;
  projectId: number | null;
  /** The status word as sent, and what it says. */
  status: string | null;
  state: ReportState;
  /** Sections the answer carries, by their spec name. */
  present: ReportSection[];
  scores: ScoresContent | null;
  history: HistoryContent[] | null;
  metrics: MetricContent[] | null;
  trust: TrustContent | null;
  recommendations: RecommendationContent[] | null;
  /** Sections and keys nothing reads, shown as "other data" so nothing is dropped. */
  other: Array<{ key: string; value: unknown }>;
  /** Top-level keys of the report object, to name them when it holds none of the asked sections. */
  keys: string[];
  /**
   * Paths of the answer left out for nesting deeper than MAX_CONTENT_DEPTH (a section, or a key of other data),
   * each named in a note; whoever keeps the answer keeps it without them (withoutPaths).
   */
  leftOut: string[];
}

/** Every value the product uses from one report answer; never throws. `reading` collects notes and places. */
export function readReport(data: unknown, fields: FieldMap = {}, reading: Reading = new Reading(fields)): ReportContent {
  const { record: report, path: reportPath } = reportObject(data);
  const id = readReportId(report);
  const projectId = readProjectId(report);
  if (id !== null) reading.take(joinPath(reportPath, id.key));
  const status = reading.locate('report.status', data, '', reading.named('report.status', report, reportPath), (value, path) => {
    const text = parseText(value);
    return text === null ? null : { value: text, path };
  });

  const container = sectionContainer(reading, data, report, reportPath);
  const sections = new Map<ReportSection, Located<unknown>>();
  for (const section of REPORT_SECTIONS) {
    const found = findSection(reading, section, data, container, report, reportPath);
    if (found !== null) sections.set(section, found);
  }

  // Content nested too deep is left out by its section (or its key of other data), named in a note: never the report.
  const leftOut: string[] = [];
  for (const place of deepPlaces(data)) {
    if (leftOut.some((path) => isWithin(place, path))) continue;
    const owner = [...sections].find(([, at]) => isWithin(place, at.path));
    const [what, path] =
      owner !== undefined
        ? [`The ${owner[0]} section`, owner[1].path]
        : isWithin(place, container.path) && place !== container.path
          ? otherKeyOf(place, container.path)
          : [`The value at ${place}`, place];
    if (owner !== undefined) sections.delete(owner[0]);
    leftOut.push(path);
    reading.note(`${what} nests deeper than ${MAX_CONTENT_DEPTH} levels (at ${shortPath(place)}): it is left out of the report.`);
  }

  const scoresAt = sections.get('scores');
  let scores = scoresAt === undefined ? null : readScores(reading, data, scoresAt.value, scoresAt.path);
  if (scores === null) {
    // No scores section: a server may still put the scores at the report's top level.
    const flat = readScores(reading, data, container.record, container.path, true);
    if (flat !== null && (flat.geo !== null || flat.seo !== null)) scores = flat;
  }
  const historyAt = sections.get('history');
  const metricsAt = sections.get('metrics');
  const trustAt = sections.get('trust');
  const recommendationsAt = sections.get('recommendations');

  const present = REPORT_SECTIONS.filter((s) => (s === 'scores' ? scores !== null : sections.has(s)));
  const content: ReportContent = {
    id: id?.value ?? null,
    projectId,
    status: status?.value ?? null,
    state: stateOf(status?.value ?? null),
    present,
    scores,
    history: historyAt === undefined ? null : readHistory(reading, historyAt.value, historyAt.path),
    metrics: metricsAt === undefined ? null : readMetrics(reading, metricsAt.value, metricsAt.path),
    trust: trustAt === undefined ? null : readTrust(reading, data, trustAt.value, trustAt.path),
    recommendations: recommendationsAt === undefined ? null : readRecommendations(reading, recommendationsAt.value, recommendationsAt.path),
    other: [],
    keys: Object.keys(report),
    leftOut,
  };
  content.other = otherData(reading, container, report).filter(({ key }) => !leftOut.some((path) => isWithin(path, joinPath(container.path, key))));
  return content;
}

/** The first steps of a path that goes on for pages. */
function shortPath(path: string): string {
  const parts = path.split('.');
  return parts.length <= 5 ? path : `${parts.slice(0, 4).join('.')}.… (${parts.length} levels)`;
}

/** A place under the sections' container: what the report's other data calls it, and its key's path. */
function otherKeyOf(place: string, containerPath: string): [string, string] {
  const key = (containerPath === '' ? place : place.slice(containerPath.length + 1)).split('.')[0] as string;
  return [`"${key}"`, joinPath(containerPath, key)];
}

/** The answer as it is kept and shown: without what the reader left out for nesting too deep (see `leftOut`). */
export function answerAsKept<T>(answer: T, content: Pick<ReportContent, 'leftOut'>): T {
  return content.leftOut.length === 0 ? answer : (withoutPaths(answer, content.leftOut) as T);
}

/** What a report's status word says; `unknown` when there is none or it is not a known word. */
export function stateOf(status: string | null): ReportState {
  if (status === null) return 'unknown';
  const word = normaliseKey(status);
  if ((REPORT_STATUS_WORDS.finished as readonly string[]).includes(word)) return 'finished';
  if ((REPORT_STATUS_WORDS.building as readonly string[]).includes(word)) return 'building';
  if ((REPORT_STATUS_WORDS.failed as readonly string[]).includes(word)) return 'failed';
  return 'unknown';
}
