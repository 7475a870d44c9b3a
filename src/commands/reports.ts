// `geo-reports reports`: generate a JSON report on the service, read one, or list them.
import { REPORT_SECTIONS, type Report, type ReportList, type ReportSections } from '../api/schemas.js';
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

/** One line per section present: what it holds, in short. */
function sectionSummary(sections: ReportSections): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (sections.scores) {
    rows.push(['scores', `GEO ${formatNumber(sections.scores.geo_score) ?? '–'}, SEO ${formatNumber(sections.scores.seo_score) ?? '–'}`]);
  }
  if (sections.recommendations) rows.push(['recommendations', `${sections.recommendations.length} recommendation(s)`]);
  if (sections.history) {
    const first = sections.history[0]?.date;
    const last = sections.history.at(-1)?.date;
    rows.push(['history', `${sections.history.length} point(s)${first && last ? `, ${first} to ${last}` : ''}`]);
  }
  if (sections.metrics) rows.push(['metrics', Object.keys(sections.metrics).join(', ')]);
  if (sections.trust) {
    const platforms = sections.trust.review_platforms?.length ?? 0;
    rows.push(['trust', `trust score ${formatNumber(sections.trust.trust_score) ?? '–'}, ${platforms} review platform(s)`]);
  }
  return rows;
}

function reportHead(report: ReportList['reports'][number]): Array<string | number | null | undefined> {
  return [report.id, report.project_id, report.format, report.status, formatTime(report.created_at), report.include?.join(', ')];
}

const HEAD = ['Report', 'Project', 'Format', 'Status', 'Created', 'Sections'];

function reportText(report: Report): string {
  const parts = [table(HEAD, [reportHead(report)])];
  if (report.sections) parts.push('', table(['Section', 'Contents'], sectionSummary(report.sections)));
  else if (report.status === 'processing') parts.push('', `The service is still building it: read it later with \`geo-reports reports get ${report.id}\`.`);
  return parts.join('\n');
}

function listText(list: ReportList): string {
  return `${table(HEAD, list.reports.map(reportHead))}\n${list.reports.length} report(s)`;
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
        const report = await withClient(values, ctx, (client) =>
          client.createReport({ projectId, ...(include === undefined ? {} : { include }) }),
        );
        printResult(ctx, json, report, () => reportText(report));
        return 0;
      }
      case 'get': {
        if (target === undefined) throw new UsageError('reports get: missing <report-id>.', { hint: 'List the ids with `geo-reports reports list`.' });
        const reportId = positiveInt(target, 'report-id');
        refuseFlags(values, ['include'], 'with reports get');
        const report = await withClient(values, ctx, (client) => client.getReport(reportId));
        printResult(ctx, json, report, () => reportText(report));
        return 0;
      }
      case 'list': {
        if (target !== undefined) throw new UsageError(`reports list: unexpected argument "${target}".`);
        refuseFlags(values, ['include'], 'with reports list');
        const list = await withClient(values, ctx, (client) => client.listReports());
        printResult(ctx, json, list, () => listText(list));
        return 0;
      }
      case undefined:
        throw new UsageError('reports: missing subcommand (create, get or list).', { hint: 'Run `geo-reports reports --help`.' });
      default:
        throw new UsageError(`reports: unknown subcommand "${action}" (expected create, get or list).`, { hint: 'Run `geo-reports reports --help`.' });
    }
  },
};
