// `geo-reports links`: each client's page and its address; `links rotate ID` gives a client a new one.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LINK_SECRET_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, positiveInteger, printResult, refuseFlags, subcommandOf, UsageError } from './define.js';
import { loadCommandConfig, SITE_OPTIONS } from './shared.js';

const ACTIONS = ['rotate'] as const;

export default defineCommand(
  {
    name: 'links',
    usage: ['[--out DIR] [--site DIR] [--base-url URL] [--json]', 'rotate <project-id> [--out DIR]'],
    description: `Lists every client with a page on the site: its name, its address (--base-url, site.baseUrl, or the
address the last publish was given, joined with the page's folder c/<token>/) and the months the page lists. The addresses are made from
${LINK_SECRET_ENV}, which must be the one publish used.

  rotate <project-id>   gives the client a new address: the next \`geo-reports publish\` moves its pages there,
                        removes the old folder (the old address then answers 404) and prints both. Until then the
                        current address keeps working. Use it when a link went where it should not.

With --json: an array of { "projectId", "name", "url", "path", "months" }.`,
    args: {
      subcommand: { help: ACTIONS.join(', '), parse: subcommandOf('links', ACTIONS) },
      project: { help: 'with rotate: the project id', parse: positiveInteger },
    },
    options: {
      ...SITE_OPTIONS,
      json: { type: 'boolean', help: 'print JSON instead of a table' },
    },
    epilog: `Exit codes: ${EXIT.ok} done, ${EXIT.usage} usage or config error (no ${LINK_SECRET_ENV}, no site.baseUrl, no links record, a project without a page).`,
  },
  async ({ options, args, given }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ linkSecret, siteBaseUrl, siteFolders }, { LINKS_FILE, readLinksRecord }, { listClientLinks, rotateClientLink }] = await Promise.all([
      import('../config/site.js'),
      import('../output/links.js'),
      import('../site/links.js'),
    ]);
    const config = await loadCommandConfig(options, ctx);
    const { outDir, siteDir } = siteFolders(options, config, ctx);
    if (args.subcommand === 'rotate') {
      refuseFlags(given, ['site', 'base-url'], 'with rotate (the next publish moves the page)');
      if (args.project === undefined) throw new UsageError('links rotate: missing <project-id>.', { hint: 'Example: geo-reports links rotate 101' });
      const rotated = await rotateClientLink(outDir, args.project);
      printResult(ctx, options.json, rotated, () =>
        [
          `Project ${rotated.projectId} (${rotated.name}) gets a new address at the next publish (generation ${rotated.generation}).`,
          'Its current address keeps working until then. Next: `geo-reports publish`, which moves the page, removes the old one and prints both addresses.',
        ].join('\n'),
      );
      return EXIT.ok;
    }
    if (args.project !== undefined)
      throw new UsageError(`links: unexpected argument "${args.project}"; \`links rotate ${args.project}\` gives that client a new address.`);
    const secret = linkSecret(ctx);
    const record = await readLinksRecord(outDir);
    if (record === null) {
      throw new UsageError(`${outDir} has no links record (${LINKS_FILE}): nothing was published from it yet.`, {
        hint: 'Run `geo-reports publish` first, or give the output folder it publishes from with --out.',
      });
    }
    // --base-url, else site.baseUrl, else the address the last publish was given.
    const baseUrl = siteBaseUrl(options['base-url'] ?? (config.site.baseUrl === undefined ? record.baseUrl : undefined), config, '`geo-reports links`');
    const links = listClientLinks(record, secret, baseUrl);
    const missing: number[] = [];
    for (const link of links)
      if (
        !(await stat(join(siteDir, link.path, 'index.html')).then(
          (i) => i.isFile(),
          () => false,
        ))
      )
        missing.push(link.projectId);
    if (missing.length > 0) {
      ctx.stderr.write(
        `Warning: ${missing.length} page${missing.length === 1 ? ' is' : 's are'} not in ${siteDir} (projects ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}): is it the published site? \`geo-reports publish\` writes ${missing.length === 1 ? 'it' : 'them'}.\n`,
      );
    }
    printResult(
      ctx,
      options.json,
      links.map(({ projectId, name, url, path, months }) => ({ projectId, name, url, path, months })),
      // Not a table: an address is longer than a column may be, and must be copied whole.
      () =>
        links.length === 0
          ? 'No client has a page yet: `geo-reports publish` makes them.'
          : links
              .map((link) => {
                const months = `${link.months.length} month${link.months.length === 1 ? '' : 's'}, ${link.months.at(-1) ?? ''} to ${link.months[0] ?? ''}`;
                return `${link.projectId}  ${link.name}  (${months})\n    ${link.url}${link.moving ? '\n    moves to a new address at the next publish' : ''}`;
              })
              .join('\n'),
    );
    return EXIT.ok;
  },
);
