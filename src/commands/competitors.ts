// `geo-reports competitors`: the caller's projects against the global benchmark.
import type { Benchmark, CompetitorRow } from '../api/schemas.js';
import { API_OPTIONS, API_OPTIONS_HELP, optionalPositiveInt, parseCommandArgs } from './args.js';
import { formatNumber, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = { ...API_OPTIONS, project: { type: 'string' } } as const;
/** Other projects named under a single project's comparison; --json has them all. */
const OTHERS_SHOWN = 5;

const HELP = `Usage: geo-reports competitors [--project N]

Compares projects with the global benchmark: scores, percentile and gap to the benchmark average.
Without --project, every project of the account is listed.

Options:
  --project N          project N against the benchmark, with the account's other projects
${API_OPTIONS_HELP}
`;

function benchmarkLine(benchmark: Benchmark): string {
  const seo = benchmark.seo_score ? `, SEO ${formatNumber(benchmark.seo_score.average)}` : '';
  const sample = benchmark.sample_size === undefined ? '' : ` over ${benchmark.sample_size} sites`;
  return `Benchmark average: GEO ${formatNumber(benchmark.geo_score.average)}${seo}${sample}`;
}

function competitorTable(rows: CompetitorRow[]): string {
  return table(
    ['Project', 'Name', 'GEO', 'SEO', 'Percentile', 'GEO vs avg', 'SEO vs avg'],
    rows.map((r) => [
      r.project_id,
      r.name,
      formatNumber(r.scores.geo_score),
      formatNumber(r.scores.seo_score),
      formatNumber(r.percentile),
      formatNumber(r.vs_benchmark['geo_score'], { signed: true }),
      formatNumber(r.vs_benchmark['seo_score'], { signed: true }),
    ]),
  );
}

export const competitorsCommand: Command = {
  name: 'competitors',
  usage: 'competitors [--project N]',
  summary: 'projects against the global benchmark',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'competitors' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const json = values['json'] === true;
    const projectId = optionalPositiveInt(values['project'], '--project');

    if (projectId === undefined) {
      const result = await withClient(values, ctx, (client) => client.getCompetitors());
      printResult(ctx, json, result, () => `${benchmarkLine(result.benchmark)}\n\n${competitorTable(result.projects)}`);
      return 0;
    }
    const result = await withClient(values, ctx, (client) => client.getProjectCompetitors(projectId));
    printResult(ctx, json, result, () => {
      const others = result.other_projects ?? [];
      const names = others.slice(0, OTHERS_SHOWN).map((o) => o.name ?? `#${o.project_id}`);
      const more = others.length > OTHERS_SHOWN ? ` and ${others.length - OTHERS_SHOWN} more (\`geo-reports competitors\` lists them all)` : '';
      const othersText = others.length === 0 ? '' : `\n\nOther projects of the account: ${names.join(', ')}${more}`;
      return `${benchmarkLine(result.benchmark)}\n\n${competitorTable([result])}${othersText}`;
    });
    return 0;
  },
};
