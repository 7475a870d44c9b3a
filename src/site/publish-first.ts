// The publish that comes before a send whose messages carry the client's link (send, run --send, schedule): the
// site brought up to date first, so that every link leads to its report on the first try, and nobody has to know
// that publish goes between run and send.
import type { CommandContext } from '../command-context.js';
import { brandingFrom } from '../config/branding.js';
import type { Config } from '../config/schema.js';
import { linkSecret, siteFolders } from '../config/site.js';
import { GeoReportsError } from '../errors.js';
import type { HtmlRenderer } from '../render/html.js';
import { publishSite } from './publish.js';

export interface PublishFirstOptions {
  config: Config;
  /** The templates of the site's pages (a renderer for the index alone cannot make them), made when needed. */
  renderer: () => Promise<HtmlRenderer>;
  /** The clients a send keeps to (report.clients "listed"); null: every done report. */
  listed: ReadonlySet<number> | null;
  /** One JSON line per publish event; otherwise one line saying what the publish did. */
  json: boolean;
}

/** The `publishFirst` of a send: publishes `outDir` into `siteDir` (default: site.dir, else <out>/site), as `geo-reports publish`. */
export function publishBeforeSend(
  options: PublishFirstOptions,
  ctx: Pick<CommandContext, 'env' | 'cwd' | 'clock' | 'signal' | 'stdout'>,
): (folders: { outDir: string; siteDir: string | undefined }) => Promise<void> {
  return async (folders) => {
    const { config } = options;
    const { outDir, siteDir } = siteFolders({ out: folders.outDir, site: folders.siteDir }, config, ctx);
    const json = options.json || ctx.stdout.isTTY !== true;
    const summary = await publishSite({
      outDir,
      siteDir,
      secret: linkSecret(ctx),
      baseUrl: config.site.baseUrl ?? null,
      prune: false,
      dryRun: false,
      keepMonths: config.site.keepMonths,
      listed: options.listed,
      config,
      branding: await brandingFrom(config),
      renderer: await options.renderer(),
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: (event) => {
        if (json) ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), ...event })}\n`);
        else if (event.type === 'warning') ctx.stdout.write(`  warning: ${event.message}\n`);
      },
    });
    if (summary.stopped) {
      throw new GeoReportsError('The site was not brought up to date before the messages (stopped): nothing was sent.', {
        hint: 'Run the same command again: it publishes the rest, then sends.',
      });
    }
    if (!json) {
      ctx.stdout.write(
        `Site published first, so that every link works: ${summary.written} file(s) written, ${summary.clients} client page(s) in ${summary.siteDir}.\n`,
      );
    }
  };
}
