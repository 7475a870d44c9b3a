// Writing the site file by file, only what changes: a file is written when the content hash of what it should hold
// differs from what the site holds. The links record remembers each file's hash, size and the source it was copied
// from (size and time), so a publish with nothing new reads no report and writes nothing. Every write is a temp
// file renamed over the target: a reader, or a publish killed halfway, sees the old file or the whole new one.
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileSystemError } from '../errors.js';
import type { SiteFile } from '../output/links.js';
import { siteFileError } from '../output/site-folder.js';
import { insideRoot, writeFileAtomic } from '../output/store.js';

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface SiteChange {
  /** Relative to the site, with forward slashes. */
  path: string;
  bytes: number;
}

/** A file of the site after a put, copy or keep, and whether it was written for it. */
export interface Placed {
  file: SiteFile;
  wrote: boolean;
}

export interface SiteWriterOptions {
  siteDir: string;
  /** Count what would be written and removed, and touch nothing. */
  dryRun: boolean;
  onWrite?: (change: SiteChange) => void;
  /** `files`: how many files the removed file or folder held. */
  onRemove?: (change: { path: string; files: number }) => void;
}

export class SiteWriter {
  readonly #options: SiteWriterOptions;
  written = 0;
  removed = 0;
  bytesWritten = 0;

  constructor(options: SiteWriterOptions) {
    this.#options = options;
  }

  #abs(path: string): string {
    return insideRoot(this.#options.siteDir, path);
  }

  /** Folders of the site known to be folders, not links. */
  readonly #folders = new Set<string>();

  /**
   * Refuses a link on the way to `path` (its folders, not `path` itself: a link there is replaced or removed, never
   * followed). A site restored from git may hold one, and writing or removing through it would reach outside the site.
   */
  async #noLinkOnTheWay(path: string): Promise<void> {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i += 1) {
      const folder = parts.slice(0, i).join('/');
      if (this.#folders.has(folder)) continue;
      const info = await lstat(this.#abs(folder)).catch(() => null);
      if (info === null) return;
      if (!info.isDirectory()) {
        throw new FileSystemError(
          `The site holds ${info.isSymbolicLink() ? 'a link' : 'a file'} at ${this.#abs(folder)}, where publish keeps a folder: nothing is written or removed through it.`,
          {
            hint: 'The site is made of plain folders and files: remove it, then publish again (the next publish writes what is missing).',
          },
        );
      }
      this.#folders.add(folder);
    }
  }

  /** Whether the site's file already holds `expected`; `recorded` vouches for it when the record describes this very file. */
  async #same(path: string, expected: { hash: string; size: number }, recorded: SiteFile | null, trusted: boolean): Promise<boolean> {
    await this.#noLinkOnTheWay(path);
    const info = await stat(this.#abs(path)).catch(() => null);
    if (info?.isFile() !== true || info.size !== expected.size) return false;
    if (trusted && recorded !== null && recorded.hash === expected.hash && recorded.size === expected.size) return true;
    return sha256(await this.#read(this.#abs(path))) === expected.hash;
  }

  async #read(path: string): Promise<Buffer> {
    try {
      return await readFile(path);
    } catch (error) {
      throw siteFileError('read', path, error);
    }
  }

