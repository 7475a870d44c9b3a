// `geo-reports publish`: every client's reports as static pages at an address nobody can guess, brought up to date
// with the period folders. No request to the API.
import { LINK_SECRET_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import type { PublishEvent, PublishSummary } from '../site/publish.js';
import { anyPeriodValue, defineCommand, type CommandContext } from './define.js';
import { ALL_CLIENTS_OPTION, BATCH_OPTIONS, loadCommandConfig, SITE_OPTIONS } from './shared.js';

export default defineCommand(
  {
    name: 'publish',
    description: `Brings the static site in --site up to date with the period folders of --out: every client with a done
report gets a page at c/<token>/ (its months newest first, each read online or as PDF), the root holds the
agency's page (no list of clients), 404.html, robots.txt (Disallow: /) and _headers. Any static host serves the
folder: a web server, a bucket, GitHub Pages, Netlify, Cloudflare Pages.

Each token is made from ${LINK_SECRET_ENV} (from the environment only; make one with
\`openssl rand -base64 32\`) and the client's generation, kept in <out>/links.json, never in the site.
\`geo-reports links rotate ID\` gives a client a new address: the next publish moves its pages there and removes
the old ones. Only a rotation, --prune and site.keepMonths remove anything. A file is written only when its
content changes: a publish with nothing new writes nothing.`,
    options: {
      ...SITE_OPTIONS,
      period: {
        type: 'string',
        value: 'PERIOD',
        parse: anyPeriodValue,
        help: "only this period's reports, a month or a review (default: every period folder of --out)",
      },
      all: ALL_CLIENTS_OPTION,
      prune: { type: 'boolean', help: 'remove the pages of clients absent from the newest period, and folders no client owns' },
      'dry-run': { type: 'boolean', help: 'print what would be written and removed, and write nothing' },
      templates: {
        ...BATCH_OPTIONS.templates,
        help: "the agency's template folder (site/client.hbs, site/root.hbs, assets/extra-site.css)\n(default: report.templates in the config)",
      },
      json: { type: 'boolean', help: 'one JSON line per event (default when not a terminal)' },
    },
    epilog: `Exit codes: ${EXIT.ok} the site is up to date, ${EXIT.usage} usage, config or disk error (no ${LINK_SECRET_ENV}, a folder
publish may not write into, a links record missing while the site has client pages), ${EXIT.sigint}/${EXIT.sigterm} stopped.`,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ brandingFrom }, { linkSecret, siteFolders }, { formatBytes }, { commandRenderer }, { publishSite }] = await Promise.all([
      import('../config/branding.js'),
      import('../config/site.js'),
      import('../output/disk.js'),
      import('../preview/command-templates.js'),
      import('../site/publish.js'),
    ]);
    const secret = linkSecret(ctx);
    const config = await loadCommandConfig(options, ctx);
    const { outDir, siteDir } = siteFolders(options, config, ctx);
    const renderer = await commandRenderer(options.templates, config, ctx);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { listedClients } = await import('../config/client-scope.js');
    const summary = await publishSite({
      outDir,
      siteDir,
      secret,
      baseUrl: options['base-url'] ?? config.site.baseUrl ?? null,
      ...(options.period !== undefined ? { period: options.period } : {}),
      prune: options.prune,
      listed: listedClients(config, options.all),
      dryRun: options['dry-run'],
      keepMonths: config.site.keepMonths,
      config,
      branding: await brandingFrom(config),
      renderer,
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: createPublishOutput(ctx, options.json, formatBytes),
    });
    return summary.stopped ? EXIT.failure : EXIT.ok;
  },
);

/** What publish prints: on a terminal, one line per client whose page changed, every address that changed and a
 * summary; otherwise (CI, logs) or with --json, one JSON line per event, every file written or removed included. */
function createPublishOutput(ctx: CommandContext, json: boolean, bytes: (count: number) => string): (event: PublishEvent) => void {
  if (json || ctx.stdout.isTTY !== true) {
    return (event) => {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), ...event })}\n`);
    };
  }
  let dryRun = false;
  return (event) => {
    if (event.type === 'publish-plan') dryRun = event.dryRun;
    if (event.type === 'warning') {
      ctx.stderr.write(`Warning: ${event.message}\n`);
      return;
    }
    const line = describePublishEvent(event, dryRun, bytes);
    if (line !== null) ctx.stdout.write(`${line}\n`);
  };
}

function describePublishEvent(event: PublishEvent, dryRun: boolean, bytes: (count: number) => string): string | null {
  const wrote = dryRun ? 'would write' : 'wrote';
  const removed = dryRun ? 'would remove' : 'removed';
  switch (event.type) {
    case 'publish-plan':
      return `Publishing ${event.clients} client page${event.clients === 1 ? '' : 's'} from ${event.periods.length === 0 ? 'no period' : event.periods.join(', ')} into ${event.siteDir}${event.dryRun ? ' (dry run: nothing is written)' : ''}.`;
    case 'site-written':
      // A client's files are told by its own line; the site's own files here.
      return event.path.includes('/') ? null : `  site: ${wrote} ${event.path}`;
    case 'site-removed':
      return event.path.split('/').length === 2 ? `  site: ${removed} ${event.path}/ (${event.files} file${event.files === 1 ? '' : 's'})` : null;
    case 'client-published': {
      const parts = [
        ...(event.written.length > 0 ? [`${wrote} ${event.written.join(', ')}`] : []),
        ...(event.removed.length > 0 ? [`${removed} ${event.removed.join(', ')}`] : []),
      ];
      return `  ${event.id} ${event.name}: ${parts.join('; ')}`;
    }
    case 'url-changed':
      return `  ${event.id} ${event.name}: new address ${event.to}\n      (the old one, ${event.from}, ${dryRun ? 'would be' : 'is'} gone)`;
    case 'warning':
      return `Warning: ${event.message}`;
    case 'publish-summary':
      return describePublishSummary(event.summary, bytes);
  }
}

function describePublishSummary(s: PublishSummary, bytes: (count: number) => string): string {
  const files = (count: number): string => `${count} file${count === 1 ? '' : 's'}`;
  const head =
    s.written === 0 && s.removed === 0
      ? `The site is up to date: nothing ${s.dryRun ? 'would be' : 'was'} written.`
      : `${files(s.written)} ${s.dryRun ? 'would be written' : 'written'} (${bytes(s.bytesWritten)})${s.removed > 0 ? `, ${files(s.removed)} ${s.dryRun ? 'would be removed' : 'removed'}` : ''}.`;
  const lines = [`${head} ${s.clients} client${s.clients === 1 ? ' has a page' : 's have a page'}; ${(s.durationMs / 1000).toFixed(1)} s.`];
  if (s.urlsChanged.length > 0)
    lines.push(`${s.urlsChanged.length} address${s.urlsChanged.length === 1 ? '' : 'es'} changed (above): give the clients their new link.`);
  if (s.stopped) lines.push('Stopped before every client was done: publish again to finish (what was written works).');
  return lines.join('\n');
}
