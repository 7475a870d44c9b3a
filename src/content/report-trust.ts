// The trust section of a report answer: a score and the review platforms (a list, or a rating per platform name).
import type { FieldName } from './fields.js';
import { COUNT_KEYS, isRecord, listEntries, normaliseKey, numberIn, parseNumber, type JsonRecord, type ListEntry } from '../spec/find.js';
import { MAP_KEY, textAt, unreadFields, type Reading } from './reading.js';

export interface PlatformContent {
  name: string;
  rating: number | null;
  reviews: number | null;
  url: string | null;
  extra: JsonRecord;
}

export interface TrustContent {
  score: number | null;
  platforms: PlatformContent[];
  extra: JsonRecord;
}

export function readTrust(reading: Reading, data: unknown, section: unknown, path: string): TrustContent {
  const bare = parseNumber(section);
  if (bare !== null) {
    reading.foundAt('trust.score', path);
    return { score: bare, platforms: [], extra: {} };
  }
  const record = isRecord(section) ? section : {};
  const score = reading.locate('trust.score', data, '', reading.named('trust.score', record, path), numberIn);
  const platformsAt = reading.locate('trust.platforms', data, '', reading.named('trust.platforms', record, path), (value, at) => {
    if (parseNumber(value) !== null) return null; // `reviews: 120` is a count, not the platforms
    const entries = listEntries(value, at, { maps: true });
    return entries === null ? null : { value: entries, path: at };
  });
  if (platformsAt !== null) reading.consumed.delete(platformsAt.path);
  const platforms: PlatformContent[] = [];
  for (const entry of platformsAt?.value ?? []) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const platform = readPlatform(reading, entry);
    if (platform === null) {
      reading.note(`Review platform at ${entry.path} has no name: left out.`);
      continue;
    }
    platforms.push(platform);
  }
  if (platformsAt !== null) reading.take(platformsAt.path);
  return { score: score?.value ?? null, platforms, extra: unreadFields(reading, record, path) };
}

function readPlatform(reading: Reading, entry: ListEntry): PlatformContent | null {
  if (!isRecord(entry.value)) {
    // `{ google: 4.6 }`: a rating per platform name.
    const rating = entry.key === null ? null : numberIn(entry.value, entry.path);
    if (entry.key === null || rating === null) return null;
    return { name: entry.key, rating: rating.value, reviews: null, url: null, extra: {} };
  }
  const record = entry.value;
  const named = (field: FieldName) => reading.namedDeep(field, record, entry.path);
  if (entry.key !== null) reading.placed('platform.name', MAP_KEY);
  const name = entry.key ?? reading.locate('platform.name', record, entry.path, named('platform.name'), textAt)?.value ?? null;
  if (name === null) return null;
  const rating = reading.locate('platform.rating', record, entry.path, named('platform.rating'), numberIn);
  const reviews = reading.locate('platform.count', record, entry.path, named('platform.count'), (value, at) => {
    const count = parseNumber(value);
    return count === null ? null : { value: count, path: at };
  });
  const url = reading.locate('platform.link', record, entry.path, named('platform.link'), textAt);
  return {
    name,
    rating: rating?.value ?? null,
    reviews: reviews?.value ?? null,
    url: url?.value ?? null,
    extra: unreadFields(reading, record, entry.path),
  };
}
