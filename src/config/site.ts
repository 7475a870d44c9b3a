// What publish, links and send share about the site: the link secret from the environment, the site folder and
// the address it is served at, each checked before anything is read or written.
import { join, resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import { ConfigError } from '../errors.js';
import { LINK_SECRET_ENV } from './environment.js';
import { checkLinkSecret } from './link-secret.js';
import type { Config } from './schema.js';

/** GEO_REPORTS_LINK_SECRET, checked: none or a short one is exit 2 with the fix. */
export function linkSecret(ctx: Pick<CommandContext, 'env'>): string {
  return checkLinkSecret(ctx.env[LINK_SECRET_ENV], LINK_SECRET_ENV);
}

/** The output folder and the site folder, absolute. */
export function siteFolders(
  flags: { out?: string | undefined; site?: string | undefined },
  config: Config,
  ctx: Pick<CommandContext, 'cwd'>,
): { outDir: string; siteDir: string } {
  const outDir = resolve(ctx.cwd, flags.out ?? config.output.dir);
  const siteDir = resolve(ctx.cwd, flags.site ?? config.site.dir ?? join(outDir, 'site'));
  return { outDir, siteDir };
}

/** The site's address: --base-url, else site.baseUrl; `required` makes its absence exit 2, naming the key. */
export function siteBaseUrl(flag: string | undefined, config: Config, what: string): string {
  const url = flag ?? config.site.baseUrl;
  if (url === undefined) {
    throw new ConfigError(`${what} needs the address the site is served at: site.baseUrl is not set.`, {
      hint: 'Add "site": { "baseUrl": "https://reports.your-agency.example" } to the config file, or give --base-url URL.',
    });
  }
  return url;
}
