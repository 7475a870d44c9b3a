// What a publish is given, what it tells as it goes, and what it did.
import type { Config } from '../config/schema.js';
import type { HtmlRenderer } from '../render/html.js';
import type { Branding } from '../report/model.js';
import type { Period } from '../period.js';

export interface PublishOptions {
  /** The output folder holding the period folders and links.json. */
  outDir: string;
  siteDir: string;
  /** GEO_REPORTS_LINK_SECRET, checked. */
  secret: string;
  /** Where the site is served; null prints paths instead of URLs. */
  baseUrl: string | null;
  /** Only this period's reports are read (the other months of each page stay as published). */
  period?: Period;
  /** Remove the pages of clients absent from the newest period, and folders no client owns. */
  prune: boolean;
  /**
   * Only these clients get a report published (report.clients "listed"); a page already published for another
   * keeps what it has. Null or absent: every done report.
   */
  listed?: ReadonlySet<number> | null;
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
  | { type: 'publish-plan'; siteDir: string; periods: Period[]; clients: number; dryRun: boolean }
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
