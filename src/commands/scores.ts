// `geo-reports scores`: GEO and SEO scores of a project with their history, or of one scan.
import type { ScoreSnapshot } from '../content/lists.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, formatNumber, integer, oneSelector, positiveInteger, printResult, refuseFlags, table, UsageError } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

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

export default defineCommand(
  {
    name: 'scores',
    usage: ['--project N [--last] [--limit N]', '--scan N'],
    description: "Prints AI visibility (GEO) and SEO scores: a project's history, oldest first, or one scan.",
    options: {
      project: { type: 'string', value: 'N', parse: positiveInteger, help: 'scores of project N with their evolution history' },
      last: { type: 'boolean', help: 'with --project: only the latest result' },
      limit: { type: 'string', value: 'N', parse: integer({ min: 1, max: 100 }), help: 'with --project: at most N results (1 to 100)' },
      scan: { type: 'string', value: 'N', parse: positiveInteger, help: 'scores of scan N' },
      ...API_OPTIONS,
    },
  },
  async ({ options, given }, ctx) => {
    const { last, limit, json } = options;
    // The reader is loaded when the command runs: its --help loads the declaration alone.
    const { readScoresAnswer } = await import('../content/lists.js');
    const selector = oneSelector('scores', options, ['project', 'scan']);

    if (selector.name === 'scan') {
      const scanId = selector.value;
      refuseFlags(given, ['last', 'limit'], 'with --scan');
      const { data, scores } = await withClient(options, ctx, async (client, config) => {
        const answer = await client.getScanScores({ scanId });
        return { data: answer, scores: readScoresAnswer(answer, config.api.fields) };
      });
      printResult(ctx, json, data, () => (scores.latest === null ? `Scan ${scanId}: no score found in the answer` : scoresTable([scores.latest])));
      return EXIT.ok;
    }
    const projectId = selector.value;
    if (last && limit !== undefined) throw new UsageError('--last and --limit cannot be used together.');
    const { data, scores } = await withClient(options, ctx, async (client, config) => {
      const answer = await client.getProjectScores({ projectId, ...(last ? { last: true } : {}), ...(limit === undefined ? {} : { limit }) });
      return { data: answer, scores: readScoresAnswer(answer, config.api.fields) };
    });
    printResult(ctx, json, data, () => {
      const latest = scores.latest;
      const head = latest
        ? `Project ${projectId}: latest GEO ${formatNumber(latest.geo) ?? '–'}, SEO ${formatNumber(latest.seo) ?? '–'}${latest.date === null ? '' : ` (${latest.date})`}`
        : `Project ${projectId}: no scan yet`;
      return scores.history.length === 0 ? head : `${head}\n\n${scoresTable(scores.history)}`;
    });
    return EXIT.ok;
  },
);
