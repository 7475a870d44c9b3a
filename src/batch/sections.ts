// Which report sections a client sees: its own switches over the global ones, on by default; a scan section
// (src/sections) as it declares.
import { REPORT_SECTIONS, type ReportSection } from '../api/schemas.js';
import type { Config } from '../config/schema.js';
import { SECTIONS, type Section } from '../sections/index.js';

export function sectionSwitches(config: Config, projectId: number): Record<ReportSection, boolean> {
  const global = config.report.sections as Partial<Record<string, boolean>>;
  const own = (config.clients[String(projectId)]?.sections ?? {}) as Partial<Record<string, boolean>>;
  return Object.fromEntries(REPORT_SECTIONS.map((s) => [s, own[s] ?? global[s] ?? true])) as Record<ReportSection, boolean>;
}

/** The scan sections a client's report shows: each on by its switch, else by its own default. */
export function scanSectionsOn(config: Config, projectId: number): Section[] {
  const global = config.report.sections as Partial<Record<string, boolean>>;
  const own = (config.clients[String(projectId)]?.sections ?? {}) as Partial<Record<string, boolean>>;
  return SECTIONS.filter((s) => own[s.name] ?? global[s.name] ?? s.defaultOn);
}
