// Plan first: which projects to report today, and what that costs in requests against what the tokens have left.
import type { ApiClient } from '../api/client.js';
import type { Project, ProjectStatus } from '../api/schemas.js';
import { ConfigError } from '../errors.js';
import type { Manifest } from '../output/store.js';
import { formatShard, inShard, type Shard } from './shard.js';
import type { MonthPeriod } from '../period.js';

export const PROJECT_PAGE_SIZE = 100;
/** One competitors call for every project and one stats call, whatever the number of projects. */
export const SHARED_REQUESTS = 2;

export interface Plan {
  period: MonthPeriod;
  /** Projects matching the selection (status / --project). */
  selected: Project[];
  /** Selected projects still to report this period (not done in an earlier run). */
  toDo: Project[];
  alreadyDone: number;
  /** Project ids asked with --project that the account does not have. */
  unknownIds: number[];
  /** The rule that chose `selected` (see Selection), and the projects of the account it left out. */
  chosenBy: ChosenBy;
  /** Projects of the account not selected. */
  leftOut: number;
  /** Requests spent listing projects. */
  listRequests: number;
  /** Least requests this run needs: shared calls + one report POST per project to do + its scan reads. */
  floor: number;
  /** Of the floor, the requests reading the period's scans for the scan sections (listing, then reading one). */
  scanRequests: number;
  /**
   * Of the floor, scan reads asked again without `seo_steps` once the service refused it (at most one a run):
   * unknown when planning, added to the floor by the run when it happens.
   */
  scanRetries: number;
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
  /** Only the projects of this shard (`--shard K/N`); the other shards are other machines' work. */
  shard?: Shard;
  /**
   * Only these of the projects the statuses select (report.clients "listed": the ids of `clients`); absent, every
   * one. --project ids are chosen whatever it says.
   */
  listed?: ReadonlySet<number> | null;
}

/** Which rule chose a run's projects: --project, the statuses alone, or the statuses among the listed clients. */
export interface ChosenBy {
  rule: 'projects' | 'statuses' | 'listed';
  statuses: ProjectStatus[];
  /** Clients in the config's `clients` (rule `listed`). */
  listed: number;
}

/** Lists every project (pages of 100) and counts the cost of the run. */
export async function planRun(options: {
  client: ApiClient;
  period: MonthPeriod;
  selection: Selection;
  manifest: Manifest | null;
  /** Requests a project's scan sections cost this run (see scan-reads.ts); none when not given. */
  scanReads?: (project: Project) => Promise<number>;
}): Promise<Plan> {
  const { client, selection, manifest } = options;
  checkShardOfManifest(options.period, manifest, selection.shard);
  const before = totalRequests(client);
  const projects: Project[] = [];
  for await (const project of client.iterateProjects({ pageSize: PROJECT_PAGE_SIZE })) projects.push(project);
  const listRequests = totalRequests(client) - before;

  const wanted = new Set(selection.projectIds);
  const listed = selection.listed ?? null;
  const chosenBy: ChosenBy = {
    rule: wanted.size > 0 ? 'projects' : listed !== null ? 'listed' : 'statuses',
    statuses: selection.statuses,
    listed: listed?.size ?? 0,
  };
  const selected = (
    wanted.size > 0
      ? projects.filter((p) => wanted.has(p.id))
      : projects.filter((p) => selection.statuses.includes(p.status) && (listed === null || listed.has(p.id)))
  ).filter((p) => inShard(p.id, selection.shard));
  const known = new Set(projects.map((p) => p.id));
  const unknownIds = [...wanted].filter((id) => !known.has(id));

  const done = new Set(selection.redo === true ? [] : (manifest?.projects ?? []).filter((e) => e.status === 'done').map((e) => e.id));
  const toDo = selected.filter((p) => !done.has(p.id));
  let scanRequests = 0;
  for (const project of toDo) scanRequests += (await options.scanReads?.(project)) ?? 0;
  const floor = toDo.length === 0 ? 0 : SHARED_REQUESTS + toDo.length + scanRequests;
  const remainingToday = client.remainingToday();
  const perReport = toDo.length === 0 ? 1 : (toDo.length + scanRequests) / toDo.length;
  const reportsToday = Math.max(0, Math.min(toDo.length, Math.floor((remainingToday - SHARED_REQUESTS) / perReport)));
  return {
    period: options.period,
    selected,
    toDo,
    alreadyDone: selected.length - toDo.length,
    unknownIds,
    chosenBy,
    leftOut: projects.length - selected.length,
    listRequests,
    floor: floor + listRequests,
    scanRequests,
    scanRetries: 0,
    remainingToday,
    reportsToday,
    reportsLater: toDo.length - reportsToday,
  };
}

/**
 * A period folder belongs to one kind of run: a shard's folder to that shard, a folder of every project to
 * runs over every project. Checked before any request, so a mixed-up --out costs no quota.
 */
function checkShardOfManifest(period: MonthPeriod, manifest: Manifest | null, shard: Shard | undefined): void {
  if (manifest === null) return;
  const mine = shard === undefined ? null : formatShard(shard);
  const theirs = manifest.shard ?? null;
  if (mine === theirs) return;
  if (theirs === null) {
    throw new ConfigError(`The ${period} folder holds a run over every project; shard ${mine} cannot write into it.`, {
      hint: 'Give each shard its own --out folder, then combine them with `geo-reports merge`.',
    });
  }
  throw new ConfigError(`The ${period} folder holds shard ${theirs}'s manifest; this run is ${mine === null ? 'over every project' : `shard ${mine}`}.`, {
    hint:
      mine === null
        ? `Combine the shards with \`geo-reports merge --period ${period} --out DIR SRC...\` and run there, or add --shard ${theirs}.`
        : 'Give each shard its own --out folder, then combine them with `geo-reports merge`.',
  });
}

function totalRequests(client: ApiClient): number {
  return Object.values(client.requestsSent()).reduce((a, b) => a + b, 0);
}
