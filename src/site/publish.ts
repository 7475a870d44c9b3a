// `geo-reports publish`: brings the static site up to date with the period folders of the output. Each client with
// a done report gets a page at `c/<token>/` listing its months, each month's report.html and report.pdf beside it;
// the root holds the agency's page, a 404 page, robots.txt and the headers file of the static hosts that read one.
// No request to the API: everything comes from the period folders and the links record.
//
// Order on disk, so a publish killed at any point leaves every page it wrote working: the marker, then the root's
// files, then client by client the month files before the page that links to them, and only after the page is
// written what it no longer lists (months past site.keepMonths, the client's previous address after a rotation).
import { readdir, readFile, stat } from 'node:fs/promises';
import pLimit from 'p-limit';
import { datedAnnotations } from '../config/annotations.js';
import type { Config } from '../config/schema.js';
import { readReport } from '../content/report.js';
import { ConfigError } from '../errors.js';
import { join } from 'node:path';
import {
  CLIENTS_FOLDER,
  clientPath,
  emptyLinksRecord,
  LINKS_FILE,
  linkToken,
  readLinksRecord,
  siteUrl,
  writeLinksRecord,
  type ClientLinks,
  type LinksRecord,
  type SiteMonth,
} from '../output/links.js';
import { checkSiteFolder, lockSite, SITE_MARKER, SITE_MARKER_TEXT } from '../output/site-folder.js';
import { reportAsMade } from '../output/report-as-made.js';
import { insideRoot, lockFolder, readManifest, removeStaleTempFiles, type Manifest, type ProjectEntry } from '../output/store.js';
import { addMonths, PERIOD_PATTERN } from '../period.js';
import type { HtmlRenderer } from '../render/html.js';
import { pageProblems, pagePolicy, policyMeta, UnsafePageError } from '../render/page-check.js';
import type { Branding } from '../report/model.js';
import { parsePeriodData } from '../report/period-data.js';
import { JournalWriter } from '../output/journal-writer.js';
import { linksInside, SiteWriter, type Placed } from './files.js';
import { clientPageModel, monthFile, rootPageModel } from './pages.js';

/** Every crawler is asked to stay out; the pages say noindex too, and the headers file says it for the PDFs. */
export const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';
/**
 * Netlify and Cloudflare Pages read `_headers`: no index, no referrer, for every file (PDFs have no <meta>), and the
 * pages' own Content-Security-Policy.
 */
export const HEADERS_FILE = `/*\n  X-Robots-Tag: noindex, nofollow\n  Referrer-Policy: no-referrer\n  X-Content-Type-Options: nosniff\n  Content-Security-Policy: ${pagePolicy()}\n`;

export interface PublishOptions {
  /** The output folder holding the period folders and links.json. */
  outDir: string;
  siteDir: string;
  /** GEO_REPORTS_LINK_SECRET, checked. */
  secret: string;
  /** Where the site is served; null prints paths instead of URLs. */
  baseUrl: string | null;
  /** Only this period's reports are read (the other months of each page stay as published). */
  period?: string;
  /** Remove the pages of clients absent from the newest period, and folders no client owns. */
  prune: boolean;
  dryRun: boolean;
  /** How many months each page keeps, counted back from the newest period. */
  keepMonths: number;
  /** For a report made by an earlier version: the language, name and field map it was made with. */
  config: Pick<Config, 'clients' | 'report' | 'api'>;
  branding: Branding;
  renderer: Pick<HtmlRenderer, 'renderClientPage' | 'renderRootPage' | 'locales'>;
  /** Clients handled at once (file copies overlap). @default 4 */
  concurrency?: number;
  clock?: () => Date;
  /** Aborted on SIGINT / SIGTERM: no new client starts; the record of what was written is saved. */
  signal?: AbortSignal;
  onEvent?: (event: PublishEvent) => void;
}

export interface UrlChange {
  projectId: number;
  name: string;
  /** The old and new address (URLs with a base URL, else paths inside the site). */
  from: string;
  to: string;
}

