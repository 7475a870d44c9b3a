// The simulator's seeded account read in process, through its endpoint handlers, with no HTTP and no token: the
// sample data of the template preview and of `template check`. It is the data `geo-reports demo` reports for the
// same period (same seed, same clock), in the reference (classic) wire form.
import { REPORT_SECTIONS, type ReportSection } from '../spec/vocabulary.js';
import { monthlyRunDay, periodBefore, type MonthPeriod } from '../period.js';
import { createWorld } from './app.js';
import { competitors, projects, reports, stats, type World } from './endpoints.js';

export interface SampleAccount {
  /** The period whose data `answers` gives. */
  period: MonthPeriod;
  /** The projects of the account, as projects.php lists them (`data.projects`). */
  projects(): Array<Record<string, unknown>>;
  /** What the API answers for `period` (reports.php, competitors.php, stats.php `data`), for one project. */
  answers(
    projectId: number,
    options?: { period?: MonthPeriod; include?: readonly ReportSection[] },
  ): { report: Record<string, unknown>; competitors: unknown; stats: unknown };
}

export interface SampleAccountOptions {
  period: MonthPeriod;
  /** @default 36, as the demo */
  projectCount?: number;
  /** @default 42, as the demo */
  seed?: number;
}

/** The account as the demo's simulator holds it: made on the run day of the period before, asked on each run day. */
export function sampleAccount(options: SampleAccountOptions): SampleAccount {
  const anchor = monthlyRunDay(periodBefore(options.period));
  const world: World = createWorld({ seed: options.seed ?? 42, projectCount: options.projectCount ?? 36 }, () => anchor);
  const now = monthlyRunDay(options.period);
  const get = (query: Record<string, string>, at: Date) => ({ method: 'GET', query, body: null, now: at });
  return {
    period: options.period,
    projects() {
      const list = projects(world, get({ limit: '100' }, now)) as { projects: Array<Record<string, unknown>> };
      const all = [...list.projects];
      for (let offset = 100; offset < world.dataset.projects.length; offset += 100) {
        all.push(...(projects(world, get({ limit: '100', offset: String(offset) }, now)) as typeof list).projects);
      }
      return all;
    },
    answers(projectId, { period = options.period, include = REPORT_SECTIONS } = {}) {
      const at = monthlyRunDay(period);
      const body = { project_id: projectId, include: [...include], format: 'json' };
      return {
        report: reports(world, { method: 'POST', query: {}, body, now: at }) as Record<string, unknown>,
        competitors: competitors(world, get({}, at)),
        stats: stats(world, get({}, at)),
      };
    },
  };
}
