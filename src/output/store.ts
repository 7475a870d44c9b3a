// Output folder of one period: atomic writes, safe folder names, and the manifest that is also the resume state.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { GeoReportsError } from '../errors.js';
import { PERIOD_PATTERN } from '../period.js';

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
  } catch (error) {
    // A full disk leaves no half-written temp file behind.
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
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

export const EMAIL_STATUSES = ['sending', 'sent', 'failed', 'unknown'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * Delivery of one client's report by email. `sending` is written (and flushed) before the SMTP transaction,
 * so a crash leaves a trace; `unknown` means the server may have taken the message: it is never sent again
 * without `--resend`.
 */
export const EmailState = z.object({
  status: z.enum(EMAIL_STATUSES),
  messageId: z.string(),
  /** ISO 8601 time of the last change. */
  at: z.string(),
  /** Recipients the server took (to, cc, bcc together). */
  accepted: z.array(z.string()).default([]),
  /** Recipients the server refused, each with its answer. */
  rejected: z.array(z.object({ address: z.string(), response: z.string() })).default([]),
  /** The server's final answer, for `sent`. */
  response: z.string().optional(),
  /** Why it failed, or why the outcome is unknown. */
  error: z.string().optional(),
  /** SMTP transactions started for this message, over every send. */
  attempts: z.number().int().nonnegative().default(0),
});
export type EmailState = z.infer<typeof EmailState>;

export const ProjectEntry = z.object({
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
  percentile: z.number().nullable().default(null),
  openCritical: z.number().int().default(0),
  /** Data-quality notes: values the readers did not find, elements left out (for the agency, not the client). */
  notes: z.array(z.string()).default([]),
  /** The report's summary sentences, in the client's language: the bullets of the email that carries it. */
  summary: z.array(z.string()).optional(),
  /** Absent until the report is first sent (or tried). */
  email: EmailState.optional(),
  updatedAt: z.string(),
});
export type ProjectEntry = z.infer<typeof ProjectEntry>;

export const Manifest = z.object({
  period: z.string().regex(PERIOD_PATTERN),
  status: z.enum(['complete', 'partial', 'quota_exhausted', 'interrupted', 'held']),
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
  /** `K/N` when the folder is one shard's output (`run --shard`); absent for a run over every project or a merge. */
  shard: z
    .string()
    .regex(/^\d+\/\d+$/)
    .optional(),
});
export type Manifest = z.infer<typeof Manifest>;

export const MANIFEST_FILE = 'manifest.json';
const LOCK_FILE = '.run.lock';

/**
 * Takes the period's lock, so two runs never write the same period at once. A lock left by a process that
 * no longer exists (kill -9) is taken over. Returns the release function.
 */
export async function lockPeriod(periodDir: string, pid: number = process.pid): Promise<() => Promise<void>> {
  const path = join(periodDir, LOCK_FILE);
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
        throw new GeoReportsError(`Another run (process ${holder}) is writing ${periodDir}.`, {
          hint: 'Wait for it to finish, or stop it; a run that was killed leaves nothing to clean up by hand.',
        });
      }
      await rm(path, { force: true });
    }
  }
  throw new GeoReportsError(`Could not take the lock of ${periodDir}.`);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readManifest(periodDir: string): Promise<Manifest | null> {
  const path = join(periodDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = Manifest.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new GeoReportsError(`The manifest ${path} is damaged and cannot be used to resume.`, {
      hint: 'Move it aside (the reports next to it stay valid) and run again: finished projects will be redone.',
    });
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function writeManifest(periodDir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(join(periodDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Deep equality of two JSON values, without allocating (it runs for every entry of every manifest write). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    keys += 1;
  }
  for (const key in right) if (Object.hasOwn(right, key)) keys -= 1;
  return keys === 0;
}

/** Where the project entries go in the manifest's text. */
const PROJECTS_SLOT = '\u0000projects';
const ENTRY_INDENT = '    ';

/**
 * The manifest writer of one run, which rewrites the file after every project: the same bytes as
 * writeManifest, atomically, but each entry's text is kept between writes and encoded again only when the
 * entry changed, and the file is written from those pieces. A write then allocates little beyond the entries
 * that changed, instead of the whole file twice (text and bytes), which with a thousand projects made Node's
 * memory grow with the number of projects.
 */
export function createManifestWriter(periodDir: string): (manifest: Manifest) => Promise<void> {
  const path = join(periodDir, MANIFEST_FILE);
  const encoded = new Map<number, { entry: ProjectEntry; bytes: Buffer; write: number }>();
  let writes = 0;
  const separator = Buffer.from(',\n');
  return async (manifest: Manifest): Promise<void> => {
    writes += 1;
    const frame = JSON.stringify({ ...manifest, projects: PROJECTS_SLOT }, null, 2);
    const slot = frame.indexOf(JSON.stringify(PROJECTS_SLOT));
    const pieces: Buffer[] = [];
    if (manifest.projects.length === 0) {
      pieces.push(Buffer.from(`${frame.slice(0, slot)}[]${frame.slice(slot + JSON.stringify(PROJECTS_SLOT).length)}\n`));
    } else {
      pieces.push(Buffer.from(`${frame.slice(0, slot)}[\n`));
      for (const [i, entry] of manifest.projects.entries()) {
        let cached = encoded.get(entry.id);
        // Compared field by field, which allocates nothing: serialising every entry for every write would not.
        if (cached === undefined || !sameJson(cached.entry, entry)) {
          // Nested two levels deep, as JSON.stringify(manifest, null, 2) lays it out; strings never hold a raw newline.
          const text = `${ENTRY_INDENT}${JSON.stringify(entry, null, 2).replace(/\n/g, `\n${ENTRY_INDENT}`)}`;
          cached = { entry: structuredClone(entry), bytes: Buffer.from(text), write: writes };
          encoded.set(entry.id, cached);
        }
        cached.write = writes;
        if (i > 0) pieces.push(separator);
        pieces.push(cached.bytes);
      }
      for (const [id, cached] of encoded) if (cached.write !== writes) encoded.delete(id);
      pieces.push(Buffer.from(`\n  ]${frame.slice(slot + JSON.stringify(PROJECTS_SLOT).length)}\n`));
    }
    await writeFileAtomic(path, pieces);
  };
}

export async function ensureDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
}
