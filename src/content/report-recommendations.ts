// The recommendations section of a report answer, and one recommendation as recommendations.php lists it too:
// a title, the spec's priority and category, and the fields nothing else reads.
import type { Category, Priority } from '../spec/vocabulary.js';
import { CATEGORY_WORDS, FIELDS, PRIORITY_WORDS, type FieldName } from './fields.js';
import { COUNT_KEYS, isRecord, normaliseKey, listEntries, type JsonRecord, type ListEntry } from '../spec/find.js';
import { textAt, unreadFields, type Reading } from './reading.js';

export interface RecommendationContent {
  id: string | number | null;
  title: string;
  description: string | null;
  priority: Priority;
  category: Category | null;
  impact: string | number | null;
  status: string | null;
  extra: JsonRecord;
}

export function readRecommendations(reading: Reading, section: unknown, path: string): RecommendationContent[] {
  const entries = listEntries(section, path, { maps: true, ownNames: FIELDS['section.recommendations'].names });
  if (entries === null) {
    reading.note(`Recommendations at ${path} are neither a list nor a map: left out.`);
    return [];
  }
  const out: RecommendationContent[] = [];
  for (const entry of entries) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const rec = readRecommendation(reading, entry);
    if (typeof rec === 'string') {
      reading.note(`Recommendation at ${entry.path} ${rec}: left out.`);
      continue;
    }
    out.push(rec);
  }
  return out;
}

/** A recommendation, or why it cannot be shown. Priority and category must be the spec's values. */
export function readRecommendation(reading: Reading, entry: ListEntry): RecommendationContent | string {
  if (!isRecord(entry.value)) return 'is not a record';
  const record = entry.value;
  const at = entry.path;
  const named = (field: FieldName) => reading.namedDeep(field, record, at);
  const title = reading.locate('recommendation.title', record, at, named('recommendation.title'), textAt);
  if (title === null) return 'has no title';
  const priorityText = reading.locate('recommendation.priority', record, at, named('recommendation.priority'), textAt);
  const priority = priorityText === null ? undefined : PRIORITY_WORDS[normaliseKey(priorityText.value)];
  if (priority === undefined) {
    return priorityText === null
      ? `("${shorten(title.value)}") has no priority`
      : `("${shorten(title.value)}") has priority "${shorten(priorityText.value)}", not one of critical, high, medium, low`;
  }
  const categoryText = reading.locate('recommendation.category', record, at, named('recommendation.category'), textAt);
  const category = categoryText === null ? null : (CATEGORY_WORDS[normaliseKey(categoryText.value)] ?? null);
  if (categoryText !== null && category === null) {
    reading.note(
      `Recommendation at ${at} has category "${shorten(categoryText.value)}", not one of seo, content, technical, ai_visibility: shown without a category.`,
    );
  }
  const idFound = reading.locate<string | number>('recommendation.id', record, at, named('recommendation.id'), (value, p) =>
    typeof value === 'number' && Number.isFinite(value)
      ? { value, path: p }
      : typeof value === 'string' && value.trim() !== ''
        ? { value: value.trim(), path: p }
        : null,
  );
  const description = reading.locate(
    'recommendation.description',
    record,
    at,
    named('recommendation.description').filter((c) => c.path !== title.path),
    textAt,
  );
  const impact = reading.locate<string | number>('recommendation.impact', record, at, named('recommendation.impact'), (value, p) =>
    typeof value === 'number' && Number.isFinite(value) ? { value, path: p } : textAt(value, p),
  );
  const status = reading.locate('recommendation.status', record, at, named('recommendation.status'), textAt);
  return {
    id: idFound?.value ?? (entry.key !== null ? entry.key : null),
    title: title.value,
    description: description?.value ?? null,
    priority,
    category,
    impact: impact?.value ?? null,
    status: status?.value ?? null,
    extra: unreadFields(reading, record, at),
  };
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
