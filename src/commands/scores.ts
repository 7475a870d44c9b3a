// `geo-reports scores`: GEO and SEO scores of a project with their history, or of one scan.
import type { ScoreSnapshot } from '../api/schemas.js';
import { formatNumber, withClient } from './api-command.js';
import { API_OPTIONS, integer, oneSelector, positiveInteger, refuseFlags, UsageError } from './args.js';
import { printResult, table } from './context.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand } from './define.js';

/** Score columns, plus one column per AI assistant found in the snapshots. */
export function scoresTable(snapshots: ScoreSnapshot[]): string {
  const assistants = [...new Set(snapshots.flatMap((s) => Object.keys(s.ai_visibility ?? {})))];
  return table(
    ['Date', 'Scan', 'GEO', 'SEO', 'Trust', ...assistants],
    snapshots.map((s) => [
      s.date,
      s.scan_id,
      formatNumber(s.geo_score),
      formatNumber(s.seo_score),
      formatNumber(s['trust_score']),
      ...assistants.map((a) => formatNumber(s.ai_visibility?.[a])),
    ]),
  );
}

export const scoresCommand = defineCommand(
  {
    name: 'scores',
    summary: 'scores of a project (with history) or of one scan',
    synopsis: 'scores (--project N | --scan N)',
    usage: ['--project N [--last] [--limit N]', '--scan N'],
    description: 'Prints AI visibility (GEO) and SEO scores: a project\'s history, oldest first, or one scan.',
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
    const selector = oneSelector('scores', options, ['project', 'scan']);

    if (selector.name === 'scan') {
      const scanId = selector.value;
      refuseFlags(given, ['last', 'limit'], 'with --scan');
      const result = await withClient(options, ctx, (client) => client.getScanScores({ scanId }));
      printResult(ctx, json, result, () => scoresTable([result.scores]));
      return EXIT.ok;
    }
    const projectId = selector.value;
    if (last && limit !== undefined) throw new UsageError('--last and --limit cannot be used together.');
    const result = await withClient(options, ctx, (client) =>
      client.getProjectScores({ projectId, ...(last ? { last: true } : {}), ...(limit === undefined ? {} : { limit }) }),
    );
    printResult(ctx, json, result, () => {
      const latest = result.latest;
      const head = latest
        ? `Project ${result.project_id}: latest GEO ${formatNumber(latest.geo_score) ?? '–'}, SEO ${formatNumber(latest.seo_score) ?? '–'} (${latest.date})`
        : `Project ${result.project_id}: no scan yet`;
      return `${head}\n\n${scoresTable(result.history)}`;
    });
    return EXIT.ok;
  },
);
