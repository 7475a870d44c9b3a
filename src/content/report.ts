// Reads a report answer (`data` of reports.php), wherever a faithful server put its sections and values.
// The spec names the report's `id`, `format` and the five section names; everything inside is "not shown".
import { REPORT_SECTIONS, REPORT_STATUS_WORDS, type Category, type Priority, type ReportSection } from '../spec/vocabulary.js';
import { CATEGORY_WORDS, FIELDS, PRIORITY_WORDS, type FieldMap, type FieldName } from './fields.js';
import {
  COUNT_KEYS,
  LIST_WRAPPERS,
  isRecord,
  joinPath,
  keysNamed,
  listEntries,
  namedValuesAsRecord,
  normaliseKey,
  numberIn,
  parseDay,
  parseId,
  parseNumber,
  parseText,
  type JsonRecord,
  type ListEntry,
} from '../spec/find.js';
import { Reading, unreadFields, type Located } from './reading.js';

export interface AiVisibilityValue {
  assistant: string;
  value: number | null;
}

export interface ScoresContent {
  geo: number | null;
  seo: number | null;
  /** YYYY-MM-DD */
  measuredAt: string | null;
  aiVisibility: AiVisibilityValue[];
}

export interface HistoryContent {
  /** YYYY-MM-DD (a month alone is its first day). */
  date: string;
  geo: number | null;
  seo: number | null;
}

export interface MetricContent {
  key: string;
  value: number | string | boolean | null;
  unit: string | null;
  /** Other fields of the metric (a trend, a source…), shown so nothing is dropped. */
  extra: JsonRecord;
  /** A structure that is no single value: shown as a key/value list. */
  structure: unknown;
}

export interface PlatformContent {
  name: string;
  rating: number | null;
  reviews: number | null;
  url: string | null;
  extra: JsonRecord;
}

export interface TrustContent {
  score: number | null;
  platforms: PlatformContent[];
  extra: JsonRecord;
}

export interface RecommendationContent {
  id: string | number | null;
  title: string;
  description: string | null;
  priority: Priority;
  category: Category | null;
  impact: string | number | null;
  status: string | null;
  extra: JsonRecord;
}

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

/** Keys of the report object that describe it rather than hold its content: never shown as "other data". */
const REPORT_META_KEYS = new Set([
  'id',
  'reportid',
  'projectid',
  'project',
  'status',
  'state',
  'format',
  'include',
  'includes',
  'included',
  'sectionsincluded',
  'requestedsections',
  'createdat',
  'generatedat',
  'updatedat',
  'requestedat',
  'completedat',
  'finishedat',
  'expiresat',
  'readyat',
  'created',
  'generated',
  'updated',
  'requested',
  'completed',
  'finished',
  'expires',
  'date',
  'timestamp',
  'type',
  'url',
  'links',
  'link',
  'href',
  'self',
  'meta',
  'version',
  'apiversion',
  'language',
  'locale',
  'lang',
  'period',
  'month',
  'progress',
  'domain',
  'name',
  'title',
  'projectname',
  'message',
  'error',
  'errors',
]);
/** A report may come wrapped once more: `{ report: {...} }`. */
const REPORT_WRAPPERS = ['report', 'data', 'result', 'item', 'payload'];
/** Inside a score section, values may sit one level down: `{ latest: { geo_score } }`. */
const SCORE_NESTS = ['latest', 'current', 'last', 'overall', 'summary', 'values', 'scores', 'score', 'totals', 'main'];
/** A section given as a list of `{ name, content }` records. */
const SECTION_NAME_KEYS = ['name', 'section', 'key', 'type', 'id', 'slug'];
const SECTION_BODY_KEYS = ['content', 'data', 'value', 'values', 'items', 'body', 'payload', 'result'];

/** Where doctor says a name was found when it is the key of a map (`{ chatgpt: 76 }`). */
export const MAP_KEY = '(the map key)';

const SECTION_FIELD: Record<ReportSection, FieldName> = {
  scores: 'section.scores',
  history: 'section.history',
  metrics: 'section.metrics',
  trust: 'section.trust',
  recommendations: 'section.recommendations',
};

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

// ------------------------------------------------------------------ placement

