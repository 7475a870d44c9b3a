// Reads a scan's `geo` section: the questions asked, each assistant's mention and position per question, and the
// raw answers. Lists or maps (by id, by assistant), other key names, numbers and flags as text.
import { isRecord, keysNamed, listEntries, parseId, parseNumber, parseText, type JsonRecord } from '../../spec/find.js';
import { scanPart, textOf } from '../unit.js';

export interface AiAnswersRead {
  questions: Array<{ id: string; text: string }>;
  /** One per question and assistant the service asked. */
  positions: Array<{ questionId: string; assistant: string; mentioned: boolean | null; position: number | null }>;
  responses: Array<{ questionId: string; assistant: string; text: string }>;
}

const QUESTION_LIST = ['questions', 'prompts', 'queries'];
const POSITION_LIST = ['positions', 'mentions', 'results', 'visibility'];
const RESPONSE_LIST = ['rawresponses', 'responses', 'answers', 'raw'];
const QUESTION_ID = ['questionid', 'question', 'qid', 'promptid'];
const ASSISTANT = ['ai', 'assistant', 'engine', 'model', 'llm', 'platform'];
const TEXT = ['question', 'text', 'prompt', 'query', 'title'];
const RESPONSE_TEXT = ['response', 'text', 'answer', 'content', 'raw'];

/** The scan's questions and answers; null when it has no `geo` section or no questions in it. */
export function readAiAnswers(scan: JsonRecord): AiAnswersRead | null {
  const geo = scanPart(scan, ['geo', 'geoanalysis']);
  if (geo === null) return null;
  const questionEntries = entriesNamed(geo, QUESTION_LIST);
  if (questionEntries === null) return null;
  const questions: AiAnswersRead['questions'] = [];
  for (const [index, entry] of questionEntries.entries()) {
    const value = entry.value;
    const text = isRecord(value) ? textOf(value, TEXT) : parseText(value);
    if (text === null) continue;
    const id = (isRecord(value) ? idOf(value, ['id', 'questionid']) : null) ?? entry.key ?? String(index + 1);
    questions.push({ id, text });
  }
  if (questions.length === 0) return null;
  return { questions, positions: readPositions(geo), responses: readResponses(geo) };
}

function readPositions(geo: JsonRecord): AiAnswersRead['positions'] {
  const out: AiAnswersRead['positions'] = [];
  for (const { row, assistantKey } of rowsOf(geo, POSITION_LIST)) {
    const assistant = textOf(row, ASSISTANT) ?? assistantKey;
    const questionId = idOf(row, QUESTION_ID);
    if (assistant === null || questionId === null) continue;
    const position = parseNumber(valueOf(row, ['position', 'rank', 'pos']));
    const flag = valueOf(row, ['mentioned', 'cited', 'found', 'present', 'visible']);
    const mentioned =
      typeof flag === 'boolean'
        ? flag
        : flag === 'true' || flag === 'yes' || flag === 1
          ? true
          : flag === 'false' || flag === 'no' || flag === 0
            ? false
            : position === null
              ? null
              : true;
    out.push({ questionId, assistant: assistant.toLowerCase(), mentioned, position: mentioned === false ? null : position });
  }
  return out;
}

function readResponses(geo: JsonRecord): AiAnswersRead['responses'] {
  const out: AiAnswersRead['responses'] = [];
  for (const { row, assistantKey } of rowsOf(geo, RESPONSE_LIST)) {
    const assistant = textOf(row, ASSISTANT) ?? assistantKey;
    const questionId = idOf(row, QUESTION_ID);
    const text = textOf(row, RESPONSE_TEXT);
    if (assistant === null || questionId === null || text === null) continue;
    out.push({ questionId, assistant: assistant.toLowerCase(), text });
  }
  return out;
}

/** Rows of a list, or of a map keyed by assistant (`{ chatgpt: [ … ] }` or `{ chatgpt: { "1": … } }`). */
function rowsOf(geo: JsonRecord, names: readonly string[]): Array<{ row: JsonRecord; assistantKey: string | null }> {
  const entries = entriesNamed(geo, names) ?? [];
  const rows: Array<{ row: JsonRecord; assistantKey: string | null }> = [];
  for (const entry of entries) {
    if (entry.key !== null && !isRecord(entry.value) && !Array.isArray(entry.value)) continue;
    if (
      entry.key !== null &&
      (Array.isArray(entry.value) || (isRecord(entry.value) && textOf(entry.value, ASSISTANT) === null && idOf(entry.value, QUESTION_ID) === null))
    ) {
      for (const inner of listEntries(entry.value, entry.path, { maps: true }) ?? []) {
        if (isRecord(inner.value)) rows.push({ row: inner.key === null ? inner.value : { question_id: inner.key, ...inner.value }, assistantKey: entry.key });
      }
      continue;
    }
    if (isRecord(entry.value)) rows.push({ row: entry.value, assistantKey: entry.key });
  }
  return rows;
}

function entriesNamed(record: JsonRecord, names: readonly string[]) {
  for (const key of keysNamed(record, names)) {
    const entries = listEntries(record[key], key, { maps: true });
    if (entries !== null) return entries;
  }
  return null;
}

function valueOf(record: JsonRecord, names: readonly string[]): unknown {
  for (const key of keysNamed(record, names)) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}

function idOf(record: JsonRecord, names: readonly string[]): string | null {
  for (const key of keysNamed(record, names)) {
    const value = record[key];
    const id = parseId(value) ?? (isRecord(value) ? parseId(value['id']) : null);
    if (id !== null) return String(id);
  }
  return null;
}
