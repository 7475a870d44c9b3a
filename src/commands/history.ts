// `geo-reports history`: the month-to-month state of the reports in a git branch, for the workflows (or any
// scheduler without a disk that lasts): is the period done, restore last months, save this one.
import { resolve } from 'node:path';
import { HISTORY_TOKEN_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { formatShard, inShard, parseShard } from '../batch/shard.js';
import { DEFAULT_HISTORY_BRANCH, DEFAULT_HISTORY_KEEP } from '../history/defaults.js';
import { defineCommand, integer, nonBlank, periodValue, subcommandOf, UsageError } from './define.js';

const ACTIONS = ['status', 'restore', 'save', 'claim', 'site-restore', 'site-save'] as const;

export const DEFAULT_BRANCH = DEFAULT_HISTORY_BRANCH;
/** The branch of the published site (`geo-reports publish`). */
export const DEFAULT_SITE_BRANCH = 'reports-site';
/** A year of comparison plus the month being reported. */
export const DEFAULT_KEEP = DEFAULT_HISTORY_KEEP;

export default defineCommand(
  {
    name: 'history',
    usage: [
      'status --storage GIT --period YYYY-MM [--json]',
      'restore --storage GIT --out DIR [--before YYYY-MM [--shard K/N]]',
      'save --storage GIT --out DIR [--keep N]',
      'claim --storage GIT --period YYYY-MM --by shards|one-machine',
      'site-restore --storage GIT --site DIR',
      'site-save --storage GIT --site DIR',
    ],
    description: `Keeps, in a branch of any git remote (the repository's URL in GitHub Actions, a bare repository folder
elsewhere), each period's manifest.json and every client's data.json: what next month's reports compare
against, and links.json, the generation of each client link. The reports themselves (HTML, PDF) are not kept
there.

Subcommands:
  status        print the saved status of --period (complete, partial, held…), or "none"; with --json, one
                line with who made it (one-machine or shards) and its projects counted (no client named)
  restore       copy the saved periods (before --before, when given) and links.json into --out, each merged with
                the manifest already there (every report done and every mail recorded in either is kept); with
                --shard K/N, also the reports of period --before that shard made, as its own folder
  save          merge the periods of --out into the branch (reports done and mails recorded by another run are
                kept, a sent mail is never undone), keep the newest --keep, commit and push if anything changed;
                a push another run got in before is fetched, merged and pushed again
  claim         mark --period as the shards' (--by shards) or one machine's before its first save, so the other
                workflow refuses it; a period already saved or claimed is left as it is
  site-restore  copy the published site of branch ${DEFAULT_SITE_BRANCH} (--branch) into --site, a new or empty folder
  site-save     save --site, written by \`geo-reports publish\`, as the one commit of that branch (force-pushed:
                the PDFs of past months never pile up in its history)

For an HTTPS remote that needs a login, set ${HISTORY_TOKEN_ENV} (the job's token in GitHub Actions): git gets it
through its environment, never on a command line.`,
    args: { subcommand: { help: ACTIONS.join(', '), parse: subcommandOf('history', ACTIONS) } },
    options: {
      storage: { type: 'string', value: 'GIT', parse: nonBlank, help: 'the git remote that holds the branch: a URL or a path (required)' },
      branch: {
        type: 'string',
        value: 'NAME',
        parse: nonBlank,
        help: `the branch (default: ${DEFAULT_BRANCH}; ${DEFAULT_SITE_BRANCH} for site-restore and site-save)`,
      },
      period: { type: 'string', value: 'YYYY-MM', parse: periodValue, help: 'with status: the period' },
      out: { type: 'string', value: 'DIR', help: 'with restore and save: the output folder holding <period>/' },
      site: { type: 'string', value: 'DIR', help: 'with site-restore and site-save: the site folder' },
      before: { type: 'string', value: 'YYYY-MM', parse: periodValue, help: 'with restore: only the periods before this one' },
      shard: { type: 'string', value: 'K/N', help: "with restore --before: that period's reports of shard K/N too" },
      by: { type: 'string', value: 'WHO', help: 'with claim: shards or one-machine' },
      keep: { type: 'string', value: 'N', parse: integer({ min: 1 }), default: DEFAULT_KEEP, help: 'with save: the newest periods kept in the branch' },
      json: { type: 'boolean', help: 'with status: the period as one JSON line (status, madeBy, shards, counts)' },
    },
    epilog: `Exit codes: ${EXIT.ok} done, ${EXIT.failure} git failed or the storage cannot be reached, ${EXIT.usage} usage error.`,
  },
  async ({ options, args }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ claimPeriod, historyPeriod, restoreHistory, saveHistory }, { restoreSite, saveSite }] = await Promise.all([
      import('../history/branch.js'),
      import('../history/site-branch.js'),
    ]);
    const { subcommand } = args;
    if (subcommand === undefined)
      throw new UsageError('history: missing subcommand (status, restore, save, site-restore or site-save).', { hint: 'Run `geo-reports history --help`.' });
    const need = <T>(name: string, value: T | undefined): T => {
      if (value === undefined) throw new UsageError(`history ${subcommand}: --${name} is required.`, { hint: 'Run `geo-reports history --help`.' });
      return value;
    };
    const site = subcommand === 'site-restore' || subcommand === 'site-save';
    const storage = {
      remote: need('storage', options.storage),
      branch: options.branch ?? (site ? DEFAULT_SITE_BRANCH : DEFAULT_BRANCH),
      env: ctx.env,
      log: (line: string) => ctx.stdout.write(`${line}\n`),
    };
    switch (subcommand) {
      case 'status': {
        const saved = await historyPeriod(storage, need('period', options.period));
        ctx.stdout.write(`${options.json ? JSON.stringify(saved) : saved.status}\n`);
        break;
      }
      case 'restore': {
        if (options.shard !== undefined && options.before === undefined) {
          throw new UsageError('history restore: --shard needs --before YYYY-MM, the period whose shard is restored.');
        }
        const shard = options.shard === undefined ? undefined : parseShard(options.shard);
        await restoreHistory(storage, resolve(ctx.cwd, need('out', options.out)), {
          ...(options.before !== undefined ? { before: options.before } : {}),
          ...(shard !== undefined ? { shard: { label: formatShard(shard), owns: (id: number) => inShard(id, shard) } } : {}),
        });
        break;
      }
      case 'claim': {
        const by = need('by', options.by);
        if (by !== 'shards' && by !== 'one-machine') throw new UsageError(`history claim: --by must be shards or one-machine (got "${by}").`);
        ctx.stdout.write(`${await claimPeriod(storage, need('period', options.period), by)}\n`);
        break;
      }
      case 'save':
        await saveHistory(storage, resolve(ctx.cwd, need('out', options.out)), options.keep);
        break;
      case 'site-restore':
        await restoreSite(storage, resolve(ctx.cwd, need('site', options.site)));
        break;
      case 'site-save':
        await saveSite(storage, resolve(ctx.cwd, need('site', options.site)));
        break;
    }
    return EXIT.ok;
  },
);
