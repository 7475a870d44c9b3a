// Where a report answer puts its report and its sections: the report object (bare or wrapped), its id and project,
// the object that holds the sections (or a list of named sections read as a map), each section by its names, and
// what is left over as "other data".
import { REPORT_SECTIONS, type ReportSection } from '../spec/vocabulary.js';
import { FIELDS, type FieldName } from './fields.js';
import { isRecord, joinPath, keysNamed, namedValuesAsRecord, normaliseKey, parseId, parseNumber, type JsonRecord } from '../spec/find.js';
import type { Located, Reading } from './reading.js';

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
/** A section given as a list of `{ name, content }` records. */
const SECTION_NAME_KEYS = ['name', 'section', 'key', 'type', 'id', 'slug'];
const SECTION_BODY_KEYS = ['content', 'data', 'value', 'values', 'items', 'body', 'payload', 'result'];

const SECTION_FIELD: Record<ReportSection, FieldName> = {
  scores: 'section.scores',
  history: 'section.history',
  metrics: 'section.metrics',
  trust: 'section.trust',
  recommendations: 'section.recommendations',
};

/** The report object of the answer and its path from `data`: the answer itself or up to two wrappers down. */
export function reportObject(data: unknown): { record: JsonRecord; path: string } {
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

export function readReportId(report: JsonRecord): { value: number; key: string } | null {
  for (const key of keysNamed(report, ['id', 'reportid'])) {
    const value = parseId(report[key]);
    if (value !== null) return { value, key };
  }
  return null;
}

export function readProjectId(report: JsonRecord): number | null {
  for (const key of keysNamed(report, ['projectid'])) {
    const value = parseId(report[key]);
    if (value !== null) return value;
  }
  const project = keysNamed(report, ['project'])
    .map((key) => report[key])
    .find(isRecord);
  return project === undefined ? null : parseId(project['id']);
}

export interface Container {
  record: JsonRecord;
  path: string;
}

/** The object holding the sections: `sections`, `content`… or the report itself. A list of named sections is read as a map. */
export function sectionContainer(reading: Reading, data: unknown, report: JsonRecord, reportPath: string): Container {
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

export function findSection(
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

/** The keys of the section container that nothing read, except the report's own description beside its sections. */
export function otherData(reading: Reading, container: Container, report: JsonRecord): Array<{ key: string; value: unknown }> {
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
