// The published site kept in a git branch (by default `reports-site`), for a scheduler without a disk that lasts
// (GitHub Actions): restored before `publish`, saved after it as a single commit, force-pushed, so that a year of
// PDFs never piles up in the branch's history. GitHub Pages, Netlify or Cloudflare Pages can serve the branch.
// The git folder sits next to the site (`.<site>.git`), never inside it: a save after a restore on the same machine
// sends only the new files, since the remote already has the rest.
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError, GeoReportsError } from '../errors.js';
import { SITE_MARKER } from '../output/site-folder.js';
import { branchExists, git, shown, type HistoryStorage } from './branch.js';

/** Where the git objects of a site folder are kept between its restore and its save. */
export function siteGitDir(siteDir: string): string {
  const site = resolve(siteDir);
  return join(dirname(site), `.${basename(site)}.git`);
}

async function gitDirFor(storage: HistoryStorage, siteDir: string): Promise<string> {
  const gitDir = siteGitDir(siteDir);
  if (
    !(await lstat(join(gitDir, 'HEAD')).then(
      () => true,
      () => false,
    ))
  ) {
    await mkdir(gitDir, { recursive: true });
    await git(storage, ['init', '-q', '--bare', gitDir]);
  }
  // A publish killed halfway leaves temp files: never saved.
  await mkdir(join(gitDir, 'info'), { recursive: true });
  await writeFile(join(gitDir, 'info', 'exclude'), '*.partial-*\n');
  return gitDir;
}

/** Copies the branch's site into `siteDir`, which must be missing or empty. False when the branch does not exist yet. */
export async function restoreSite(storage: HistoryStorage, siteDir: string): Promise<boolean> {
  const names = await readdir(siteDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
    throw error;
  });
  if (names.length > 0) {
    throw new ConfigError(`The site folder ${siteDir} is not empty: the site is restored into an empty folder only.`, {
      hint: 'Restore into a new folder (or remove this one first): a restore never mixes two sites.',
    });
  }
  if (!(await branchExists(storage))) {
    storage.log(`No site yet in ${shown(storage)}: publish makes it.`);
    return false;
  }
  const gitDir = await gitDirFor(storage, siteDir);
  await mkdir(siteDir, { recursive: true });
  await git(storage, ['--git-dir', gitDir, 'fetch', '-q', '--depth=1', storage.remote, `+refs/heads/${storage.branch}:refs/heads/${storage.branch}`]);
  await git(storage, ['--git-dir', gitDir, '--work-tree', resolve(siteDir), 'checkout', '-q', '-f', storage.branch, '--', '.'], resolve(siteDir));
  const marker = await lstat(join(siteDir, SITE_MARKER)).then(
    () => true,
    () => false,
  );
  storage.log(
    `Restored the site from ${shown(storage)} into ${siteDir}${marker ? '' : ` (without ${SITE_MARKER}: it was not written by publish, which will refuse it)`}.`,
  );
  return true;
}

/** Saves `siteDir` (a site written by publish) as the branch's one commit, force-pushed. */
export async function saveSite(storage: HistoryStorage, siteDir: string): Promise<{ files: number }> {
  if (
    !(await lstat(join(siteDir, SITE_MARKER)).then(
      () => true,
      () => false,
    ))
  ) {
    throw new ConfigError(`${siteDir} has no ${SITE_MARKER}: it is not a site written by \`geo-reports publish\`, and is not saved.`, {
      hint: 'Give the folder publish wrote with --site.',
    });
  }
  const gitDir = await gitDirFor(storage, siteDir);
  const work = ['--git-dir', gitDir, '--work-tree', resolve(siteDir)];
  // A fresh index each time: the commit is exactly the folder as it is now.
  await rm(join(gitDir, 'index'), { force: true });
  await git(storage, [...work, 'add', '-A', '.'], resolve(siteDir));
  const files = (await git(storage, [...work, 'ls-files'], resolve(siteDir))).split('\n').filter(Boolean).length;
  const tree = (await git(storage, ['--git-dir', gitDir, 'write-tree'])).trim();
  // The branch as this machine last restored or saved it: the same tree is nothing to save.
  const known = await git(storage, ['--git-dir', gitDir, 'rev-parse', '--verify', '-q', `refs/heads/${storage.branch}^{tree}`]).catch(() => '');
  if (known.trim() === tree) {
    storage.log(`The site is unchanged in ${shown(storage)} (${files} files).`);
    return { files };
  }
  const identity = ['-c', 'user.name=geo-reports', '-c', 'user.email=geo-reports@users.noreply.github.com', '-c', 'commit.gpgsign=false'];
  // No parent: the branch is always one commit, whatever it held before.
  const commit = (await git(storage, ['--git-dir', gitDir, ...identity, 'commit-tree', tree, '-m', `Client pages: ${files} files`])).trim();
  try {
    await git(storage, ['--git-dir', gitDir, 'push', '-q', '--force', storage.remote, `${commit}:refs/heads/${storage.branch}`]);
  } catch (error) {
    throw new GeoReportsError(`Could not save the site to ${shown(storage)}: ${(error as Error).message}`, {
      hint: 'The job needs `contents: write`, and the branch must accept force pushes from it.',
    });
  }
  await git(storage, ['--git-dir', gitDir, 'update-ref', `refs/heads/${storage.branch}`, commit]);
  storage.log(`Saved the site (${files} files) to ${shown(storage)} as one commit.`);
  return { files };
}
