// `geo-reports run`: the monthly batch over every selected project of the account.
import { parseShard, type Shard } from '../batch/shard.js';
import type { CommandContext } from '../command-context.js';
import { SMTP_URL_ENV } from '../config/environment.js';
import { describeExitCodes } from '../exit-codes.js';
import { PROJECT_STATUSES } from '../spec/vocabulary.js';
import { anyPeriodValue, choice, defineCommand, integer, positiveInteger, UsageError } from './define.js';
import { isMonth, type ReviewPeriod } from '../period.js';
import {
  ALL_CLIENTS_OPTION,
  API_OPTIONS,
  BATCH_JSON_OPTION,
  BATCH_OPTIONS,
  browserEndpointOption,
  PARTIAL_OPTION,
  periodToReport,
  reviewToMake,
  loadCommandConfig,
  publishFirst,
  setupApi,
} from './shared.js';

export default defineCommand(
  {
    name: 'run',
    description: `Reports every selected project of the account for one period: plans the requests against what the
tokens have left today, fetches, renders HTML and PDF into <out>/<period>/, and resumes where it
stopped when run again (finished projects cost no request).`,
    options: {
      ...BATCH_OPTIONS,
      period: {
        type: 'string',
        value: 'PERIOD',
        parse: anyPeriodValue,
        help: 'period to report (default: the previous month); a quarter (2026-Q3) or a year (2026) makes its review from the months already run, with no request',
      },
      status: {
        type: 'string',
        value: 'S',
        multiple: true,
        parse: choice(PROJECT_STATUSES),
        help: `project status to report, repeatable: ${PROJECT_STATUSES.join(', ')} (default: report.statuses, or active)`,
      },
      project: { type: 'string', value: 'ID', multiple: true, parse: positiveInteger, help: 'report only this project, repeatable (overrides --status)' },
      shard: {
        type: 'string',
        value: 'K/N',
        parse: parseShard,
        help: 'report only shard K of N (a split by project id, one per machine, each with its own tokens and --out); combine the shards with `geo-reports merge`',
      },
      concurrency: { type: 'string', value: 'N', parse: integer({ min: 1, max: 64 }), help: 'projects in flight at once (default: sized to this machine)' },
      partial: PARTIAL_OPTION,
      all: ALL_CLIENTS_OPTION,
      remake: {
        type: 'boolean',
        help: "make the period's done reports again from their saved data with today's templates and config, without a request; a report already sent gets a new version beside it",
      },
      send: {
        type: 'boolean',
        help: `then email each client its report (as \`geo-reports send\`; SMTP from ${SMTP_URL_ENV}); with delivery.email.link, the site is published first`,
      },
      ...API_OPTIONS,
      json: BATCH_JSON_OPTION,
    },
    epilog: `Exit codes: ${describeExitCodes()}`,
  },
  async ({ options }, ctx) => {
    if (options.period !== undefined && !isMonth(options.period)) return review(reviewToMake(options.period as ReviewPeriod, ctx), options, ctx);
    const period = periodToReport(options.period, ctx, options.partial);
    if (options.remake && options.send) {
      throw new UsageError('--remake and --send do not go together: a remade report is not sent again by itself.', {
        hint: 'Remake first, look at the new versions, then `geo-reports send` sends what is not sent yet.',
      });
    }
    // The batch is loaded when it runs: `run --help` loads the declaration above alone.
    const [{ executeBatch }, { sendAfterRuns }, { commandRenderer }] = await Promise.all([
      import('../batch/execute.js'),
      import('../delivery/send.js'),
      import('../preview/command-templates.js'),
    ]);
    const { client, config } = await setupApi(options, ctx);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { listedClients } = await import('../config/client-scope.js');
    const listed = listedClients(config, options.all);
    // Every template compiled and tried on sample pages before the first request: a broken one costs no quota.
    const renderer = await commandRenderer(options.templates, config, ctx);
    const dryRun = options['dry-run'];
    const allowInsecure = options['allow-insecure'];
    const sendAfter =
      options.send && !dryRun
        ? sendAfterRuns(config, ctx, {
            allowInsecure,
            json: options.json,
            renderer: () => Promise.resolve(renderer),
            listed,
            publishFirst: await publishFirst({ config, renderer: () => Promise.resolve(renderer), listed, json: options.json }, ctx),
          })
        : null;
    const outDir = options.out ?? config.output.dir;
    const { code } = await executeBatch(
      {
        client,
        config,
        period,
        outDir,
        selection: {
          statuses: options.status.length > 0 ? options.status : config.report.statuses,
          projectIds: options.project,
          listed,
          ...(options.shard !== undefined ? { shard: options.shard } : {}),
        },
        remake: options.remake,
        ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
        dryRun,
        acceptHeld: options['accept-held'],
        json: options.json,
        renderer,
        ...browserEndpointOption(options['browser-ws-endpoint']),
      },
      ctx,
    );
    return sendAfter === null ? code : sendAfter({ code, period, outDir, projectIds: options.project, acceptHeld: options['accept-held'] });
  },
);

/** `run --period 2026-Q3` / `2026`: the reviews, from the saved months; the options of a monthly run that ask the service are refused. */
async function review(period: ReviewPeriod, options: ReviewFlags, ctx: CommandContext): Promise<number> {
  const asking = (['remake', 'send', 'partial', 'dry-run', 'accept-held'] as const).filter((flag) => options[flag]);
  if (asking.length > 0) {
    throw new UsageError(`--${asking[0]} is for a month's reports, not the review of ${period}.`, {
      hint: `Make the review with \`geo-reports run --period ${period}\`, then send it with \`geo-reports send --period ${period}\`.`,
    });
  }
  const [{ executeReview }, { commandRenderer }, { listedClients }] = await Promise.all([
    import('../batch/execute.js'),
    import('../preview/command-templates.js'),
    import('../config/client-scope.js'),
  ]);
  const config = await loadCommandConfig(options, ctx);
  const renderer = await commandRenderer(options.templates, config, ctx);
  const { code } = await executeReview(
    {
      config,
      period,
      outDir: options.out ?? config.output.dir,
      selection: {
        projectIds: options.project,
        listed: listedClients(config, options.all),
        ...(options.shard !== undefined ? { shard: options.shard } : {}),
      },
      renderer,
      json: options.json,
      ...browserEndpointOption(options['browser-ws-endpoint']),
    },
    ctx,
  );
  return code;
}

interface ReviewFlags {
  remake: boolean;
  send: boolean;
  partial: boolean;
  'dry-run': boolean;
  'accept-held': boolean;
  all: boolean;
  json: boolean;
  out?: string | undefined;
  config?: string | undefined;
  templates?: string | undefined;
  project: number[];
  shard?: Shard | undefined;
  'browser-ws-endpoint'?: string | undefined;
}
