// `geo-reports report <project-id>`: one project's report now, through the same pipeline as the batch.
import { EXIT } from '../exit-codes.js';
import { defineCommand, positiveInteger } from './define.js';
import { API_OPTIONS, BATCH_JSON_OPTION, BATCH_OPTIONS, browserEndpointOption, PARTIAL_OPTION, periodToReport, setupApi } from './shared.js';

export default defineCommand(
  {
    name: 'report',
    description: "Renders one project's report now (HTML, PDF, data.json) into <out>/<period>/, whatever its status.",
    args: { 'project-id': { help: 'the project to report', parse: positiveInteger, required: true } },
    options: { ...BATCH_OPTIONS, partial: PARTIAL_OPTION, ...API_OPTIONS, json: BATCH_JSON_OPTION },
  },
  async ({ options, args }, ctx) => {
    const period = periodToReport(options.period, ctx, options.partial);
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ executeBatch }, { commandRenderer }] = await Promise.all([import('../batch/execute.js'), import('../preview/command-templates.js')]);
    const projectId = args['project-id'];
    const { client, config } = await setupApi(options, ctx);
    const renderer = await commandRenderer(options.templates, config, ctx);
    const { code, result } = await executeBatch(
      {
        client,
        config,
        period,
        outDir: options.out ?? config.output.dir,
        selection: { statuses: [], projectIds: [projectId], redo: true },
        concurrency: 1,
        dryRun: options['dry-run'],
        acceptHeld: options['accept-held'],
        json: options.json,
        renderer,
        ...browserEndpointOption(options['browser-ws-endpoint']),
      },
      ctx,
    );
    if (result.plan.unknownIds.includes(projectId)) {
      ctx.stderr.write(`Error: project ${projectId} is not in this account.\nFix: list the projects with \`geo-reports projects --all\`.\n`);
      return EXIT.failure;
    }
    return code;
  },
);
