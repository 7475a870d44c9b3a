// The lookup engine for what the spec leaves "not shown", used by the API schemas and the content readers alike:
// paths, key synonyms, tolerant forms (numeric strings, percentages, months as dates, lists wrapped in objects or
// given as maps). Nothing here throws on a shape it does not know.

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Keys already normalised: an answer's few dozen key names come back in every item and every report. */
const NORMALISED = new Map<string, string>();
const NORMALISED_LIMIT = 10_000;

/** `Geo-Score`, `geoScore` and `geo_score` are the same name. */
export function normaliseKey(key: string): string {
  let normal = NORMALISED.get(key);
  if (normal === undefined) {
    normal = key.toLowerCase().replace(/[^a-z0-9]/g, '');
    // Bounded: an answer whose keys are data (a map of URLs) does not grow it without end.
    if (NORMALISED.size >= NORMALISED_LIMIT) NORMALISED.clear();
    NORMALISED.set(key, normal);
  }
  return normal;
}

/** `a.b` + `c` → `a.b.c`; the root path is ''. */
export function joinPath(base: string, key: string | number): string {
  return base === '' ? String(key) : `${base}.${String(key)}`;
}

/** The value at a dot path (`content.scores.0.value`; '' is the root), or undefined. */
export function getPath(root: unknown, path: string): unknown {
  if (path === '') return root;
  let current: unknown = root;
  for (const part of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(part)) return undefined;
      current = current[Number(part)];
    } else if (isRecord(current)) {
      current = Object.hasOwn(current, part) ? current[part] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

/** Keys of `record` named by one of `names` (already normalised), in the order of `names`. */
export function keysNamed(record: JsonRecord, names: readonly string[]): string[] {
  const byName = new Map<string, string>();
  for (const key of Object.keys(record)) {
    const normal = normaliseKey(key);
    if (!byName.has(normal)) byName.set(normal, key);
  }
  const keys: string[] = [];
  for (const name of names) {
    const key = byName.get(name);
    if (key !== undefined && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** Keys whose normalised name holds one word of each group, e.g. `average_geo_score` for [[geo], [average, avg]]. */
export function keysContaining(record: JsonRecord, groups: ReadonlyArray<readonly string[]>): string[] {
  return Object.keys(record).filter((key) => {
    const normal = normaliseKey(key);
    return groups.every((words) => words.some((word) => normal.includes(word)));
  });
}

const NUMBER_TEXT = /^[-+]?(\d+([.,]\d+)?|[.,]\d+)$/;

/**
 * A finite number from a number, a numeric string (`"76.6"`, `"76,6"`), or a percentage (`"76%"`, `"76 %"`).
 * Null for anything else. Objects are not looked into here (see numberIn).
 */
export function parseNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value
    .trim()
    .replace(/\s*%$/, '')
    .replace(/\u00a0/g, '');
  if (!NUMBER_TEXT.test(text)) return null;
  const parsed = Number(text.replace(',', '.'));
  return Number.isFinite(parsed) ? parsed : null;
}

/** Keys under which a record carries its own number: `{ value: 76 }`, `{ score: 76 }`, `{ average: 52 }`. */
export const VALUE_KEYS = [
  'value',
  'score',
  'current',
  'val',
  'amount',
  'number',
  'percent',
  'percentage',
  'rate',
  'pct',
  'average',
  'avg',
  'mean',
  'count',
  'total',
];

/** A number given bare, as text, or as a record holding it under a value key; with the path that held it. */
export function numberIn(value: unknown, path: string): { value: number; path: string } | null {
  const direct = parseNumber(value);
  if (direct !== null) return { value: direct, path };
  if (!isRecord(value)) return null;
  for (const key of keysNamed(value, VALUE_KEYS)) {
    const inner = parseNumber(value[key]);
    if (inner !== null) return { value: inner, path: joinPath(path, key) };
  }
  return null;
}

/** An id: a positive whole number, bare or as text (`"4212"`); null otherwise. */
export function parseId(value: unknown): number | null {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : null;
}

/** Non-empty text (trimmed), or a number shown as text; null otherwise. */
export function parseText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * A day or a month as `YYYY-MM-DD` (a month alone is its first day): `2026-10`, `2026-10-15`,
 * `2026-10-15T06:00:00+02:00`, `2026/10`, `10/2026`, a Unix time in seconds or milliseconds. Null otherwise.
 */
export function parseDay(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const ms = value < 1e11 ? value * 1000 : value;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10);
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const day = /^(\d{4})[-/](\d{2})[-/](\d{2})(?:$|[T ])/.exec(text);
  if (day !== null) return validDay(Number(day[1]), Number(day[2]), Number(day[3]));
  const month = /^(\d{4})[-/](\d{1,2})$/.exec(text);
  if (month !== null) return validDay(Number(month[1]), Number(month[2]), 1);
  const monthFirst = /^(\d{1,2})[-/](\d{4})$/.exec(text);
  if (monthFirst !== null) return validDay(Number(monthFirst[2]), Number(monthFirst[1]), 1);
  return null;
}

function validDay(year: number, month: number, day: number): string | null {
  if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Keys of an object that wraps a list: `{ items: [...], count: 3 }`. */
export const LIST_WRAPPERS = ['items', 'data', 'results', 'list', 'rows', 'entries', 'records', 'values', 'points', 'elements', 'nodes'];

export interface ListEntry {
  /** The map key the entry was found under (a name, an id, a month), or null for an array item. */
  key: string | null;
  value: unknown;
  /** Path of the entry from the reader's root. */
  path: string;
}

/**
 * Entries of a list given as an array, as an object wrapping an array (`{ items: [...], total: 3 }`, where the
 * wrapper key may also be one of `ownNames`), or, when `maps` is true, as a map (`{ chatgpt: 76, gemini: 52 }`).
 * Null when the value is none of these.
 */
export function listEntries(value: unknown, path: string, options: { maps: boolean; ownNames?: readonly string[] }): ListEntry[] | null {
  if (Array.isArray(value)) return (value as unknown[]).map((item, index) => ({ key: null, value: item, path: joinPath(path, index) }));
  if (!isRecord(value)) return null;
  for (const key of keysNamed(value, [...(options.ownNames ?? []), ...LIST_WRAPPERS])) {
    const inner = value[key];
    if (Array.isArray(inner)) return (inner as unknown[]).map((item, index) => ({ key: null, value: item, path: joinPath(joinPath(path, key), index) }));
  }
  if (!options.maps) return null;
  const entries = Object.entries(value);
  if (entries.length === 0) return [];
  return entries.map(([key, item]) => ({ key, value: item, path: joinPath(path, key) }));
}

/** Keys that only count a list (`total`, `count`), skipped when a map is read as a list. */
export const COUNT_KEYS = ['total', 'count', 'totalcount', 'size', 'length', 'page', 'pages', 'offset', 'limit', 'hasmore', 'next'];

const ENTRY_NAME_KEYS = ['name', 'key', 'metric', 'type', 'label', 'id', 'code'];
const ENTRY_VALUE_KEYS = ['value', 'score', 'amount', 'val', 'current'];

/**
 * A list of name/value records read as the map it stands for: `[{ name: 'geo_score', value: 71 }]` →
 * `{ geo_score: 71 }`. Null when the value is not such a list.
 */
export function namedValuesAsRecord(value: unknown): JsonRecord | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: JsonRecord = {};
  for (const item of value) {
    if (!isRecord(item)) return null;
    const nameKey = keysNamed(item, ENTRY_NAME_KEYS).find((key) => typeof item[key] === 'string');
    const valueKey = keysNamed(item, ENTRY_VALUE_KEYS)[0];
    if (nameKey === undefined || valueKey === undefined) return null;
    out[item[nameKey] as string] = item[valueKey];
  }
  return out;
}