function reportObject(data: unknown): { record: JsonRecord; path: string } {
  const root: JsonRecord = isRecord(data) ? data : {};
  if (looksLikeReport(root)) return { record: root, path: '' };
  // `{ report: {...} }`, `{ data: { report: {...} } }`: at most two wrappers deep.
  let level: Array<{ record: JsonRecord; path: string }> = [{ record: root, path: '' }];
  for (let depth = 0; depth < 2; depth += 1) {
    const next: Array<{ record: JsonRecord; path: string }> = [];
    for (const { record, path } of level) {
      for (const key of keysNamed(record, REPORT_WRAPPERS)) {
        const inner = record[key];
        if (!isRecord(inner)) continue;
        if (looksLikeReport(inner)) return { record: inner, path: joinPath(path, key) };
        next.push({ record: inner, path: joinPath(path, key) });
      }
    }
    level = next;
  }
  return { record: root, path: '' };
}

function looksLikeReport(record: JsonRecord): boolean {
  if (keysNamed(record, ['id', 'reportid']).length > 0) return true;
  return REPORT_SECTIONS.some((s) => keysNamed(record, FIELDS[SECTION_FIELD[s]].names).length > 0);
}

function readReportId(report: JsonRecord): { value: number; key: string } | null {
  for (const key of keysNamed(report, ['id', 'reportid'])) {
    const value = parseId(report[key]);
    if (value !== null) return { value, key };
  }
  return null;
}

function readProjectId(report: JsonRecord): number | null {
  for (const key of keysNamed(report, ['projectid'])) {
    const value = parseId(report[key]);
    if (value !== null) return value;
  }
  const project = keysNamed(report, ['project'])
    .map((key) => report[key])
    .find(isRecord);
  return project === undefined ? null : parseId(project['id']);
}

interface Container {
  record: JsonRecord;
  path: string;
}

/** The object holding the sections: `sections`, `content`… or the report itself. A list of named sections is read as a map. */
function sectionContainer(reading: Reading, data: unknown, report: JsonRecord, reportPath: string): Container {
  const candidates = reading.named('report.sections', report, reportPath);
  const found = reading.locate('report.sections', data, '', candidates, (value, path) => {
    if (isRecord(value) && REPORT_SECTIONS.some((s) => keysNamed(value, FIELDS[SECTION_FIELD[s]].names).length > 0)) {
      return { value, path };
    }
    const named = namedSectionList(value);
    return named === null ? null : { value: named, path };
  });
  if (found === null) return { record: report, path: reportPath };
  reading.consumed.delete(found.path); // the container itself is not "read": its unread sections are other data
  return { record: found.value, path: found.path };
}

function namedSectionList(value: unknown): JsonRecord | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: JsonRecord = {};
  for (const item of value) {
    if (!isRecord(item)) return null;
    const nameKey = keysNamed(item, SECTION_NAME_KEYS).find((key) => typeof item[key] === 'string');
    if (nameKey === undefined) return null;
    const bodyKey = keysNamed(item, SECTION_BODY_KEYS)[0];
    out[item[nameKey] as string] = bodyKey === undefined ? Object.fromEntries(Object.entries(item).filter(([k]) => k !== nameKey)) : item[bodyKey];
  }
  return REPORT_SECTIONS.some((s) => keysNamed(out, FIELDS[SECTION_FIELD[s]].names).length > 0) ? out : null;
}

function findSection(
  reading: Reading,
  section: ReportSection,
  data: unknown,
  container: Container,
  report: JsonRecord,
  reportPath: string,
): Located<unknown> | null {
  const field = SECTION_FIELD[section];
  const candidates = [
    ...keysNamed(container.record, FIELDS[field].names).map((key) => ({ value: container.record[key], path: joinPath(container.path, key) })),
    ...(container.record === report ? [] : reading.named(field, report, reportPath)),
  ];
  const found = reading.locate(field, data, '', candidates, (value, at) => (sectionValue(section, value) ? { value, path: at } : null));
  if (found !== null) reading.consumed.delete(found.path); // read field by field below
  return found;
}

/** A value that can hold that section (a text where a list is expected is not one). */
function sectionValue(section: ReportSection, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (section === 'scores') return isRecord(value) || parseNumber(value) !== null || namedValuesAsRecord(value) !== null;
  if (section === 'trust') return isRecord(value) || parseNumber(value) !== null;
  return isRecord(value) || Array.isArray(value);
}

