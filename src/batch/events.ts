// What a run tells as it goes (the CLI prints it as progress, or as JSON lines): the plan, each project, the stops,
// and the summary.
import type { DiskFullCode } from '../output/disk.js';
import type { Manifest } from '../output/store.js';
import type { ChosenBy } from './plan.js';
import type { MonthPeriod } from '../period.js';

export type BatchStatus = Manifest['status'];

export type BatchEvent =
  | { type: 'plan'; plan: PlanSummary }
  | { type: 'project-start'; id: number; name: string }
  | { type: 'project-done'; id: number; name: string; held: string[]; ms: number }
  | { type: 'project-failed'; id: number; name: string; error: string }
  | { type: 'project-pending'; id: number; name: string; reason: string }
  | { type: 'quota-exhausted'; message: string }
  /** The first write the disk refused (full, over quota, read-only): no new request; what is not written waits. */
  | { type: 'disk-full'; code: DiskFullCode; message: string; hint: string }
  | { type: 'warning'; message: string }
  | { type: 'summary'; summary: BatchSummary };

export interface PlanSummary {
  period: MonthPeriod;
  selected: number;
  alreadyDone: number;
  toDo: number;
  reportsToday: number;
  reportsLater: number;
  floor: number;
  /** Of the floor, the requests reading the period's scans (scan sections on); absent when none. */
  scanRequests?: number;
  /** Of the floor, scan reads asked again without `seo_steps` after the service refused it; absent when none. */
  scanRetries?: number;
  remainingToday: number;
  unknownIds: number[];
  /** The rule that chose the projects, and how many of the account's it left out. */
  chosenBy: ChosenBy;
  leftOut: number;
  /** Done reports made with other templates or another config than today's: `run --remake` makes them again. */
  outdated: number;
  /** Done reports this run makes again from their data.json, at no request (run --remake); null on any other run. */
  remake: number | null;
  /** Room the reports of this run need on the output folder's disk, against what it has free. */
  space: SpaceEstimate | null;
}

export interface SpaceEstimate {
  /** Reports this run is expected to write. */
  reports: number;
  /** One report (HTML, PDF and data), measured on the reports already written or the default. */
  perReport: number;
  perReportSource: 'measured' | 'default';
  /** Room kept aside during the run for the last manifest and the index (see reserveSpace). */
  reserve: number;
  /** The reports plus the reserve. */
  needed: number;
  free: number;
  /** The disk, as "tmpfs mounted at /srv/out", or the folder when it cannot be told. */
  volume: string;
}

export interface BatchSummary {
  period: MonthPeriod;
  status: BatchStatus;
  done: number;
  failed: number;
  pending: number;
  skipped: number;
  held: number;
  requests: { total: number; byToken: Record<string, number> };
  durationMs: number;
  periodDir: string;
  /** A dry run: nothing was written, `pending` is what a run would report. */
  dryRun: boolean;
  /** Done reports with a goal whose metric the report did not have: the goal shows "no data". */
  goalsWithoutData: Array<{ id: number; name: string; metrics: string[] }>;
  /** Done reports made without a scan section on for the client: which, and why. */
  sectionsLeftOut: Array<{ id: number; name: string; sections: Array<{ section: string; reason: string }> }>;
}
