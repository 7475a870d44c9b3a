// One reading of one answer: the field map to try first, what was read (for "other data" and doctor), where
// each value was found, and the data-quality notes for the agency.
import { FIELDS, type FieldMap, type FieldName } from './fields.js';
import { getPath, isRecord, joinPath, keysNamed, parseDay, parseText, type JsonRecord } from '../spec/find.js';

export interface Located<T> {
  value: T;
  /** Path of the value from the answer's `data` (or from the item, for item fields). */
  path: string;
}

/** Where doctor says a name was found when it is the key of a map (`{ chatgpt: 76 }`). */
export const MAP_KEY = '(the map key)';

/** A text at `path`, for `locate`. */
export function textAt(value: unknown, path: string): Located<string> | null {
  const text = parseText(value);
  return text === null ? null : { value: text, path };
}

/** A day (YYYY-MM-DD) at `path`, for `locate`. */
export function dayAt(value: unknown, path: string): Located<string> | null {
  const day = parseDay(value);
  return day === null ? null : { value: day, path };
}

export class Reading {
  readonly fields: FieldMap;
  /** Paths read (a path covers everything under it). */
  readonly consumed = new Set<string>();
  /** Field → where it was first found, from the answer's `data`. */
  readonly found = new Map<FieldName, string>();
  /** Data-quality notes: what was left out or not found, and where. For the agency, never the client. */
  readonly notes: string[] = [];

  constructor(fields: FieldMap = {}) {
    this.fields = fields;
  }

  take(path: string): void {
    this.consumed.add(path);
  }

  note(message: string): void {
    if (!this.notes.includes(message)) this.notes.push(message);
  }

  foundAt(field: FieldName, path: string): void {
    this.placed(field, path);
    this.take(path);
  }

  /** Records where a value was found without marking anything read (an item field found by its map key). */
  placed(field: FieldName, path: string): void {
    if (!this.found.has(field)) this.found.set(field, path);
  }

  /**
   * The first candidate that `parse` accepts: the field map's paths for `field` (from `scope`, whose own path is
   * `scopePath`), then the default candidates. The value found is marked read and its place recorded.
   */
  locate<T>(
    field: FieldName,
    scope: unknown,
    scopePath: string,
    defaults: ReadonlyArray<{ value: unknown; path: string }>,
    parse: (value: unknown, path: string) => Located<T> | null,
  ): Located<T> | null {
    for (const mapped of this.fields[field] ?? []) {
      const path = joinPath(scopePath, mapped);
      const hit = parse(getPath(scope, mapped), mapped === '' ? scopePath : path);
      if (hit !== null) return this.#hit(field, hit, scopePath);
    }
    for (const candidate of defaults) {
      const hit = parse(candidate.value, candidate.path);
      if (hit !== null) return this.#hit(field, hit, scopePath);
    }
    return null;
  }

  /** Marks the value read; its place is kept from the scope (the answer's `data`, or the item), as a field map wants it. */
  #hit<T>(field: FieldName, hit: Located<T>, scopePath: string): Located<T> {
    this.take(hit.path);
    const relative = scopePath === '' ? hit.path : hit.path.startsWith(`${scopePath}.`) ? hit.path.slice(scopePath.length + 1) : hit.path;
    this.placed(field, relative);
    return hit;
  }

  /** Candidates for `field` among the keys of `record` (at `path`), in the order of the field's names. */
  named(field: FieldName, record: unknown, path: string): Array<{ value: unknown; path: string }> {
    if (!isRecord(record)) return [];
    return keysNamed(record, FIELDS[field].names).map((key) => ({ value: record[key], path: joinPath(path, key) }));
  }

  /**
   * Like `named`, then the same names one level down (`{ estimate: { impact } }`, `{ comparison: { percentile } }`):
   * a server may group an item's fields. The item's own keys come first.
   */
  namedDeep(field: FieldName, record: unknown, path: string): Array<{ value: unknown; path: string }> {
    if (!isRecord(record)) return [];
    const own = this.named(field, record, path);
    const nested = Object.entries(record)
      .filter(([, value]) => isRecord(value))
      .flatMap(([key, value]) => this.named(field, value, joinPath(path, key)));
    return [...own, ...nested];
  }

  isConsumed(path: string): boolean {
    if (this.consumed.has(path)) return true;
    for (let cut = path.lastIndexOf('.'); cut > 0; cut = path.lastIndexOf('.', cut - 1)) {
      if (this.consumed.has(path.slice(0, cut))) return true;
    }
    return this.consumed.has('');
  }

  /** Something under `path` was read. */
  touched(path: string): boolean {
    if (path === '') return this.consumed.size > 0;
    const prefix = `${path}.`;
    for (const consumed of this.consumed) if (consumed === path || consumed.startsWith(prefix)) return true;
    return false;
  }

  /** Keys of `root` (at `rootPath`) that nothing read: the top-most unread paths with their values. */
  unread(root: unknown, rootPath: string): Array<{ path: string; value: unknown }> {
    const out: Array<{ path: string; value: unknown }> = [];
    const walk = (value: unknown, path: string): void => {
      if (path !== rootPath && this.isConsumed(path)) return;
      if (path !== rootPath && !this.touched(path)) {
        out.push({ path, value });
        return;
      }
      if (isRecord(value)) for (const [key, inner] of Object.entries(value)) walk(inner, joinPath(path, key));
      else if (Array.isArray(value)) value.forEach((inner, index) => walk(inner, joinPath(path, index)));
    };
    walk(root, rootPath);
    return out;
  }
}

/**
 * Every key of a record that nothing read, as a record (for "other data" and the `extra` of an item); of an object
 * read in part (`platform: { name, url }` with only the name read), only the rest, so nothing is shown twice.
 */
export function unreadFields(reading: Reading, record: JsonRecord, path: string): JsonRecord {
  const rest: JsonRecord = {};
  for (const [key, value] of Object.entries(record)) {
    const at = joinPath(path, key);
    if (reading.isConsumed(at)) continue;
    if (isRecord(value) && reading.touched(at)) {
      const inner = unreadFields(reading, value, at);
      if (Object.keys(inner).length > 0) rest[key] = inner;
    } else {
      rest[key] = value;
    }
  }
  return rest;
}