export type PublishEvent =
  | { type: 'publish-plan'; siteDir: string; periods: string[]; clients: number; dryRun: boolean }
  | { type: 'site-written'; path: string; bytes: number }
  | { type: 'site-removed'; path: string; files: number }
  | { type: 'client-published'; id: number; name: string; written: string[]; removed: string[] }
  | { type: 'url-changed'; id: number; name: string; from: string; to: string }
  | { type: 'warning'; message: string }
  | { type: 'publish-summary'; summary: PublishSummary };

export interface PublishSummary {
  siteDir: string;
  dryRun: boolean;
  /** Clients with a page after this publish. */
  clients: number;
  /** Files written (or, in a dry run, that would be). */
  written: number;
  removed: number;
  bytesWritten: number;
  urlsChanged: UrlChange[];
  /** Stopped by a signal before every client was done. */
  stopped: boolean;
  durationMs: number;
}

interface PeriodReports {
  period: string;
  dir: string;
  manifest: Manifest;
}

/** A done report of a period folder, to publish. */
interface Fresh {
  period: string;
  periodDir: string;
  entry: ProjectEntry;
}

interface ClientPlan {
  id: number;
  links: ClientLinks;
  fresh: Map<string, Fresh>;
  prune: boolean;
}

/** The period folders of `outDir` that have a manifest, oldest first. */
async function readPeriods(outDir: string): Promise<PeriodReports[]> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(`The output folder ${outDir} does not exist.`, {
        hint: 'Give the folder the monthly run writes with --out (or output.dir in the config).',
      });
    }
    throw error;
  }
  const periods: PeriodReports[] = [];
  for (const period of names.filter((name) => PERIOD_PATTERN.test(name)).sort()) {
    const dir = insideRoot(outDir, period);
    const manifest = await readManifest(dir).catch(() => null);
    if (manifest !== null) periods.push({ period, dir, manifest });
  }
  return periods;
}

/**
 * The report's HTML as the site serves it: checked as a browser reads it (an UnsafePageError when it breaks a
 * rule), asking not to be indexed and to send no referrer, and carrying the pages' policy (a report made by an
 * earlier version has none).
 */
export function sealReportHtml(bytes: Buffer): Buffer {
  const text = bytes.toString('utf8');
  // The inline fonts are base64 (no character the HTML parser acts on): left out of the parse, 240 KB a report.
  const problems = pageProblems(text.replace(/(url\(data:font\/[a-z0-9.+-]+;base64,)[A-Za-z0-9+/=]+/g, '$1'));
  if (problems.length > 0) throw new UnsafePageError('The report page', problems);
  const head = /<head\b[^>]*>/i.exec(bytes.subarray(0, 16_384).toString('latin1'));
  const policy = text.includes(policyMeta()) ? '' : `\n${policyMeta()}`;
  const insert = Buffer.from(`${policy}\n<meta name="robots" content="noindex, nofollow">\n<meta name="referrer" content="no-referrer">`);
  // latin1 keeps byte offsets: the match's end is where the bytes go.
  const doctype = /^\s*<!doctype[^>]*>/i.exec(bytes.subarray(0, 1024).toString('latin1'));
  // Without a <head> (an agency's template may leave it out), after the doctype: before it, the page would lose it.
  const at = head !== null ? head.index + head[0].length : doctype !== null ? doctype[0].length : 0;
  return Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]);
}

const identity = (bytes: Buffer): Buffer => bytes;

/**
 * The page of a folder that has no page of its own (a month's folder): blank, so that no static host lists the
 * folder's files instead. `c/` gets the site's 404 page.
 */
export const FOLDER_PAGE = `<!doctype html>\n<html><head>${policyMeta()}<meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer"><title>404</title></head><body></body></html>\n`;
const FOLDER_PAGE_BYTES = Buffer.from(FOLDER_PAGE);
const PAGE_FILE = 'index.html';

