// Month-to-month state of the reports, kept in a git branch (by default `reports-history` of the repository):
// each period's manifest.json and every project's data.json, which next month's reports compare against.
// The reports themselves (HTML, PDF) are not kept here: they are the run's artifact.
// The storage is any git remote: the repository's URL in GitHub Actions (with HISTORY_TOKEN set to the job's
// token), a bare repository folder in a test.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HISTORY_TOKEN_ENV } from '../config/environment.js';
import { GeoReportsError } from '../errors.js';
import { LINKS_FILE } from '../output/links.js';
import { Manifest, MANIFEST_FILE, readManifest, writeManifest } from '../output/store.js';
import { isAnyPeriod, isMonth, kindOf, lastMonth, PERIOD_KINDS, type MonthPeriod, type Period } from '../period.js';
import { mergePeriodState } from './period-merge.js';

const run = promisify(execFile);

export interface HistoryStorage {
  /** A git remote: URL or path. Never printed as given: it may carry credentials. */
  remote: string;
  branch: string;
  /** The environment git runs in; HISTORY_TOKEN, when set, authorizes HTTPS remotes. */
  env: Record<string, string | undefined>;
  /** Where the progress lines go. */
  log: (line: string) => void;
}

/** The storage as it may be shown: credentials in a URL are masked. */
export function shown(storage: HistoryStorage): string {
  return `${storage.remote.replace(/\/\/[^/@]*@/, '//***@')} (branch ${storage.branch})`;
}

/**
 * The environment of git: never prompts; with HISTORY_TOKEN set (the job's GITHUB_TOKEN in Actions), an
 * authorization header for HTTPS remotes, given through the environment so it appears in no command line.
 */
