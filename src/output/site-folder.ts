// The folder of the published site, and what may be written into it. `publish` writes a marker file there first;
// a folder that is not empty and has no marker is someone else's (a home folder, the output folder, a web root of
// another site) and nothing is written into it or removed from it. Neither is anything written into a period folder,
// nor into a folder that holds the output folder: the site is public, the output is not.
import { lstat, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigError, FileSystemError, isGeoReportsError } from '../errors.js';
import { PERIOD_PATTERN } from '../period.js';
import { lockFolder, MANIFEST_FILE } from './store.js';

/** Written by `publish` into the site folder before anything else. Public, like every file of the site. */
export const SITE_MARKER = '.geo-reports-site';
export const SITE_MARKER_TEXT =
  'This folder is a site written by `geo-reports publish`: each client\'s reports at a private address.\n' +
  'Publish writes into it and removes from it; do not keep other files here.\n';

const isInside = (parent: string, child: string): boolean => {
  const path = relative(parent, child);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
};

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() === true;
}

/** A period folder: named YYYY-MM and holding a manifest. */
async function isPeriodFolder(dir: string): Promise<boolean> {
  return PERIOD_PATTERN.test(basename(dir)) && isFile(join(dir, MANIFEST_FILE));
}

export type SiteFolderState = 'missing' | 'empty' | 'site';

/**
 * Whether the site may be written into `siteDir`: a missing or empty folder, or one with the marker. Throws a
 * ConfigError (exit 2) naming the folder and the fix otherwise. Nothing is written here.
 */
export async function checkSiteFolder(siteDir: string, outDir: string): Promise<SiteFolderState> {
  const site = resolve(siteDir);
  const out = resolve(outDir);
  if (isInside(site, out)) {
    throw new ConfigError(`The site folder ${site} ${site === out ? 'is' : 'holds'} the output folder ${out}: the site is public, the output is not.`, {
      hint: `Give another folder with --site (or site.dir in the config), e.g. ${join(out, 'site')}.`,
    });
  }
  for (let dir = site; ; dir = dirname(dir)) {
    if (await isPeriodFolder(dir)) {
      throw new ConfigError(`The site folder ${site} is ${dir === site ? '' : 'inside '}the period folder ${dir}.`, {
        hint: `A period folder holds the reports' raw data and the manifest; give a folder of its own with --site, e.g. ${join(out, 'site')}.`,
      });
    }
    if (dirname(dir) === dir) break;
  }
  let info;
  try {
    info = await lstat(site);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new FileSystemError(`Cannot read the site folder ${site}: ${(error as Error).message}`, { hint: 'Check its permissions.' });
  }
  if (!info.isDirectory()) {
    throw new ConfigError(`The site folder ${site} is ${info.isSymbolicLink() ? 'a link' : 'a file'}, not a folder.`, {
      hint: 'Give a folder of its own with --site (or site.dir in the config); publish makes it when it does not exist.',
    });
  }
  let names: string[];
  try {
    names = await readdir(site);
  } catch (error) {
    throw new FileSystemError(`Cannot read the site folder ${site}: ${(error as Error).message}`, { hint: 'Check its permissions.' });
  }
  if (names.length === 0) return 'empty';
  if (names.includes(SITE_MARKER) && (await readFile(join(site, SITE_MARKER), 'utf8').catch(() => null)) !== null) return 'site';
  throw new ConfigError(`The folder ${site} is not empty and was not written by \`geo-reports publish\` (it has no ${SITE_MARKER} file): nothing is written into it or removed from it.`, {
    hint: 'Give an empty or new folder with --site (or site.dir in the config). If this folder is the site, restored without its marker, put the marker back: `geo-reports history site-restore` brings it with the site.',
  });
}

/** Takes the site folder's lock (made when missing): one publish at a time writes a site. Returns its release. */
export async function lockSite(siteDir: string): Promise<() => Promise<void>> {
  try {
    await mkdir(siteDir, { recursive: true });
  } catch (error) {
    throw new FileSystemError(`Cannot make the site folder ${siteDir}: ${(error as Error).message}`, { hint: 'Check that its parent folder exists and is writable.' });
  }
  try {
    return await lockFolder(siteDir);
  } catch (error) {
    if (isGeoReportsError(error)) throw error;
    throw new FileSystemError(`Cannot lock the site folder ${siteDir}: ${(error as Error).message}`, { hint: 'Make the folder writable, then publish again.' });
  }
}

/** A file-system error as the user can act on it: the path, what happened, and the fix; exit 2. */
export function siteFileError(action: string, path: string, error: unknown): FileSystemError {
  const code = (error as NodeJS.ErrnoException).code;
  const fix =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'Free room on that disk, then publish again'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'Make the folder writable, then publish again'
        : 'Check the folder, then publish again';
  return new FileSystemError(`Cannot ${action} ${path}: ${(error as Error).message}`, {
    hint: `${fix}: every page written so far works, and the next publish writes only what is missing.`,
  });
}
