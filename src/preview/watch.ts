// Tells the preview when a file it renders from changed: the template folder (every sub-folder, new ones too) and
// the config file with its logo. Editors save in bursts (a temporary file, a rename, a second write): the changes
// of one save are told once, after a short quiet time.
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface WatchTargets {
  /** Folders watched whole, sub-folders included (the template folder). */
  folders: readonly string[];
  /** Single files (the config file, the logo): their folder is watched, for their name only. */
  files: readonly string[];
}

export interface Watcher {
  close(): void;
}

/** Deepest sub-folder watched in a template folder (partials/, assets/, images/team/…). */
const MAX_DEPTH = 3;

async function subFolders(root: string, depth = 0): Promise<string[]> {
  if (depth > MAX_DEPTH) return [];
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const found = [root];
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
      found.push(...(await subFolders(join(root, entry.name), depth + 1)));
  }
  return found;
}

/**
 * Calls `onChange` (with the changed paths) once a burst of changes has been quiet for `quietMs`. A folder that
 * cannot be watched is skipped: the preview still serves, it only does not reload for it.
 */
export async function watchFiles(targets: WatchTargets, onChange: (paths: string[]) => void, quietMs = 30): Promise<Watcher> {
  const watchers = new Map<string, FSWatcher>();
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const fileNames = new Map<string, Set<string>>();
  for (const file of targets.files) {
    const names = fileNames.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    fileNames.set(dirname(file), names);
  }

  const flush = (): void => {
    timer = null;
    if (closed || pending.size === 0) return;
    const paths = [...pending];
    pending = new Set();
    onChange(paths);
  };
  const changed = (path: string): void => {
    if (closed) return;
    pending.add(path);
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(flush, quietMs);
  };
  const add = (dir: string, onlyNames: Set<string> | null): void => {
    if (watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        const file = name === null ? dir : join(dir, name);
        if (onlyNames !== null && (name === null || !onlyNames.has(name))) return;
        changed(file);
        // A folder made after the start (images/ added) is watched from now on.
        if (onlyNames === null) void rescan();
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, watcher);
    } catch {
      // Gone or not readable: nothing to watch there.
    }
  };
  const rescan = async (): Promise<void> => {
    for (const folder of targets.folders) for (const dir of await subFolders(folder)) if (!closed) add(dir, null);
  };
  await rescan();
  for (const [dir, names] of fileNames) if (!watchers.has(dir)) add(dir, names);
  return {
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
