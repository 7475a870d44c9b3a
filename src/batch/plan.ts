// Plan first: which projects to report today, and what that costs in requests against what the tokens have left.
import type { ApiClient } from '../api/client.js';
import type { Project, ProjectStatus } from '../api/schemas.js';
import type { Manifest } from '../output/store.js';

export const PROJECT_PAGE_SIZE = 100;
/** One competitors call for every project and one stats call, whatever the number of projects. */
export const SHARED_REQUESTS = 2;

export interface Plan {
  period: string;
  /** Projects matching the selection (status / --project). */
  selected: Project[];
  /** Selected projects still to report this period (not done in an earlier run). */
  toDo: Project[];
  alreadyDone: number;
  /** Project ids asked with --project that the account does not have. */
  unknownIds: number[];
  /** Requests spent listing projects. */
  listRequests: number;
  /** Least requests this run needs: shared calls + one report POST per project to do. */
  floor: number;
  /** Sum of what the tokens have left today, as last seen. */
  remainingToday: number;
  reportsToday: number;
  reportsLater: number;
}

export interface Selection {
  statuses: ProjectStatus[];
  /** Explicit project ids; when non-empty the status filter does not apply. */
  projectIds: number[];
  /** Report again projects already done this period (`geo-reports report`). */
  redo?: boolean;
}

/** Lists every project (pages of 100) and counts the cost of the run. */
export async function planRun(options: {
  client: ApiClient;
  period: string;
  selection: Selection;
  manifest: Manifest | null;
}): Promise<Plan> {
  const { client, selection, manifest } = options;
  const before = totalRequests(client);
  const projects: Project[] = [];
  for await (const project of client.iterateProjects({ pageSize: PROJECT_PAGE_SIZE })) projects.push(project);
  const listRequests = totalRequests(client) - before;

  const wanted = new Set(selection.projectIds);
  const selected =
    wanted.size > 0
      ? projects.filter((p) => wanted.has(p.id))
      : projects.filter((p) => selection.statuses.includes(p.status));
  const known = new Set(projects.map((p) => p.id));
  const unknownIds = [...wanted].filter((id) => !known.has(id));

  const done = new Set(
    selection.redo === true ? [] : (manifest?.projects ?? []).filter((e) => e.status === 'done').map((e) => e.id),
  );
  const toDo = selected.filter((p) => !done.has(p.id));
  const floor = toDo.length === 0 ? 0 : SHARED_REQUESTS + toDo.length;
  const remainingToday = client.tokens.remaining();
  const reportsToday = Math.max(0, Math.min(toDo.length, remainingToday - SHARED_REQUESTS));
  return {
    period: options.period,
    selected,
    toDo,
    alreadyDone: selected.length - toDo.length,
    unknownIds,
    listRequests,
    floor: floor + listRequests,
    remainingToday,
    reportsToday,
    reportsLater: toDo.length - reportsToday,
  };
}

function totalRequests(client: ApiClient): number {
  return Object.values(client.tokens.sentByLabel()).reduce((a, b) => a + b, 0);
}
