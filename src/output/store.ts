// Output folder of one period: atomic writes, safe folder names, and the manifest that is also the resume state.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { GeoReportsError } from '../errors.js';
import { LanguageCodeSchema } from '../i18n/locales.js';
import { ANY_PERIOD_PATTERN, toPeriod } from '../period.js';
import { GOAL_STATUSES } from '../report/goals.js';
import { processExists } from '../process-alive.js';

/** Temp files carry this marker (the PDF printer's too); a rerun deletes the ones a killed run left behind. */
const TEMP_MARKER = '.partial';
/** Below the usual IOV_MAX (1024) of writev. */
const MAX_BUFFERS_PER_WRITE = 512;

/**
 * Writes `path` so that readers only ever see the old file or the whole new one:
 * a temp file in the same folder, flushed to disk, then renamed over the target.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array | Array<string | Uint8Array>): Promise<void> {
  const temp = `${path}${TEMP_MARKER}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(temp, 'w', 0o644);
  try {
    // In parts, a large piece shared by many files (a report's fonts) is written as it is, never copied.
    if (Array.isArray(content)) await writeAll(handle, content.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
    else await handle.writeFile(content);
    await handle.sync();
    await handle.close();
  } catch (error) {
    // A full disk leaves no half-written temp file behind.
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Writes `path` through `write`, which fills a temp file in the same folder (too large for one buffer: written as it
 * comes); flushed to disk, then renamed over the target. A failure leaves the old file and no temp file.
 */
export async function writeFileAtomicVia(path: string, write: (tempPath: string) => Promise<void>): Promise<void> {
  const temp = `${path}${TEMP_MARKER}-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await write(temp);
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes `pieces` one after the other at the file's position, as few system calls as the OS allows. */
async function writeAll(handle: FileHandle, pieces: Uint8Array[]): Promise<void> {
  for (let start = 0; start < pieces.length; start += MAX_BUFFERS_PER_WRITE) {
    const chunk = pieces.slice(start, start + MAX_BUFFERS_PER_WRITE);
    const length = chunk.reduce((sum, piece) => sum + piece.byteLength, 0);
    const { bytesWritten } = await handle.writev(chunk);
    // A short write (rare, e.g. a signal) finishes with the rest of the chunk in one piece.
    if (bytesWritten < length) await handle.write(Buffer.concat(chunk).subarray(bytesWritten));
  }
}

/** Deletes temp files left by a killed run, anywhere under `dir`. Returns how many were removed. */
export async function removeStaleTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const entry of entries) {
    if (entry.isFile() && entry.name.includes(TEMP_MARKER)) {
      await rm(join(entry.parentPath, entry.name), { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * A folder name from a project's id and name: ASCII letters, digits and dashes only, at most 60
 * characters, always led by the id so two clients never share a folder. `../`, `/`, NUL and
 * non-Latin text cannot escape or break the output folder.
 */
export function projectSlug(id: number, name: string | undefined): string {
  const words = (name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return words === '' ? String(id) : `${id}-${words}`;
}

/** Joins under `root` and refuses any result outside it (defence in depth behind projectSlug). */
export function insideRoot(root: string, ...parts: string[]): string {
  const base = resolve(root);
  const target = resolve(base, ...parts);
  if (target !== base && !target.startsWith(base + sep)) {
    throw new GeoReportsError(`Refusing to write outside the output folder: ${relative(base, target)}`);
  }
  return target;
}

// ---------------------------------------------------------------- manifest

export const DELIVERY_STATUSES = ['sending', 'sent', 'failed', 'unknown'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Delivery of one client's report through one channel (email today). `sending` is written (and flushed) before
 * the attempt, so a crash leaves a trace; `unknown` means the other side may have taken the message: it is never
 * sent again without `--resend`.
 */
export const DeliveryState = z.object({
  status: z.enum(DELIVERY_STATUSES),
  /** The message's id, the same for every attempt: a resend is the same message. */
  messageId: z.string(),
  /** ISO 8601 time of the last change. */
  at: z.string(),
  /** Recipients that took it (for email: to, cc, bcc together). */
  accepted: z.array(z.string()).default([]),
  /** Recipients that refused it, each with its answer. */
  rejected: z.array(z.object({ address: z.string(), response: z.string() })).default([]),
  /** The final answer, for `sent`. */
  response: z.string().optional(),
  /** Why it failed, or why the outcome is unknown. */
  error: z.string().optional(),
  /** Attempts started for this message, over every send. */
  attempts: z.number().int().nonnegative().default(0),
});
export type DeliveryState = z.infer<typeof DeliveryState>;

/** A project's deliveries, one record per channel: `email`, and whatever channel comes next. */
export const Deliveries = z.object({ email: DeliveryState.optional() }).catchall(DeliveryState);
export type Deliveries = z.infer<typeof Deliveries>;

/** An entry written before deliveries were kept per channel has its `email` record beside its own fields: moved. */
function migrateEntry(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || !('email' in raw)) return raw;
  const { email, ...entry } = raw as { email: unknown; deliveries?: unknown };
  const deliveries = typeof entry.deliveries === 'object' && entry.deliveries !== null ? entry.deliveries : {};
  return { ...entry, deliveries: { email, ...deliveries } };
}

/** A report made again after its first one was sent: `<slug>/report-v<n>.pdf` and the rest, beside the sent one. */
export const ReportVersion = z.object({
  version: z.number().int().min(2),
  files: z.object({ html: z.string().nullable(), pdf: z.string().nullable(), data: z.string().nullable() }),
  /** `remake`: from the saved data.json with the templates of the day; `report`: the report asked for again. */
  reason: z.enum(['remake', 'report']),
  madeAt: z.string(),
  madeWith: z.string().optional(),
  /** The pre-send check's reasons for this version. */
  held: z.array(z.string()).default([]),
});
export type ReportVersion = z.infer<typeof ReportVersion>;

/** Whether the report may be in the client's hands: a channel sent it, took it in part, or cannot tell. */
export function wasSent(entry: Pick<ProjectEntry, 'deliveries'>): boolean {
  return Object.values(entry.deliveries ?? {}).some((state) => state !== undefined && (state.status !== 'failed' || state.accepted.length > 0));
}

/** The file name of a version: `report.pdf` for the first, `report-v2.pdf` for the second… */
export function versionedName(name: string, version: number | null): string {
  if (version === null || version < 2) return name;
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}-v${version}${name.slice(dot)}`;
}

