// `geo-reports reports`: generate a JSON report on the service, read one, or list them.
import type { Report, ReportList, ReportSections } from '../api/schemas.js';
import { REPORT_SECTIONS } from '../api/vocabulary.js';
import { formatNumber, formatTime, withClient } from './api-command.js';
import { API_OPTIONS, listOf, positiveInteger, refuseFlags, subcommandOf, UsageError } from './args.js';
import { printResult, table } from './context.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand } from './define.js';

const ACTIONS = ['create', 'get', 'list'] as const;

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

export const reportsCommand = defineCommand(
  {
    name: 'reports',
    summary: 'generate and read JSON reports on the service',
    synopsis: 'reports create <project-id> | get <id> | list',
    usage: ['create <project-id> [--include LIST]', 'get <report-id>', 'list'],
    description: `Generates JSON reports on the service and reads them back (for the branded HTML/PDF reports, see \`report\` and \`run\`).

Subcommands:
  create <project-id>  generate a report of the project (format json)
  get <report-id>      print one report: its sections in short, or all of it with --json
  list                 list the reports of the account`,
    args: {
      subcommand: { help: ACTIONS.join(', '), parse: subcommandOf('reports', ACTIONS) },
      id: { help: 'with create: the project; with get: the report' },
    },
    options: {
      include: {
        type: 'string',
        value: 'LIST',
        parse: listOf(REPORT_SECTIONS),
        help: `with create: sections to include: ${REPORT_SECTIONS.join(', ')} (default: the API's choice)`,
      },
      ...API_OPTIONS,
    },
  },
  async ({ options, args, given }, ctx) => {
    const { json, include } = options;
    const { subcommand, id: target } = args;
    if (subcommand === undefined) {
      throw new UsageError('reports: missing subcommand (create, get or list).', { hint: 'Run `geo-reports reports --help`.' });
    }
    if (subcommand !== 'create') refuseFlags(given, ['include'], `with reports ${subcommand}`);
    switch (subcommand) {
      case 'create': {
        if (target === undefined) throw new UsageError('reports create: missing <project-id>.', { hint: 'List the ids with `geo-reports projects`.' });
        const projectId = positiveInteger(target, 'project-id');
        const report = await withClient(options, ctx, (client) => client.createReport({ projectId, ...(include === undefined ? {} : { include }) }));
        printResult(ctx, json, report, () => reportText(report));
        return EXIT.ok;
      }
      case 'get': {
        if (target === undefined) throw new UsageError('reports get: missing <report-id>.', { hint: 'List the ids with `geo-reports reports list`.' });
        const reportId = positiveInteger(target, 'report-id');
        const report = await withClient(options, ctx, (client) => client.getReport(reportId));
        printResult(ctx, json, report, () => reportText(report));
        return EXIT.ok;
      }
      case 'list': {
        if (target !== undefined) throw new UsageError(`reports list: unexpected argument "${target}".`);
        const list = await withClient(options, ctx, (client) => client.listReports());
        printResult(ctx, json, list, () => listText(list));
        return EXIT.ok;
      }
    }
  },
);
