// Reads a scan's `geo` section: the questions asked, each assistant's mention and position per question, and the
// raw answers. Lists or maps (by id, by assistant), other key names, numbers and flags as text.
import { isRecord, keysNamed, listEntries, parseId, parseNumber, parseText, type JsonRecord } from '../../spec/find.js';
import { scanPart, scanPartAt, textOf } from '../unit.js';

export interface AiAnswersRead {
  questions: Array<{ id: string; text: string }>;
  /** One per question and assistant the service asked. */
  positions: Array<{ questionId: string; assistant: string; mentioned: boolean | null; position: number | null } & AnswerNames>;
  responses: Array<{ questionId: string; assistant: string; text: string } & AnswerNames>;
}

/** What the service says an answer named besides the site, where it says it. */
export interface AnswerNames {
  /** The competitors the service lists with the answer; absent when it sends no such field (then read from the text). */
  competitors?: string[];
  /** The pages or domains the answer cited, where the service lists them. */
  sources?: string[];
}

const QUESTION_LIST = ['questions', 'prompts', 'queries'];
const POSITION_LIST = ['positions', 'mentions', 'results', 'visibility'];
const RESPONSE_LIST = ['rawresponses', 'responses', 'answers', 'raw'];
const QUESTION_ID = ['questionid', 'question', 'qid', 'promptid'];
/** A question's own id. */
const OWN_ID = ['id', 'questionid', 'promptid'];
const ASSISTANT = ['ai', 'assistant', 'engine', 'model', 'llm', 'platform'];
const TEXT = ['question', 'text', 'prompt', 'query', 'title'];
const RESPONSE_TEXT = ['response', 'text', 'answer', 'answertext', 'responsetext', 'content', 'raw'];
/** A question's own answers, per assistant, when the service nests them in the question. */
const NESTED_ANSWERS = [
  'engines',
  'assistants',
  'answers',
  'results',
  'responses',
  'positions',
  'mentions',
  'byassistant',
  'byengine',
  'models',
  'llms',
  'ais',
];

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
    const id = (isRecord(value) ? idOf(value, OWN_ID) : null) ?? entry.key ?? String(index + 1);
    questions.push({ id, text });
  }
  if (questions.length === 0) return null;
  const nested = readNested(questionEntries, questions);
  return { questions, positions: [...readPositions(geo), ...nested.positions], responses: [...readResponses(geo), ...nested.responses] };
}

/** Answers nested in each question (`{ prompt, engines: { chatgpt: { cited, rank, answer_text } } }`). */
/** Where the scan holds the questions asked, for doctor. */
export function locateAiAnswers(scan: JsonRecord): string | null {
  const geo = scanPartAt(scan, ['geo', 'geoanalysis']);
  const key = geo === null ? undefined : keysNamed(geo.record, QUESTION_LIST).find((k) => listEntries(geo.record[k], k, { maps: true }) !== null);
  return geo === null || key === undefined ? null : `${geo.path}.${key}`;
}

function readNested(entries: NonNullable<ReturnType<typeof listEntries>>, questions: AiAnswersRead['questions']): Omit<AiAnswersRead, 'questions'> {
  const positions: AiAnswersRead['positions'] = [];
  const responses: AiAnswersRead['responses'] = [];
  for (const [index, entry] of entries.entries()) {
    const value = entry.value;
    if (!isRecord(value)) continue;
    const question = questions.find((q) => q.id === (idOf(value, OWN_ID) ?? entry.key ?? String(index + 1)));
    if (question === undefined) continue;
    for (const key of keysNamed(value, NESTED_ANSWERS)) {
      for (const inner of listEntries(value[key], key, { maps: true }) ?? []) {
        if (!isRecord(inner.value)) continue;
        const assistant = textOf(inner.value, ASSISTANT) ?? inner.key;
        if (assistant === null) continue;
        const position = parseNumber(valueOf(inner.value, ['position', 'rank', 'pos']));
        const names = answerNames(inner.value);
        positions.push({
          questionId: question.id,
          assistant: assistant.toLowerCase(),
          ...mention(valueOf(inner.value, MENTION_FLAGS), position),
          ...names,
        });
        const text = textOf(inner.value, RESPONSE_TEXT);
        if (text !== null) responses.push({ questionId: question.id, assistant: assistant.toLowerCase(), text, ...names });
      }
      break;
    }
  }
  return { positions, responses };
}

