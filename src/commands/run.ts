// `geo-reports run`: the monthly batch over every selected project of the account.
import { PROJECT_STATUSES, type ProjectStatus } from '../api/schemas.js';
import { isPeriod, previousPeriod } from '../period.js';
import { API_OPTIONS, API_OPTIONS_HELP, parseCommandArgs, positiveInt, stringValue, UsageError, type ParsedArgs } from './args.js';
import { executeBatch } from './batch-runner.js';
import { setupApi, type Command, type CommandContext } from './context.js';

export const RUN_OPTIONS = {
  ...API_OPTIONS,
  period: { type: 'string' },
  out: { type: 'string' },
  status: { type: 'string', multiple: true },
  project: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'accept-held': { type: 'boolean' },
} as const;

export const RUN_HELP = `Usage: geo-reports run [options]

Reports every selected project of the account for one period: plans the requests against what the
tokens have left today, fetches, renders HTML and PDF into <out>/<period>/, and resumes where it
stopped when run again (finished projects cost no request).

Options:
  --period YYYY-MM     period to report (default: the previous month)
  --out DIR            output folder (default: output/, or output.dir in the config)
  --status S           project status to report, repeatable: active, paused, archived (default: active)
  --project ID         report only this project, repeatable (overrides --status)
  --concurrency N      projects in flight at once (default: sized to this machine)
  --dry-run            print the plan and stop: no report is asked
  --accept-held        release reports held by the pre-send check
${API_OPTIONS_HELP.replace('print JSON instead of a table', 'one JSON line per event (default when not a terminal)')}

Exit codes: 0 all done, 1 some failed (the others are written), 2 usage or config error,
4 some reports held by the pre-send check, 75 daily quota used up (run again tomorrow),
130/143 stopped by SIGINT/SIGTERM (state saved).
`;

export function periodOption(values: ParsedArgs['values'], ctx: CommandContext): string {
  const period = stringValue(values['period']) ?? previousPeriod(ctx.clock());
  if (!isPeriod(period)) throw new UsageError(`--period must look like 2026-10 (got "${period}").`);
  return period;
}

export const runCommand: Command = {
  name: 'run',
  usage: 'run [--period YYYY-MM] [--dry-run] …',
  summary: 'the monthly batch: every selected project to HTML + PDF, resumable',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: RUN_OPTIONS, help: RUN_HELP, command: 'run' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const period = periodOption(values, ctx);
    const statuses = ((values['status'] as string[] | undefined) ?? []).map((s) => {
      if (!(PROJECT_STATUSES as readonly string[]).includes(s)) {
        throw new UsageError(`--status must be one of ${PROJECT_STATUSES.join(', ')} (got "${s}").`);
      }
      return s as ProjectStatus;
    });
    const projectIds = ((values['project'] as string[] | undefined) ?? []).map((p) => positiveInt(p, '--project'));
    const concurrency = values['concurrency'] === undefined ? undefined : positiveInt(values['concurrency'], '--concurrency');
    if (concurrency !== undefined && concurrency > 64) throw new UsageError('--concurrency must be at most 64.');
    const { client, config } = await setupApi(values, ctx);
    const { code } = await executeBatch(
      {
        client,
        config,
        period,
        outDir: stringValue(values['out']) ?? config.output.dir,
        selection: { statuses: statuses.length > 0 ? statuses : config.report.statuses, projectIds },
        ...(concurrency !== undefined ? { concurrency } : {}),
        dryRun: values['dry-run'] === true,
        acceptHeld: values['accept-held'] === true,
        json: values['json'] === true,
      },
      ctx,
    );
    return code;
  },
};
