// Reads the answers of the one-off commands whose content the spec leaves "not shown": scores.php (a project's
// latest result and history, or one scan), recommendations.php, and the report list.
import { FIELDS, type FieldMap } from './fields.js';
import { COUNT_KEYS, isRecord, joinPath, keysNamed, listEntries, normaliseKey, numberIn, parseDay, parseId, parseText, type JsonRecord } from '../spec/find.js';
import { Reading } from './reading.js';
import { stateOf, type ReportState } from './report.js';
import { readRecommendation, type RecommendationContent } from './report-recommendations.js';
import type { AiVisibilityValue } from './report-scores.js';

export interface ScoreSnapshot {
  /** YYYY-MM-DD */
  date: string | null;
  scanId: number | null;
  geo: number | null;
  seo: number | null;
  trust: number | null;
  aiVisibility: AiVisibilityValue[];
}

export interface ScoresAnswer {
  projectId: number | null;
  latest: ScoreSnapshot | null;
  history: ScoreSnapshot[];
}

const LATEST_KEYS = ['latest', 'latestresult', 'current', 'last', 'lastresult', 'result', 'snapshot', 'scores', 'score'];
const HISTORY_KEYS = ['history', 'evolution', 'timeline', 'snapshots', 'results', 'items', 'scores', 'series'];

/** scores.php: `{ latest, history }` for a project, or one scan's scores; any placement the readers know. */
export function readScoresAnswer(data: unknown, fields: FieldMap = {}, reading: Reading = new Reading(fields)): ScoresAnswer {
  const root = isRecord(data) ? data : {};
  const projectId = idIn(root, ['projectid', 'project']);
  let history: ScoreSnapshot[] = [];
  for (const key of keysNamed(root, HISTORY_KEYS)) {
    const entries = listEntries(root[key], key, { maps: true });
    if (entries === null || !entries.some((e) => isRecord(e.value))) continue;
    history = entries
      .filter((e) => !(e.key !== null && COUNT_KEYS.includes(normaliseKey(e.key))))
      .map((e) => snapshot(reading, e.value, e.path, e.key))
      .filter((s): s is ScoreSnapshot => s !== null);
    break;
  }
  let latest: ScoreSnapshot | null = null;
  for (const key of keysNamed(root, LATEST_KEYS)) {
    if (isRecord(root[key])) {
      latest = snapshot(reading, root[key], key, null);
      if (latest !== null) break;
    }
  }
  // One scan's scores may be the answer itself.
  latest ??= snapshot(reading, root, '', null);
  history.sort((a, b) => ((a.date ?? '') < (b.date ?? '') ? -1 : (a.date ?? '') > (b.date ?? '') ? 1 : 0));
  return { projectId, latest: latest ?? history.at(-1) ?? null, history };
}

function snapshot(reading: Reading, value: unknown, path: string, key: string | null): ScoreSnapshot | null {
  if (!isRecord(value)) return null;
  const geo = reading.locate('scores.geo', value, path, reading.namedDeep('scores.geo', value, path), numberIn);
  const seo = reading.locate('scores.seo', value, path, reading.namedDeep('scores.seo', value, path), numberIn);
  if (geo === null && seo === null) return null;
  const date =
    (key === null ? null : parseDay(key)) ??
    reading.locate('scores.measuredAt', value, path, reading.namedDeep('scores.measuredAt', value, path), (v, at) => {
      const day = parseDay(v);
      return day === null ? null : { value: day, path: at };
    })?.value ??
    null;
  const trust = reading.locate(
    'trust.score',
    value,
    path,
    reading.namedDeep('trust.score', value, path).filter((c) => normaliseKey(c.path.split('.').at(-1) ?? '') !== 'score'),
    numberIn,
  );
  const ai = reading.locate('scores.aiVisibility', value, path, reading.namedDeep('scores.aiVisibility', value, path), (v, at) => {
    const entries = listEntries(v, at, { maps: true });
    if (entries === null || typeof v === 'number') return null;
    const out: AiVisibilityValue[] = [];
    for (const entry of entries) {
      const name = entry.key ?? (isRecord(entry.value) ? textIn(entry.value, FIELDS['aiVisibility.assistant'].names) : null);
      if (name === null) continue;
      const number =
        isRecord(entry.value) && entry.key === null
          ? firstNumber(entry.value, FIELDS['aiVisibility.value'].names)
          : (numberIn(entry.value, entry.path)?.value ?? null);
      out.push({ assistant: name, value: number });
    }
    return out.length === 0 ? null : { value: out, path: at };
  });
  return {
    date,
    scanId: idIn(value, ['scanid', 'scan']),
    geo: geo?.value ?? null,
    seo: seo?.value ?? null,
    trust: trust?.value ?? null,
    aiVisibility: ai?.value ?? [],
  };
}