const MENTION_FLAGS = ['mentioned', 'cited', 'found', 'present', 'visible'];
const COMPETITOR_FIELDS = ['competitors', 'competitormentions', 'competitorsmentioned', 'competingbrands', 'brands', 'rivals'];
const SOURCE_FIELDS = ['sources', 'citations', 'citedsources', 'urls', 'links', 'references'];
const NAME_KEYS = ['name', 'brand', 'domain', 'url', 'site', 'title', 'label'];

/** Names as the service lists them: a list of texts or of records, a map name → count or flag, "a, b" as one text. */
function namesIn(value: unknown): string[] | null {
  if (value === undefined || value === null || typeof value === 'boolean') return null;
  if (typeof value === 'string') {
    return value
      .split(/[,;|]/)
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  const entries = listEntries(value, '', { maps: true, ownNames: ['names', 'brands'] });
  if (entries === null) return null;
  const names: string[] = [];
  for (const entry of entries) {
    const inner = entry.value;
    const text = isRecord(inner) ? textOf(inner, NAME_KEYS) : (parseText(inner) ?? null);
    // A map of name → count or flag: the key is the name (a flag that says no leaves it out).
    const name = entry.key !== null && (typeof inner === 'number' || typeof inner === 'boolean' || !isRecord(inner)) ? entry.key : text;
    if (name === null || inner === false || inner === 0 || inner === 'false') continue;
    if (entry.key !== null && /^(count|total|size)$/i.test(entry.key)) continue;
    names.push(name.trim());
  }
  return names.filter((name) => name !== '');
}

/** The competitor and source fields of one answer's record, as far as it has them. */
function answerNames(record: JsonRecord): AnswerNames {
  const out: AnswerNames = {};
  for (const key of keysNamed(record, COMPETITOR_FIELDS)) {
    const names = namesIn(record[key]);
    if (names !== null) {
      out.competitors = names;
      break;
    }
  }
  for (const key of keysNamed(record, SOURCE_FIELDS)) {
    if (typeof record[key] === 'boolean' || typeof record[key] === 'number') continue; // `cited: true` is a mention flag
    const names = namesIn(record[key]);
    if (names !== null) {
      out.sources = names;
      break;
    }
  }
  return out;
}

/** A mention flag as sent (a boolean, "yes", "true", 1…) with the position; no flag: mentioned when ranked. */
function mention(flag: unknown, position: number | null): { mentioned: boolean | null; position: number | null } {
  const word = typeof flag === 'string' ? flag.trim().toLowerCase() : flag;
  const mentioned =
    typeof word === 'boolean'
      ? word
      : word === 'true' || word === 'yes' || word === 1 || word === '1'
        ? true
        : word === 'false' || word === 'no' || word === 0 || word === '0'
          ? false
          : position === null
            ? null
            : true;
  return { mentioned, position: mentioned === false ? null : position };
}

function readPositions(geo: JsonRecord): AiAnswersRead['positions'] {
  const out: AiAnswersRead['positions'] = [];
  for (const { row, assistantKey } of rowsOf(geo, POSITION_LIST)) {
    const assistant = textOf(row, ASSISTANT) ?? assistantKey;
    const questionId = idOf(row, QUESTION_ID);
    if (assistant === null || questionId === null) continue;
    const position = parseNumber(valueOf(row, ['position', 'rank', 'pos']));
    out.push({ questionId, assistant: assistant.toLowerCase(), ...mention(valueOf(row, MENTION_FLAGS), position), ...answerNames(row) });
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
    out.push({ questionId, assistant: assistant.toLowerCase(), text, ...answerNames(row) });
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