/** The next version of a sent report: 2, then one more than the last. */
export function nextVersion(entry: Pick<ProjectEntry, 'versions'>): number {
  return Math.max(1, ...(entry.versions ?? []).map((v) => v.version)) + 1;
}

const ProjectEntryFields = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(['done', 'failed', 'pending', 'skipped']),
  files: z.object({ html: z.string().nullable(), pdf: z.string().nullable(), data: z.string().nullable() }),
  error: z.string().optional(),
  /** Pre-send check reasons; the report is rendered but must not be sent until released. */
  held: z.array(z.string()).default([]),
  /** Held reasons were reviewed and the report released (`--accept-held`); kept for the record. */
  released: z.boolean().default(false),
  /** A report the API accepted but that was not read yet: the rerun reads it instead of asking again. */
  reportId: z.number().int().nullable().default(null),
  geo: z.number().nullable().default(null),
  geoChange: z.number().nullable().default(null),
  /** The SEO score and its change (the client's page shows both); absent in manifests of earlier versions. */
  seo: z.number().nullable().optional(),
  seoChange: z.number().nullable().optional(),
  percentile: z.number().nullable().default(null),
  openCritical: z.number().int().default(0),
  /** Data-quality notes: values the readers did not find, elements left out (for the agency, not the client). */
  notes: z.array(z.string()).default([]),
  /** The scan sections (src/sections) on for the client that its report was made without, and why; absent when none. */
  sectionsLeftOut: z.array(z.object({ section: z.string(), reason: z.string() })).optional(),
  /** The client's goals and their status in this report (for the agency index and the run's summary); absent without goals. */
  goals: z.array(z.object({ metric: z.string(), label: z.string(), status: z.enum(GOAL_STATUSES) })).optional(),
  /** The AI assistant whose visibility moved the most since the month before (the email's third figure); absent when none did. */
  aiMover: z.object({ assistant: z.string(), label: z.string(), value: z.number(), change: z.number() }).optional(),
  /** The account manager's note the report was made with (the email carries it too); absent when none. */
  note: z.string().optional(),
  /** The report's summary sentences, in the client's language: the bullets of the email that carries it. */
  summary: z.array(z.string()).optional(),
  /** The language the service gives the project, as it wrote it (reportLanguage follows it when the config pins none); absent: none. */
  projectLanguage: z.string().max(35).optional(),
  /** The language the report was made in: its email is written in it. Absent in manifests of earlier versions. */
  language: LanguageCodeSchema.optional(),
  /** The configured display name the report was made with (clients."<id>".displayName); absent: the project's name. */
  displayName: z.string().optional(),
  /** The report was made before its period ended (`--partial`): every view names its period "so far this month". Absent: after. */
  madeBeforeEnd: z.literal(true).optional(),
  /** Per channel, absent until the report is first sent (or tried) through it. */
  deliveries: Deliveries.optional(),
  /** The fingerprint of the templates the report was made with (HtmlRenderer.reportFingerprint); absent before it was kept. */
  madeWith: z.string().optional(),
  /**
   * Versions made after the report was sent (`run --remake`, `geo-reports report`), beside it: `files` stays the
   * report the client received, the one the site and a send keep to. Absent until one is made.
   */
  versions: z.array(ReportVersion).optional(),
  /**
   * The SHA-256 of report.html as the run wrote it, once the page check passed it: `publish` need not parse those
   * bytes again (a page changed since, or one no run recorded, is checked). Absent in manifests of earlier versions.
   */
  checkedPage: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  updatedAt: z.string(),
});
export const ProjectEntry = z.preprocess(migrateEntry, ProjectEntryFields);
export type ProjectEntry = z.infer<typeof ProjectEntry>;