export class Publisher {
  readonly #options: PublishOptions;
  readonly #writer: SiteWriter;
  readonly #emit: (event: PublishEvent) => void;
  readonly #urlsChanged: UrlChange[] = [];
  #record: LinksRecord = emptyLinksRecord();
  /** The first month a page keeps: site.keepMonths back from the newest period of the output or the site. */
  #cutoff: string | null = null;
  /** The links record's writes, one after the other; a failed one (a full disk) does not keep the later ones from trying. */
  readonly #records: JournalWriter<never>;

  constructor(options: PublishOptions) {
    this.#options = options;
    // The last write, at the end, says why one failed.
    this.#records = new JournalWriter({ file: { whole: () => writeLinksRecord(options.outDir, this.#record) }, onError: () => undefined });
    this.#emit = options.onEvent ?? (() => undefined);
    this.#writer = new SiteWriter({
      siteDir: options.siteDir,
      dryRun: options.dryRun,
      onWrite: (change) => this.#emit({ type: 'site-written', ...change }),
      onRemove: (change) => this.#emit({ type: 'site-removed', ...change }),
    });
  }

  async run(): Promise<PublishSummary> {
    const { outDir, siteDir, dryRun } = this.#options;
    const started = (this.#options.clock ?? (() => new Date()))().getTime();
    const state = await checkSiteFolder(siteDir, outDir);
    await this.#refuseLinks();
    // One publish (or rotation) at a time per output folder: both write the links record.
    const unlockOut = dryRun ? async () => undefined : await lockFolder(outDir);
    // And one at a time per site: two output folders published into one site would remove each other's clients.
    const unlockSite = dryRun
      ? async () => undefined
      : await lockSite(siteDir).catch(async (error: unknown) => {
          await unlockOut();
          throw error;
        });
    const unlock = async (): Promise<void> => {
      await unlockSite();
      await unlockOut();
    };
    // Set from the clients' tasks: a client skipped because a signal came.
    const progress = { stopped: false };
    let loaded = false;
    let failure: unknown = null;
    try {
      const record = await readLinksRecord(outDir);
      const folders = (await this.#writer.list(CLIENTS_FOLDER)).filter((name) => name !== PAGE_FILE);
      if (record === null && folders.length > 0) {
        throw new ConfigError(
          `The site ${siteDir} has ${folders.length} client folder${folders.length === 1 ? '' : 's'} but ${outDir} has no links record (${LINKS_FILE}): publishing now would give every client its first address again, and bring back the addresses revoked by \`links rotate\`.`,
          {
            hint: `Restore ${LINKS_FILE} into ${outDir} (\`geo-reports history restore\` brings it with the history, or take it from a backup). To start every link afresh instead, set a new GEO_REPORTS_LINK_SECRET and remove ${siteDir}/${CLIENTS_FOLDER}: every client then gets a new address.`,
          },
        );
      }
      this.#record = record ?? emptyLinksRecord();
      // Remembered for `links`, which then needs no --base-url of its own.
      if (this.#options.baseUrl !== null) this.#record.baseUrl = this.#options.baseUrl;
      loaded = true;
      const periods = await readPeriods(outDir);
      if (this.#options.period !== undefined && !periods.some((p) => p.period === this.#options.period)) {
        throw new ConfigError(`There are no reports of ${this.#options.period} in ${outDir}.`, {
          hint: 'Give the period of a folder the monthly run wrote, or leave --period out to publish every period.',
        });
      }
      const plans = this.#plan(periods);
      const newest = [...periods.map((p) => p.period), ...Object.values(this.#record.clients).flatMap((c) => Object.keys(c.site?.months ?? {}))].sort().at(-1);
      this.#cutoff = newest === undefined ? null : addMonths(newest, -(this.#options.keepMonths - 1));
      this.#emit({ type: 'publish-plan', siteDir, periods: periods.map((p) => p.period), clients: plans.length, dryRun });
      if (!dryRun) await removeStaleTempFiles(siteDir);
      // A first publish writes its record before any client folder: killed halfway, it is no site without a record.
      if (record === null && !dryRun) await writeLinksRecord(outDir, this.#record);
      if (state !== 'site') await this.#writer.put(SITE_MARKER, Buffer.from(SITE_MARKER_TEXT), null, false);
      await this.#writeRoot();
      const limit = pLimit(Math.max(1, this.#options.concurrency ?? 4));
      await Promise.all(
        plans.map((plan) =>
          limit(async () => {
            if (this.#options.signal?.aborted === true) {
              progress.stopped = true;
              return;
            }
            await this.#publishClient(plan);
          }),
        ),
      );
      if (!progress.stopped) await this.#foldersOfNobody();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // What was written is recorded even when the publish stops on an error (a record never read is never written).
      const save = !dryRun && loaded ? this.#records.close() : this.#records.idle();
      await save
        .catch((error: unknown) => {
          if (failure === null) throw error;
        })
        .finally(unlock);
    }
    const summary: PublishSummary = {
      siteDir,
      dryRun,
      clients: Object.values(this.#record.clients).filter((c) => c.site !== null).length,
      written: this.#writer.written,
      removed: this.#writer.removed,
      bytesWritten: this.#writer.bytesWritten,
      urlsChanged: this.#urlsChanged,
      stopped: progress.stopped,
      durationMs: (this.#options.clock ?? (() => new Date()))().getTime() - started,
    };
    this.#emit({ type: 'publish-summary', summary });
    return summary;
  }

  /** Stops the publish, before anything is written, at a symbolic link in a period folder it reads or in the site. */
  async #refuseLinks(): Promise<void> {
    const { outDir, period } = this.#options;
    const names = period !== undefined ? [period] : (await readdir(outDir).catch(() => [] as string[])).filter((name) => PERIOD_PATTERN.test(name));
    const links: string[] = [];
    for (const dir of [...names.sort().map((name) => join(outDir, name)), this.#options.siteDir]) {
      if (links.length < 5) links.push(...(await linksInside(dir, 5 - links.length)));
    }
    if (links.length === 0) return;
    throw new ConfigError(
      `publish follows no symbolic link, and ${links.length === 1 ? 'this one is' : 'these are'} where it reads or writes: ${links.join(', ')}${links.length === 5 ? ', …' : ''}. Nothing was written.`,
      {
        hint: 'A period folder and the site are made of plain files: put the file itself in place of the link (or remove it, and run the month again), then publish again.',
      },
    );
  }

  /** Every client to look at: those with a page, and those with a done report to publish. */
  #plan(periods: readonly PeriodReports[]): ClientPlan[] {
    const plans = new Map<number, ClientPlan>();
    const planOf = (id: number): ClientPlan => {
      let plan = plans.get(id);
      if (plan === undefined) {
        plan = { id, links: this.#record.clients[String(id)] ?? { generation: 0, site: null }, fresh: new Map(), prune: false };
        plans.set(id, plan);
      }
      return plan;
    };
    for (const [id, links] of Object.entries(this.#record.clients)) if (links.site !== null) planOf(Number(id));
    const read = this.#options.period === undefined ? periods : periods.filter((p) => p.period === this.#options.period);
    for (const { period, dir, manifest } of read) {
      const held: string[] = [];
      for (const entry of manifest.projects) {
        if (entry.status !== 'done' || entry.files.html === null || entry.files.pdf === null) continue;
        if (entry.held.length > 0 && !entry.released) {
          held.push(`${entry.id} ${entry.displayName ?? entry.name}`);
          continue;
        }
        planOf(entry.id).fresh.set(period, { period, periodDir: dir, entry });
      }
      if (held.length > 0) {
        this.#emit({
          type: 'warning',
          message: `${period}: ${held.length} report${held.length === 1 ? ' is' : 's are'} held by the pre-send check and not published until released (\`geo-reports run --period ${period} --accept-held\`): ${held.slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''}.`,
        });
      }
    }
    if (this.#options.prune) {
      const newest = periods.at(-1);
      if (newest === undefined) throw new ConfigError(`--prune compares the site with the newest period of ${this.#options.outDir}, and it has none.`);
      // A shard's output, or a period still being made, lists only some of the account's clients: the others would lose
      // their page, and their address for good.
      if (newest.manifest.shard !== undefined || (newest.manifest.status !== 'complete' && newest.manifest.status !== 'held')) {
        throw new ConfigError(
          `--prune removes the pages of clients absent from the newest period, ${newest.period}, but ${newest.manifest.shard !== undefined ? `it is the output of shard ${newest.manifest.shard} alone` : `that period is not complete (${newest.manifest.status})`}: clients still in the account would lose their page and their address.`,
          {
            hint: `Publish without --prune now; prune once ${newest.period} is complete${newest.manifest.shard !== undefined ? ' and merged (`geo-reports merge`)' : ''}.`,
          },
        );
      }
      const present = new Set(newest.manifest.projects.map((entry) => entry.id));
      for (const plan of plans.values()) plan.prune = !present.has(plan.id);
    }
    return [...plans.values()].sort((a, b) => a.id - b.id);
  }

  async #writeRoot(): Promise<void> {
    const { renderer, branding, config } = this.#options;
    const page = (notFound: boolean): string =>
      renderer.renderRootPage(rootPageModel({ language: config.report.language, branding, locales: renderer.locales, notFound }));
    const files: Array<[string, string]> = [
      ['index.html', page(false)],
      ['404.html', page(true)],
      // c/ holds every client's folder: its own page, so that no static host lists them.
      [`${CLIENTS_FOLDER}/${PAGE_FILE}`, page(true)],
      ['robots.txt', ROBOTS_TXT],
      ['_headers', HEADERS_FILE],
      // GitHub Pages runs Jekyll on a branch without it, and Jekyll drops every folder whose name starts with "_":
      // a token may (base64url), and that client's page would answer 404.
      ['.nojekyll', ''],
    ];
    const root = { ...this.#record.root };
    for (const [name, text] of files) root[name] = (await this.#writer.put(name, Buffer.from(text), root[name] ?? null, true)).file;
    this.#record.root = root;
  }

  #folder(id: number, generation: number): string {
    return clientPath(linkToken(this.#options.secret, id, generation)).slice(0, -1);
  }

  #address(path: string): string {
    return this.#options.baseUrl === null ? path : siteUrl(this.#options.baseUrl, path);
  }

  async #publishClient(plan: ClientPlan): Promise<void> {
    const { id, links } = plan;
    const published = links.site;
    if (plan.prune) {
      if (published !== null) {
        await this.#writer.remove(this.#folder(id, published.generation));
        await this.#writer.remove(this.#folder(id, links.generation));
      }
      // A client that comes back later gets a new address: the pruned one stays dead.
      this.#record.clients[String(id)] = { generation: links.generation + (published === null ? 0 : 1), site: null };
      this.#save();
      return;
    }
    const folder = this.#folder(id, links.generation);
    const previous = published !== null && published.generation !== links.generation ? this.#folder(id, published.generation) : null;
    // The record describes the files of the published folder: trusted there, checked by their bytes elsewhere.
    const trusted = previous === null;
    const written: string[] = [];
    const log = (path: string): void => {
      written.push(path.slice(folder.length + 1));
    };
    const cutoff = this.#cutoff;
    const periods = [...new Set([...plan.fresh.keys(), ...Object.keys(published?.months ?? {})])].sort();
    const months = new Map<string, SiteMonth>();
    const dropped: string[] = [];
    for (const period of periods) {
      if (cutoff !== null && period < cutoff) {
        dropped.push(period);
        continue;
      }
      const month = await this.#month(plan, period, folder, previous, trusted, log);
      if (month === null) {
        dropped.push(period);
        continue;
      }
      months.set(period, month);
      const monthPage = `${folder}/${period}/${PAGE_FILE}`;
      if (await this.#writer.ensure(monthPage, FOLDER_PAGE_BYTES)) log(monthPage);
    }
    const name = [...months.values()].at(-1)?.name ?? String(id);
    if (months.size === 0) {
      if (published !== null) {
        await this.#writer.remove(folder);
        if (previous !== null) await this.#writer.remove(previous);
      }
      this.#record.clients[String(id)] = { generation: links.generation, site: null };
      this.#reportClient(
        id,
        name,
        written,
        dropped.filter((period) => published?.months[period] !== undefined),
      );
      return;
    }
    const html = this.#options.renderer.renderClientPage(
      clientPageModel({
        months,
        branding: this.#options.branding,
        locales: this.#options.renderer.locales,
        annotations: datedAnnotations(this.#options.config.clients[String(id)]?.annotations),
      }),
    );
    const page = await this.#writer.put(`${folder}/index.html`, Buffer.from(html), published?.page ?? null, trusted);
    if (page.wrote) log(`${folder}/index.html`);
    // Only now, with the page no longer linking to them, what it dropped goes.
    for (const period of dropped) if (previous === null) await this.#writer.remove(`${folder}/${period}`);
    this.#record.clients[String(id)] = {
      generation: links.generation,
      site: { generation: links.generation, page: page.file, months: Object.fromEntries(months) },
    };
    if (previous !== null && published !== null) {
      await this.#writer.remove(previous);
      const change = {
        projectId: id,
        name,
        from: this.#address(clientPath(linkToken(this.#options.secret, id, published.generation))),
        to: this.#address(clientPath(linkToken(this.#options.secret, id, links.generation))),
      };
      this.#urlsChanged.push(change);
      this.#emit({ type: 'url-changed', id, name, from: change.from, to: change.to });
      this.#save();
    }
    this.#reportClient(
      id,
      name,
      written,
      dropped.filter((period) => published?.months[period] !== undefined),
    );
  }

  #reportClient(id: number, name: string, written: string[], removed: string[]): void {
    if (written.length > 0 || removed.length > 0) this.#emit({ type: 'client-published', id, name, written, removed });
  }

  /** One month of a client's page: from its period folder when the report is there, else as the site holds it. */
  async #month(
    plan: ClientPlan,
    period: string,
    folder: string,
    previous: string | null,
    trusted: boolean,
    log: (path: string) => void,
  ): Promise<SiteMonth | null> {
    const recorded = plan.links.site?.months[period] ?? null;
    const fresh = plan.fresh.get(period);
    if (fresh !== undefined) {
      const month = await this.#fromReport(fresh, recorded, folder, trusted, log);
      if (month !== null) return month;
    }
    if (recorded === null) {
      if (fresh !== undefined)
        this.#emit({
          type: 'warning',
          message: `Project ${plan.id}: the report files of ${period} are not in ${fresh.periodDir}; that month is not published.`,
        });
      return null;
    }
    const file = (kind: 'html' | 'pdf'): string => `${folder}/${monthFile(period, kind)}`;
    const fallback = (kind: 'html' | 'pdf'): string | null => (previous === null ? null : `${previous}/${monthFile(period, kind)}`);
    const pdf = await this.#writer.keep(file('pdf'), recorded.pdf, trusted, fallback('pdf'));
    if (pdf?.wrote === true) log(file('pdf'));
    const html = pdf === null ? null : await this.#writer.keep(file('html'), recorded.html, trusted, fallback('html'));
    if (html?.wrote === true) log(file('html'));
    if (pdf === null || html === null) {
      this.#emit({
        type: 'warning',
        message: `Project ${plan.id}: the site has lost its report of ${period} and ${this.#options.outDir}/${period} has no copy; that month leaves the client's page (restore the period folder and publish again to bring it back).`,
      });
      return null;
    }
    return { ...recorded, html: html.file, pdf: pdf.file };
  }

  async #fromReport(fresh: Fresh, recorded: SiteMonth | null, folder: string, trusted: boolean, log: (path: string) => void): Promise<SiteMonth | null> {
    const { entry, periodDir, period } = fresh;
    const source = (kind: 'html' | 'pdf'): string => insideRoot(periodDir, entry.files[kind] as string);
    const pdfPath = `${folder}/${monthFile(period, 'pdf')}`;
    const htmlPath = `${folder}/${monthFile(period, 'html')}`;
    // Both or neither: a month is never half there.
    const present = await Promise.all([source('pdf'), source('html')].map(async (path) => (await stat(path).catch(() => null))?.isFile() === true));
    if (present.includes(false)) return null;
    // The page first: one that breaks the pages' rules keeps the month off the site, its PDF with it.
    let html: Placed | null;
    try {
      html = await this.#writer.copy(source('html'), htmlPath, sealReportHtml, recorded?.html ?? null, trusted);
    } catch (error) {
      if (!(error instanceof UnsafePageError)) throw error;
      this.#emit({ type: 'warning', message: `Project ${entry.id}: ${source('html')} is not published, nor its month: ${error.message}` });
      return null;
    }
    if (html?.wrote === true) log(htmlPath);
    const pdf = html === null ? null : await this.#writer.copy(source('pdf'), pdfPath, identity, recorded?.pdf ?? null, trusted);
    if (pdf?.wrote === true) log(pdfPath);
    if (pdf === null || html === null) return null;
    const made = reportAsMade(entry, this.#options.config);
    return {
      name: made.clientName,
      language: made.language,
      geo: entry.geo,
      seo: entry.seo !== undefined ? entry.seo : (recorded?.seo ?? (await this.#seoFromData(fresh))),
      geoChange: entry.geoChange,
      seoChange: entry.seoChange ?? null,
      madeAt: entry.updatedAt,
      html: html.file,
      pdf: pdf.file,
    };
  }

  /** A manifest of an earlier version has no SEO score: read from the month's data.json, as the report read it. */
  async #seoFromData(fresh: Fresh): Promise<number | null> {
    const file = fresh.entry.files.data;
    if (file === null) return null;
    try {
      const data = parsePeriodData(JSON.parse(await readFile(insideRoot(fresh.periodDir, file), 'utf8')));
      return data === null ? null : (readReport(data.report, this.#options.config.api.fields).scores?.seo ?? null);
    } catch {
      return null;
    }
  }

  /** Folders of c/ that no client of the record owns (made with another secret, or left by hand): --prune removes them. */
  async #foldersOfNobody(): Promise<void> {
    const known = new Set<string>();
    for (const [id, links] of Object.entries(this.#record.clients)) {
      known.add(linkToken(this.#options.secret, Number(id), links.generation));
      if (links.site !== null) known.add(linkToken(this.#options.secret, Number(id), links.site.generation));
    }
    const unknown = (await this.#writer.list(CLIENTS_FOLDER)).filter((name) => !known.has(name) && name !== PAGE_FILE);
    if (unknown.length === 0) return;
    if (this.#options.prune) {
      for (const name of unknown) await this.#writer.remove(`${CLIENTS_FOLDER}/${name}`);
      return;
    }
    this.#emit({
      type: 'warning',
      message: `${unknown.length} folder${unknown.length === 1 ? '' : 's'} of ${this.#options.siteDir}/${CLIENTS_FOLDER} belong${unknown.length === 1 ? 's' : ''} to no client of the links record (made with another GEO_REPORTS_LINK_SECRET?); they stay online until \`geo-reports publish --prune\` removes them.`,
    });
  }

  /** The record on disk after a move or a removal: the next publish must know the old address is gone. */
  #save(): void {
    if (!this.#options.dryRun) void this.#records.save();
  }
}

export async function publishSite(options: PublishOptions): Promise<PublishSummary> {
  return new Publisher(options).run();
}
