// Shard outputs → one period folder: every project once, the period's status and requests recomputed, the
// agency index rendered again, files copied atomically. Checked in full before anything is written.
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError, GeoReportsError } from '../errors.js';
import type { Branding, IndexModel, Language } from '../report/model.js';
import type { Phrases } from '../i18n/locales.js';
import { writePeriodIndex } from './period-index.js';
import type { Period } from '../period.js';
import {
  ensureDir,
  insideRoot,
  lockFolder,
  MANIFEST_FILE,
  type Manifest,
  type ProjectEntry,
  readManifest,
  removeStaleTempFiles,
  writeFileAtomic,
} from './store.js';

export interface MergeSource {
  /** How the user named it (shown in messages). */
  label: string;
  /** Output root holding `<period>/`. */
  root: string;
}

export interface MergeOptions {
  period: Period;
  sources: MergeSource[];
  /** Output root; the merged period goes to `<outDir>/<period>/`. */
  outDir: string;
  language: Language;
  branding: Branding;
  renderIndex: (model: IndexModel) => string;
  /** The phrases of `language`, as the renderer has them. */
  phrases: Phrases;
  onWarning?: (message: string) => void;
}

export interface MergeResult {
  period: Period;
  periodDir: string;
  status: Manifest['status'];
  projects: number;
  done: number;
  /** Files written (new or changed); the others were already there, byte for byte. */
  written: number;
  unchanged: number;
  requests: Manifest['requests'];
}

/** Two sources hold the same project with different reports: the merge writes nothing. */
export class MergeConflictError extends GeoReportsError {}

type FileKind = keyof ProjectEntry['files'];
const FILE_KINDS: FileKind[] = ['data', 'html', 'pdf'];

interface Candidate {
  source: MergeSource;
  periodDir: string;
  entry: ProjectEntry;
  /** sha256 of each file the entry lists and the source holds. */
  hashes: Partial<Record<FileKind, string>>;
}

interface SourcePeriod {
  source: MergeSource;
  periodDir: string;
  manifest: Manifest;
  /** A copy of a manifest already read (the same run downloaded twice): its requests and runs count once. */
  duplicate: boolean;
}