// ------------------------------------------------------------------ scores

function readScores(reading: Reading, data: unknown, section: unknown, path: string, flat = false): ScoresContent | null {
  const bare = parseNumber(section);
  if (bare !== null) {
    reading.foundAt('scores.geo', path);
    return { geo: bare, seo: null, measuredAt: null, aiVisibility: [] };
  }
  const record = isRecord(section) ? section : namedValuesAsRecord(section);
  if (record === null) return null;
  const levels: Array<{ record: JsonRecord; path: string }> = [{ record, path }];
  for (const key of keysNamed(record, SCORE_NESTS)) {
    const inner = isRecord(record[key]) ? record[key] : namedValuesAsRecord(record[key]);
    if (inner !== null) levels.push({ record: inner, path: joinPath(path, key) });
  }
  const candidates = (field: FieldName) => levels.flatMap((level) => reading.named(field, level.record, level.path));
  const geo = reading.locate('scores.geo', data, '', candidates('scores.geo'), numberIn);
  const seo = reading.locate('scores.seo', data, '', candidates('scores.seo'), numberIn);
  if (flat && geo === null && seo === null) return null;
  const measuredAt = reading.locate('scores.measuredAt', data, '', candidates('scores.measuredAt'), (value, at) => {
    const day = parseDay(value);
    return day === null ? null : { value: day, path: at };
  });
  const aiVisibility =
    reading.locate('scores.aiVisibility', data, '', candidates('scores.aiVisibility'), (value, at) => {
      const list = readAiVisibility(reading, value, at);
      return list === null ? null : { value: list, path: at };
    })?.value ?? [];
  if (geo === null) reading.note(`GEO score not found in the scores section (${path || 'report'}).`);
  return { geo: geo?.value ?? null, seo: seo?.value ?? null, measuredAt: measuredAt?.value ?? null, aiVisibility };
}

function readAiVisibility(reading: Reading, value: unknown, path: string): AiVisibilityValue[] | null {
  if (parseNumber(value) !== null) return null; // one number is a score, not a value per assistant
  const entries = listEntries(value, path, { maps: true });
  if (entries === null || entries.length === 0) return null;
  const out: AiVisibilityValue[] = [];
  let usable = 0;
  for (const entry of entries) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const item = readNamedValue(reading, entry, 'aiVisibility.assistant', 'aiVisibility.value');
    if (item === null) {
      reading.note(`AI visibility entry at ${entry.path} has no assistant name: left out.`);
      continue;
    }
    if (item.value !== null) usable += 1;
    out.push({ assistant: item.name, value: item.value });
  }
  return usable > 0 || out.length > 0 ? out : null;
}

/** `{ chatgpt: 76 }`, `{ chatgpt: { score: 76 } }` or `[{ assistant: 'chatgpt', visibility: '76%' }]`. */
function readNamedValue(reading: Reading, entry: ListEntry, nameField: FieldName, valueField: FieldName): { name: string; value: number | null } | null {
  if (entry.key !== null) {
    reading.placed(nameField, MAP_KEY);
    const direct = numberIn(entry.value, entry.path);
    if (direct !== null) {
      reading.take(entry.path);
      reading.placed(valueField, '(the value under the map key)');
      return { name: entry.key, value: direct.value };
    }
    if (isRecord(entry.value)) {
      const value = reading.locate(valueField, entry.value, entry.path, reading.named(valueField, entry.value, entry.path), numberIn);
      return { name: entry.key, value: value?.value ?? null };
    }
    return { name: entry.key, value: null };
  }
  if (!isRecord(entry.value)) return null;
  const name = reading.locate(nameField, entry.value, entry.path, reading.named(nameField, entry.value, entry.path), textAt);
  if (name === null) return null;
  const value = reading.locate(valueField, entry.value, entry.path, reading.named(valueField, entry.value, entry.path), numberIn);
  return { name: name.value, value: value?.value ?? null };
}

function textAt(value: unknown, path: string): Located<string> | null {
  const text = parseText(value);
  return text === null ? null : { value: text, path };
}

