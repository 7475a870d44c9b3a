// `geo-reports stats`: the account's global synthesis: counts, average score, top projects, evolution.
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
    const stats = await withClient(args.values, ctx, (client) => client.getStats());
    printResult(ctx, args.values['json'] === true, stats, () =>
      [
        table(
          ['Projects', 'Scans', 'Average GEO score'],
          [[stats.projects_count, stats.scans_count, formatNumber(stats.average_score)]],
        ),
        '',
        'Top projects',
        table(['Project', 'Name', 'GEO'], stats.top_projects.map((p) => [p.project_id, p.name, formatNumber(p.geo_score)])),
        '',
        'Evolution',
        table(['Month', 'Average GEO score'], stats.evolution.map((e) => [e.month, formatNumber(e.average_score)])),
      ].join('\n'),
    );
    return 0;
  },
};
