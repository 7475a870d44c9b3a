// What reading a period's scan costs: a list of the project's scans and one read of the scan the month rule picks,
// or nothing when no scan section is on or the period's data.json already holds a scan read with what they need.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config/schema.js';
import { insideRoot, type ProjectEntry } from '../output/store.js';
import { parsePeriodData, type SavedScan } from '../report/period-data.js';
import { scanRequest } from '../sections/scan.js';
import type { Section } from '../sections/index.js';
import { scanSectionsOn } from './sections.js';

/** Listing the project's scans, then reading the period's one. */
export const SCAN_READ_REQUESTS = 2;

/** The scan this period's data.json of the project holds (an earlier run of the period read it); null otherwise. */
export async function savedScan(periodDir: string, entry: Pick<ProjectEntry, 'files'> | undefined): Promise<SavedScan | null> {
  const file = entry?.files.data;
  if (file == null) return null;
  try {
    return parsePeriodData(JSON.parse(await readFile(insideRoot(periodDir, file), 'utf8')))?.scan ?? null;
  } catch {
    return null; // unreadable: the scan is read again, as the plan counted
  }
}

/** True when `saved` was read with every section and SEO step `sections` need (read without `seo_steps`: every step). */
export function covers(saved: SavedScan, sections: readonly Section[]): boolean {
  const { include, seoSteps } = scanRequest(sections);
  const everyStep = saved.seoSteps.length === 0;
  return include.every((s) => saved.include.includes(s)) && (everyStep || seoSteps.every((s) => saved.seoSteps.includes(s)));
}

/** Requests the project's scan sections cost this run: 0 or SCAN_READ_REQUESTS. */
export function scanReads(config: Config, projectId: number, saved: SavedScan | null): number {
  const sections = scanSectionsOn(config, projectId);
  if (sections.length === 0) return 0;
  return saved !== null && covers(saved, sections) ? 0 : SCAN_READ_REQUESTS;
}
