// `geo-reports stats`: the account's global synthesis: counts, average score, top projects, evolution.
import { EXIT } from '../exit-codes.js';
import { defineCommand, formatNumber, printResult, table } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

export default defineCommand(
  {
    name: 'stats',
    description:
      'Prints the global statistics of the account: projects, scans, average GEO score, top projects and the\n' + 'month-by-month evolution (one request).',
    options: API_OPTIONS,
  },
  async ({ options }, ctx) => {
    // The reader is loaded when the command runs: its --help loads the declaration alone.
    const { readStats } = await import('../content/competitors.js');
    const { data, stats } = await withClient(options, ctx, async (client, config) => {
      const answer = await client.getStats();
      return { data: answer, stats: readStats(answer, config.api.fields) };
    });
    printResult(ctx, options.json, data, () =>
      [
        table(['Projects', 'Scans', 'Average GEO score'], [[formatNumber(stats.projects), formatNumber(stats.scans), formatNumber(stats.averageScore)]]),
        '',
        'Top projects',
        table(
          ['Project', 'Name', 'GEO'],
          stats.topProjects.map((p) => [p.projectId, p.name, formatNumber(p.geo)]),
        ),
        '',
        'Evolution',
        table(
          ['Month', 'Average GEO score'],
          stats.evolution.map((e) => [e.month, formatNumber(e.value)]),
        ),
      ].join('\n'),
    );
    return EXIT.ok;
  },
);
