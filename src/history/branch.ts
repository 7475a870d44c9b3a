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
import { PERIOD_PATTERN } from '../period.js';

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

async function periodsIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
    throw error;
  });
  const periods: string[] = [];
  for (const name of names) {
    if (PERIOD_PATTERN.test(name) && (await isFile(join(dir, name, MANIFEST_FILE)))) periods.push(name);
  }
  return periods.sort();
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

/** The files of a period that next month needs: the manifest and each project's data.json. */
async function stateFiles(periodDir: string): Promise<string[]> {
  const manifest = await readManifestFile(join(periodDir, MANIFEST_FILE));
  const files = [MANIFEST_FILE];
  // A run that was killed leaves its last changes in the journal manifest.json names: kept with it.
  const journal = manifest.journal === undefined ? null : `manifest.${manifest.journal}.journal`;
  if (journal !== null && (await isFile(join(periodDir, journal)))) files.push(journal);
  for (const entry of (await readManifest(periodDir))?.projects ?? []) {
    const data = entry.files.data;
    // Paths come from the manifest: only plain relative paths inside the period are followed.
    if (data === null || data.startsWith('/') || data.split('/').includes('..')) continue;
    if (await isFile(join(periodDir, data))) files.push(data);
  }
  return files;
}

/** Copies the kept periods (those before `before`, when given) into `out`; files already there are kept. */
export async function restoreHistory(storage: HistoryStorage, out: string, before?: string): Promise<string[]> {
  if (!(await branchExists(storage))) {
    storage.log(`No history yet in ${shown(storage)}: every report will be a first report.`);
    return [];
  }
  const dir = await checkoutBranch(storage);
  try {
    const periods = (await periodsIn(dir)).filter((p) => before === undefined || p < before);
    // The generation of every client link: without it, publish would bring back revoked addresses.
    if ((await isFile(join(dir, LINKS_FILE))) && !(await isFile(join(out, LINKS_FILE)))) {
      await mkdir(out, { recursive: true });
      await cp(join(dir, LINKS_FILE), join(out, LINKS_FILE));
    }
    for (const period of periods) {
      const kept = await reconcile(join(dir, period), join(out, period));
      for (const file of await stateFiles(join(dir, period))) {
        const target = join(out, period, file);
        if (kept && (file === MANIFEST_FILE || file.endsWith('.journal'))) continue;
        if (await isFile(target)) continue;
        await mkdir(join(target, '..'), { recursive: true });
        await cp(join(dir, period, file), target);
      }
    }
    storage.log(periods.length === 0 ? 'No earlier period in the history.' : `Restored ${periods.join(', ')} from ${shown(storage)}.`);
    return periods;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A period already in `out` (a cache restored first) against the branch's copy: the newer manifest is kept in
 * `out`, with every delivery record of the older one it lacks, so neither copy can make a client be mailed
 * twice. False when `out` holds no manifest of the period (the branch's files are simply copied).
 */
async function reconcile(savedDir: string, localDir: string): Promise<boolean> {
  const local = await readManifest(localDir).catch(() => null);
  if (local === null) return false;
  const saved = await readManifest(savedDir);
  if (saved === null) return true;
  const [newer, older] = saved.updatedAt > local.updatedAt ? [saved, local] : [local, saved];
  const olderById = new Map(older.projects.map((entry) => [entry.id, entry]));
  let carried = 0;
  const projects = newer.projects.map((entry) => {
    const earlier = olderById.get(entry.id)?.deliveries;
    if (earlier === undefined) return entry;
    const deliveries = { ...earlier, ...entry.deliveries };
    if (Object.keys(deliveries).length === Object.keys(entry.deliveries ?? {}).length) return entry;
    carried += 1;
    return { ...entry, deliveries };
  });
  if (newer !== local || carried > 0) await writeManifest(localDir, { ...newer, projects });
  return true;
}

/** The status of `period` as last saved (complete, partial, …), or `none`. */
export async function historyStatus(storage: HistoryStorage, period: string): Promise<string> {
  return (await historyPeriod(storage, period)).status;
}

/** A saved period in counts (never a client's name), for a workflow to decide what to do. */
export interface SavedPeriod {
  period: string;
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
export async function historyPeriod(storage: HistoryStorage, period: string): Promise<SavedPeriod> {
  const none: SavedPeriod = { period, status: 'none', madeBy: 'none', shards: [], projects: 0, done: 0, pending: 0, failed: 0, held: 0, unsent: 0 };
  if (!(await branchExists(storage))) return none;
  const dir = await checkoutBranch(storage);
  try {
    const path = join(dir, period, MANIFEST_FILE);
    if (!(await isFile(path))) return none;
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

/** Replaces each period of `out` in the branch, keeps the newest `keep` periods, commits and pushes if anything changed. */
export async function saveHistory(storage: HistoryStorage, out: string, keep: number): Promise<{ changed: boolean; periods: string[] }> {
  const periods = await periodsIn(out);
  const dir = await checkoutBranch(storage);
  try {
    for (const period of periods) {
      await rm(join(dir, period), { recursive: true, force: true });
      for (const file of await stateFiles(join(out, period))) {
        await mkdir(join(dir, period, file, '..'), { recursive: true });
        await cp(join(out, period, file), join(dir, period, file));
      }
    }
    const kept = await periodsIn(dir);
    for (const old of kept.slice(0, Math.max(0, kept.length - keep))) await rm(join(dir, old), { recursive: true, force: true });
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
    await push(storage, dir);
    storage.log(`Saved ${summary.join(', ')} to ${shown(storage)}.`);
    return { changed: true, periods };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Commits the scratch tree; the message names the periods whose state changed (a restored month saved again is not one). */
async function commitPeriods(storage: HistoryStorage, dir: string, pending: string, periods: string[], keep: number): Promise<string[]> {
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
