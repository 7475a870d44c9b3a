// `geo-reports merge`: the output folders of the shards of one period → one period folder.
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { mergePeriods } from '../output/merge.js';
import { PERIOD_PATTERN } from '../output/store.js';
import { createHtmlRenderer } from '../render/html.js';
import { parseCommandArgs, stringValue, UsageError } from './args.js';
import { brandingFrom } from './batch-runner.js';
import { printResult, type Command } from './context.js';

const OPTIONS = {
  period: { type: 'string' },
  out: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const HELP = `Usage: geo-reports merge --period YYYY-MM --out DIR SRC...

Combines the outputs of \`geo-reports run --shard K/N\` (each SRC an output folder holding <period>/)
into DIR/<period>/: one manifest listing every project (status of the period and requests per token
recomputed), one agency index.html, every report copied. A project done in one source wins over the
same project failed or pending in another; the same project done twice with different content is
refused, and nothing is written. Merging the same sources again changes nothing.

Options:
  --period YYYY-MM     the period to merge (required)
  --out DIR            output folder of the merged period (required; may be one of the sources)
  --config FILE        config file, for the index's branding and language
  --json               print the result as JSON
`;

export const mergeCommand: Command = {
  name: 'merge',
  usage: 'merge --period YYYY-MM --out DIR SRC...',
  summary: 'combine the shards of a period into one folder',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, positionals: Number.MAX_SAFE_INTEGER, help: HELP, command: 'merge' }, ctx.stdout);
    if (args === null) return 0;
    const { values, positionals } = args;
    const period = stringValue(values['period']);
    if (period === undefined) throw new UsageError('merge: --period is required (e.g. --period 2026-10).');
    if (!PERIOD_PATTERN.test(period)) throw new UsageError(`--period must look like 2026-10 (got "${period}").`);
    const out = stringValue(values['out']);
    if (out === undefined) throw new UsageError('merge: --out is required: the folder that receives the merged period.');
    if (positionals.length === 0) {
      throw new UsageError('merge: give at least one source folder (the --out of each shard).', {
        hint: 'Example: geo-reports merge --period 2026-10 --out output shards/shard-1 shards/shard-2',
      });
    }
    const { config } = await loadConfig({
      ...(typeof values['config'] === 'string' ? { path: values['config'] } : {}),
      cwd: ctx.cwd,
    });
    const renderer = await createHtmlRenderer();
    const result = await mergePeriods({
      period,
      sources: positionals.map((label) => ({ label, root: resolve(ctx.cwd, label) })),
      outDir: resolve(ctx.cwd, out),
      language: config.report.language,
      branding: await brandingFrom(config),
      renderIndex: (model) => renderer.renderIndex(model),
      onWarning: (message) => ctx.stderr.write(`Warning: ${message}\n`),
    });
    printResult(ctx, values['json'] === true, result, () =>
      [
        `Merged ${positionals.length} source(s) into ${result.periodDir}: ${result.projects} project(s), ${result.done} done; period ${result.status}.`,
        `Files written: ${result.written}, already up to date: ${result.unchanged}.`,
        `Requests: ${result.requests.total} (${Object.entries(result.requests.byToken).map(([t, n]) => `${t}: ${n}`).join(', ') || 'none'}).`,
      ].join('\n'),
    );
    return 0;
  },
};
