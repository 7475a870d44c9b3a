// `geo-reports publish`: brings the static site up to date with the period folders of the output. Each client with
// a done report gets a page at `c/<token>/` listing its months, each month's report.html and report.pdf beside it;
// the root holds the agency's page, a 404 page, robots.txt and the headers file of the static hosts that read one.
// No request to the API: everything comes from the period folders and the links record.
//
// Order on disk, so a publish killed at any point leaves every page it wrote working: the marker, then the root's
// files, then client by client the month files before the page that links to them, and only after the page is
// written what it no longer lists (months past site.keepMonths, the client's previous address after a rotation).
import { readFile, stat } from 'node:fs/promises';
import pLimit from 'p-limit';
import { datedAnnotations } from '../config/annotations.js';
import { readReport } from '../content/report.js';
import { ConfigError } from '../errors.js';
import { RecordWriter } from '../output/record-writer.js';
import {
  CLIENTS_FOLDER,
  clientPath,
  emptyLinksRecord,
  LINKS_FILE,
  linkToken,
  readLinksRecord,
  siteUrl,
  writeLinksRecord,
  type LinksRecord,
  type SiteMonth,
} from '../output/links.js';
import { reportAsMade } from '../output/report-as-made.js';
import { checkSiteFolder, lockSite, SITE_MARKER, SITE_MARKER_TEXT } from '../output/site-folder.js';
import { insideRoot, lockFolder, removeStaleTempFiles } from '../output/store.js';
import { addMonths, isAnyPeriod, isMonth, isPeriod, lastMonth, type MonthPeriod, type Period, type ReviewPeriod } from '../period.js';
import { translate } from '../render/helpers.js';
import { UnsafePageError } from '../render/page-check.js';
import { parsePeriodData } from '../report/period-data.js';
import { SiteWriter, type Placed } from './files.js';
import { clientPageModel, monthFile, rootPageModel } from './pages.js';
import type { PublishEvent, PublishOptions, PublishSummary, UrlChange } from './publish-options.js';
import { planClients, readPeriods, refuseLinks, type ClientPlan, type Fresh } from './publish-plan.js';
import { FOLDER_PAGE_BYTES, HEADERS_FILE, identity, ROBOTS_TXT, sealReportHtml } from './served.js';

export type { PublishEvent, PublishOptions, PublishSummary, UrlChange } from './publish-options.js';
export { sealReportHtml } from './served.js';

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
  readonly #recordWrites: RecordWriter<never>;

  constructor(options: PublishOptions) {
    this.#options = options;
    // The last write, at the end, says why one failed.
    this.#recordWrites = new RecordWriter({ file: { whole: () => writeLinksRecord(options.outDir, this.#record) }, onError: () => undefined });
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
    await refuseLinks(outDir, siteDir, this.#options.period);
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
      const plans = planClients(periods, this.#record, this.#options, this.#emit);
      const newest = [
        ...periods.map((p) => p.period).filter(isMonth),
        ...Object.values(this.#record.clients).flatMap((c) => Object.keys(c.site?.months ?? {}).filter(isPeriod)),
      ]
        .sort()
        .at(-1);
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
      const save = !dryRun && loaded ? this.#recordWrites.close() : this.#recordWrites.idle();
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
    const periods = [
      ...new Set([
        ...plan.fresh.keys(),
        ...Object.keys(published?.months ?? {}).filter(isPeriod),
        ...Object.keys(published?.reviews ?? {}).filter(isAnyPeriod),
      ]),
    ].sort();
    const months = new Map<MonthPeriod, SiteMonth>();
    // The quarterly and yearly reviews, listed apart; a review goes with its last month.
    const reviews = new Map<ReviewPeriod, SiteMonth>();
    const dropped: Period[] = [];
    const wasPublished = (period: Period): boolean => (isMonth(period) ? published?.months[period] : published?.reviews?.[period]) !== undefined;
    for (const period of periods) {
      if (cutoff !== null && lastMonth(period) < cutoff) {
        dropped.push(period);
        continue;
      }
      const month = await this.#month(plan, period, folder, previous, trusted, log);
      if (month === null) {
        dropped.push(period);
        continue;
      }
      if (isMonth(period)) months.set(period, month);
      else reviews.set(period as ReviewPeriod, month);
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
      this.#reportClient(id, name, written, dropped.filter(wasPublished));
      return;
    }
    const html = this.#options.renderer.renderClientPage(
      clientPageModel({
        months,
        reviews,
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
      site: {
        generation: links.generation,
        page: page.file,
        months: Object.fromEntries(months),
        ...(reviews.size > 0 ? { reviews: Object.fromEntries(reviews) } : {}),
      },
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
    this.#reportClient(id, name, written, dropped.filter(wasPublished));
  }

  #reportClient(id: number, name: string, written: string[], removed: string[]): void {
    if (written.length > 0 || removed.length > 0) this.#emit({ type: 'client-published', id, name, written, removed });
  }

  /** One month or review of a client's page: from its period folder when the report is there, else as the site holds it. */
  async #month(
    plan: ClientPlan,
    period: Period,
    folder: string,
    previous: string | null,
    trusted: boolean,
    log: (path: string) => void,
  ): Promise<SiteMonth | null> {
    const recorded = (isMonth(period) ? plan.links.site?.months[period] : plan.links.site?.reviews?.[period]) ?? null;
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
      // A page the run checked as it wrote it (its bytes' hash in the manifest) is not parsed a second time.
      // Each published report leads back to the client's page, in the report's language.
      const { language } = reportAsMade(entry, this.#options.config);
      const back = translate(this.#options.renderer.locales.phrases(language), language, 'site.backToClient');
      const seal = (bytes: Buffer): Buffer => sealReportHtml(bytes, entry.checkedPage, back);
      html = await this.#writer.copy(source('html'), htmlPath, seal, recorded?.html ?? null, trusted);
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
      ...(entry.madeBeforeEnd === true ? { madeBeforeEnd: true as const } : {}),
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
    if (!this.#options.dryRun) void this.#recordWrites.save();
  }
}

export async function publishSite(options: PublishOptions): Promise<PublishSummary> {
  return new Publisher(options).run();
}
