// Reads `seo_audit.keyword_rankings` as the service sends it: a list or a map keyed by keyword, numbers bare or as
// text, `counted_as` a list (each trial as counted) or one number (the rank an absent trial counts as).
import { isRecord, keysNamed, listEntries, parseNumber, type JsonRecord } from '../../spec/find.js';
import { inRecordOrStepsAt, scanPartAt, textOf } from '../unit.js';

/** The first position outside the top 10: what a trial where the site does not appear counts as, unless the answer says. */
export const ABSENT_RANK = 11;

export interface KeywordRead {
  keyword: string;
  /** The service's average retained rank, absent trials counted as `absentRank`; null when it sent none. */
  position: number | null;
  /** Ranks the site reached, one per trial where it appeared. */
  found: number[];
  trials: number;
  /** Trials where the site was not in the top 10. */
  absent: number;
  absentRank: number;
}

const KEYWORD_NAMES = ['keyword', 'query', 'term', 'name', 'phrase', 'kw'];
const POSITION_NAMES = ['position', 'avgposition', 'averageposition', 'average', 'avg', 'rank', 'mean'];
const VALUES_NAMES = ['values', 'ranks', 'trials', 'observed', 'positions'];
const COUNTED_NAMES = ['countedas', 'counted', 'countas'];

/** The keyword rankings of a scan; null when the scan has no SEO audit or no rankings in it (the input is missing). */
export function readKeywordRankings(scan: JsonRecord): KeywordRead[] | null {
  const entries = listEntries(rankingsAt(scan)?.value, 'keyword_rankings', { maps: true });
  if (entries === null) return null;
  const out: KeywordRead[] = [];
  for (const entry of entries) {
    const row = readRow(entry.key, entry.value);
    if (row !== null) out.push(row);
  }
  return out;
}

/** The rankings in the scan's SEO audit (or one of its steps), with their path; null when there is no audit or none. */
function rankingsAt(scan: JsonRecord): { value: unknown; path: string } | null {
  const audit = scanPartAt(scan, ['seoaudit', 'seo']);
  if (audit === null) return null;
  const found = inRecordOrStepsAt(audit.record, ['keywordrankings', 'keywordranking', 'rankings', 'keywords']);
  return found === null ? null : { value: found.value, path: `${audit.path}.${found.path}` };
}

/** Where the scan holds the keyword rankings, for doctor. */
export const locateKeywordRankings = (scan: JsonRecord): string | null => rankingsAt(scan)?.path ?? null;

function readRow(key: string | null, value: unknown): KeywordRead | null {
  // A map keyed by keyword may hold the average alone: `{ "plumber paris": 4.5 }`.
  if (!isRecord(value)) {
    const position = parseNumber(value);
    return key === null || position === null ? null : { keyword: key, position, found: [], trials: 0, absent: 0, absentRank: ABSENT_RANK };
  }
  const keyword = textOf(value, KEYWORD_NAMES) ?? key;
  if (keyword === null) return null;
  const counted = firstOf(value, COUNTED_NAMES);
  const countedList = Array.isArray(counted) ? (counted as unknown[]).map(parseNumber) : null;
  const absentRank = Array.isArray(counted) ? ABSENT_RANK : (parseNumber(counted) ?? ABSENT_RANK);
  const rawValues = firstOf(value, VALUES_NAMES);
  const values = Array.isArray(rawValues) ? (rawValues as unknown[]) : null;
  let found: number[] = [];
  let trials = 0;
  let absent = 0;
  if (values !== null) {
    trials = values.length;
    for (const observed of values) {
      const rank = parseNumber(observed);
      // A trial the site did not appear in: no rank, or the rank an absent trial counts as.
      if (rank === null || rank >= absentRank || rank < 1) absent += 1;
      else found.push(rank);
    }
  } else if (countedList !== null) {
    trials = countedList.length;
    found = countedList.filter((rank): rank is number => rank !== null && rank >= 1 && rank < absentRank);
    absent = trials - found.length;
  }
  let position = parseNumber(firstOf(value, POSITION_NAMES));
  if (position === null && trials > 0) position = (found.reduce((a, b) => a + b, 0) + absent * absentRank) / trials;
  return { keyword, position, found, trials, absent, absentRank };
}

function firstOf(record: JsonRecord, names: readonly string[]): unknown {
  for (const key of keysNamed(record, names)) if (record[key] !== undefined) return record[key];
  return undefined;
}
