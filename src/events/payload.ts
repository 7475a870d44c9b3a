// A delivery's body → what the receiver acts on: its id, its kind, the project, and for a score change the
// scores before and after. The spec leaves the payload's shape "not shown", so it is read like report content:
// plain synonyms, top level or nested, numbers or numeric strings; `listen.fields` names paths nobody guessed.
import { createHash } from 'node:crypto';
import { parseTree, type Node as JsonNode } from 'jsonc-parser';
import { getPath, isRecord, keysNamed, normaliseKey, parseNumber, type JsonRecord } from '../spec/find.js';
import type { EventFieldMap, EventFieldName } from '../config/schema.js';
import { ID_HEADERS, parseTimestamp } from './verify.js';

export const EVENT_KINDS = ['scan.completed', 'scan.failed', 'score.change', 'test'] as const;
export type EventKind = (typeof EVENT_KINDS)[number] | 'unknown';

export type { EventFieldMap, EventFieldName } from '../config/schema.js';

export interface ScoreMove {
  before: number | null;
  after: number | null;
}

export interface EventReading {
  /** The sender's id of the delivery, else `sha256:<hex of the body>`. */
  id: string;
  kind: EventKind;
  /** The kind as the sender wrote it (for `unknown`). */
  kindText: string | null;
  projectId: number | null;
  /** When the sender says the event happened or was sent; null when it does not. */
  timestamp: Date | null;
  /** The payload writes a time of sending that is no date (`1e20`, `"soon"`): the delivery cannot be judged fresh. */
  timestampUnreadable: boolean;
  scores: { geo: ScoreMove; seo: ScoreMove };
}

const KIND_KEYS = ['event', 'type', 'kind', 'eventtype', 'eventname', 'topic', 'action', 'name'].map(normaliseKey);
const ID_KEYS = ['id', 'eventid', 'deliveryid', 'webhookdeliveryid', 'uuid', 'messageid'];
const PROJECT_KEYS = ['projectid', 'project'];
/**
 * The payload's own time of sending, at its top level only: a time inside its data (when the scan started, when a
 * score was measured) is not when the delivery was sent, and would refuse every retry of a good one for good.
 */
const TIME_KEYS = ['timestamp', 'createdat', 'sentat'];
/** Where a payload may nest what it is about. */
const WRAPPERS = ['data', 'payload', 'object', 'event', 'body', 'detail', 'details', 'attributes'];
const BEFORE_KEYS = ['previous', 'old', 'from', 'before', 'prev', 'last', 'oldvalue', 'previousvalue', 'was'];
const AFTER_KEYS = ['current', 'new', 'to', 'after', 'now', 'latest', 'value', 'newvalue', 'currentvalue', 'is'];
const SCORE_NAMES = { geo: ['geo', 'geoscore', 'aivisibility', 'aivisibilityscore', 'visibility', 'gvi'], seo: ['seo', 'seoscore'] } as const;
const SCORE_NESTS = ['scores', 'score', 'changes', 'change', 'delta', 'deltas', 'values'];
/** Nests whose bare numbers are differences (`changes: {geo_score: -3}`), not the score after. */
const DIFFERENCE_NESTS = new Set(['changes', 'change', 'delta', 'deltas']);

const KIND_SYNONYMS: Readonly<Record<string, EventKind>> = {
  scancompleted: 'scan.completed',
  scancomplete: 'scan.completed',
  scanfinished: 'scan.completed',
  scandone: 'scan.completed',
  analysiscompleted: 'scan.completed',
  scanfailed: 'scan.failed',
  scanerror: 'scan.failed',
  analysisfailed: 'scan.failed',
  scorechange: 'score.change',
  scorechanged: 'score.change',
  scoreschanged: 'score.change',
  scoreupdate: 'score.change',
  scoreupdated: 'score.change',
  test: 'test',
  ping: 'test',
  webhooktest: 'test',
  testevent: 'test',
};

/** `scan.completed`, `SCAN_COMPLETED`, `scanCompleted`… → the kind; `unknown` for a word none of them is. */
export function eventKind(text: string | null): EventKind {
  if (text === null) return 'unknown';
  return KIND_SYNONYMS[normaliseKey(text)] ?? 'unknown';
}

