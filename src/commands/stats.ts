// `geo-reports stats`: the account's global synthesis: counts, average score, top projects, evolution.
import { formatNumber, withClient } from './api-command.js';
import { API_OPTIONS } from './args.js';
import { printResult, table } from './context.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand } from './define.js';

export const statsCommand = defineCommand(
  {
    name: 'stats',
    summary: 'global statistics of the account',
    description:
      'Prints the global statistics of the account: projects, scans, average GEO score, top projects and the\n' +
      'month-by-month evolution (one request).',
    options: API_OPTIONS,
  },
  async ({ options }, ctx) => {
    const stats = await withClient(options, ctx, (client) => client.getStats());
    printResult(ctx, options.json, stats, () =>
      [
        table(['Projects', 'Scans', 'Average GEO score'], [[stats.projects_count, stats.scans_count, formatNumber(stats.average_score)]]),
        '',
        'Top projects',
        table(['Project', 'Name', 'GEO'], stats.top_projects.map((p) => [p.project_id, p.name, formatNumber(p.geo_score)])),
        '',
        'Evolution',
        table(['Month', 'Average GEO score'], stats.evolution.map((e) => [e.month, formatNumber(e.average_score)])),
      ].join('\n'),
    );
    return EXIT.ok;
  },
);