export async function mergePeriods(options: MergeOptions): Promise<MergeResult> {
  const { period } = options;
  const warn = options.onWarning ?? (() => {});
  if (options.sources.length === 0) throw new GeoReportsError('Nothing to merge: give at least one source folder.');
  const sources = await readSources(options.sources, period);
  checkShardCoverage(sources, warn);
  const missingShards = missingShardLabels(sources);

  const byId = new Map<number, Candidate[]>();
  for (const { source, periodDir, manifest } of sources) {
    for (const entry of manifest.projects) {
      const candidate: Candidate = { source, periodDir, entry, hashes: await hashFiles(source, periodDir, entry) };
      byId.set(entry.id, [...(byId.get(entry.id) ?? []), candidate]);
    }
  }
  const chosen = [...byId.keys()].sort((a, b) => a - b).map((id) => choose(byId.get(id) as Candidate[]));

  const periodDir = insideRoot(options.outDir, period);
  // What was already sent from this folder (a merge job run again) stays recorded: no client is mailed twice.
  const sentBefore = new Map(((await readManifest(periodDir).catch(() => null))?.projects ?? []).map((e) => [e.id, e.deliveries]));
  const entries = chosen.map((c) => withDeliveries(withExistingFiles(c), sentBefore.get(c.entry.id)));
  const counted = sources.filter((s) => !s.duplicate);
  const shards = [...new Set(sources.flatMap((s) => [...(s.manifest.shard === undefined ? [] : [s.manifest.shard]), ...(s.manifest.shards ?? [])]))].sort();
  const manifest: Manifest = {
    period,
    status: mergedStatus(entries, sources, missingShards.length > 0),
    startedAt: minOf(sources.map((s) => s.manifest.startedAt)),
    updatedAt: maxOf(sources.map((s) => s.manifest.updatedAt)),
    runs: counted.reduce((sum, s) => sum + s.manifest.runs, 0),
    projects: entries,
    requests: sumRequests(counted.map((s) => s.manifest.requests)),
    ...(shards.length > 0 ? { shards } : {}),
  };

  await ensureDir(periodDir);
  const unlock = await lockFolder(periodDir);
  let written = 0;
  let unchanged = 0;
  const put = async (path: string, content: Uint8Array | string): Promise<void> => {
    if (await sameContent(path, content)) {
      unchanged += 1;
      return;
    }
    await ensureDir(dirname(path));
    await writeFileAtomic(path, content);
    written += 1;
  };
  try {
    await removeStaleTempFiles(periodDir);
    // Reports first, then the manifest that lists them, then the index that links them.
    for (const candidate of chosen) {
      for (const kind of FILE_KINDS) {
        const file = candidate.entry.files[kind];
        if (file === null || candidate.hashes[kind] === undefined) continue;
        await put(insideRoot(periodDir, file), await readFile(insideRoot(candidate.periodDir, file)));
      }
    }
    await put(join(periodDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    await writePeriodIndex({
      periodDir,
      manifest,
      page: { renderIndex: options.renderIndex, language: options.language, branding: options.branding, phrases: options.phrases },
      // The sources' last update, not the clock: merging the same sources again writes the same page.
      generatedAt: manifest.updatedAt,
      write: put,
    });
  } finally {
    await unlock();
  }
  return {
    period,
    periodDir,
    status: manifest.status,
    projects: entries.length,
    done: entries.filter((e) => e.status === 'done').length,
    written,
    unchanged,
    requests: manifest.requests,
  };
}

async function readSources(given: MergeSource[], period: Period): Promise<SourcePeriod[]> {
  const seen = new Set<string>();
  const manifests = new Set<string>();
  const sources: SourcePeriod[] = [];
  for (const source of given) {
    const periodDir = insideRoot(source.root, period);
    let manifest: Manifest | null;
    try {
      manifest = await readManifest(periodDir);
    } catch (error) {
      if (error instanceof GeoReportsError) throw error;
      throw new GeoReportsError(`Cannot read ${source.label}: ${(error as Error).message}`);
    }
    if (manifest === null) {
      throw new ConfigError(`${source.label} holds no ${period}/${MANIFEST_FILE}.`, {
        hint: `Give the output folder of a run (the folder that holds ${period}/), e.g. the --out of \`geo-reports run --shard K/N\`.`,
      });
    }
    if (manifest.period !== period) {
      throw new ConfigError(`${source.label}/${period}/${MANIFEST_FILE} is the manifest of ${manifest.period}, not ${period}.`);
    }
    // The same folder given twice is read once; a copy of the same run still has its files compared.
    const place = await realpath(periodDir);
    if (seen.has(place)) continue;
    seen.add(place);
    const fingerprint = sha256(await readFile(join(periodDir, MANIFEST_FILE)));
    sources.push({ source, periodDir, manifest, duplicate: manifests.has(fingerprint) });
    manifests.add(fingerprint);
  }
  return sources;
}

/** A done project must come with the files its manifest lists: a source missing one is incomplete. */
async function hashFiles(source: MergeSource, periodDir: string, entry: ProjectEntry): Promise<Candidate['hashes']> {
  const hashes: Candidate['hashes'] = {};
  for (const kind of FILE_KINDS) {
    const file = entry.files[kind];
    if (file === null) continue;
    let content: Buffer;
    try {
      content = await readFile(insideRoot(periodDir, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (entry.status === 'done') {
        throw new GeoReportsError(
          `${source.label}: project ${entry.id} (${entry.name}) is done but its ${file} is missing.`,
          { hint: 'The source folder is incomplete (an interrupted copy or download): fetch it again, or run that shard again.' },
        );
      }
      continue;
    }
    hashes[kind] = sha256(content);
  }
  return hashes;
}

/**
 * One project in several sources: a done report beats a failed or pending one; two done reports must be the
 * same bytes (the same run seen twice), otherwise nobody can tell which one the client should get.
 */
function choose(candidates: Candidate[]): Candidate {
  const done = candidates.filter((c) => c.entry.status === 'done');
  if (done.length > 0) {
    const [first, ...others] = done as [Candidate, ...Candidate[]];
    for (const other of others) {
      const differs = FILE_KINDS.filter((kind) => first.hashes[kind] !== other.hashes[kind]);
      if (differs.length > 0) {
        const names = differs.map((kind) => first.entry.files[kind] ?? other.entry.files[kind] ?? kind);
        throw new MergeConflictError(
          `Project ${first.entry.id} (${first.entry.name}) is in ${first.source.label} and in ${other.source.label} ` +
            `with different content (${names.join(', ')}); nothing was written.`,
          {
            hint:
              'Each project belongs to one shard: merge the folders of one set of shards (the same N), ' +
              'or leave out the folder that reported it a second time.',
          },
        );
      }
    }
    // Same report: keep the review decision if one copy was released after the pre-send check.
    return done.find((c) => c.entry.released) ?? latest(done);
  }
  return latest(candidates);
}

function latest(candidates: Candidate[]): Candidate {
  return candidates.reduce((best, c) => (c.entry.updatedAt > best.entry.updatedAt ? c : best));
}

/** The entry with the deliveries an earlier merge into the same folder recorded, when the sources have none. */
function withDeliveries(entry: ProjectEntry, earlier: ProjectEntry['deliveries']): ProjectEntry {
  if (earlier === undefined) return entry;
  return { ...entry, deliveries: { ...earlier, ...entry.deliveries } };
}

/** The entry as the merged folder holds it: a file the source did not have is not linked. */
function withExistingFiles(candidate: Candidate): ProjectEntry {
  const files = { ...candidate.entry.files };
  for (const kind of FILE_KINDS) if (candidate.hashes[kind] === undefined) files[kind] = null;
  return { ...candidate.entry, files };
}

/** The period's status from its projects; a stop by quota, full disk or signal in any source is kept while work remains. */
function mergedStatus(entries: ProjectEntry[], sources: SourcePeriod[], shardsMissing: boolean): Manifest['status'] {
  const unfinished = shardsMissing || entries.some((e) => e.status !== 'done');
  if (unfinished) {
    const statuses = new Set(sources.map((s) => s.manifest.status));
    if (statuses.has('quota_exhausted')) return 'quota_exhausted';
    if (statuses.has('disk_full')) return 'disk_full';
    if (statuses.has('interrupted')) return 'interrupted';
    return 'partial';
  }
  return entries.some((e) => e.held.length > 0 && !e.released) ? 'held' : 'complete';
}

function shardLabels(sources: SourcePeriod[]): string[] {
  return sources.map((s) => s.manifest.shard).filter((s): s is string => s !== undefined);
}

/** Shards of the same N that no source holds: their projects are missing from the merged period. */
function missingShardLabels(sources: SourcePeriod[]): string[] {
  const labels = shardLabels(sources);
  const counts = new Set(labels.map((l) => Number(l.split('/')[1])));
  if (labels.length === 0 || counts.size !== 1) return [];
  const count = [...counts][0] as number;
  const present = new Set(labels);
  return Array.from({ length: count }, (_, i) => `${i + 1}/${count}`).filter((l) => !present.has(l));
}

function checkShardCoverage(sources: SourcePeriod[], warn: (message: string) => void): void {
  const labels = shardLabels(sources);
  const counts = new Set(labels.map((l) => l.split('/')[1]));
  if (counts.size > 1) {
    warn(`The sources come from different splits (${[...new Set(labels)].join(', ')}); a project reported twice is refused.`);
  }
  const missing = missingShardLabels(sources);
  if (missing.length > 0) {
    warn(`No source holds shard ${missing.join(', ')}: its projects are missing, and the period stays unfinished.`);
  }
}

function sumRequests(list: Array<Manifest['requests']>): Manifest['requests'] {
  const byToken: Record<string, number> = {};
  let total = 0;
  for (const requests of list) {
    total += requests.total;
    for (const [label, count] of Object.entries(requests.byToken)) byToken[label] = (byToken[label] ?? 0) + count;
  }
  const sorted = Object.fromEntries(Object.entries(byToken).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { total, byToken: sorted };
}

async function sameContent(path: string, content: Uint8Array | string): Promise<boolean> {
  try {
    const existing = await readFile(path);
    return existing.equals(typeof content === 'string' ? Buffer.from(content) : content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function sha256(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

const minOf = (values: string[]): string => values.reduce((a, b) => (b < a ? b : a));
const maxOf = (values: string[]): string => values.reduce((a, b) => (b > a ? b : a));
