// `geo-reports report <project-id>`: one project's report now, through the same pipeline as the batch.
import { EXIT } from '../exit-codes.js';
import { defineCommand, positiveInteger } from './define.js';
import { ConfigError } from '../errors.js';
import {
  ALL_CLIENTS_OPTION,
  API_OPTIONS,
  BATCH_JSON_OPTION,
  BATCH_OPTIONS,
  browserEndpointOption,
  PARTIAL_OPTION,
  periodToReport,
  setupApi,
} from './shared.js';

export default defineCommand(
  {
    name: 'report',
    description: `Renders one project's report now (HTML, PDF, data.json) into <out>/<period>/, whatever its status.
A report of the period already sent is kept as the client received it: the new one is written beside
it as report-v2.pdf (v3, …), and the command says so.`,
    args: { 'project-id': { help: 'the project to report', parse: positiveInteger, required: true } },
    options: { ...BATCH_OPTIONS, partial: PARTIAL_OPTION, all: ALL_CLIENTS_OPTION, ...API_OPTIONS, json: BATCH_JSON_OPTION },
  },
  async ({ options, args }, ctx) => {
    const period = periodToReport(options.period, ctx, options.partial);
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ executeBatch }, { commandRenderer }] = await Promise.all([import('../batch/execute.js'), import('../preview/command-templates.js')]);
    const projectId = args['project-id'];
    const { client, config } = await setupApi(options, ctx);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { isListed, listedClients } = await import('../config/client-scope.js');
    const listed = listedClients(config, options.all);
    if (!isListed(listed, projectId)) {
      await client.close();
      throw new ConfigError(`Project ${projectId} is not one of the clients of the config, and report.clients is "listed": no report was asked for.`, {
        hint: `Add "${projectId}": {} to clients in the config, or give --all to report it this once.`,
      });
    }
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
