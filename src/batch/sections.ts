// Which report sections a client sees: its own switches over the global ones, on by default.
import { REPORT_SECTIONS, type ReportSection } from '../api/schemas.js';
import type { Config } from '../config/schema.js';

export function sectionSwitches(config: Config, projectId: number): Record<ReportSection, boolean> {
  const global = config.report.sections;
  const own = config.clients[String(projectId)]?.sections ?? {};
  return Object.fromEntries(REPORT_SECTIONS.map((s) => [s, own[s] ?? global[s] ?? true])) as Record<ReportSection, boolean>;
}
