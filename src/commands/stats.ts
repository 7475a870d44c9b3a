// `geo-reports stats`: the account's global synthesis: counts, average score, top projects, evolution.
import { readStats } from '../content/competitors.js';
import { API_OPTIONS, API_OPTIONS_HELP, parseCommandArgs } from './args.js';
import { formatNumber, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const HELP = `Usage: geo-reports stats

Prints the global statistics of the account: projects, scans, average GEO score, top projects and the
month-by-month evolution (one request).

Options:
${API_OPTIONS_HELP}
`;

export const statsCommand: Command = {
  name: 'stats',
  usage: 'stats',
  summary: 'global statistics of the account',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: API_OPTIONS, help: HELP, command: 'stats' }, ctx.stdout);
    if (args === null) return 0;
    const { data, stats } = await withClient(args.values, ctx, async (client, config) => {
      const answer = await client.getStats();
      return { data: answer, stats: readStats(answer, config.api.fields) };
    });
    printResult(ctx, args.values['json'] === true, data, () =>
      [
        table(['Projects', 'Scans', 'Average GEO score'], [[formatNumber(stats.projects), formatNumber(stats.scans), formatNumber(stats.averageScore)]]),
        '',
        'Top projects',
        table(['Project', 'Name', 'GEO'], stats.topProjects.map((p) => [p.projectId, p.name, formatNumber(p.geo)])),
        '',
        'Evolution',
        table(['Month', 'Average GEO score'], stats.evolution.map((e) => [e.month, formatNumber(e.value)])),
      ].join('\n'),
    );
    return 0;
  },
};
