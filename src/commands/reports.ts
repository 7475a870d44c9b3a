// `geo-reports reports`: generate a JSON report on the service, read one, or list them.
import type { Report } from '../api/schemas.js';
import { REPORT_SECTIONS } from '../spec/vocabulary.js';
import type { ReportListRow } from '../content/lists.js';
import type { ReportContent } from '../content/report.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, formatNumber, formatTime, listOf, positiveInteger, printResult, refuseFlags, subcommandOf, table, UsageError } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

const ACTIONS = ['create', 'get', 'list'] as const;

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
  const created = data['created_at'] ?? data['generated_at'] ?? data['created'];
  const parts = [table(HEAD, [[content.id, content.projectId, content.status, formatTime(created)]])];
  if (content.present.length > 0 || content.other.length > 0) parts.push('', table(['Section', 'Contents'], sectionSummary(content)));
  else if (content.state !== 'failed' && content.id !== null) {
    parts.push('', `No section yet: the service may still be building it; read it later with \`geo-reports reports get ${content.id}\`.`);
  }
  return parts.join('\n');
}

function listText(rows: ReportListRow[]): string {
  return `${table(
    HEAD,
    rows.map((r) => [r.id, r.projectId, r.status, formatTime(r.createdAt)]),
  )}\n${rows.length} report(s)`;
}

export default defineCommand(
  {
    name: 'reports',
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
    // The readers are loaded when the command runs: its --help loads the declaration alone.
    const [{ readReportList }, { answerAsKept, readReport }] = await Promise.all([import('../content/lists.js'), import('../content/report.js')]);
    switch (subcommand) {
      case 'create': {
        if (target === undefined) throw new UsageError('reports create: missing <project-id>.', { hint: 'List the ids with `geo-reports projects`.' });
        const projectId = positiveInteger(target, 'project-id');
        const { report, content } = await withClient(options, ctx, async (client, config) => {
          const answer = await client.createReport({ projectId, ...(include === undefined ? {} : { include }) });
          const content = readReport(answer, config.api.fields);
          return { report: answerAsKept(answer, content), content };
        });
        printResult(ctx, json, report, () => reportText(content, report));
        return EXIT.ok;
      }
      case 'get': {
        if (target === undefined) throw new UsageError('reports get: missing <report-id>.', { hint: 'List the ids with `geo-reports reports list`.' });
        const reportId = positiveInteger(target, 'report-id');
        const { report, content } = await withClient(options, ctx, async (client, config) => {
          const answer = await client.getReport(reportId);
          const content = readReport(answer, config.api.fields);
          return { report: answerAsKept(answer, content), content };
        });
        printResult(ctx, json, report, () => reportText(content, report));
        return EXIT.ok;
      }
      case 'list': {
        if (target !== undefined) throw new UsageError(`reports list: unexpected argument "${target}".`);
        const list = await withClient(options, ctx, (client) => client.listReports());
        printResult(ctx, json, list, () => listText(readReportList(list)));
        return EXIT.ok;
      }
    }
  },
);