function dayAt(value: unknown, path: string): Located<string> | null {
  const day = parseDay(value);
  return day === null ? null : { value: day, path };
}

// ------------------------------------------------------------------ history

function readHistory(reading: Reading, section: unknown, path: string): HistoryContent[] {
  const entries = listEntries(section, path, { maps: true, ownNames: FIELDS['section.history'].names });
  if (entries === null) {
    reading.note(`History at ${path} is neither a list nor a map of months: left out.`);
    return [];
  }
  const points: HistoryContent[] = [];
  for (const entry of entries) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const point = readHistoryPoint(reading, entry);
    if (point === null) {
      reading.note(`History point at ${entry.path} has no month or no score: left out.`);
      continue;
    }
    points.push(point);
  }
  return points.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

function readHistoryPoint(reading: Reading, entry: ListEntry): HistoryContent | null {
  const keyDay = entry.key === null ? null : parseDay(entry.key);
  if (keyDay !== null) reading.placed('history.period', MAP_KEY);
  const bare = numberIn(entry.value, entry.path);
  if (keyDay !== null && bare !== null && !isRecord(entry.value)) {
    reading.take(entry.path);
    reading.placed('history.geo', '(the value under the month)');
    return { date: keyDay, geo: bare.value, seo: null };
  }
  if (!isRecord(entry.value)) return null;
  const item = entry.value;
  const levels: Array<{ record: JsonRecord; path: string }> = [{ record: item, path: entry.path }];
  for (const key of keysNamed(item, SCORE_NESTS)) {
    if (isRecord(item[key])) levels.push({ record: item[key], path: joinPath(entry.path, key) });
  }
  const candidates = (field: FieldName) => levels.flatMap((level) => reading.named(field, level.record, level.path));
  const period = keyDay ?? reading.locate('history.period', item, entry.path, candidates('history.period'), dayAt)?.value ?? null;
  if (period === null) return null;
  const geo = reading.locate('history.geo', item, entry.path, candidates('history.geo'), numberIn);
  const seo = reading.locate('history.seo', item, entry.path, candidates('history.seo'), numberIn);
  if (geo === null && seo === null) return null;
  return { date: period, geo: geo?.value ?? null, seo: seo?.value ?? null };
}

// ------------------------------------------------------------------ metrics

function readMetrics(reading: Reading, section: unknown, path: string): MetricContent[] {
  const asList =
    Array.isArray(section) ||
    (isRecord(section) && keysNamed(section, [...FIELDS['section.metrics'].names, ...LIST_WRAPPERS]).some((k) => Array.isArray(section[k])));
  const entries = listEntries(section, path, { maps: !asList, ownNames: FIELDS['section.metrics'].names });
  if (entries === null) {
    reading.note(`Metrics at ${path} are neither a list nor a map: left out.`);
    return [];
  }
  const rows: MetricContent[] = [];
  for (const entry of entries) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key)) && parseNumber(entry.value) === null) continue;
    if (entry.key !== null) reading.placed('metric.name', MAP_KEY);
    const row = entry.key !== null ? metricFromMap(reading, entry.key, entry.value, entry.path) : metricFromRecord(reading, entry);
    if (row === null) {
      reading.note(`Metric at ${entry.path} has no name: left out.`);
      continue;
    }
    rows.push(row);
  }
  return rows;
}

function scalar(value: unknown): number | string | boolean | null | undefined {
  const number = parseNumber(value);
  if (number !== null && typeof value === 'number') return number;
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return null; // NaN or ±Infinity
  return undefined;
}

/** `"76.6"` → 76.6; `"9.7%"` → 9.7 with the unit %; a word stays a word. */
/** Unit words for a percentage, written as the sign. */
export function unitText(unit: string | null): string | null {
  if (unit === null) return null;
  return ['percent', 'percentage', 'pct'].includes(normaliseKey(unit)) ? '%' : unit;
}

function withUnit(value: number | string | boolean | null): { value: number | string | boolean | null; unit: string | null } {
  if (typeof value !== 'string') return { value, unit: null };
  const number = parseNumber(value);
  if (number === null) return { value, unit: null };
  return { value: number, unit: /%\s*$/.test(value) ? '%' : null };
}