export function gitEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const { [HISTORY_TOKEN_ENV]: _token, ...inherited } = env;
  const result: NodeJS.ProcessEnv = { ...inherited, GIT_TERMINAL_PROMPT: '0' };
  const token = env[HISTORY_TOKEN_ENV];
  if (token !== undefined && token !== '') {
    const count = Number(env['GIT_CONFIG_COUNT'] ?? 0) || 0;
    result['GIT_CONFIG_COUNT'] = String(count + 1);
    result[`GIT_CONFIG_KEY_${count}`] = 'http.extraHeader';
    result[`GIT_CONFIG_VALUE_${count}`] = `Authorization: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  }
  return result;
}

export async function git(storage: HistoryStorage, args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run('git', args, {
      ...(cwd !== undefined ? { cwd } : {}),
      env: gitEnv(storage.env),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stderr = ((error as { stderr?: string | Buffer }).stderr ?? '').toString().trim();
    throw new GeoReportsError(`git ${args[0] ?? ''} failed: ${stderr.replace(/\/\/[^/@\s]*@/g, '//***@') || (error as Error).message}`);
  }
}

/** Does the branch exist? An unreachable storage is an error, not "no history". */
export async function branchExists(storage: HistoryStorage): Promise<boolean> {
  let heads: string;
  try {
    heads = await git(storage, ['ls-remote', '--heads', storage.remote, `refs/heads/${storage.branch}`]);
  } catch (error) {
    throw new GeoReportsError(`Cannot reach the history storage ${shown(storage)}: ${(error as Error).message}`, {
      hint: 'Check the --storage URL and that the job may read the repository (and write it, to save).',
    });
  }
  return heads.trim() !== '';
}

/** A scratch repository holding the branch's latest tree (or an empty orphan branch); removed by the caller. */
async function checkoutBranch(storage: HistoryStorage): Promise<string> {
  const exists = await branchExists(storage);
  const dir = await mkdtemp(join(tmpdir(), 'geo-history-'));
  await git(storage, ['init', '-q', '-b', storage.branch], dir);
  if (exists) {
    await git(storage, ['fetch', '-q', '--depth=1', storage.remote, `refs/heads/${storage.branch}`], dir);
    await git(storage, ['checkout', '-q', '-B', storage.branch, 'FETCH_HEAD'], dir);
  }
  return dir;
}

/** The periods saved in `dir`, months and reviews, in the order of their last month (a month before its quarter's review). */
async function periodsIn(dir: string): Promise<Period[]> {
  const names = await readdir(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
    throw error;
  });
  const periods: Period[] = [];
  for (const name of names) {
    if (isAnyPeriod(name) && (await isFile(join(dir, name, MANIFEST_FILE)))) periods.push(name);
  }
  const order = (p: Period): string => `${lastMonth(p)} ${PERIOD_KINDS.indexOf(kindOf(p))}`;
  return periods.sort((a, b) => order(a).localeCompare(order(b)));
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() === true;
}

async function readManifestFile(path: string): Promise<Manifest> {
  let parsed;
  try {
    parsed = Manifest.safeParse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    parsed = null;
  }
  if (parsed?.success !== true) throw new GeoReportsError(`${path} is not a manifest of geo-reports.`);
  return parsed.data;
}

/** The data.json files of a period's reports (paths from its manifest, journal applied), which next month needs. */
async function dataFiles(periodDir: string, manifest: Manifest): Promise<Map<number, string>> {
  const files = new Map<number, string>();
  for (const entry of manifest.projects) {
    const data = entry.files.data;
    // Paths come from the manifest: only plain relative paths inside the period are followed.
    if (data === null || data.startsWith('/') || data.split('/').includes('..')) continue;
    if (await isFile(join(periodDir, data))) files.set(entry.id, data);
  }
  return files;
}

/** A period's manifest with its journal applied, or null; a file that is not a manifest is an error naming it. */
async function periodManifest(periodDir: string): Promise<Manifest | null> {
  if (!(await isFile(join(periodDir, MANIFEST_FILE)))) return null;
  await readManifestFile(join(periodDir, MANIFEST_FILE));
  return readManifest(periodDir);
}

/** What `restore` brings: the periods before `before` (all when absent), and with `shard` that period's own share. */
export interface RestoreScope {
  before?: MonthPeriod;
  /** Shard K/N of `before`: its reports done so far, as that shard's own folder (a cache that expired loses nothing). */
  shard?: ShardOfPeriod;
}

/** A shard as the history needs it: its label (`K/N`) and which reports are its own (the batch's split). */
export interface ShardOfPeriod {
  label: string;
  owns: (projectId: number) => boolean;
}

/**
 * Copies the kept periods into `out`, each merged with what `out` holds already (a cache restored first): every
 * report done and every mail recorded in either is kept, so neither copy can make a report be asked or a client
 * be mailed twice. data.json files already there are kept.
 */
export async function restoreHistory(storage: HistoryStorage, out: string, scope: RestoreScope = {}): Promise<string[]> {
  const { before, shard } = scope;
  if (!(await branchExists(storage))) {
    storage.log(`No history yet in ${shown(storage)}: every report will be a first report.`);
    return [];
  }
  const dir = await checkoutBranch(storage);
  try {
    const periods = (await periodsIn(dir)).filter((p) => before === undefined || lastMonth(p) < before);
    // The generation of every client link: without it, publish would bring back revoked addresses.
    if ((await isFile(join(dir, LINKS_FILE))) && !(await isFile(join(out, LINKS_FILE)))) {
      await mkdir(out, { recursive: true });
      await cp(join(dir, LINKS_FILE), join(out, LINKS_FILE));
    }
    for (const period of periods) await restorePeriod(join(dir, period), join(out, period), null);
    const restored: string[] = [...periods];
    if (before !== undefined && shard !== undefined && (await isFile(join(dir, before, MANIFEST_FILE)))) {
      await restorePeriod(join(dir, before), join(out, before), shard);
      restored.push(`${before} (shard ${shard.label})`);
    }
    storage.log(restored.length === 0 ? 'No earlier period in the history.' : `Restored ${restored.join(', ')} from ${shown(storage)}.`);
    return periods;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One saved period into `localDir`, merged with the manifest there; with `shard`, only that shard's reports. */
async function restorePeriod(savedDir: string, localDir: string, shard: ShardOfPeriod | null): Promise<void> {
  const whole = await periodManifest(savedDir);
  if (whole === null) return;
  const saved = shard === null ? whole : shardShare(whole, shard);
  const local = await readManifest(localDir).catch(() => null);
  const merged = local === null ? saved : mergePeriodState(saved, local);
  await mkdir(localDir, { recursive: true });
  await writeManifest(localDir, merged);
  for (const [id, file] of await dataFiles(savedDir, saved)) {
    const target = join(localDir, file);
    // The entry kept is the saved one when the local folder has no such file: its data.json comes with it.
    if (merged.projects.some((e) => e.id === id && e.files.data === file) && !(await isFile(target))) {
      await mkdir(join(target, '..'), { recursive: true });
      await cp(join(savedDir, file), target);
    }
  }
}

/** The part of a merged period that shard K/N made: its reports, under its own label, as `run --shard` writes it. */
function shardShare(manifest: Manifest, shard: ShardOfPeriod): Manifest {
  const { shards: _shards, ...rest } = manifest;
  const projects = manifest.projects.filter((e) => shard.owns(e.id));
  const done = projects.length > 0 && projects.every((e) => e.status === 'done');
  return {
    ...rest,
    shard: shard.label,
    projects,
    // A shard's folder is finished when its own reports are; the rest of the period is other shards' work.
    status: done
      ? projects.some((e) => e.held.length > 0 && !e.released)
        ? 'held'
        : 'complete'
      : manifest.status === 'complete'
        ? 'partial'
        : manifest.status,
  };
}

/** The status of `period` as last saved (complete, partial, …), or `none`. */
export async function historyStatus(storage: HistoryStorage, period: MonthPeriod): Promise<string> {
  return (await historyPeriod(storage, period)).status;
}

/** A saved period in counts (never a client's name), for a workflow to decide what to do. */
export interface SavedPeriod {
  period: MonthPeriod;
  /** complete, partial, …, or `none` when the branch holds no such period. */
  status: Manifest['status'] | 'none';
  /** Who made it: one machine (`run`), a set of shards (`merge`), or nobody yet. */
  madeBy: 'one-machine' | 'shards' | 'none';
  /** The shards a merge combined, `K/N` each. */
  shards: string[];
  projects: number;
  done: number;
  pending: number;
  failed: number;
  /** Done and held by the pre-send check, not released. */
  held: number;
  /** Done reports not yet sent (no email record, or one that failed). */
  unsent: number;
}

/** `period` as last saved: its status, who made it, and its projects counted. */
export async function historyPeriod(storage: HistoryStorage, period: MonthPeriod): Promise<SavedPeriod> {
  const none: SavedPeriod = { period, status: 'none', madeBy: 'none', shards: [], projects: 0, done: 0, pending: 0, failed: 0, held: 0, unsent: 0 };
  if (!(await branchExists(storage))) return none;
  const dir = await checkoutBranch(storage);
  try {
    const path = join(dir, period, MANIFEST_FILE);
    if (!(await isFile(path))) {
      // Claimed by a sharded run whose shards are at work: no manifest yet, but the period is theirs.
      const claim = await readClaim(join(dir, period));
      return claim === null ? none : { ...none, madeBy: claim };
    }
    await readManifestFile(path);
    // With its journal applied: a run killed before its last save is counted as far as it went.
    const manifest = (await readManifest(join(dir, period))) as Manifest;
    const entries = manifest.projects;
    const done = entries.filter((e) => e.status === 'done');
    return {
      period,
      status: manifest.status,
      madeBy: manifest.shards !== undefined ? 'shards' : 'one-machine',
      shards: manifest.shards ?? [],
      projects: entries.length,
      done: done.length,
      pending: entries.filter((e) => e.status === 'pending').length,
      failed: entries.filter((e) => e.status === 'failed').length,
      held: done.filter((e) => e.held.length > 0 && !e.released).length,
      unsent: done.filter((e) => e.deliveries?.email?.status !== 'sent' && e.deliveries?.email?.status !== 'unknown').length,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const CLAIM_FILE = 'claim.json';

async function readClaim(periodDir: string): Promise<SavedPeriod['madeBy'] | null> {
  const text = await readFile(join(periodDir, CLAIM_FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  const madeBy = (JSON.parse(text) as { madeBy?: unknown }).madeBy;
  return madeBy === 'shards' || madeBy === 'one-machine' ? madeBy : null;
}

/**
 * Marks `period` as the shards' (or one machine's) before any report of it is saved, so the other workflow, which
 * waits for the same concurrency group, refuses it rather than asking its reports again beside the shards. A
 * period that has a manifest or a claim already is left as it is; the owner is returned.
 */
export async function claimPeriod(storage: HistoryStorage, period: MonthPeriod, by: 'shards' | 'one-machine'): Promise<SavedPeriod['madeBy']> {
  for (let attempt = 1; ; attempt += 1) {
    const dir = await checkoutBranch(storage);
    try {
      const manifest = await periodManifest(join(dir, period));
      if (manifest !== null) return manifest.shards !== undefined ? 'shards' : 'one-machine';
      const claim = await readClaim(join(dir, period));
      if (claim !== null) return claim;
      await mkdir(join(dir, period), { recursive: true });
      await writeFile(join(dir, period, CLAIM_FILE), `${JSON.stringify({ madeBy: by })}\n`);
      await git(storage, ['add', '-A'], dir);
      const identity = ['-c', 'user.name=geo-reports', '-c', 'user.email=geo-reports@users.noreply.github.com', '-c', 'commit.gpgsign=false'];
      await git(storage, [...identity, 'commit', '-q', '-m', `Report history: ${period} begun by the ${by}`], dir);
      try {
        await push(storage, dir);
      } catch (error) {
        if (attempt >= PUSH_ATTEMPTS) throw error;
        continue;
      }
      storage.log(`${period} is claimed by ${by === 'shards' ? 'the shards' : 'one machine'} in ${shown(storage)}.`);
      return by;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Attempts at a push that another run's push got in before: each fetches the branch again and merges again. */
const PUSH_ATTEMPTS = 4;

/**
 * Merges each period of `out` (or only `periods`) into the branch, keeps the newest `keep` periods, commits and
 * pushes if anything changed. A period is merged with the branch's copy, never replaced: reports done and mails
 * recorded by another run stay. A push refused because the branch moved is fetched, merged and pushed again.
 */
export async function saveHistory(
  storage: HistoryStorage,
  out: string,
  keep: number,
  only?: readonly Period[],
): Promise<{ changed: boolean; periods: Period[] }> {
  const periods = (await periodsIn(out)).filter((p) => only === undefined || only.includes(p));
  for (let attempt = 1; ; attempt += 1) {
    const dir = await checkoutBranch(storage);
    try {
      for (const period of periods) await mergeInto(join(out, period), join(dir, period));
      // The newest `keep` months are kept, with the reviews of quarters and years that end in them.
      const kept = await periodsIn(dir);
      const months = kept.filter(isMonth);
      const oldest = months[Math.max(0, months.length - keep)];
      for (const old of kept.filter((p) => oldest !== undefined && lastMonth(p) < oldest)) await rm(join(dir, old), { recursive: true, force: true });
      if (await isFile(join(out, LINKS_FILE))) await cp(join(out, LINKS_FILE), join(dir, LINKS_FILE));
      await writeFile(
        join(dir, 'README.md'),
        '# Report history\n\nWritten by `geo-reports history save` after each monthly run: for each period, `manifest.json` and\n' +
          "each client's `data.json` (the raw data next month's report compares against), and `links.json`, the\n" +
          "generation of each client's link (`geo-reports publish`). The reports themselves are the workflow's\n" +
          `artifacts. The newest ${keep} periods are kept.\n`,
      );
      await git(storage, ['add', '-A'], dir);
      const pending = (await git(storage, ['status', '--porcelain'], dir)).trim();
      if (pending === '') {
        storage.log(`History unchanged in ${shown(storage)}.`);
        return { changed: false, periods };
      }
      const summary = await commitPeriods(storage, dir, pending, periods, keep);
      try {
        await push(storage, dir);
      } catch (error) {
        if (attempt >= PUSH_ATTEMPTS) throw error;
        storage.log(`The history moved while this run saved (attempt ${attempt} of ${PUSH_ATTEMPTS}): merging again.`);
        continue;
      }
      storage.log(`Saved ${summary.join(', ')} to ${shown(storage)}.`);
      return { changed: true, periods };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** One period of the runner's folder merged into the branch's copy: the manifest merged, each kept report's data.json. */
async function mergeInto(localDir: string, savedDir: string): Promise<void> {
  const local = await periodManifest(localDir);
  if (local === null) return;
  const saved = await periodManifest(savedDir).catch(() => null);
  const merged = saved === null ? local : mergePeriodState(saved, local);
  await mkdir(savedDir, { recursive: true });
  await writeManifest(savedDir, merged);
  const localEntries = new Map(local.projects.map((e) => [e.id, e]));
  for (const [id, file] of await dataFiles(localDir, local)) {
    // The runner's data.json goes with the runner's record of the report, not beside another run's.
    const kept = merged.projects.find((e) => e.id === id);
    if (kept === undefined || kept.updatedAt !== localEntries.get(id)?.updatedAt || kept.files.data !== file) continue;
    await mkdir(join(savedDir, file, '..'), { recursive: true });
    await cp(join(localDir, file), join(savedDir, file));
  }
}

/**
 * Saves `period` of `out` to the branch as a send records its mails: each call resolves once a push made after it
 * is on the branch, and calls that come while a push is under way share the next one.
 */
export function historyRecorder(storage: HistoryStorage, out: string, period: Period, keep: number): () => Promise<void> {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const start = (): Promise<void> => saveHistory(storage, out, keep, [period]).then(() => undefined);
  return () => {
    if (running === null) {
      running = start().finally(() => (running = null));
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        running = start().finally(() => (running = null));
        return running;
      });
    return next;
  };
}

/** Commits the scratch tree; the message names the periods whose state changed (a restored month saved again is not one). */
async function commitPeriods(storage: HistoryStorage, dir: string, pending: string, periods: Period[], keep: number): Promise<string[]> {
  const touched = new Set(pending.split('\n').map((line) => line.slice(3).replace(/^"|"$/g, '').split('/')[0] ?? ''));
  const saved = (await periodsIn(dir)).filter((p) => periods.includes(p) && touched.has(p));
  const summary = await Promise.all(saved.map(async (p) => `${p} ${(await readManifestFile(join(dir, p, MANIFEST_FILE))).status}`));
  if (touched.has(LINKS_FILE)) summary.push('client links');
  const identity = ['-c', 'user.name=geo-reports', '-c', 'user.email=geo-reports@users.noreply.github.com', '-c', 'commit.gpgsign=false'];
  const message = `Report history: ${summary.length > 0 ? summary.join(', ') : `the newest ${keep} periods kept`}`;
  await git(storage, [...identity, 'commit', '-q', '-m', message], dir);
  return summary;
}

async function push(storage: HistoryStorage, dir: string): Promise<void> {
  try {
    await git(storage, ['push', '-q', storage.remote, `HEAD:refs/heads/${storage.branch}`], dir);
  } catch (error) {
    throw new GeoReportsError(`Could not save the history to ${shown(storage)}: ${(error as Error).message}`, {
      hint: 'The job needs `contents: write`; if another run saved in between, run this one again.',
    });
  }
}
