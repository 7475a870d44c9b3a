// The scores and history sections of a report answer: the GEO and SEO scores (a bare number, a record, one level
// down), the AI visibility per assistant, and the month-by-month points.
import { FIELDS, type FieldName } from './fields.js';
import {
  COUNT_KEYS,
  isRecord,
  joinPath,
  keysNamed,
  listEntries,
  namedValuesAsRecord,
  normaliseKey,
  numberIn,
  parseDay,
  parseNumber,
  type JsonRecord,
  type ListEntry,
} from '../spec/find.js';
import { MAP_KEY, dayAt, textAt, type Reading } from './reading.js';

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

/** Inside a score section, values may sit one level down: `{ latest: { geo_score } }`. */
const SCORE_NESTS = ['latest', 'current', 'last', 'overall', 'summary', 'values', 'scores', 'score', 'totals', 'main'];

/** The scores section at `path`; `flat` reads the report's top level, where a server may put the scores without a section. */
export function readScores(reading: Reading, data: unknown, section: unknown, path: string, flat = false): ScoresContent | null {
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

export function readHistory(reading: Reading, section: unknown, path: string): HistoryContent[] {
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