/** recommendations.php: the list, wherever it is; each item read like a report's recommendations. */
export function readRecommendationList(data: unknown, fields: FieldMap = {}, reading: Reading = new Reading(fields)): RecommendationContent[] {
  const root = isRecord(data) ? data : {};
  const names = FIELDS['section.recommendations'].names;
  const at = keysNamed(root, names).find((key) => listEntries(root[key], key, { maps: false, ownNames: names }) !== null);
  const entries = at === undefined ? listEntries(root, '', { maps: false }) : listEntries(root[at], at, { maps: false, ownNames: names });
  const out: RecommendationContent[] = [];
  for (const entry of entries ?? []) {
    const rec = readRecommendation(reading, entry);
    if (typeof rec === 'string') reading.note(`Recommendation at ${entry.path} ${rec}: left out.`);
    else out.push(rec);
  }
  return out;
}

export interface ReportListRow {
  id: number | null;
  projectId: number | null;
  status: string | null;
  state: ReportState;
  createdAt: string | null;
}

/** reports.php?list=1: one row per report. */
export function readReportList(data: unknown): ReportListRow[] {
  const root = isRecord(data) ? data : {};
  const at = keysNamed(root, ['reports', 'items', 'results', 'list', 'data']).find((key) => listEntries(root[key], key, { maps: false }) !== null);
  const entries = at === undefined ? [] : (listEntries(root[at], at, { maps: false }) ?? []);
  return entries
    .filter((e) => isRecord(e.value))
    .map((e) => {
      const row = e.value as JsonRecord;
      const report = isRecord(row['report']) ? row['report'] : row;
      const status = textIn(report, FIELDS['report.status'].names);
      return {
        id: idIn(report, ['id', 'reportid']),
        projectId: idIn(report, ['projectid', 'project']),
        status,
        state: stateOf(status),
        createdAt: textIn(report, ['createdat', 'generatedat', 'created', 'date', 'requestedat']),
      };
    });
}

/** An id under one of `names`, bare, as digits, or as `{ id }`. */
function idIn(record: JsonRecord, names: readonly string[]): number | null {
  for (const key of keysNamed(record, names)) {
    const value = record[key];
    const id = parseId(isRecord(value) ? value['id'] : value);
    if (id !== null) return id;
  }
  return null;
}

function textIn(record: JsonRecord, names: readonly string[]): string | null {
  for (const key of keysNamed(record, names)) {
    const text = typeof record[key] === 'string' ? parseText(record[key]) : null;
    if (text !== null) return text;
  }
  return null;
}

function firstNumber(record: JsonRecord, names: readonly string[]): number | null {
  for (const key of keysNamed(record, names)) {
    const number = numberIn(record[key], joinPath('', key));
    if (number !== null) return number.value;
  }
  return null;
}

export interface ScanRow {
  status: string | null;
  createdAt: string | null;
  geo: number | null;
  seo: number | null;
}

/** The cells of a scan list row the spec does not name: status, date, scores (bare or grouped). */
export function readScanRow(scan: Record<string, unknown>): ScanRow {
  const statusValue = keysNamed(scan, ['status', 'state'])
    .map((k) => scan[k])
    .find((v) => typeof v === 'string' || isRecord(v));
  const status = typeof statusValue === 'string' ? statusValue : isRecord(statusValue) ? textIn(statusValue, ['code', 'status', 'name']) : null;
  const reading = new Reading();
  const geo = reading.locate('scores.geo', scan, '', reading.namedDeep('scores.geo', scan, ''), numberIn);
  const seo = reading.locate('scores.seo', scan, '', reading.namedDeep('scores.seo', scan, ''), numberIn);
  return {
    status,
    createdAt: textIn(scan, ['createdat', 'startedat', 'created', 'date', 'scannedat', 'timestamp']),
    geo: geo?.value ?? null,
    seo: seo?.value ?? null,
  };
}