  async #write(path: string, content: Uint8Array): Promise<void> {
    this.written += 1;
    this.bytesWritten += content.byteLength;
    this.#options.onWrite?.({ path, bytes: content.byteLength });
    if (this.#options.dryRun) return;
    const target = this.#abs(path);
    await this.#noLinkOnTheWay(path);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFileAtomic(target, content);
    } catch (error) {
      throw siteFileError('write', target, error);
    }
  }

  /** Puts `content` at `path` unless the site already holds it. */
  async put(path: string, content: Uint8Array, recorded: SiteFile | null, trusted: boolean): Promise<Placed> {
    const expected = { hash: sha256(content), size: content.byteLength };
    const same = await this.#same(path, expected, recorded, trusted);
    if (!same) await this.#write(path, content);
    return { file: { ...expected, source: null }, wrote: !same };
  }

  /**
   * Copies a report file of a period folder to `path` (through `transform`) unless the site already holds the
   * result. The source is read only when it changed since the record's copy, or the site's file must be checked.
   * Null when the source is not there.
   */
  async copy(source: string, path: string, transform: (bytes: Buffer) => Buffer, recorded: SiteFile | null, trusted: boolean): Promise<Placed | null> {
    const info = await stat(source).catch(() => null);
    if (info?.isFile() !== true) return null;
    const stamp = { size: info.size, mtimeMs: info.mtimeMs };
    const unchanged = recorded?.source != null && recorded.source.size === stamp.size && recorded.source.mtimeMs === stamp.mtimeMs;
    let content: Buffer | null = unchanged ? null : transform(await this.#read(source));
    const expected =
      content === null && recorded !== null
        ? { hash: recorded.hash, size: recorded.size }
        : { hash: sha256(content as Buffer), size: (content as Buffer).byteLength };
    if (await this.#same(path, expected, recorded, trusted)) return { file: { ...expected, source: stamp }, wrote: false };
    content ??= transform(await this.#read(source));
    await this.#write(path, content);
    return { file: { hash: sha256(content), size: content.byteLength, source: stamp }, wrote: true };
  }

  /**
   * A file the period folders no longer hold (only the site has it): kept where it is, or copied from `fallback`
   * (the client's previous address, on a move). Null when neither holds it any more.
   */
  async keep(path: string, recorded: SiteFile, trusted: boolean, fallback: string | null): Promise<Placed | null> {
    if (await this.#same(path, recorded, recorded, trusted)) return { file: recorded, wrote: false };
    if (fallback === null) return null;
    await this.#noLinkOnTheWay(fallback);
    const content = await readFile(this.#abs(fallback)).catch(() => null);
    if (content === null) return null;
    await this.#write(path, content);
    return { file: { hash: sha256(content), size: content.byteLength, source: recorded.source }, wrote: true };
  }

  /** Puts `content` at `path` when the site has no file there (a stat, no read: for the many small folder pages). */
  async ensure(path: string, content: Uint8Array): Promise<boolean> {
    await this.#noLinkOnTheWay(path);
    const info = await lstat(this.#abs(path)).catch(() => null);
    if (info?.isFile() === true) return false;
    await this.#write(path, content);
    return true;
  }

  /** Removes a file or folder of the site, counting the files it held. */
  async remove(path: string): Promise<void> {
    const target = this.#abs(path);
    await this.#noLinkOnTheWay(path);
    const info = await stat(target).catch(() => null);
    if (info === null) return;
    const files = info.isDirectory()
      ? (await readdir(target, { recursive: true, withFileTypes: true }).catch(() => [])).filter((entry) => !entry.isDirectory()).length
      : 1;
    this.removed += files;
    this.#options.onRemove?.({ path, files });
    if (this.#options.dryRun) return;
    try {
      await rm(target, { recursive: true, force: true });
    } catch (error) {
      throw siteFileError('remove', target, error);
    }
  }

  /** The names of a folder of the site; none when it does not exist. */
  async list(path: string): Promise<string[]> {
    await this.#noLinkOnTheWay(`${path}/`);
    try {
      return (await readdir(join(this.#options.siteDir, path))).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw siteFileError('read', join(this.#options.siteDir, path), error);
    }
  }
}

/**
 * The symbolic links inside `dir` (itself included), at most `limit` of them; none when it does not exist. A link
 * in a period folder would publish whatever it points at; one in the site would be written or kept through.
 */
export async function linksInside(dir: string, limit = 5): Promise<string[]> {
  const self = await lstat(dir).catch(() => null);
  if (self === null) return [];
  if (self.isSymbolicLink()) return [dir];
  if (!self.isDirectory()) return [];
  let entries;
  try {
    // withFileTypes reads each entry's own type: a link to a folder is listed, never entered.
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    throw siteFileError('read', dir, error);
  }
  return entries
    .filter((entry) => entry.isSymbolicLink())
    .slice(0, limit)
    .map((entry) => join(entry.parentPath, entry.name));
}
