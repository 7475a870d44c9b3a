// Which projects are the agency's clients (report.clients): every project the statuses select, or only those the
// config lists in `clients`. One answer for run, report, send, publish, export and schedule.
import type { Config } from './schema.js';

/**
 * The project ids a command keeps to, or null for every project: the ids of `clients` when report.clients is
 * "listed", unless `all` (the --all of one command) overrides it.
 */
export function listedClients(config: Pick<Config, 'report' | 'clients'>, all = false): ReadonlySet<number> | null {
  if (all || config.report.clients !== 'listed') return null;
  return new Set(Object.keys(config.clients).map(Number));
}

/** Whether a project is one of the clients a command keeps to (`listedClients`). */
export function isListed(listed: ReadonlySet<number> | null, projectId: number): boolean {
  return listed === null || listed.has(projectId);
}
