// Which scan a period's report reads, by the month rule of docs/api-assumptions.md: the latest completed scan
// dated inside the period. A scan dated after the period belongs to a later report; none in it: no scan section.
import { isRecord, keysNamed, parseDay, parseId, parseText, type JsonRecord } from '../spec/find.js';
import type { ScanSection } from '../spec/vocabulary.js';
import type { Section } from './unit.js';
import { monthOfDateOrNull, type MonthPeriod } from '../period.js';

export interface ScanChoice {
  id: number;
  /** YYYY-MM-DD the scan is dated. */
  date: string;
}

const DATE_NAMES = [
  'createdat',
  'date',
  'startedat',
  'created',
  'scannedat',
  'scandate',
  'performedat',
  'ranat',
  'runat',
  'completedat',
  'finishedat',
  'finished',
  'timestamp',
];
const STATUS_NAMES = ['status', 'state'];
const DONE_WORDS = new Set(['completed', 'complete', 'done', 'finished', 'success', 'succeeded', 'ok', 'ready']);

/** The latest completed scan dated in `period` (YYYY-MM) among a project's scans; null when there is none. */
export function scanOfPeriod(scans: readonly unknown[], period: MonthPeriod): ScanChoice | null {
  let best: ScanChoice | null = null;
  for (const scan of scans) {
    if (!isRecord(scan)) continue;
    const id = parseId(scan['id']);
    const date = dateOf(scan);
    if (id === null || date === null || monthOfDateOrNull(date) !== period || !completed(scan)) continue;
    if (best === null || date > best.date || (date === best.date && id > best.id)) best = { id, date };
  }
  return best;
}

/** The latest completed scan of the list, whatever its month (doctor's sample); null when there is none. */
export function latestScan(scans: readonly unknown[]): ScanChoice | null {
  let best: ScanChoice | null = null;
  for (const scan of scans) {
    if (!isRecord(scan)) continue;
    const id = parseId(scan['id']);
    const date = dateOf(scan);
    if (id === null || date === null || !completed(scan)) continue;
    if (best === null || date > best.date || (date === best.date && id > best.id)) best = { id, date };
  }
  return best;
}

function dateOf(scan: JsonRecord): string | null {
  for (const key of keysNamed(scan, DATE_NAMES)) {
    const day = parseDay(scan[key]);
    if (day !== null) return day;
  }
  return null;
}

/** A scan with no status word is taken as completed: the list holds the scans the service made. */
function completed(scan: JsonRecord): boolean {
  for (const key of keysNamed(scan, STATUS_NAMES)) {
    const value = scan[key];
    const word = parseText(isRecord(value) ? (value['code'] ?? value['name']) : value);
    if (word !== null) return DONE_WORDS.has(word.toLowerCase());
  }
  return true;
}

/** What one read of a scan asks for: the union of the sections' needs (`include`, `seo_steps`). */
export function scanRequest(sections: readonly Section[]): { include: ScanSection[]; seoSteps: string[] } {
  const include = [...new Set(sections.flatMap((s) => s.needs.scan))].sort();
  const seoSteps = include.includes('seo_audit') ? [...new Set(sections.flatMap((s) => s.needs.seoSteps))].sort() : [];
  return { include, seoSteps };
}