function metricFromMap(reading: Reading, key: string, raw: unknown, path: string): MetricContent {
  const direct = scalar(raw);
  if (direct !== undefined) {
    reading.take(path);
    reading.placed('metric.value', '(the value under the metric name)');
    return { key, ...withUnit(direct), extra: {}, structure: undefined };
  }
  if (isRecord(raw)) {
    const value = metricValue(reading, raw, path);
    if (value !== undefined) {
      const unit = reading.locate('metric.unit', raw, path, reading.named('metric.unit', raw, path), textAt);
      const shown = withUnit(value);
      return { key, value: shown.value, unit: unitText(unit?.value ?? shown.unit), extra: unreadFields(reading, raw, path), structure: undefined };
    }
  }
  reading.take(path);
  return { key, value: null, unit: null, extra: {}, structure: raw };
}

function metricValue(reading: Reading, record: JsonRecord, path: string): number | string | boolean | null | undefined {
  const found = reading.locate('metric.value', record, path, reading.named('metric.value', record, path), (value, at) => {
    const shown = scalar(value);
    return shown === undefined ? null : { value: shown, path: at };
  });
  return found === null ? undefined : found.value;
}

function metricFromRecord(reading: Reading, entry: ListEntry): MetricContent | null {
  if (!isRecord(entry.value)) return null;
  const record = entry.value;
  const name = reading.locate('metric.name', record, entry.path, reading.named('metric.name', record, entry.path), textAt);
  if (name === null) return null;
  const value = withUnit(metricValue(reading, record, entry.path) ?? null);
  const unit = reading.locate('metric.unit', record, entry.path, reading.named('metric.unit', record, entry.path), textAt);
  return {
    key: name.value,
    value: value.value,
    unit: unitText(unit?.value ?? value.unit),
    extra: unreadFields(reading, record, entry.path),
    structure: undefined,
  };
}

// ------------------------------------------------------------------ trust

function readTrust(reading: Reading, data: unknown, section: unknown, path: string): TrustContent {
  const bare = parseNumber(section);
  if (bare !== null) {
    reading.foundAt('trust.score', path);
    return { score: bare, platforms: [], extra: {} };
  }
  const record = isRecord(section) ? section : {};
  const score = reading.locate('trust.score', data, '', reading.named('trust.score', record, path), numberIn);
  const platformsAt = reading.locate('trust.platforms', data, '', reading.named('trust.platforms', record, path), (value, at) => {
    if (parseNumber(value) !== null) return null; // `reviews: 120` is a count, not the platforms
    const entries = listEntries(value, at, { maps: true });
    return entries === null ? null : { value: entries, path: at };
  });
  if (platformsAt !== null) reading.consumed.delete(platformsAt.path);
  const platforms: PlatformContent[] = [];
  for (const entry of platformsAt?.value ?? []) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const platform = readPlatform(reading, entry);
    if (platform === null) {
      reading.note(`Review platform at ${entry.path} has no name: left out.`);
      continue;
    }
    platforms.push(platform);
  }
  if (platformsAt !== null) reading.take(platformsAt.path);
  return { score: score?.value ?? null, platforms, extra: unreadFields(reading, record, path) };
}

function readPlatform(reading: Reading, entry: ListEntry): PlatformContent | null {
  if (!isRecord(entry.value)) {
    // `{ google: 4.6 }`: a rating per platform name.
    const rating = entry.key === null ? null : numberIn(entry.value, entry.path);
    if (entry.key === null || rating === null) return null;
    return { name: entry.key, rating: rating.value, reviews: null, url: null, extra: {} };
  }
  const record = entry.value;
  const named = (field: FieldName) => reading.namedDeep(field, record, entry.path);
  if (entry.key !== null) reading.placed('platform.name', MAP_KEY);
  const name = entry.key ?? reading.locate('platform.name', record, entry.path, named('platform.name'), textAt)?.value ?? null;
  if (name === null) return null;
  const rating = reading.locate('platform.rating', record, entry.path, named('platform.rating'), numberIn);
  const reviews = reading.locate('platform.count', record, entry.path, named('platform.count'), (value, at) => {
    const count = parseNumber(value);
    return count === null ? null : { value: count, path: at };
  });
  const url = reading.locate('platform.link', record, entry.path, named('platform.link'), textAt);
  return {
    name,
    rating: rating?.value ?? null,
    reviews: reviews?.value ?? null,
    url: url?.value ?? null,
    extra: unreadFields(reading, record, entry.path),
  };
}

