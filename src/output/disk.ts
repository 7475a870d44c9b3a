// The disk under the output folder: how much room it has, what the reports need, and the errors that mean it has
// no more (full, over quota, read-only), which stop a run instead of failing its reports one by one.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rm, stat, statfs } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { FileSystemError } from '../errors.js';
import { PERIOD_PATTERN, type MonthPeriod } from '../period.js';
import type { Manifest } from './store.js';
import { insideRoot, readManifest, writeFileAtomic } from './store.js';

/** No room left on the disk, the user's quota used up, or the disk mounted read-only: no write will succeed. */
export const DISK_FULL_CODES = ['ENOSPC', 'EDQUOT', 'EROFS'] as const;
export type DiskFullCode = (typeof DISK_FULL_CODES)[number];

/**
 * Space one report takes when no report of the output folder tells better: report.html (about 280 KB, its
 * fonts inline), report.pdf (about 200 KB) and data.json (about 10 KB) as the demo writes them, rounded up.
 */
export const DEFAULT_REPORT_BYTES = 600 * 1024;
/** Reports whose files are measured for the estimate: enough for an average, few enough for any folder. */
const SAMPLED_REPORTS = 20;

/** The code of the first error in `error`'s chain of causes that says the disk takes no more writes; else null. */
export function diskFullCode(error: unknown): DiskFullCode | null {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth += 1) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && (DISK_FULL_CODES as readonly string[]).includes(code)) return code as DiskFullCode;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The path an errno error names, from `error` or its causes. */
export function errorPath(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth += 1) {
    const path = (e as NodeJS.ErrnoException).path;
    if (typeof path === 'string') return path;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Room on the file system of a folder, in bytes: what an unprivileged write may use, and the size. */
export interface DiskSpace {
  free: number;
  total: number;
}

export type FreeSpace = (path: string) => Promise<DiskSpace>;

/** fs.statfs of `path`, or of its nearest existing parent (a period folder not made yet). */
export const statfsFreeSpace: FreeSpace = async (path) => {
  let at = resolve(path);
  for (;;) {
    try {
      const fs = await statfs(at);
      return { free: fs.bavail * fs.bsize, total: fs.blocks * fs.bsize };
    } catch (error) {
      const parent = dirname(at);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw error;
      at = parent;
    }
  }
};

/** "512 KB", "1.4 MB", "2.1 GB": sizes as a user reads them (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${Math.round(value)} bytes`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/**
 * The mounted file system holding `path`, as "/dev/loop3 (ext4) mounted at /srv/out" or "tmpfs mounted at /tmp/x",
 * read from Linux's mount table; null elsewhere or when it cannot be read (a message then names the folder alone).
 */
export async function describeVolume(
  path: string,
  readMounts: () => Promise<string> = () => readFile('/proc/self/mountinfo', 'utf8'),
): Promise<string | null> {
  let table: string;
  let target: string;
  try {
    table = await readMounts();
    target = await realpath(await nearestExisting(path));
  } catch {
    return null;
  }
  let best: { mountPoint: string; source: string; type: string } | null = null;
  for (const line of table.split('\n')) {
    // id parent major:minor root mount-point options [optional fields] - type source super-options
    const [left, right] = line.split(' - ');
    if (left === undefined || right === undefined) continue;
    const mountPoint = unescapeMount(left.split(' ')[4] ?? '');
    const [type = '', source = ''] = right.split(' ');
    const inside = mountPoint === '/' || target === mountPoint || target.startsWith(mountPoint + sep);
    // The last of equal mount points is the one on top.
    if (mountPoint !== '' && inside && (best === null || mountPoint.length >= best.mountPoint.length)) {
      best = { mountPoint, source: unescapeMount(source), type };
    }
  }
  if (best === null) return null;
  return `${best.source}${best.type !== best.source ? ` (${best.type})` : ''} mounted at ${best.mountPoint}`;
}

/** The mount table writes a space, tab, newline or backslash as an octal escape (`\040`). */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

async function nearestExisting(path: string): Promise<string> {
  let at = resolve(path);
  for (;;) {
    try {
      await stat(at);
      return at;
    } catch (error) {
      const parent = dirname(at);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw error;
      at = parent;
    }
  }
}

/** What one report is expected to take on disk, and where the figure comes from. */
export interface ReportSize {
  bytes: number;
  /** `measured`: the average of reports already written in the output folder; `default`: DEFAULT_REPORT_BYTES. */
  source: 'measured' | 'default';
}

/**
 * The average size of the reports already written: this period's done reports, else those of the most recent
 * other period in `outDir`; DEFAULT_REPORT_BYTES when there are none.
 */
export async function reportSize(outDir: string, period: MonthPeriod, manifest: Manifest | null): Promise<ReportSize> {
  const here = await averageReportBytes(insideRoot(outDir, period), manifest);
  if (here !== null) return { bytes: here, source: 'measured' };
  for (const other of await otherPeriods(outDir, period)) {
    const dir = insideRoot(outDir, other);
    const bytes = await averageReportBytes(dir, await readManifest(dir).catch(() => null));
    if (bytes !== null) return { bytes, source: 'measured' };
  }
  return { bytes: DEFAULT_REPORT_BYTES, source: 'default' };
}

async function averageReportBytes(periodDir: string, manifest: Manifest | null): Promise<number | null> {
  const done = (manifest?.projects ?? []).filter((e) => e.status === 'done').slice(-SAMPLED_REPORTS);
  const sizes: number[] = [];
  for (const entry of done) {
    let bytes = 0;
    try {
      for (const file of [entry.files.html, entry.files.pdf, entry.files.data]) {
        if (file !== null) bytes += (await stat(insideRoot(periodDir, file))).size;
      }
    } catch {
      continue; // a report moved or deleted since: not a sample
    }
    if (bytes > 0) sizes.push(bytes);
  }
  return sizes.length === 0 ? null : Math.ceil(sizes.reduce((a, b) => a + b, 0) / sizes.length);
}

/** Period folders of `outDir` other than `period`, newest first. */
async function otherPeriods(outDir: string, period: MonthPeriod): Promise<string[]> {
  const names = await readdir(outDir).catch(() => [] as string[]);
  return names.filter((name) => PERIOD_PATTERN.test(name) && name !== period).sort((a, b) => b.localeCompare(a));
}

/**
 * Room kept for the manifest and the agency index while a run writes reports: when the disk fills up, it is freed
 * so that the last manifest still reaches the disk and says which reports wait for the next run. A fixed part
 * for the index's styles and fonts, and a part per project for its line in the manifest and in the index.
 */
export function reserveBytesFor(projects: number): number {
  return 512 * 1024 + 8 * 1024 * projects;
}

/** The file holding the reserve. Named as a temp file: one a killed run left is swept by the next run. */
export const RESERVE_FILE = '.disk-reserve.partial';

/**
 * Writes `bytes` of reserve into `periodDir` (random bytes, so that a compressing file system really sets the room
 * aside, and flushed); the returned function frees it. Throws the write's error (a full disk) after removing it.
 */
export async function reserveSpace(periodDir: string, bytes: number): Promise<() => Promise<void>> {
  const path = join(periodDir, RESERVE_FILE);
  await writeFileAtomic(path, randomBytes(bytes));
  return () => rm(path, { force: true });
}

/** A file system refused a write for lack of room or because it is read-only; names the folder and the fix. */
export class DiskFullError extends FileSystemError {
  readonly code: DiskFullCode;

  constructor(message: string, options: { code: DiskFullCode; hint: string; cause?: unknown }) {
    super(message, { hint: options.hint, ...(options.cause === undefined ? {} : { cause: options.cause }) });
    this.code = options.code;
  }
}

/**
 * An error of the file system at the output folder `dir`, as the user can act on it: the folder, what happened and
 * the fix (a full or read-only disk, no permission, a file in the way). Any other error is returned as it is.
 */
export function outputFolderError(error: unknown, dir: string, volume: string | null = null): unknown {
  const full = diskFullCode(error);
  if (full !== null) {
    return new DiskFullError(`Cannot write ${dir}: its disk${volume === null ? '' : ` (${volume})`} ${diskProblem(full)}. No report was asked for.`, {
      code: full,
      hint: `${diskFix(full, volume ?? dir, null)}, then run the same command again.`,
      cause: error,
    });
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') {
    return new FileSystemError(`Cannot use the output folder ${dir}: permission denied (${code}). No report was asked for.`, {
      hint: 'Let this user write to the folder, or give --out a folder it can write to (output.dir in the config).',
      cause: error,
    });
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new FileSystemError(`Cannot make the output folder ${dir}: a file is in the way (${code}). No report was asked for.`, {
      hint: 'Move the file aside, or give --out another folder (output.dir in the config).',
      cause: error,
    });
  }
  return error;
}

/**
 * Makes the output folder `dir` and its parents, or throws outputFolderError's account of why not. Node's recursive
 * mkdir says ENOENT on a read-only disk; the folders are then made one by one, so the disk tells the real reason.
 */
export async function makeOutputFolder(dir: string): Promise<void> {
  const failed = async (error: unknown): Promise<never> => {
    throw outputFolderError(error, dir, await describeVolume(dir));
  };
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return failed(error);
    const existing = await nearestExisting(dir).catch(() => null);
    if (existing === null) return failed(error);
    let at = existing;
    for (const part of relative(existing, resolve(dir)).split(sep)) {
      at = join(at, part);
      const step = await mkdir(at).then(
        () => null,
        (reason: unknown) => ((reason as NodeJS.ErrnoException).code === 'EEXIST' ? null : reason),
      );
      if (step !== null) return failed(step);
    }
  }
}

