// `geo-reports projects`: one page of the project list, every page (--all), or one project (--id).
import type { Project, ProjectList } from '../api/schemas.js';
import { PROJECT_STATUSES } from '../spec/vocabulary.js';
import { EXIT } from '../exit-codes.js';
import { choice, defineCommand, formatText, formatTime, integer, positiveInteger, printResult, refuseFlags, table } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

function projectRows(projects: Project[]): string {
  return table(
    ['ID', 'Name', 'Domain', 'Status', 'Language', 'Last scan'],
    projects.map((p) => {
      const raw = p as Record<string, unknown>;
      return [
        p.id,
        p.name,
        p.domain,
        p.status,
        formatText(raw['language'] ?? raw['locale'] ?? raw['lang']),
        formatTime(raw['last_scan_at'] ?? raw['last_scan']),
      ];
    }),
  );
}

function projectDetails(project: Project): string {
  const rows = Object.entries(project).map(([key, value]) => [key, formatText(value) ?? JSON.stringify(value)]);
  return table(['Field', 'Value'], rows);
}

export default defineCommand(
  {
    name: 'projects',
    description: 'Lists the projects of the account, one page at a time.',
    options: {
      status: {
        type: 'string',
        value: 'S',
        parse: choice(PROJECT_STATUSES),
        help: `only projects with this status: ${PROJECT_STATUSES.join(', ')}`,
      },
      limit: { type: 'string', value: 'N', parse: integer({ min: 1, max: 100 }), help: "rows per page, 1 to 100 (default: the API's page size)" },
      offset: { type: 'string', value: 'N', parse: integer(), help: 'rows to skip (default 0)' },
      all: { type: 'boolean', help: 'walk every page and list all projects (one request per 100 projects)' },
      id: { type: 'string', value: 'N', parse: positiveInteger, help: 'show one project' },
      ...API_OPTIONS,
    },
  },
  async ({ options, given }, ctx) => {
    const { status, limit, offset, id, json } = options;

    if (id !== undefined) {
      refuseFlags(given, ['status', 'limit', 'offset', 'all'], 'with --id');
      const project = await withClient(options, ctx, (client) => client.getProject(id));
      printResult(ctx, json, project, () => projectDetails(project));
      return EXIT.ok;
    }

    if (options.all) {
      refuseFlags(given, ['limit', 'offset'], 'with --all (it walks every page)');
      const projects = await withClient(options, ctx, async (client) => {
        const all: Project[] = [];
        for await (const project of client.iterateProjects(status === undefined ? {} : { status })) all.push(project);
        return all;
      });
      const list: ProjectList = { projects, total: projects.length };
      printResult(ctx, json, list, () => `${projectRows(projects)}\n${projects.length} project(s)`);
      return EXIT.ok;
    }

    const page = await withClient(options, ctx, (client) =>
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
    return EXIT.ok;
  },
);
