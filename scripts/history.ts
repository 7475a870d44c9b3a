// Month-to-month state of the reports, kept in a git branch (by default `reports-history` of the repository):
// each period's manifest.json and every project's data.json, which next month's reports compare against.
// The reports themselves (HTML, PDF) are not kept here: they are the run's artifact.
//
//   node --import tsx scripts/history.ts restore --storage GIT_URL_OR_PATH --out output [--before 2026-10]
//   node --import tsx scripts/history.ts status  --storage GIT_URL_OR_PATH --period 2026-10
//   node --import tsx scripts/history.ts save    --storage GIT_URL_OR_PATH --out output [--keep 13]
//
// Options: --branch NAME (default reports-history). The storage is any git remote: the repository's URL in
// GitHub Actions (with HISTORY_TOKEN set to the job's token), a bare repository folder in a test.
// Exit codes: 0 done, 1 failure, 2 usage error.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Manifest, readManifest } from '../src/output/store.js';
import { PERIOD_PATTERN } from '../src/period.js';

const run = promisify(execFile);

export const DEFAULT_BRANCH = 'reports-history';
export const DEFAULT_KEEP = 13;
const MANIFEST = 'manifest.json';

class HistoryError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

interface Storage {
  /** A git remote: URL or path. Never printed as given: it may carry credentials. */
  remote: string;
  branch: string;
}

/** The storage as it may be shown: credentials in a URL are masked. */
function shown(storage: Storage): string {
  return `${storage.remote.replace(/\/\/[^/@]*@/, '//***@')} (branch ${storage.branch})`;
}

/**
 * The environment of git: never prompts; with HISTORY_TOKEN set (the job's GITHUB_TOKEN in Actions), an
 * authorization header for HTTPS remotes, given through the environment so it appears in no command line.
 */
function gitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env, GIT_TERMINAL_PROMPT: '0' };
  const token = env['HISTORY_TOKEN'];
  if (token !== undefined && token !== '') {
    const count = Number(env['GIT_CONFIG_COUNT'] ?? 0) || 0;
    result['GIT_CONFIG_COUNT'] = String(count + 1);
    result[`GIT_CONFIG_KEY_${count}`] = 'http.extraHeader';
    result[`GIT_CONFIG_VALUE_${count}`] = `Authorization: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  }
  delete result['HISTORY_TOKEN'];
  return result;
}

async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run('git', args, {
      ...(cwd !== undefined ? { cwd } : {}),
      env: gitEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new HistoryError(`git ${args[0]} failed: ${stderr.replace(/\/\/[^/@\s]*@/g, '//***@') || (error as Error).message}`);
  }
}

/** Does the branch exist? An unreachable storage is an error, not "no history". */
async function branchExists(storage: Storage): Promise<boolean> {
  let heads: string;
  try {
    heads = await git(['ls-remote', '--heads', storage.remote, `refs/heads/${storage.branch}`]);
  } catch (error) {
    throw new HistoryError(
      `Cannot reach the history storage ${shown(storage)}: ${(error as Error).message}\n` +
        'Fix: check the --storage URL and that the job may read the repository (and write it, to save).',
    );
  }
  return heads.trim() !== '';
}

/** A scratch repository holding the branch's latest tree (or an empty orphan branch); removed by the caller. */
async function checkoutBranch(storage: Storage): Promise<{ dir: string; exists: boolean }> {
  const exists = await branchExists(storage);
  const dir = await mkdtemp(join(tmpdir(), 'geo-history-'));
  await git(['init', '-q', '-b', storage.branch], dir);
  if (exists) {
    await git(['fetch', '-q', '--depth=1', storage.remote, `refs/heads/${storage.branch}`], dir);
    await git(['checkout', '-q', '-B', storage.branch, 'FETCH_HEAD'], dir);
  }
  return { dir, exists };
}

async function periodsIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const periods: string[] = [];
  for (const name of names) {
    if (PERIOD_PATTERN.test(name) && (await isFile(join(dir, name, MANIFEST)))) periods.push(name);
  }
  return periods.sort();
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() === true;
}

async function readManifestFile(path: string): Promise<Manifest> {
  const parsed = Manifest.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) throw new HistoryError(`${path} is not a manifest of geo-reports.`);
  return parsed.data;
}

/** The files of a period that next month needs: the manifest and each project's data.json. */
async function stateFiles(periodDir: string): Promise<string[]> {
  const manifest = await readManifestFile(join(periodDir, MANIFEST));
  const files = [MANIFEST];
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
export async function restore(storage: Storage, out: string, before?: string): Promise<string[]> {
  if (!(await branchExists(storage))) {
    console.log(`No history yet in ${shown(storage)}: every report will be a first report.`);
    return [];
  }
  const { dir } = await checkoutBranch(storage);
  try {
    const periods = (await periodsIn(dir)).filter((p) => before === undefined || p < before);
    for (const period of periods) {
      for (const file of await stateFiles(join(dir, period))) {
        const target = join(out, period, file);
        if (await isFile(target)) continue;
        await mkdir(join(target, '..'), { recursive: true });
        await cp(join(dir, period, file), target);
      }
    }
    console.log(periods.length === 0 ? 'No earlier period in the history.' : `Restored ${periods.join(', ')} from ${shown(storage)}.`);
    return periods;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The status of `period` as last saved (complete, partial, …), or `none`. */
export async function status(storage: Storage, period: string): Promise<string> {
  if (!(await branchExists(storage))) return 'none';
  const { dir } = await checkoutBranch(storage);
  try {
    const path = join(dir, period, MANIFEST);
    return (await isFile(path)) ? (await readManifestFile(path)).status : 'none';
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Replaces each period of `out` in the branch, keeps the newest `keep` periods, commits and pushes if anything changed. */
export async function save(storage: Storage, out: string, keep: number): Promise<{ changed: boolean; periods: string[] }> {
  const periods = await periodsIn(out);
  const { dir } = await checkoutBranch(storage);
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
    await writeFile(
      join(dir, 'README.md'),
      '# Report history\n\nWritten by `scripts/history.ts save` after each monthly run: for each period, `manifest.json` and\n' +
        "each client's `data.json` (the raw data next month's report compares against). The reports themselves are\n" +
        `the workflow's artifacts. The newest ${keep} periods are kept.\n`,
    );
    await git(['add', '-A'], dir);
    const pending = (await git(['status', '--porcelain'], dir)).trim();
    if (pending === '') {
      console.log(`History unchanged in ${shown(storage)}.`);
      return { changed: false, periods };
    }
    // The commit names the periods whose state changed (a restored month saved again is not one).
    const touched = new Set(pending.split('\n').map((line) => line.slice(3).replace(/^"|"$/g, '').split('/')[0] ?? ''));
    const saved = (await periodsIn(dir)).filter((p) => periods.includes(p) && touched.has(p));
    const summary = await Promise.all(
      saved.map(async (p) => `${p} ${(await readManifestFile(join(dir, p, MANIFEST))).status}`),
    );
    await git(
      [
        '-c', 'user.name=geo-reports', '-c', 'user.email=geo-reports@users.noreply.github.com', '-c', 'commit.gpgsign=false',
        'commit', '-q', '-m', `Report history: ${summary.length > 0 ? summary.join(', ') : `the newest ${keep} periods kept`}`,
      ],
      dir,
    );
    try {
      await git(['push', '-q', storage.remote, `HEAD:refs/heads/${storage.branch}`], dir);
    } catch (error) {
      throw new HistoryError(
        `Could not save the history to ${shown(storage)}: ${(error as Error).message}\n` +
          'Fix: the job needs `contents: write`; if another run saved in between, run this one again.',
      );
    }
    console.log(`Saved ${summary.join(', ')} to ${shown(storage)}.`);
    return { changed: true, periods };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const [operation, ...rest] = argv;
  if (operation === undefined || !['restore', 'status', 'save'].includes(operation)) {
    throw new HistoryError(`Unknown operation "${operation ?? ''}": use restore, status or save.`, 2);
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        storage: { type: 'string' },
        branch: { type: 'string', default: DEFAULT_BRANCH },
        out: { type: 'string' },
        before: { type: 'string' },
        period: { type: 'string' },
        keep: { type: 'string', default: String(DEFAULT_KEEP) },
      },
    }));
  } catch (error) {
    throw new HistoryError(`${(error as Error).message}`, 2);
  }
  const need = (name: 'storage' | 'out' | 'period'): string => {
    const value = values[name];
    if (value === undefined || value === '') throw new HistoryError(`${operation}: --${name} is required.`, 2);
    return value;
  };
  const period = (name: 'before' | 'period', value: string | undefined): string | undefined => {
    if (value !== undefined && !PERIOD_PATTERN.test(value)) throw new HistoryError(`--${name} must look like 2026-10 (got "${value}").`, 2);
    return value;
  };
  const storage = { remote: need('storage'), branch: values.branch };
  switch (operation) {
    case 'restore':
      await restore(storage, need('out'), period('before', values.before));
      return 0;
    case 'status':
      console.log(await status(storage, period('period', need('period')) as string));
      return 0;
    case 'save': {
      const keep = Number(values.keep);
      if (!Number.isInteger(keep) || keep < 1) throw new HistoryError(`--keep must be a whole number of periods, at least 1 (got "${values.keep}").`, 2);
      await save(storage, need('out'), keep);
      return 0;
    }
    default:
      throw new HistoryError(`Unknown operation "${operation ?? ''}": use restore, status or save.`, 2);
  }
}

// Run as a script (the path may go through a symlink), not when imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = error instanceof HistoryError ? error.exitCode : 1;
    },
  );
}
