// The metrics section of a report answer: a list of named values or a map of them, each with its unit and the
// fields nothing else reads.
import { FIELDS } from './fields.js';
import { COUNT_KEYS, LIST_WRAPPERS, isRecord, keysNamed, listEntries, normaliseKey, parseNumber, type JsonRecord, type ListEntry } from '../spec/find.js';
import { MAP_KEY, textAt, unreadFields, type Reading } from './reading.js';

export interface MetricContent {
  key: string;
  value: number | string | boolean | null;
  unit: string | null;
  /** Other fields of the metric (a trend, a source…), shown so nothing is dropped. */
  extra: JsonRecord;
  /** A structure that is no single value: shown as a key/value list. */
  structure: unknown;
}

export function readMetrics(reading: Reading, section: unknown, path: string): MetricContent[] {
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

/** Unit words for a percentage, written as the sign. */
export function unitText(unit: string | null): string | null {
  if (unit === null) return null;
  return ['percent', 'percentage', 'pct'].includes(normaliseKey(unit)) ? '%' : unit;
}

/** `"76.6"` → 76.6; `"9.7%"` → 9.7 with the unit %; a word stays a word. */
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
