// `geo-reports scores`: GEO and SEO scores of a project with their history, or of one scan.
import { readScoresAnswer, type ScoreSnapshot } from '../content/lists.js';
import { API_OPTIONS, API_OPTIONS_HELP, optionalPositiveInt, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { formatNumber, givenFlags, refuseFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  project: { type: 'string' },
  scan: { type: 'string' },
  last: { type: 'boolean' },
  limit: { type: 'string' },
} as const;

const HELP = `Usage: geo-reports scores --project N [--last] [--limit N]
       geo-reports scores --scan N

Prints AI visibility (GEO) and SEO scores: a project's history, oldest first, or one scan.

Options:
  --project N          scores of project N with their evolution history
  --last               with --project: only the latest result
  --limit N            with --project: at most N results (1 to 100)
  --scan N             scores of scan N
${API_OPTIONS_HELP}
`;

/** Score columns, plus one column per AI assistant found in the snapshots. */
export function scoresTable(snapshots: ScoreSnapshot[]): string {
  const assistants = [...new Set(snapshots.flatMap((s) => s.aiVisibility.map((v) => v.assistant)))];
  return table(
    ['Date', 'Scan', 'GEO', 'SEO', 'Trust', ...assistants],
    snapshots.map((s) => [
      s.date,
      s.scanId,
      formatNumber(s.geo),
      formatNumber(s.seo),
      formatNumber(s.trust),
      ...assistants.map((a) => formatNumber(s.aiVisibility.find((v) => v.assistant === a)?.value)),
    ]),
  );
}

export const scoresCommand: Command = {
  name: 'scores',
  usage: 'scores (--project N | --scan N) …',
  summary: 'scores of a project (with history) or of one scan',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'scores' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const json = values['json'] === true;
    const selectors = givenFlags(values, ['project', 'scan']);
    if (selectors.length !== 1) {
      throw new UsageError(`scores: give exactly one of --project N or --scan N${selectors.length > 1 ? ', not both' : ''}.`, {
        hint: 'Run `geo-reports scores --help`.',
      });
    }
    const limit = optionalPositiveInt(values['limit'], '--limit');
    if (limit !== undefined && limit > 100) throw new UsageError(`--limit must be 100 or less (got ${limit}).`);

    if (selectors[0] === 'scan') {
      const scanId = positiveInt(values['scan'], '--scan');
      refuseFlags(values, ['last', 'limit'], 'with --scan');
      const { data, scores } = await withClient(values, ctx, async (client, config) => {
        const answer = await client.getScanScores({ scanId });
        return { data: answer, scores: readScoresAnswer(answer, config.api.fields) };
      });
      printResult(ctx, json, data, () => (scores.latest === null ? `Scan ${scanId}: no score found in the answer` : scoresTable([scores.latest])));
      return 0;
    }
    const projectId = positiveInt(values['project'], '--project');
    if (values['last'] === true && limit !== undefined) throw new UsageError('--last and --limit cannot be used together.');
    const { data, scores } = await withClient(values, ctx, async (client, config) => {
      const answer = await client.getProjectScores({
        projectId,
        ...(values['last'] === true ? { last: true } : {}),
        ...(limit === undefined ? {} : { limit }),
      });
      return { data: answer, scores: readScoresAnswer(answer, config.api.fields) };
    });
    printResult(ctx, json, data, () => {
      const latest = scores.latest;
      const head = latest
        ? `Project ${projectId}: latest GEO ${formatNumber(latest.geo) ?? '–'}, SEO ${formatNumber(latest.seo) ?? '–'}${latest.date === null ? '' : ` (${latest.date})`}`
        : `Project ${projectId}: no scan yet`;
      return scores.history.length === 0 ? head : `${head}\n\n${scoresTable(scores.history)}`;
    });
    return 0;
  },
};
