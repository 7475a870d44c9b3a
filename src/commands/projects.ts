// `geo-reports projects`: one page of the project list, every page (--all), or one project (--id).
import type { Project, ProjectList } from '../api/schemas.js';
import { PROJECT_STATUSES } from '../api/schemas.js';
import { API_OPTIONS, API_OPTIONS_HELP, oneOf, optionalPositiveInt, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { formatText, formatTime, nonNegativeInt, refuseFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  status: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  all: { type: 'boolean' },
  id: { type: 'string' },
} as const;

const HELP = `Usage: geo-reports projects [--status S] [--limit N] [--offset N] [--all] [--id N]

Lists the projects of the account, one page at a time.

Options:
  --status S           only projects with this status: ${PROJECT_STATUSES.join(', ')}
  --limit N            rows per page, 1 to 100 (default: the API's page size)
  --offset N           rows to skip (default 0)
  --all                walk every page and list all projects (one request per 100 projects)
  --id N               show one project
${API_OPTIONS_HELP}
`;

function projectRows(projects: Project[]): string {
  return table(
    ['ID', 'Name', 'Domain', 'Status', 'Language', 'Last scan'],
    projects.map((p) => {
      const raw = p as Record<string, unknown>;
      return [p.id, p.name, p.domain, p.status, formatText(raw['language'] ?? raw['locale'] ?? raw['lang']), formatTime(raw['last_scan_at'] ?? raw['last_scan'])];
    }),
  );
}

function projectDetails(project: Project): string {
  const rows = Object.entries(project).map(([key, value]) => [key, formatText(value) ?? JSON.stringify(value)]);
  return table(['Field', 'Value'], rows);
}

export const projectsCommand: Command = {
  name: 'projects',
  usage: 'projects [--status S] [--all] [--id N] …',
  summary: 'list the projects of the account',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'projects' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const json = values['json'] === true;
    const status = oneOf(values['status'], PROJECT_STATUSES, '--status');
    const limit = optionalPositiveInt(values['limit'], '--limit');
    if (limit !== undefined && limit > 100) throw new UsageError(`--limit must be 100 or less (got ${limit}); use --all to list every project.`);
    const offset = values['offset'] === undefined ? undefined : nonNegativeInt(values['offset'], '--offset');

    if (values['id'] !== undefined) {
      const id = positiveInt(values['id'], '--id');
      refuseFlags(values, ['status', 'limit', 'offset', 'all'], 'with --id');
      const project = await withClient(values, ctx, (client) => client.getProject(id));
      printResult(ctx, json, project, () => projectDetails(project));
      return 0;
    }

    if (values['all'] === true) {
      refuseFlags(values, ['limit', 'offset'], 'with --all (it walks every page)');
      const projects = await withClient(values, ctx, async (client) => {
        const all: Project[] = [];
        for await (const project of client.iterateProjects(status === undefined ? {} : { status })) all.push(project);
        return all;
      });
      const list: ProjectList = { projects, total: projects.length };
      printResult(ctx, json, list, () => `${projectRows(projects)}\n${projects.length} project(s)`);
      return 0;
    }

    const page = await withClient(values, ctx, (client) =>
      client.listProjects({
        ...(status === undefined ? {} : { status }),
        ...(limit === undefined ? {} : { limit }),
        ...(offset === undefined ? {} : { offset }),
      }),
    );
    printResult(ctx, json, page, () => {
      const first = (offset ?? 0) + 1;
      const shown = page.projects.length === 0 ? 'no project on this page' : `${first}–${first + page.projects.length - 1}`;
      const more = (offset ?? 0) + page.projects.length < page.total ? '; --all lists every project' : '';
      return `${projectRows(page.projects)}\n${shown} of ${page.total}${more}`;
    });
    return 0;
  },
};
