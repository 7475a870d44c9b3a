// What several commands share: their common options (the API's, the batch's, the site's), the period they work
// on, and the config and API client they set up. Light on purpose: every command's --help loads it, so what is heavy
// (the config's schema, the API client and their libraries) is imported when a command runs, not here.
import type { CommandContext } from '../command-context.js';
import type { ApiClient } from '../api/client.js';
import type { ApiFlags, ApiSetup } from '../config/api-client.js';
import type { Config } from '../config/schema.js';
import type { PublishFirst } from '../delivery/send.js';
import type { HtmlRenderer } from '../render/html.js';
import { addMonths, hasEnded, periodEnd, periodStart, previousPeriod, type MonthPeriod, type ReviewPeriod } from '../period.js';
import { periodValue, UsageError, type ValueParser } from './define.js';

/** Options of every command that talks to the API. */
export const API_OPTIONS = {
  'base-url': { type: 'string', value: 'URL', help: 'API base URL (default: AGENCY_API_BASE_URL, or api.baseUrl in the config)' },
  config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
  'allow-insecure': { type: 'boolean', help: 'allow a plain http:// base URL that is not loopback' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
} as const;

/** Options of the commands that run the batch (run, report, demo, schedule, and send for the period and folder). */
export const BATCH_OPTIONS = {
  period: { type: 'string', value: 'YYYY-MM', parse: periodValue, help: 'period to report (default: the previous month)' },
  out: { type: 'string', value: 'DIR', help: 'output folder (default: output/, or output.dir in the config)' },
  'dry-run': { type: 'boolean', help: 'print the plan and stop: no report is asked' },
  'accept-held': { type: 'boolean', help: 'release reports held by the pre-send check' },
  templates: {
    type: 'string',
    value: 'DIR',
    help: "the agency's template folder: its files replace the built-in ones of the same name\n(default: report.templates in the config; `geo-reports template init DIR` makes one)",
  },
  'browser-ws-endpoint': {
    type: 'string',
    value: 'URL',
    help: 'print on this remote browser (its DevTools WebSocket URL, ws://host:port/devtools/browser/<id>) instead of a local Chromium (default: GEO_REPORTS_BROWSER_WS_ENDPOINT, or render.browserWSEndpoint)',
  },
} as const;

/** --all: every project the statuses select, once, whatever report.clients says. */
export const ALL_CLIENTS_OPTION = {
  type: 'boolean',
  help: 'every project, this once, even with report.clients "listed" (the clients of the config)',
} as const;

/** --json of a batch: one line per event. */
export const BATCH_JSON_OPTION = { type: 'boolean', help: 'one JSON line per event (default when not a terminal)' } as const;

/** The --browser-ws-endpoint flag, for executeBatch (checked there with the environment and the config). */
export function browserEndpointOption(endpoint: string | undefined): { browserWSEndpoint?: string } {
  return endpoint === undefined ? {} : { browserWSEndpoint: endpoint };
}

/** The period asked for, or the month before today. */
export function periodOrPrevious(period: MonthPeriod | undefined, ctx: Pick<CommandContext, 'clock'>): MonthPeriod {
  return period ?? previousPeriod(ctx.clock());
}

/** --partial of the commands that make reports. */
export const PARTIAL_OPTION = {
  type: 'boolean',
  help: 'report a period that has not ended yet, as it stands: the reports say "so far this month"',
} as const;

/**
 * The period to make reports of: the one asked for, or the month before today. A period that has not ended is
 * refused (its reports would show part of a month as the whole) unless `partial`; the reports then say so.
 */
export function periodToReport(period: MonthPeriod | undefined, ctx: Pick<CommandContext, 'clock'>, partial: boolean): MonthPeriod {
  const chosen = periodOrPrevious(period, ctx);
  const end = periodStart(addMonths(chosen, 1));
  if (!partial && ctx.clock().getTime() < end.getTime()) {
    const firstDay = end.toISOString().slice(0, 10);
    throw new UsageError(`${chosen} has not ended yet: it can be reported from ${firstDay} (UTC) on.`, {
      hint: `Run it again on ${firstDay} or later, or add --partial for reports of the month so far (they say "so far this month").`,
    });
  }
  return chosen;
}

/**
 * A quarter or a year to review: refused until it has ended (its last month's report is what its figure is), with
 * the first day it can be made.
 */
export function reviewToMake(period: ReviewPeriod, ctx: Pick<CommandContext, 'clock'>): ReviewPeriod {
  if (!hasEnded(period, ctx.clock())) {
    const firstDay = periodEnd(period).toISOString().slice(0, 10);
    throw new UsageError(`${period} has not ended yet: its review can be made from ${firstDay} (UTC) on, once its last month has been run.`, {
      hint: `Run it again on ${firstDay} or later, after \`geo-reports run\` has made the reports of its months.`,
    });
  }
  return period;
}

/** --base-url of the site: an http(s) address, no login, query or fragment (every client link is made from it). */
export const siteAddress: ValueParser<string> = (text, name) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${name} must be the address the site is served at, like https://reports.your-agency.example (got "${text}").`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${name} must start with https:// or http:// (got "${text}").`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new UsageError(`${name} must be a plain address: no login, query or #fragment.`);
  }
  return url.href;
};

/** Options of the commands that work on the published site. */
export const SITE_OPTIONS = {
  out: { type: 'string', value: 'DIR', help: 'output folder holding the period folders and links.json (default: output/, or output.dir)' },
  site: { type: 'string', value: 'DIR', help: 'the site folder (default: site.dir in the config, else <out>/site)' },
  'base-url': { type: 'string', value: 'URL', parse: siteAddress, help: 'the address the site is served at (default: site.baseUrl in the config)' },
  config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
} as const;

/** The config of --config, or config/geo-reports.json under the working folder when present. */
export async function loadCommandConfig(flags: { config?: string | undefined }, ctx: Pick<CommandContext, 'cwd'>): Promise<Config> {
  const { loadConfig } = await import('../config/load.js');
  const { config } = await loadConfig({ ...(flags.config !== undefined ? { path: flags.config } : {}), cwd: ctx.cwd });
  return config;
}

/**
 * The publish a send runs first when its messages carry the client's link (send, run --send, schedule): loaded only
 * then, so a command that never sends does not load the site's publisher.
 */
export async function publishFirst(
  options: { config: Config; renderer: () => Promise<HtmlRenderer>; listed: ReadonlySet<number> | null; json: boolean },
  ctx: CommandContext,
): Promise<PublishFirst | undefined> {
  const email = options.config.delivery.email;
  if (!email.link && email.attach) return undefined;
  const { publishBeforeSend } = await import('../site/publish-first.js');
  return publishBeforeSend(options, ctx);
}

type ApiContext = Pick<CommandContext, 'env' | 'cwd' | 'clock' | 'signal'>;

/** config/api-client.ts's setupApi, loaded when a command runs. */
export async function setupApi(flags: ApiFlags, ctx: ApiContext): Promise<ApiSetup> {
  return (await import('../config/api-client.js')).setupApi(flags, ctx);
}

/** config/api-client.ts's withClient, loaded when a command runs. */
export async function withClient<T>(flags: ApiFlags, ctx: ApiContext, use: (client: ApiClient, config: Config) => Promise<T>): Promise<T> {
  return (await import('../config/api-client.js')).withClient(flags, ctx, use);
}