/** The records to look in, the payload first, then each wrapper (two levels at most). */
function layers(payload: JsonRecord): JsonRecord[] {
  const found: JsonRecord[] = [payload];
  for (let i = 0; i < found.length && found.length < 12; i += 1) {
    const layer = found[i] as JsonRecord;
    for (const key of keysNamed(layer, WRAPPERS)) {
      const inner = layer[key];
      if (isRecord(inner) && !found.includes(inner)) found.push(inner);
    }
  }
  return found;
}

function firstValue(records: readonly JsonRecord[], names: readonly string[], accept: (value: unknown) => boolean): unknown {
  for (const record of records) {
    for (const key of keysNamed(record, names)) if (accept(record[key])) return record[key];
  }
  return undefined;
}

/** No line break, escape or other control character (nor a bidirectional override): the text goes into log lines. */
export const withoutControls = (text: string): string => text.replace(/[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu, ' ').trim();

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const isIdLike = (value: unknown): boolean => isText(value) || (typeof value === 'number' && Number.isFinite(value));

function projectIdOf(records: readonly JsonRecord[]): number | null {
  for (const record of records) {
    for (const key of keysNamed(record, PROJECT_KEYS)) {
      const value = record[key];
      const direct = parseNumber(value);
      if (direct !== null && Number.isInteger(direct) && direct > 0) return direct;
      if (isRecord(value)) {
        const nested = parseNumber(value['id'] ?? value['project_id'] ?? value['projectId']);
        if (nested !== null && Number.isInteger(nested) && nested > 0) return nested;
      }
    }
  }
  return null;
}

/** `{previous, current}` and its synonyms; a bare number is the value after. */
function moveOf(value: unknown): ScoreMove | null {
  const bare = parseNumber(value);
  if (bare !== null) return { before: null, after: bare };
  if (!isRecord(value)) return null;
  const before = parseNumber(firstValue([value], BEFORE_KEYS, (v) => parseNumber(v) !== null));
  const after = parseNumber(firstValue([value], AFTER_KEYS, (v) => parseNumber(v) !== null));
  return before === null && after === null ? null : { before, after };
}

function scoreMove(records: readonly JsonRecord[], score: 'geo' | 'seo'): ScoreMove {
  const names = SCORE_NAMES[score];
  const move: ScoreMove = { before: null, after: null };
  const take = (found: ScoreMove | null): void => {
    if (found === null) return;
    move.before ??= found.before;
    move.after ??= found.after;
  };
  for (const record of records) {
    // `geo: {previous, current}`, or under `scores.geo`, `changes.geo_score`…
    for (const key of keysNamed(record, names)) take(moveOf(record[key]));
    for (const nest of keysNamed(record, SCORE_NESTS)) {
      const inner = record[nest];
      const differences = DIFFERENCE_NESTS.has(normaliseKey(nest));
      if (isRecord(inner)) for (const key of keysNamed(inner, names)) if (!differences || isRecord(inner[key])) take(moveOf(inner[key]));
    }
    // The form of one score named beside its values: `{ score: "geo_score", previous, current }`.
    const named = firstValue([record], ['score', 'metric', 'field', 'scorename', 'name'], isText);
    if (typeof named === 'string' && (names as readonly string[]).includes(normaliseKey(named))) take(moveOf(record));
    // `previous_geo_score`, `geo_score_before`…
    for (const [key, value] of Object.entries(record)) {
      const normal = normaliseKey(key);
      if (!names.some((name) => normal.includes(name))) continue;
      const number = parseNumber(value);
      if (number === null) continue;
      if (BEFORE_KEYS.some((word) => normal.startsWith(word) || normal.endsWith(word))) move.before ??= number;
      else if (AFTER_KEYS.some((word) => normal.startsWith(word) || normal.endsWith(word))) move.after ??= number;
    }
  }
  return move;
}

function mapped(payload: JsonRecord, fields: EventFieldMap, name: EventFieldName): unknown {
  const path = fields[name];
  return path === undefined ? undefined : getPath(payload, path);
}

/** The path of the top-level key the id is read from (as `firstValue` picks it), or null. */
function idKeyPath(payload: JsonRecord): string[] | null {
  const key = keysNamed(payload, ID_KEYS).find((name) => isIdLike(payload[name]));
  return key === undefined ? null : [key];
}

/**
 * The text of the number at `path` in the body, exactly as sent (`9007199254740993`, `1e3`); null when it is not
 * found there. Of a key given twice, the last one, as JSON.parse reads it.
 */
function numberAsSent(body: Buffer, path: readonly string[] | null): string | null {
  if (path === null) return null;
  const text = body.toString('utf8');
  let node: JsonNode | undefined = parseTree(text, [], { disallowComments: true });
  for (const part of path) {
    if (node?.type === 'object') {
      node = node.children?.findLast((property) => property.children?.[0]?.value === part)?.children?.[1];
    } else if (node?.type === 'array' && /^\d+$/.test(part)) {
      node = node.children?.[Number(part)];
    } else return null;
  }
  return node?.type === 'number' ? text.slice(node.offset, node.offset + node.length) : null;
}

/**
 * Reads a verified delivery. Never throws on an unknown shape: what it does not find is null (kind `unknown`),
 * and the caller stores and acknowledges the delivery anyway.
 */
export function readEvent(input: {
  payload: unknown;
  body: Buffer;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  fields?: EventFieldMap;
}): EventReading {
  const fields = input.fields ?? {};
  const payload = isRecord(input.payload) ? input.payload : {};
  const records = layers(payload);
  const headerText = (name: string): string | undefined => {
    const value = input.headers[name];
    return isText(value) ? value.trim() : undefined;
  };

  const mappedId = mapped(payload, fields, 'id');
  const idPath = mappedId !== undefined && fields.id !== undefined ? fields.id.split('.') : idKeyPath(payload);
  const idValue = mappedId ?? firstValue([payload], ID_KEYS, isIdLike) ?? ID_HEADERS.map(headerText).find(isText);
  // A number is taken as the service wrote it: through a JavaScript number, 9007199254740993 would be read as
  // 9007199254740992, and two deliveries would share one id (the second answered "duplicate", its alert lost).
  const idText = typeof idValue === 'number' ? (numberAsSent(input.body, idPath) ?? String(idValue)) : idValue;
  const id =
    typeof idText === 'string'
      ? // No line break or other control character: the id is written into log lines.
        withoutControls(idText).slice(0, 200)
      : `sha256:${createHash('sha256').update(input.body).digest('hex')}`;

  // A word that is a known kind wins over any other text under a kind-like key (`name` is often a label).
  // From the body alone: no header is covered by the signature, so none may decide what a delivery is.
  const kindValue =
    mapped(payload, fields, 'kind') ??
    firstValue(records, KIND_KEYS, (v) => isText(v) && eventKind(v) !== 'unknown') ??
    firstValue(records, KIND_KEYS.slice(0, 5), isText);
  const kindText = isText(kindValue) ? withoutControls(kindValue).slice(0, 100) || null : null;

  const mappedProject = parseNumber(mapped(payload, fields, 'projectId'));
  const projectId = mappedProject !== null && Number.isInteger(mappedProject) && mappedProject > 0 ? mappedProject : projectIdOf(records);

  const timeValue = mapped(payload, fields, 'timestamp') ?? firstValue([payload], TIME_KEYS, (v) => v !== null && v !== '');
  const timestamp = parseTimestamp(timeValue);
  const timestampUnreadable = timeValue !== undefined && timestamp === null;

  const scores = { geo: scoreMove(records, 'geo'), seo: scoreMove(records, 'seo') };
  for (const score of ['geo', 'seo'] as const) {
    const before = parseNumber(mapped(payload, fields, `${score}.before`));
    const after = parseNumber(mapped(payload, fields, `${score}.after`));
    if (before !== null) scores[score].before = before;
    if (after !== null) scores[score].after = after;
  }
  return { id, kind: eventKind(kindText), kindText, projectId, timestamp, timestampUnreadable, scores };
}
