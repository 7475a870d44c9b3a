// A project's name and domain: the spec names only `id` and `status`, so both are looked for by their synonyms.
import { isRecord, keysNamed, parseText } from './find.js';

export interface ProjectInfo {
  name: string | null;
  domain: string | null;
}

const NAME_KEYS = ['name', 'title', 'label', 'projectname', 'displayname', 'clientname', 'company', 'brand'];
const DOMAIN_KEYS = ['domain', 'website', 'site', 'url', 'hostname', 'host', 'homepage'];

export function readProjectInfo(project: unknown): ProjectInfo {
  if (!isRecord(project)) return { name: null, domain: null };
  return { name: textOf(project, NAME_KEYS, ['name', 'title']), domain: textOf(project, DOMAIN_KEYS, ['domain', 'host', 'url']) };
}

/** The first text under one of `keys`; a record there (`website: { domain }`) is looked into with `inner`. */
function textOf(record: Record<string, unknown>, keys: readonly string[], inner: readonly string[]): string | null {
  for (const key of keysNamed(record, keys)) {
    const value = record[key];
    if (typeof value === 'string') {
      const text = parseText(value);
      if (text !== null) return text;
    }
    if (isRecord(value)) {
      for (const innerKey of keysNamed(value, inner)) {
        const text = typeof value[innerKey] === 'string' ? parseText(value[innerKey]) : null;
        if (text !== null) return text;
      }
    }
  }
  return null;
}
