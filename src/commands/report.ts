// `geo-reports report <project-id>`: one project's report now, through the same pipeline as the batch.
import { parseCommandArgs, positiveInt, stringValue } from './args.js';
import { executeBatch } from './batch-runner.js';
import { setupApi, type Command } from './context.js';
import { BROWSER_OPTION_HELP, browserEndpointOption, periodOption, RUN_OPTIONS } from './run.js';

const { status: _status, project: _project, concurrency: _concurrency, ...options } = RUN_OPTIONS;

const HELP = `Usage: geo-reports report <project-id> [options]

Renders one project's report now (HTML, PDF, data.json) into <out>/<period>/, whatever its status.

Options:
  --period YYYY-MM     period the report belongs to (default: the previous month)
  --out DIR            output folder (default: output/)
  --accept-held        release the report if the pre-send check holds it
  --dry-run            print the plan and stop
${BROWSER_OPTION_HELP}
  --base-url URL, --config FILE, --allow-insecure, --json   as for \`run\`
`;

export const reportCommand: Command = {
  name: 'report',
  usage: 'report <project-id> [--period YYYY-MM]',
  summary: 'one project\'s report now (HTML + PDF)',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options, positionals: 1, help: HELP, command: 'report' }, ctx.stdout);
    if (args === null) return 0;
    const projectId = positiveInt(args.positionals[0], 'project-id');
    const { client, config } = await setupApi(args.values, ctx);
    const { code, result } = await executeBatch(
      {
        client,
        config,
        period: periodOption(args.values, ctx),
        outDir: stringValue(args.values['out']) ?? config.output.dir,
        selection: { statuses: [], projectIds: [projectId], redo: true },
        concurrency: 1,
        dryRun: args.values['dry-run'] === true,
        acceptHeld: args.values['accept-held'] === true,
        json: args.values['json'] === true,
        ...browserEndpointOption(args.values),
      },
      ctx,
    );
    if (result.plan.unknownIds.includes(projectId)) {
      ctx.stderr.write(`Error: project ${projectId} is not in this account.\nFix: list the projects with \`geo-reports projects --all\`.\n`);
      return 1;
    }
    return code;
  },
};
