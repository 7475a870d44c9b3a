// Reads a report answer (`data` of reports.php), wherever a faithful server put its sections and values.
// The spec names the report's `id`, `format` and the five section names; everything inside is "not shown".
import { REPORT_SECTIONS, REPORT_STATUS_WORDS, type ReportSection } from '../spec/vocabulary.js';
import type { FieldMap } from './fields.js';
import { joinPath, normaliseKey, parseText } from '../spec/find.js';
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
  };
  content.other = otherData(reading, container, report);
  return content;
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
