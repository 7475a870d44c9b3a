// `geo-reports competitors`: the caller's projects against the global benchmark.
import type { Benchmark, CompetitorRow } from '../api/schemas.js';
import { formatNumber, withClient } from './api-command.js';
import { API_OPTIONS, positiveInteger } from './args.js';
import { printResult, table } from './context.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand } from './define.js';

/** Other projects named under a single project's comparison; --json has them all. */
const OTHERS_SHOWN = 5;

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

export const competitorsCommand = defineCommand(
  {
    name: 'competitors',
    summary: 'projects against the global benchmark',
    description:
      'Compares projects with the global benchmark: scores, percentile and gap to the benchmark average.\n' +
      'Without --project, every project of the account is listed.',
    options: {
      project: { type: 'string', value: 'N', parse: positiveInteger, help: "project N against the benchmark, with the account's other projects" },
      ...API_OPTIONS,
    },
  },
  async ({ options }, ctx) => {
    const { project: projectId, json } = options;
    if (projectId === undefined) {
      const result = await withClient(options, ctx, (client) => client.getCompetitors());
      printResult(ctx, json, result, () => `${benchmarkLine(result.benchmark)}\n\n${competitorTable(result.projects)}`);
      return EXIT.ok;
    }
    const result = await withClient(options, ctx, (client) => client.getProjectCompetitors(projectId));
    printResult(ctx, json, result, () => {
      const others = result.other_projects ?? [];
      const names = others.slice(0, OTHERS_SHOWN).map((o) => o.name ?? `#${o.project_id}`);
      const more = others.length > OTHERS_SHOWN ? ` and ${others.length - OTHERS_SHOWN} more (\`geo-reports competitors\` lists them all)` : '';
      const othersText = others.length === 0 ? '' : `\n\nOther projects of the account: ${names.join(', ')}${more}`;
      return `${benchmarkLine(result.benchmark)}\n\n${competitorTable([result])}${othersText}`;
    });
    return EXIT.ok;
  },
);
