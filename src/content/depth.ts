// How deep the service's content nests. Every reader, the report's "other data", the HTML and JSON.stringify of the
// data kept for next month walk a value by recursion: content nested thousands of levels deep ran them out of
// stack ("Maximum call stack size exceeded") and failed the whole report. Here it is measured without recursion,
// and what nests too deep is taken out of the answer (its section, by the reader), never the report.
import { isRecord, joinPath } from '../spec/find.js';

/** Deepest nesting of objects and lists kept; a real report nests a dozen levels or so. */
export const MAX_CONTENT_DEPTH = 64;
/** Places named at most: a hostile answer may hold thousands. */
const MAX_PLACES = 20;

/** Paths (dot paths from the root, as the readers write them) of values more than `limit` levels deep, at the limit. */
export function deepPlaces(root: unknown, limit = MAX_CONTENT_DEPTH): string[] {
  const places: string[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (stack.length > 0 && places.length < MAX_PLACES) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    const entries = Array.isArray(value) ? value.entries() : isRecord(value) ? Object.entries(value) : null;
    if (entries === null) continue;
    if (depth >= limit) {
      places.push(path);
      continue;
    }
    for (const [key, inner] of entries) stack.push({ value: inner, path: joinPath(path, key), depth: depth + 1 });
  }
  return places;
}

/** `place` is `path` or inside it. */
export function isWithin(place: string, path: string): boolean {
  return path === '' || place === path || place.startsWith(`${path}.`);
}

/**
 * A copy of `root` without the values at `paths` (a key removed, a list item set to null), sharing everything
 * else; `root` itself is left as it is.
 */
export function withoutPaths(root: unknown, paths: readonly string[]): unknown {
  let copy = root;
  for (const path of paths) copy = without(copy, path.split('.'));
  return copy;
}

function without(value: unknown, parts: readonly string[]): unknown {
  const [head, ...rest] = parts;
  if (head === undefined) return value;
  if (Array.isArray(value)) {
    const index = Number(head);
    if (!Number.isInteger(index) || index < 0 || index >= value.length) return value;
    const items = [...(value as unknown[])];
    items[index] = rest.length === 0 ? null : without(items[index], rest);
    return items;
  }
  if (!isRecord(value) || !Object.hasOwn(value, head)) return value;
  if (rest.length === 0) return Object.fromEntries(Object.entries(value).filter(([key]) => key !== head));
  return { ...value, [head]: without(value[head], rest) };
}
