// A project's name and domain, and an analysis's state: the spec names only their `id` (and a project's `status`),
// so the rest is looked for by its synonyms. Below the API schemas, which read them into Project and Analysis.
import { REPORT_STATUS_WORDS } from './vocabulary.js';
import { isRecord, keysNamed, normaliseKey, numberIn, parseId, parseText } from './find.js';

export interface ProjectInfo {
  name: string | null;
  domain: string | null;
  /** The project's language as the service wrote it ("fr", "fr-FR"); the report's language follows it when the config pins none. */
  language: string | null;
}

const NAME_KEYS = ['name', 'title', 'label', 'projectname', 'displayname', 'clientname', 'company', 'brand'];
const DOMAIN_KEYS = ['domain', 'website', 'site', 'url', 'hostname', 'host', 'homepage'];
const LANGUAGE_KEYS = ['language', 'lang', 'locale', 'languagecode', 'contentlanguage'];

export function readProjectInfo(project: unknown): ProjectInfo {
  if (!isRecord(project)) return { name: null, domain: null, language: null };
  return {
    name: textOf(project, NAME_KEYS, ['name', 'title']),
    domain: textOf(project, DOMAIN_KEYS, ['domain', 'host', 'url']),
    language: textOf(project, LANGUAGE_KEYS, ['code', 'language', 'lang']),
  };
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

export interface AnalysisInfo {
  /** `completed` or `failed` when the service's word says so; its own word otherwise; `unknown` when none. */
  status: string;
  projectId: number | null;
  /** 0–100 */
  progress: number | null;
  scanId: number | null;
  error: string | null;
}

/** What the batch and `analyze` need of an analysis, wherever the service put it. */
export function readAnalysisInfo(analysis: Record<string, unknown>): AnalysisInfo {
  let word: string | null = null;
  for (const key of keysNamed(analysis, ['status', 'state', 'phase'])) {
    const value = analysis[key];
    const inner = isRecord(value) ? value[keysNamed(value, ['code', 'status', 'name', 'value'])[0] ?? ''] : value;
    word = typeof inner === 'string' ? parseText(inner) : null;
    if (word !== null) break;
  }
  return {
    status: word === null ? 'unknown' : analysisStatus(word),
    projectId: idOf(analysis, ['projectid', 'project']),
    progress: progressOf(analysis),
    scanId: idOf(analysis, ['scanid', 'scan']),
    error: errorOf(analysis),
  };
}

/** `completed` or `failed` when the service's word says so; the word itself, in lower case, otherwise. */
function analysisStatus(word: string): string {
  const normal = normaliseKey(word);
  if ((REPORT_STATUS_WORDS.finished as readonly string[]).includes(normal)) return 'completed';
  if ((REPORT_STATUS_WORDS.failed as readonly string[]).includes(normal)) return 'failed';
  return word.toLowerCase();
}

function idOf(record: Record<string, unknown>, names: readonly string[]): number | null {
  for (const key of keysNamed(record, names)) {
    const id = parseId(isRecord(record[key]) ? (record[key] as Record<string, unknown>)['id'] : record[key]);
    if (id !== null) return id;
  }
  return null;
}

function progressOf(record: Record<string, unknown>): number | null {
  for (const key of keysNamed(record, ['progress', 'percent', 'percentage', 'completion'])) {
    const found = numberIn(record[key], key);
    if (found !== null) return found.value;
  }
  const state = keysNamed(record, ['state', 'status'])
    .map((k) => record[k])
    .find(isRecord);
  return state === undefined ? null : progressOf(state);
}

function errorOf(record: Record<string, unknown>): string | null {
  for (const key of keysNamed(record, ['error', 'errormessage', 'failurereason', 'reason', 'message'])) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (isRecord(value)) {
      const text = keysNamed(value, ['message', 'detail', 'description', 'text'])
        .map((k) => value[k])
        .find((v) => typeof v === 'string');
      if (typeof text === 'string') return text;
    }
  }
  return null;
}
