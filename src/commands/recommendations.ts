// `geo-reports recommendations`: AI-generated recommendations of a project or a scan, most urgent first.
import { CATEGORIES, PRIORITIES } from '../spec/vocabulary.js';
import type { RecommendationContent } from '../content/report.js';
import { EXIT } from '../exit-codes.js';
import { choice, defineCommand, oneSelector, positiveInteger, printResult, table } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

const priorityRank = (r: RecommendationContent): number => PRIORITIES.indexOf(r.priority);

export function recommendationsTable(recommendations: RecommendationContent[]): string {
  const sorted = [...recommendations].sort((a, b) => priorityRank(a) - priorityRank(b));
  return table(
    ['ID', 'Priority', 'Category', 'Title'],
    sorted.map((r) => [r.id, r.priority, r.category, r.title]),
  );
}

export default defineCommand(
  {
    name: 'recommendations',
    usage: ['(--project N | --scan N) [--priority P] [--category C]'],
    description: "Lists the AI-generated recommendations of a project's latest scan, or of one scan.",
    options: {
      project: { type: 'string', value: 'N', parse: positiveInteger, help: 'recommendations of project N' },
      scan: { type: 'string', value: 'N', parse: positiveInteger, help: 'recommendations of scan N' },
      priority: { type: 'string', value: 'P', parse: choice(PRIORITIES), help: `only this priority: ${PRIORITIES.join(', ')}` },
      category: { type: 'string', value: 'C', parse: choice(CATEGORIES), help: `only this category: ${CATEGORIES.join(', ')}` },
      ...API_OPTIONS,
    },
  },
  async ({ options }, ctx) => {
    const { priority, category } = options;
    // The reader is loaded when the command runs: its --help loads the declaration alone.
    const { readRecommendationList } = await import('../content/lists.js');
    const selector = oneSelector('recommendations', options, ['project', 'scan']);
    const { data, recommendations } = await withClient(options, ctx, async (client, config) => {
      const answer = await client.listRecommendations({
        ...(selector.name === 'scan' ? { scanId: selector.value } : { projectId: selector.value }),
        ...(priority === undefined ? {} : { priority }),
        ...(category === undefined ? {} : { category }),
      });
      return { data: answer, recommendations: readRecommendationList(answer, config.api.fields) };
    });
    printResult(ctx, options.json, data, () => `${recommendationsTable(recommendations)}\n${recommendations.length} recommendation(s)`);
    return EXIT.ok;
  },
);
