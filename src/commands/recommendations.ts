// `geo-reports recommendations`: AI-generated recommendations of a project or a scan, most urgent first.
import { CATEGORIES, PRIORITIES } from '../api/schemas.js';
import { readRecommendationList } from '../content/lists.js';
import type { RecommendationContent } from '../content/report.js';
import { API_OPTIONS, API_OPTIONS_HELP, oneOf, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { givenFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  project: { type: 'string' },
  scan: { type: 'string' },
  priority: { type: 'string' },
  category: { type: 'string' },
} as const;

const HELP = `Usage: geo-reports recommendations (--project N | --scan N) [--priority P] [--category C]

Lists the AI-generated recommendations of a project's latest scan, or of one scan.

Options:
  --project N          recommendations of project N
  --scan N             recommendations of scan N
  --priority P         only this priority: ${PRIORITIES.join(', ')}
  --category C         only this category: ${CATEGORIES.join(', ')}
${API_OPTIONS_HELP}
`;

const priorityRank = (r: RecommendationContent): number => PRIORITIES.indexOf(r.priority);

export function recommendationsTable(recommendations: RecommendationContent[]): string {
  const sorted = [...recommendations].sort((a, b) => priorityRank(a) - priorityRank(b));
  return table(
    ['ID', 'Priority', 'Category', 'Title'],
    sorted.map((r) => [r.id, r.priority, r.category, r.title]),
  );
}

export const recommendationsCommand: Command = {
  name: 'recommendations',
  usage: 'recommendations (--project N | --scan N) …',
  summary: 'AI recommendations of a project or a scan',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'recommendations' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const selectors = givenFlags(values, ['project', 'scan']);
    if (selectors.length !== 1) {
      throw new UsageError(`recommendations: give exactly one of --project N or --scan N${selectors.length > 1 ? ', not both' : ''}.`, {
        hint: 'Run `geo-reports recommendations --help`.',
      });
    }
    const selector =
      selectors[0] === 'scan' ? { scanId: positiveInt(values['scan'], '--scan') } : { projectId: positiveInt(values['project'], '--project') };
    const priority = oneOf(values['priority'], PRIORITIES, '--priority');
    const category = oneOf(values['category'], CATEGORIES, '--category');
    const { data, recommendations } = await withClient(values, ctx, async (client, config) => {
      const answer = await client.listRecommendations({
        ...selector,
        ...(priority === undefined ? {} : { priority }),
        ...(category === undefined ? {} : { category }),
      });
      return { data: answer, recommendations: readRecommendationList(answer, config.api.fields) };
    });
    printResult(ctx, values['json'] === true, data, () => `${recommendationsTable(recommendations)}\n${recommendations.length} recommendation(s)`);
    return 0;
  },
};
