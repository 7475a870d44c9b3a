// What publish, links and send share about the site: the link secret from the environment, the site folder and
// the address it is served at, each checked before anything is read or written.
import { join, resolve } from 'node:path';
import { LINK_SECRET_ENV } from '../config/environment.js';
import { checkLinkSecret } from '../config/link-secret.js';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { CommandContext } from './context.js';
import { UsageError, type ValueParser } from './define.js';

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
