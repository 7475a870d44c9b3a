// `geo-reports run`: the monthly batch over every selected project of the account.
import { PROJECT_STATUSES } from '../spec/vocabulary.js';
import { parseShard } from '../batch/shard.js';
import { SMTP_URL_ENV } from '../config/environment.js';
import { describeExitCodes } from '../exit-codes.js';
import { previousPeriod } from '../period.js';
import { API_OPTIONS, choice, integer, periodValue, positiveInteger } from './args.js';
import type { CommandContext } from './context.js';
import { defineCommand } from './define.js';

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
    help: 'print on this remote browser (its DevTools WebSocket URL, ws://host:port/devtools/browser/<id>)\ninstead of a local Chromium (default: GEO_REPORTS_BROWSER_WS_ENDPOINT, or render.browserWSEndpoint)',
  },
} as const;

/** The --browser-ws-endpoint flag, for executeBatch (checked there with the environment and the config). */
export function browserEndpointOption(endpoint: string | undefined): { browserWSEndpoint?: string } {
  return endpoint === undefined ? {} : { browserWSEndpoint: endpoint };
}

/** --json of a batch: one line per event. */
export const BATCH_JSON_OPTION = { type: 'boolean', help: 'one JSON line per event (default when not a terminal)' } as const;

/** The period asked for, or the month before today. */
export function periodOrPrevious(period: string | undefined, ctx: CommandContext): string {
  return period ?? previousPeriod(ctx.clock());
}

export default defineCommand(
  {
    name: 'run',
    description: `Reports every selected project of the account for one period: plans the requests against what the
tokens have left today, fetches, renders HTML and PDF into <out>/<period>/, and resumes where it
stopped when run again (finished projects cost no request).`,
    options: {
      ...BATCH_OPTIONS,
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
        help: 'report only shard K of N (a split by project id, one per machine, each with\nits own tokens and --out); combine the shards with `geo-reports merge`',
      },
      concurrency: { type: 'string', value: 'N', parse: integer({ min: 1, max: 64 }), help: 'projects in flight at once (default: sized to this machine)' },
      send: { type: 'boolean', help: `then email each client its report (as \`geo-reports send\`; SMTP from ${SMTP_URL_ENV})` },
      ...API_OPTIONS,
      json: BATCH_JSON_OPTION,
    },
    epilog: `Exit codes: ${describeExitCodes('Exit codes: '.length)}`,
  },
  async ({ options }, ctx) => {
    const [{ executeBatch }, { setupApi }, { commandRenderer }] = await Promise.all([
      import('./batch-runner.js'),
      import('./api-setup.js'),
      import('./templates-setup.js'),
    ]);
    const period = periodOrPrevious(options.period, ctx);
    const { client, config } = await setupApi(options, ctx);
    // Every template compiled and tried on sample pages before the first request: a broken one costs no quota.
    const renderer = await commandRenderer(options.templates, config, ctx);
    const dryRun = options['dry-run'];
    const allowInsecure = options['allow-insecure'];
    const sendAfter =
      options.send && !dryRun ? (await import('./delivery-runner.js')).sendAfterRuns(config, ctx, { allowInsecure, json: options.json, renderer }) : null;
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
          ...(options.shard !== undefined ? { shard: options.shard } : {}),
        },
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
