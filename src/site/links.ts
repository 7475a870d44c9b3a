// `geo-reports links`: each client's page as the site serves it now, and the rotation that gives a client a new
// address (the next publish moves its pages there and removes the old ones).
import { ConfigError } from '../errors.js';
import { LINKS_FILE, pageName, publishedPage, readLinksRecord, siteUrl, writeLinksRecord, type LinksRecord } from '../output/links.js';
import { lockFolder } from '../output/store.js';

export interface ClientLink {
  projectId: number;
  name: string;
  /** The page's address: the base URL joined with `path`. */
  url: string;
  /** The page's folder inside the site: `c/<token>/`. */
  path: string;
  /** The months the page lists, newest first. */
  months: string[];
  /** `links rotate` was run: the next publish moves the page to a new address. */
  moving: boolean;
}

/** Every client with a page, by project id. */
export function listClientLinks(record: LinksRecord, secret: string, baseUrl: string): ClientLink[] {
  return Object.keys(record.clients)
    .map(Number)
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const page = publishedPage(record, secret, id);
      return page === null
        ? []
        : [{ projectId: id, name: page.name, url: siteUrl(baseUrl, page.path), path: page.path, months: page.months, moving: page.moving }];
    });
}

/** Moves the client to its next generation; the next publish moves its pages and kills the old address. */
export async function rotateClientLink(outDir: string, projectId: number): Promise<{ projectId: number; name: string; generation: number }> {
  const unlock = await lockFolder(outDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new ConfigError(`The output folder ${outDir} does not exist.`, { hint: 'Give the folder publish reads with --out.' });
    throw error;
  });
  try {
    const record = await readLinksRecord(outDir);
    if (record === null) {
      throw new ConfigError(`${outDir} has no links record (${LINKS_FILE}): nothing was published from it.`, {
        hint: 'Give the output folder the site is published from with --out (in GitHub Actions, restore the history first: `geo-reports history restore`).',
      });
    }
    const links = record.clients[String(projectId)];
    if (links?.site == null) {
      throw new ConfigError(`Project ${projectId} has no page on the site: there is no address to replace.`, {
        hint: '`geo-reports links` lists the clients with a page.',
      });
    }
    links.generation += 1;
    await writeLinksRecord(outDir, record);
    return { projectId, name: pageName(record, projectId), generation: links.generation };
  } finally {
    await unlock();
  }
}
