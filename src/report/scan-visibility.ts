// AI visibility per assistant as the period's scan holds it. The report answer's per-assistant values are an
// undated snapshot (the service's latest, a month after the period on the monthly run); the period's scan is dated
// in the period, so its values are the month's own and win (the month rule, docs/api-assumptions.md).
import type { AiVisibilityValue } from '../content/report-scores.js';
import { readScores } from '../content/report-scores.js';
import { Reading } from '../content/reading.js';
import type { FieldMap } from '../content/fields.js';
import { scanPart } from '../sections/unit.js';
import type { JsonRecord } from '../spec/find.js';

/** A scan's AI visibility, dated by the scan. */
export interface ScanVisibility {
  /** YYYY-MM-DD the scan is dated. */
  date: string;
  values: AiVisibilityValue[];
}

/** The per-assistant values of a scan's `geo` part (any of the readings the report's scores accept); null when it holds none. */
export function readScanVisibility(scan: { date: string; data: JsonRecord } | null | undefined, fields: FieldMap = {}): ScanVisibility | null {
  if (scan === null || scan === undefined) return null;
  const geo = scanPart(scan.data, ['geo', 'geoanalysis']);
  if (geo === null) return null;
  let read;
  try {
    read = readScores(new Reading(fields), geo, geo, 'geo');
  } catch {
    return null; // a scan part not read as scores: the report's own values stand, shown as of their date
  }
  const values = (read?.aiVisibility ?? []).filter((entry) => entry.value !== null);
  return values.length === 0 ? null : { date: scan.date, values };
}
