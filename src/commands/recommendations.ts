// `geo-reports recommendations`: AI-generated recommendations of a project or a scan, most urgent first.
import type { Recommendation } from '../api/schemas.js';
import { CATEGORIES, PRIORITIES } from '../api/vocabulary.js';
import { withClient } from './api-command.js';
import { API_OPTIONS, choice, oneSelector, positiveInteger } from './args.js';
import { printResult, table } from './context.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand } from './define.js';

const priorityRank = (r: Recommendation): number => PRIORITIES.indexOf(r.priority);

export function recommendationsTable(recommendations: Recommendation[]): string {
  const sorted = [...recommendations].sort((a, b) => priorityRank(a) - priorityRank(b));
  return table(
    ['ID', 'Priority', 'Category', 'Title'],
    sorted.map((r) => [r.id, r.priority, r.category, r.title]),
  );
}

export const recommendationsCommand = defineCommand(
  {
    name: 'recommendations',
    summary: 'AI recommendations of a project or a scan',
    synopsis: 'recommendations (--project N | --scan N)',
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
    const selector = oneSelector('recommendations', options, ['project', 'scan']);
    const result = await withClient(options, ctx, (client) =>
      client.listRecommendations({
        ...(selector.name === 'scan' ? { scanId: selector.value } : { projectId: selector.value }),
        ...(priority === undefined ? {} : { priority }),
        ...(category === undefined ? {} : { category }),
      }),
    );
    printResult(ctx, options.json, result, () => `${recommendationsTable(result.recommendations)}\n${result.recommendations.length} recommendation(s)`);
    return EXIT.ok;
  },
);
