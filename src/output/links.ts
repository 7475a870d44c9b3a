// Client links: each client's page of the published site lives at `c/<token>/`, the token made from a secret of the
// agency's (never stored) and the client's generation. The links record, `<out>/links.json`, keeps each client's
// generation (a rotation moves it to the next one, and the old address dies), and what `publish` last put on the
// site for it, so that a publish with nothing new writes nothing. It never goes into the site: the tokens cannot be
// made from it without the secret, and the history branch keeps it with the manifests.
import { createHmac } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, GeoReportsError } from '../errors.js';
import { LanguageCodeSchema } from '../i18n/locales.js';
import { PERIOD_PATTERN, QUARTER_PATTERN, YEAR_PATTERN, type Period } from '../period.js';
import { siteFileError } from './site-folder.js';
import { writeFileAtomic } from './store.js';

export const LINKS_FILE = 'links.json';
/** The folder of the site that holds every client's page. */
export const CLIENTS_FOLDER = 'c';

/** A file as the site holds it: its content hash and size; for a copy, the source it was made from. */
const SiteFile = z.object({
  /** SHA-256 of the bytes on the site, hex. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  /** The period folder's file it was made from, as it was then: unchanged, it need not be read again. */
  source: z.object({ size: z.number().int().nonnegative(), mtimeMs: z.number() }).nullable().default(null),
});
export type SiteFile = z.infer<typeof SiteFile>;

/** One month of a client's page: the report's scores and how it was made, and its two files on the site. */
const SiteMonth = z.object({
  /** The display name and language the report was made with: the page speaks as its newest report. */
  name: z.string(),
  language: LanguageCodeSchema,
  geo: z.number().nullable(),
  seo: z.number().nullable(),
  geoChange: z.number().nullable(),
  seoChange: z.number().nullable(),
  /** When the report was made (the manifest entry's time): the page's "updated" date. */
  madeAt: z.string(),
  /** The report was made before its period ended (`--partial`); absent: after. */
  madeBeforeEnd: z.literal(true).optional(),
  html: SiteFile,
  pdf: SiteFile,
});
export type SiteMonth = z.infer<typeof SiteMonth>;

const ClientLinks = z.object({
  /** 0 at first; `links rotate` adds one, and the next publish moves the page to the new address. */
  generation: z.number().int().nonnegative(),
  /** What the site holds for the client (at the address of `site.generation`); null when it has no page. */
  site: z
    .object({
      generation: z.number().int().nonnegative(),
      page: SiteFile,
      months: z.record(z.string().regex(PERIOD_PATTERN), SiteMonth),
      /** The quarterly and yearly reviews the page lists apart from the months, by period; absent: none. */
      reviews: z.record(z.string().refine((key) => QUARTER_PATTERN.test(key) || YEAR_PATTERN.test(key), 'a quarter or a year'), SiteMonth).optional(),
    })
    .nullable(),
});
export type ClientLinks = z.infer<typeof ClientLinks>;

export const LinksRecord = z.object({
  version: z.literal(1),
  /** By project id. */
  clients: z.record(z.string().regex(/^\d+$/), ClientLinks),
  /** The site's own files (index.html, 404.html…), by name. */
  root: z.record(z.string(), SiteFile).default({}),
  /** The address the last publish was given (--base-url or site.baseUrl): `links` uses it when given none. */
  baseUrl: z.string().optional(),
});
export type LinksRecord = z.infer<typeof LinksRecord>;

export const emptyLinksRecord = (): LinksRecord => ({ version: 1, clients: {}, root: {} });

/** base64url(HMAC-SHA256(secret, "<project-id>:<generation>")): 43 characters nobody can guess without the secret. */
export function linkToken(secret: string, projectId: number, generation: number): string {
  return createHmac('sha256', secret).update(`${projectId}:${generation}`).digest('base64url');
}

/** The folder of a client's page inside the site, with its trailing slash: `c/<token>/`. */
export function clientPath(token: string): string {
  return `${CLIENTS_FOLDER}/${token}/`;
}

/** The page's address: the site's base URL (its path kept) joined with the page's folder. */
export function siteUrl(baseUrl: string, path: string): string {
  return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).href;
}

/** The links record of `outDir`; null when there is none yet. A damaged one is an error naming it, never "none". */
export async function readLinksRecord(outDir: string): Promise<LinksRecord | null> {
  const path = join(outDir, LINKS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new GeoReportsError(`Cannot read the links record ${path}: ${(error as Error).message}`, { hint: 'Check its permissions.' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const record = LinksRecord.safeParse(parsed);
  if (!record.success) {
    // Read as "none", it would give every rotated client its old, revoked address again.
    throw new ConfigError(`The links record ${path} is damaged.`, {
      hint: 'Restore it from the history (`geo-reports history restore`) or a backup; it holds the generation of every client link.',
    });
  }
  return record.data;
}

export async function writeLinksRecord(outDir: string, record: LinksRecord): Promise<void> {
  const path = join(outDir, LINKS_FILE);
  try {
    await writeFileAtomic(path, `${JSON.stringify(record)}\n`);
  } catch (error) {
    throw siteFileError('write the links record', path, error);
  }
}

/** Where a client's page is now (the address the site serves), with the months and reviews it lists; null when it has none. */
export function publishedPage(
  record: LinksRecord,
  secret: string,
  projectId: number,
): { path: string; months: string[]; reviews: string[]; name: string; moving: boolean } | null {
  const links = record.clients[String(projectId)];
  const site = links?.site ?? null;
  if (links === undefined || site === null) return null;
  return {
    path: clientPath(linkToken(secret, projectId, site.generation)),
    months: Object.keys(site.months).sort().reverse(),
    reviews: Object.keys(site.reviews ?? {}).sort().reverse(),
    name: pageName(record, projectId),
    // `links rotate` was run since: the next publish moves the page, and this address dies.
    moving: links.generation !== site.generation,
  };
}

/** The client's name as its page shows it: its newest report's. */
export function pageName(record: LinksRecord, projectId: number): string {
  const months = record.clients[String(projectId)]?.site?.months ?? {};
  const newest = Object.keys(months).sort().at(-1);
  return (newest === undefined ? undefined : months[newest]?.name) ?? `project ${projectId}`;
}

/**
 * The address of a client's page for a message about `period`, checked against the site folder: the page must list
 * that month and its report must be there, or the message would carry a link to nothing.
 */
export async function pageUrlForPeriod(input: {
  record: LinksRecord | null;
  secret: string;
  baseUrl: string;
  siteDir: string;
  projectId: number;
  period: Period;
}): Promise<string> {
  const fix = 'run `geo-reports publish` first (with the same --out and --site), then send again';
  const page = input.record === null ? null : publishedPage(input.record, input.secret, input.projectId);
  if (page === null) throw new GeoReportsError(`project ${input.projectId} has no page on the site yet: ${fix}`);
  if (page.moving) {
    throw new GeoReportsError(`project ${input.projectId} was given a new address (links rotate) that is not published yet; its current one dies at the next publish: ${fix}`);
  }
  if (!page.months.includes(input.period) && !page.reviews.includes(input.period)) throw new GeoReportsError(`the page of project ${input.projectId} does not list ${input.period} yet: ${fix}`);
  // The path holds the client's token: the message names the site folder, never the page's folder.
  const found = await stat(join(input.siteDir, page.path, input.period, 'report.html')).then((info) => info.isFile(), () => false);
  if (!found) throw new GeoReportsError(`the report of ${input.period} of project ${input.projectId} is not in the site folder ${input.siteDir} (is it the published site?): ${fix}`);
  return siteUrl(input.baseUrl, page.path);
}
