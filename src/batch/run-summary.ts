// The requests of a run, counted from its start and added to the period's earlier runs, and what the run did for
// the projects it was asked for.
import type { Project } from '../api/schemas.js';
import type { Manifest, ProjectEntry } from '../output/store.js';
import type { BatchStatus, BatchSummary } from './events.js';
import type { MonthPeriod } from '../period.js';

export class RequestCounts {
  readonly #sent: () => Record<string, number>;
  readonly #before: Record<string, number>;
  readonly #earlier: Manifest['requests'];

  /** Counted from here, so listing the projects shows in the requests of the run. */
  constructor(requestsSent: () => Record<string, number>, earlier: Manifest['requests']) {
    this.#sent = requestsSent;
    this.#before = requestsSent();
    this.#earlier = structuredClone(earlier);
  }

  /** This run's requests, per token label. */
  thisRun(): BatchSummary['requests'] {
    const byToken: Record<string, number> = {};
    let total = 0;
    for (const [label, count] of Object.entries(this.#sent())) {
      const delta = count - (this.#before[label] ?? 0);
      if (delta > 0) {
        byToken[label] = delta;
        total += delta;
      }
    }
    return { total, byToken };
  }

  /** The earlier runs' requests plus this run's. */
  soFar(): Manifest['requests'] {
    const thisRun = this.thisRun();
    const byToken = { ...this.#earlier.byToken };
    for (const [label, count] of Object.entries(thisRun.byToken)) byToken[label] = (byToken[label] ?? 0) + count;
    return { total: this.#earlier.total + thisRun.total, byToken };
  }
}

/** What the run did for the projects it was asked for (`dryRunToDo`: what a dry run would do). Pure. */
export function summariseRun(input: {
  period: MonthPeriod;
  periodDir: string;
  entries: Iterable<ProjectEntry>;
  status: BatchStatus;
  selected: readonly Project[];
  dryRunToDo: number | null;
  requests: BatchSummary['requests'];
  durationMs: number;
}): BatchSummary {
  const selected = new Set(input.selected.map((p) => p.id));
  const mine = [...input.entries].filter((e) => selected.has(e.id));
  const count = (status: ProjectEntry['status']): number => mine.filter((e) => e.status === status).length;
  return {
    period: input.period,
    status: input.status,
    done: count('done'),
    failed: count('failed'),
    pending: input.dryRunToDo ?? count('pending'),
    skipped: count('skipped'),
    held: mine.filter((e) => e.status === 'done' && e.held.length > 0 && !e.released).length,
    requests: input.requests,
    durationMs: input.durationMs,
    periodDir: input.periodDir,
    dryRun: input.dryRunToDo !== null,
    sectionsLeftOut: mine.flatMap((e) =>
      e.status === 'done' && (e.sectionsLeftOut ?? []).length > 0 ? [{ id: e.id, name: e.name, sections: e.sectionsLeftOut ?? [] }] : [],
    ),
    goalsWithoutData: mine.flatMap((e) => {
      const metrics = e.status === 'done' ? (e.goals ?? []).filter((g) => g.status === 'no_data').map((g) => g.metric) : [];
      return metrics.length === 0 ? [] : [{ id: e.id, name: e.name, metrics }];
    }),
  };
}