// ------------------------------------------------------------------ recommendations

function readRecommendations(reading: Reading, section: unknown, path: string): RecommendationContent[] {
  const entries = listEntries(section, path, { maps: true, ownNames: FIELDS['section.recommendations'].names });
  if (entries === null) {
    reading.note(`Recommendations at ${path} are neither a list nor a map: left out.`);
    return [];
  }
  const out: RecommendationContent[] = [];
  for (const entry of entries) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const rec = readRecommendation(reading, entry);
    if (typeof rec === 'string') {
      reading.note(`Recommendation at ${entry.path} ${rec}: left out.`);
      continue;
    }
    out.push(rec);
  }
  return out;
}

/** A recommendation, or why it cannot be shown. Priority and category must be the spec's values. */
export function readRecommendation(reading: Reading, entry: ListEntry): RecommendationContent | string {
  if (!isRecord(entry.value)) return 'is not a record';
  const record = entry.value;
  const at = entry.path;
  const named = (field: FieldName) => reading.namedDeep(field, record, at);
  const title = reading.locate('recommendation.title', record, at, named('recommendation.title'), textAt);
  if (title === null) return 'has no title';
  const priorityText = reading.locate('recommendation.priority', record, at, named('recommendation.priority'), textAt);
  const priority = priorityText === null ? undefined : PRIORITY_WORDS[normaliseKey(priorityText.value)];
  if (priority === undefined) {
    return priorityText === null
      ? `("${shorten(title.value)}") has no priority`
      : `("${shorten(title.value)}") has priority "${shorten(priorityText.value)}", not one of critical, high, medium, low`;
  }
  const categoryText = reading.locate('recommendation.category', record, at, named('recommendation.category'), textAt);
  const category = categoryText === null ? null : (CATEGORY_WORDS[normaliseKey(categoryText.value)] ?? null);
  if (categoryText !== null && category === null) {
    reading.note(
      `Recommendation at ${at} has category "${shorten(categoryText.value)}", not one of seo, content, technical, ai_visibility: shown without a category.`,
    );
  }
  const idFound = reading.locate<string | number>('recommendation.id', record, at, named('recommendation.id'), (value, p) =>
    typeof value === 'number' && Number.isFinite(value)
      ? { value, path: p }
      : typeof value === 'string' && value.trim() !== ''
        ? { value: value.trim(), path: p }
        : null,
  );
  const description = reading.locate(
    'recommendation.description',
    record,
    at,
    named('recommendation.description').filter((c) => c.path !== title.path),
    textAt,
  );
  const impact = reading.locate<string | number>('recommendation.impact', record, at, named('recommendation.impact'), (value, p) =>
    typeof value === 'number' && Number.isFinite(value) ? { value, path: p } : textAt(value, p),
  );
  const status = reading.locate('recommendation.status', record, at, named('recommendation.status'), textAt);
  return {
    id: idFound?.value ?? (entry.key !== null ? entry.key : null),
    title: title.value,
    description: description?.value ?? null,
    priority,
    category,
    impact: impact?.value ?? null,
    status: status?.value ?? null,
    extra: unreadFields(reading, record, at),
  };
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

// ------------------------------------------------------------------ other data

function otherData(reading: Reading, container: Container, report: JsonRecord): Array<{ key: string; value: unknown }> {
  const out: Array<{ key: string; value: unknown }> = [];
  const atRoot = container.record === report;
  for (const [key, value] of Object.entries(container.record)) {
    if (value === undefined) continue;
    const path = joinPath(container.path, key);
    if (reading.isConsumed(path) || reading.touched(path)) continue;
    // Beside the sections, the report object describes itself (id, status, dates…): that is not content.
    if (atRoot && REPORT_META_KEYS.has(normaliseKey(key))) continue;
    if (isRecord(container.record) && (FIELDS['report.sections'].names as readonly string[]).includes(normaliseKey(key)) && atRoot) continue;
    out.push({ key, value });
  }
  return out;
}
