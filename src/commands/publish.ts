// `geo-reports publish`: every client's reports as static pages at an address nobody can guess, brought up to date
// with the period folders. No request to the API.
import { LINK_SECRET_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { periodValue } from './args.js';
import { defineCommand } from './define.js';
import { BATCH_OPTIONS } from './run.js';
import { SITE_OPTIONS } from './site-setup.js';

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
      period: { type: 'string', value: 'YYYY-MM', parse: periodValue, help: "only this period's reports (default: every period folder of --out)" },
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
    const [{ loadCommandConfig }, { commandRenderer }, { brandingFrom }, { publishSite }, { createPublishOutput }, setup] = await Promise.all([
      import('./api-setup.js'),
      import('./templates-setup.js'),
      import('../config/branding.js'),
      import('../site/publish.js'),
      import('./publish-output.js'),
      import('./site-setup.js'),
    ]);
    const secret = setup.linkSecret(ctx);
    const config = await loadCommandConfig(options, ctx);
    const { outDir, siteDir } = setup.siteFolders(options, config, ctx);
    const renderer = await commandRenderer(options.templates, config, ctx);
    const summary = await publishSite({
      outDir,
      siteDir,
      secret,
      baseUrl: options['base-url'] ?? config.site.baseUrl ?? null,
      ...(options.period !== undefined ? { period: options.period } : {}),
      prune: options.prune,
      dryRun: options['dry-run'],
      keepMonths: config.site.keepMonths,
      config,
      branding: await brandingFrom(config),
      renderer,
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: createPublishOutput(ctx, options.json),
    });
    return summary.stopped ? EXIT.failure : EXIT.ok;
  },
);
