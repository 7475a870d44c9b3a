// Manifests and entries as a run writes them, for tests of the manifest and its journal.
import type { Manifest, ProjectEntry } from '../../src/output/store.js';
import { toMonth } from '../../src/period.js';

const AT = '2026-11-04T06:00:00.000Z';

/** A pending project's entry, as a run creates it. */
export function pendingEntry(id: number, name = `Client ${id}`): ProjectEntry {
  return {
    id,
    name,
    slug: `${id}-x`,
    status: 'pending',
    notes: [],
    files: { html: null, pdf: null, data: null },
    held: [],
    released: false,
    reportId: null,
    geo: null,
    geoChange: null,
    percentile: null,
    openCritical: 0,
    updatedAt: AT,
  };
}

/** A project reported and ready to send, as a run leaves its entry. */
export function doneEntry(id: number, name = `Client ${id}`): ProjectEntry {
  const slug = `${id}-x`;
  return {
    ...pendingEntry(id, name),
    slug,
    status: 'done',
    files: { html: `${slug}/report.html`, pdf: `${slug}/report.pdf`, data: `${slug}/data.json` },
    geo: 50,
  };
}

/** The manifest of 2026-10 with `projects`, after one run. */
export function periodManifest(projects: ProjectEntry[] = [], status: Manifest['status'] = 'partial'): Manifest {
  return { period: toMonth('2026-10'), status, startedAt: AT, updatedAt: AT, runs: 1, projects, requests: { total: 0, byToken: {} } };
}