/** What a disk-full code means, in words. */
export function diskProblem(code: DiskFullCode): string {
  switch (code) {
    case 'ENOSPC':
      return 'is full (ENOSPC: no space left on the device)';
    case 'EDQUOT':
      return 'has no room left in your disk quota (EDQUOT)';
    case 'EROFS':
      return 'is read-only (EROFS)';
  }
}

/**
 * The fix for a disk-full code, with the room to free when there is a figure (`toFree`, and how it was reckoned,
 * e.g. "19 reports of about 500 KB").
 */
export function diskFix(code: DiskFullCode, volume: string, toFree: { bytes: number; reckoning?: string } | null): string {
  const room =
    toFree === null || toFree.bytes <= 0
      ? 'space'
      : `at least ${formatBytes(toFree.bytes)}${toFree.reckoning === undefined ? '' : ` (${toFree.reckoning})`}`;
  switch (code) {
    case 'ENOSPC':
      return `Free ${room} on ${volume}, or give --out a folder on a larger disk (output.dir in the config)`;
    case 'EDQUOT':
      return `Free ${room} within your disk quota on ${volume} or ask for a larger quota, or give --out a folder elsewhere (output.dir in the config)`;
    case 'EROFS':
      return `Remount ${volume} read-write, or give --out a folder on a writable disk (output.dir in the config)`;
  }
}