export const Manifest = z.object({
  /** The month of a monthly run's folder, or the quarter or year of a review's (`run --period 2026-Q3`). */
  period: z.string().regex(ANY_PERIOD_PATTERN).transform(toPeriod),
  status: z.enum(['complete', 'partial', 'quota_exhausted', 'disk_full', 'interrupted', 'held']),
  startedAt: z.string(),
  updatedAt: z.string(),
  runs: z.number().int().nonnegative(),
  projects: z.array(ProjectEntry),
  /** The account's statistics (stats.php, as read), shown on the agency index. */
  account: z
    .object({
      projects: z.number().nullable(),
      scans: z.number().nullable(),
      averageScore: z.number().nullable(),
      topProjects: z.array(z.object({ projectId: z.number().nullable(), name: z.string().nullable(), geo: z.number().nullable() })),
      evolution: z.array(z.object({ month: z.string(), value: z.number().nullable() })),
    })
    .nullable()
    .optional(),
  /** Requests sent for this period, over every run. */
  requests: z.object({ total: z.number().int().nonnegative(), byToken: z.record(z.string(), z.number().int()) }),
  /**
   * While a run writes the period: the journal of the changes made since this file was written
   * (`manifest.<journal>.journal`), which readManifest applies. Absent once the run has ended.
   */
  journal: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  /** `K/N` when the folder is one shard's output (`run --shard`); absent for a run over every project or a merge. */
  shard: z
    .string()
    .regex(/^\d+\/\d+$/)
    .optional(),
  /** The shards a merge combined (`K/N` each): the period is a shard set's, not one machine's. Absent otherwise. */
  shards: z.array(z.string().regex(/^\d+\/\d+$/)).optional(),
});
export type Manifest = z.infer<typeof Manifest>;

export const MANIFEST_FILE = 'manifest.json';
const LOCK_FILE = '.run.lock';

/**
 * Takes the lock of a folder that one process at a time writes: a period folder (run, send, merge), the output
 * folder for its links record (publish, links rotate) or a site folder (publish). A lock left by a process that no
 * longer exists (kill -9) is taken over. Returns the release function.
 */
export async function lockFolder(dir: string, pid: number = process.pid): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== pid && processExists(holder)) {
        throw new GeoReportsError(`Another run (process ${holder}) is writing ${dir}.`, {
          hint: 'Wait for it to finish, or stop it; a run that was killed leaves nothing to clean up by hand.',
        });
      }
      await rm(path, { force: true });
    }
  }
  throw new GeoReportsError(`Could not take the lock of ${dir}.`);
}

/**
 * One line of a journal: the project entries changed by one save, with the manifest's time and requests then.
 * Applied in order over the manifest.json that names the journal, they give the state of the last save.
 */
const JournalLine = z.object({
  updatedAt: z.string(),
  requests: Manifest.shape.requests,
  projects: z.array(ProjectEntry),
});
type JournalLine = z.infer<typeof JournalLine>;

const journalName = (id: string): string => `manifest.${id}.journal`;
const JOURNAL_PATTERN = /^manifest\.[0-9a-f]{16}\.journal$/;

