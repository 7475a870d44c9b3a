// `geo-reports reports`: generate a JSON report on the service, read one, or list them.
import { REPORT_SECTIONS, type Report } from '../api/schemas.js';
import { readReportList, type ReportListRow } from '../content/lists.js';
import { readReport, type ReportContent } from '../content/report.js';
import { API_OPTIONS, API_OPTIONS_HELP, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { commaList, formatNumber, formatTime, refuseFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = { ...API_OPTIONS, include: { type: 'string' } } as const;

const HELP = `Usage: geo-reports reports create <project-id> [--include LIST]
       geo-reports reports get <report-id>
       geo-reports reports list

Generates JSON reports on the service and reads them back (for the branded HTML/PDF reports, see \`report\` and \`run\`).

Subcommands:
  create <project-id>  generate a report of the project (format json)
  get <report-id>      print one report: its sections in short, or all of it with --json
  list                 list the reports of the account

Options:
  --include LIST       with create: sections to include: ${REPORT_SECTIONS.join(', ')} (default: the API's choice)
${API_OPTIONS_HELP}
`;

/** One line per section found: what it holds, in short. */
function sectionSummary(content: ReportContent): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (content.scores) rows.push(['scores', `GEO ${formatNumber(content.scores.geo) ?? '–'}, SEO ${formatNumber(content.scores.seo) ?? '–'}`]);
  if (content.recommendations) rows.push(['recommendations', `${content.recommendations.length} recommendation(s)`]);
  if (content.history) {
    const first = content.history[0]?.date;
    const last = content.history.at(-1)?.date;
    rows.push(['history', `${content.history.length} point(s)${first && last ? `, ${first} to ${last}` : ''}`]);
  }
  if (content.metrics) rows.push(['metrics', content.metrics.map((m) => m.key).join(', ')]);
  if (content.trust) rows.push(['trust', `trust score ${formatNumber(content.trust.score) ?? '–'}, ${content.trust.platforms.length} review platform(s)`]);
  for (const other of content.other) rows.push([other.key, 'not read by geo-reports (shown as other data)']);
  return rows;
}

const HEAD = ['Report', 'Project', 'Status', 'Created'];

function reportText(content: ReportContent, data: Report): string {
  const created = (data['created_at'] ?? data['generated_at'] ?? data['created']) as unknown;
  const parts = [table(HEAD, [[content.id, content.projectId, content.status, formatTime(created)]])];
  if (content.present.length > 0 || content.other.length > 0) parts.push('', table(['Section', 'Contents'], sectionSummary(content)));
  else if (content.state !== 'failed' && content.id !== null) {
    parts.push('', `No section yet: the service may still be building it; read it later with \`geo-reports reports get ${content.id}\`.`);
  }
  return parts.join('\n');
}

function listText(rows: ReportListRow[]): string {
  return `${table(HEAD, rows.map((r) => [r.id, r.projectId, r.status, formatTime(r.createdAt)]))}\n${rows.length} report(s)`;
}

export const reportsCommand: Command = {
  name: 'reports',
  usage: 'reports create <project-id> | get <id> | list',
  summary: 'generate and read JSON reports on the service',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, positionals: 2, help: HELP, command: 'reports' }, ctx.stdout);
    if (args === null) return 0;
    const { values, positionals } = args;
    const json = values['json'] === true;
    const [action, target] = positionals;

    switch (action) {
      case 'create': {
        if (target === undefined) throw new UsageError('reports create: missing <project-id>.', { hint: 'List the ids with `geo-reports projects`.' });
        const projectId = positiveInt(target, 'project-id');
        const include = commaList(values['include'], REPORT_SECTIONS, '--include');
        const { report, content } = await withClient(values, ctx, async (client, config) => {
          const answer = await client.createReport({ projectId, ...(include === undefined ? {} : { include }) });
          return { report: answer, content: readReport(answer, config.api.fields) };
        });
        printResult(ctx, json, report, () => reportText(content, report));
        return 0;
      }
      case 'get': {
        if (target === undefined) throw new UsageError('reports get: missing <report-id>.', { hint: 'List the ids with `geo-reports reports list`.' });
        const reportId = positiveInt(target, 'report-id');
        refuseFlags(values, ['include'], 'with reports get');
        const { report, content } = await withClient(values, ctx, async (client, config) => {
          const answer = await client.getReport(reportId);
          return { report: answer, content: readReport(answer, config.api.fields) };
        });
        printResult(ctx, json, report, () => reportText(content, report));
        return 0;
      }
      case 'list': {
        if (target !== undefined) throw new UsageError(`reports list: unexpected argument "${target}".`);
        refuseFlags(values, ['include'], 'with reports list');
        const list = await withClient(values, ctx, (client) => client.listReports());
        printResult(ctx, json, list, () => listText(readReportList(list)));
        return 0;
      }
      case undefined:
        throw new UsageError('reports: missing subcommand (create, get or list).', { hint: 'Run `geo-reports reports --help`.' });
      default:
        throw new UsageError(`reports: unknown subcommand "${action}" (expected create, get or list).`, { hint: 'Run `geo-reports reports --help`.' });
    }
  },
};
