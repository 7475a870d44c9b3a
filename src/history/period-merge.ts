// The state of a period as one record that only grows: two copies of a period's manifest (the history branch's and
// a runner's, or two runs' that saved one after the other) merged by report and by recipient, never one replacing
// the other. A report done stays done; of two records of a mail the newer wins, except that `sent` is never undone
// (a last-writer-wins map per key, `sent` final). Pure: the callers read and write the files.
import type { DeliveryState, Manifest, ProjectEntry } from '../output/store.js';

/** The two copies of `period` merged; the result names no journal (it is written whole). */
export function mergePeriodState(saved: Manifest, local: Manifest): Manifest {
  const [newer, older] = saved.updatedAt > local.updatedAt ? [saved, local] : [local, saved];
  const olderById = new Map(older.projects.map((entry) => [entry.id, entry]));
  const newerIds = new Set(newer.projects.map((entry) => entry.id));
  const projects = newer.projects.map((entry) => {
    const other = olderById.get(entry.id);
    return other === undefined ? entry : mergeEntry(entry, other);
  });
  // A report only the older copy knows (another shard's, another run's) is kept, in id order.
  for (const entry of older.projects) if (!newerIds.has(entry.id)) projects.push(entry);
  projects.sort((a, b) => a.id - b.id);
  const { journal: _journal, ...base } = newer;
  const shards = [...new Set([...(saved.shards ?? []), ...(local.shards ?? [])])].sort();
  return {
    ...base,
    status: statusOf(projects, newer.status),
    startedAt: saved.startedAt < local.startedAt ? saved.startedAt : local.startedAt,
    runs: Math.max(saved.runs, local.runs),
    // Each copy counts the requests since the period began: the larger count includes the other's.
    requests: saved.requests.total > local.requests.total ? saved.requests : local.requests,
    account: newer.account ?? older.account ?? null,
    projects,
    ...(shards.length > 0 ? { shards } : {}),
  };
}

/** One report's two records: the done one (of two, the newer), with every delivery record either holds merged. */
export function mergeEntry(a: ProjectEntry, b: ProjectEntry): ProjectEntry {
  const aDone = a.status === 'done';
  const bDone = b.status === 'done';
  const [kept, other] = aDone !== bDone ? (aDone ? [a, b] : [b, a]) : a.updatedAt >= b.updatedAt ? [a, b] : [b, a];
  const deliveries: NonNullable<ProjectEntry['deliveries']> = { ...other.deliveries, ...kept.deliveries };
  for (const channel of Object.keys(deliveries)) {
    const merged = mergeDelivery(kept.deliveries?.[channel], other.deliveries?.[channel]);
    if (merged !== undefined) deliveries[channel] = merged;
  }
  const hasDeliveries = Object.keys(deliveries).length > 0;
  // The versions made beside a sent report are files on disk: one either copy recorded stays recorded.
  const versions = new Map((other.versions ?? []).map((v) => [v.version, v]));
  for (const version of kept.versions ?? []) versions.set(version.version, version);
  const { deliveries: _left, versions: _versions, ...entry } = kept;
  // A release after review is an act of the agency: it stands whichever copy recorded it.
  return {
    ...entry,
    released: a.released || b.released,
    ...(hasDeliveries ? { deliveries } : {}),
    ...(versions.size > 0 ? { versions: [...versions.values()].sort((x, y) => x.version - y.version) } : {}),
  };
}

/** Two records of one message: `sent` wins, else the newer; every recipient either saw accept it stays accepted. */
export function mergeDelivery(a: DeliveryState | undefined, b: DeliveryState | undefined): DeliveryState | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const aSent = a.status === 'sent';
  const bSent = b.status === 'sent';
  const [kept, other] = aSent !== bSent ? (aSent ? [a, b] : [b, a]) : a.at >= b.at ? [a, b] : [b, a];
  if (kept.status === 'sent') return kept;
  const accepted = [...kept.accepted];
  for (const address of other.accepted) if (!accepted.some((known) => known.toLowerCase() === address.toLowerCase())) accepted.push(address);
  return { ...kept, accepted, attempts: Math.max(kept.attempts, other.attempts) };
}

/** The period's status from its merged reports: complete or held once every report is done, else the newer copy's stop. */
function statusOf(projects: ProjectEntry[], newer: Manifest['status']): Manifest['status'] {
  if (projects.length > 0 && projects.every((e) => e.status === 'done')) {
    return projects.some((e) => e.held.length > 0 && !e.released) ? 'held' : 'complete';
  }
  return newer === 'complete' || newer === 'held' ? 'partial' : newer;
}