/** The manifest of a period, with the journal of a run that is writing it (or was killed) applied; null if none. */
export async function readManifest(periodDir: string): Promise<Manifest | null> {
  const path = join(periodDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const damaged = (what: string): GeoReportsError =>
    new GeoReportsError(`The manifest ${what} is damaged and cannot be used to resume.`, {
      hint: 'Move it aside (the reports next to it stay valid) and run again: finished projects will be redone.',
    });
  const parsed = Manifest.safeParse(safeJson(text));
  if (!parsed.success) throw damaged(path);
  const { journal, ...manifest } = parsed.data;
  if (journal === undefined) return manifest;
  const journalPath = join(periodDir, journalName(journal));
  let lines: string[];
  try {
    lines = (await readFile(journalPath, 'utf8')).split('\n');
  } catch (error) {
    // Named but never written (no change saved since manifest.json), or removed by a whole write made while we
    // read: either way manifest.json alone is a state the run saved.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return manifest;
    throw error;
  }
  // Every line ends with a newline: the text after the last one is a line a kill cut short, and never counted.
  lines.pop();
  const byId = new Map(manifest.projects.map((entry, i) => [entry.id, i]));
  for (const line of lines) {
    const change = JournalLine.safeParse(safeJson(line));
    if (!change.success) throw damaged(`journal ${journalPath}`);
    manifest.updatedAt = change.data.updatedAt;
    manifest.requests = change.data.requests;
    for (const entry of change.data.projects) {
      const at = byId.get(entry.id);
      if (at === undefined) byId.set(entry.id, manifest.projects.push(entry) - 1);
      else manifest.projects[at] = entry;
    }
  }
  return manifest;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Writes the whole manifest (no journal) and removes any journal left in the folder. */
export async function writeManifest(periodDir: string, manifest: Manifest): Promise<void> {
  const { journal: _journal, ...whole } = manifest;
  await writeFileAtomic(join(periodDir, MANIFEST_FILE), `${JSON.stringify(whole, null, 2)}\n`);
  await removeJournals(periodDir);
}

/** Deletes the journals of `periodDir` but `keep`: those of earlier writes, which no manifest.json names any more. */
async function removeJournals(periodDir: string, keep?: string): Promise<void> {
  const names = await readdir(periodDir).catch(() => [] as string[]);
  for (const name of names) {
    if (JOURNAL_PATTERN.test(name) && name !== keep) await rm(join(periodDir, name), { force: true });
  }
}

export interface ManifestWriter {
  /** Writes the whole manifest, which names a new, empty journal for the changes that follow. */
  whole(manifest: Manifest): Promise<void>;
  /** Appends the changed entries (with the manifest's time and requests) to the journal, flushed to disk. */
  changes(manifest: Manifest, entries: readonly ProjectEntry[]): Promise<void>;
  /** Writes the whole manifest without a journal, and removes the journal: the run is over. */
  close(manifest: Manifest): Promise<void>;
}

/**
 * The manifest writer of one run, which saves after every project: a change is one line appended to a journal,
 * and manifest.json is rewritten only now and then. A save then costs the same with ten projects or ten
 * thousand, where rewriting the whole file each time grew with the square of the projects, in time and memory.
 */
export function createManifestWriter(periodDir: string): ManifestWriter {
  const path = join(periodDir, MANIFEST_FILE);
  let journal: { name: string; handle: FileHandle | null } | null = null;
  /** Whether the journals a killed run left in the folder were removed; after that, only this writer's own. */
  let swept = false;
  let closed = false;
  const closeJournal = async (): Promise<void> => {
    const handle = journal?.handle;
    journal = null;
    await handle?.close();
  };
  const refuseAfterClose = (): void => {
    // The run is over and its lock may be someone else's now: a late save must not touch the folder.
    if (closed) throw new Error(`the manifest of ${periodDir} was already written for the last time by this run`);
  };
  const writer: ManifestWriter = {
    async whole(manifest) {
      refuseAfterClose();
      const id = randomBytes(8).toString('hex');
      await writeFileAtomic(path, `${JSON.stringify({ ...manifest, journal: id }, null, 2)}\n`);
      // Only now is the old journal no longer named: a reader never finds a manifest without its journal.
      const previous = journal?.name ?? null;
      await closeJournal();
      journal = { name: journalName(id), handle: null };
      if (!swept) await removeJournals(periodDir, journal.name);
      else if (previous !== null) await rm(join(periodDir, previous), { force: true });
      swept = true;
    },
    async changes(manifest, entries) {
      refuseAfterClose();
      if (journal === null) return writer.whole(manifest);
      const line: JournalLine = { updatedAt: manifest.updatedAt, requests: manifest.requests, projects: [...entries] };
      const text = Buffer.from(`${JSON.stringify(line)}\n`);
      try {
        journal.handle ??= await open(join(periodDir, journal.name), 'a', 0o644);
        const { bytesWritten } = await journal.handle.write(text);
        // A short write (a disk that fills up) is a failed save: the line is cut, and nothing may follow it.
        if (bytesWritten < text.byteLength) {
          throw new Error(`only ${bytesWritten} of ${text.byteLength} bytes of ${journal.name} were written`);
        }
        await journal.handle.datasync();
      } catch (error) {
        // The next save writes the whole manifest and a new journal, never a line after a cut one.
        await closeJournal().catch(() => undefined);
        throw error;
      }
    },
    async close(manifest) {
      refuseAfterClose();
      closed = true;
      await closeJournal().catch(() => undefined);
      await writeManifest(periodDir, manifest);
    },
  };
  return writer;
}

export async function ensureDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
}
