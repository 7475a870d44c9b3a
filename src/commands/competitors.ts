// `geo-reports competitors`: the caller's projects against the global benchmark.
import type { CompetitorsContent, RankingRow } from '../content/competitors.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, formatNumber, positiveInteger, printResult, table } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

/** Other projects named under a single project's comparison; --json has them all. */
const OTHERS_SHOWN = 5;

function benchmarkLine(benchmark: CompetitorsContent['benchmark']): string {
  const geo = formatNumber(benchmark.geo?.average) ?? 'not found';
  const seo = benchmark.seo?.average == null ? '' : `, SEO ${formatNumber(benchmark.seo.average)}`;
  const sample = benchmark.sampleSize === null ? '' : ` over ${benchmark.sampleSize} sites`;
  const figures = benchmark.geo?.figures.length ? ` (GEO ${benchmark.geo.figures.map((f) => `${f.name} ${formatNumber(f.value)}`).join(', ')})` : '';
  return `Benchmark average: GEO ${geo}${seo}${sample}${figures}`;
}

function competitorTable(rows: RankingRow[]): string {
  return table(
    ['Project', 'Name', 'GEO', 'SEO', 'Percentile', 'GEO vs avg', 'SEO vs avg'],
    rows.map((r) => [
      r.projectId,
      r.name,
      formatNumber(r.geo),
      formatNumber(r.seo),
      formatNumber(r.percentile),
      formatNumber(r.vsBenchmark.geo, { signed: true }),
      formatNumber(r.vsBenchmark.seo, { signed: true }),
    ]),
  );
}

export default defineCommand(
  {
    name: 'competitors',
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
    // The reader is loaded when the command runs: its --help loads the declaration alone.
    const { readCompetitors } = await import('../content/competitors.js');
    if (projectId === undefined) {
      const { data, content } = await withClient(options, ctx, async (client, config) => {
        const answer = await client.getCompetitors();
        return { data: answer, content: readCompetitors(answer, config.api.fields) };
      });
      printResult(ctx, json, data, () => `${benchmarkLine(content.benchmark)}\n\n${competitorTable(content.rows)}`);
      return EXIT.ok;
    }
    const { data, content } = await withClient(options, ctx, async (client, config) => {
      const answer = await client.getProjectCompetitors(projectId);
      return { data: answer, content: readCompetitors(answer, config.api.fields) };
    });
    printResult(ctx, json, data, () => {
      // The project's own row first; the account's other projects, when the answer lists them, after it.
      const own = content.rows.filter((r) => r.projectId === projectId);
      const others = content.rows.filter((r) => r.projectId !== projectId);
      const names = others.slice(0, OTHERS_SHOWN).map((o) => o.name ?? `#${o.projectId}`);
      const more = others.length > OTHERS_SHOWN ? ` and ${others.length - OTHERS_SHOWN} more (\`geo-reports competitors\` lists them all)` : '';
      const othersText = others.length === 0 ? '' : `\n\nOther projects of the account: ${names.join(', ')}${more}`;
      return `${benchmarkLine(content.benchmark)}\n\n${competitorTable(own.length > 0 ? own : content.rows.slice(0, 1))}${othersText}`;
    });
    return EXIT.ok;
  },
);
