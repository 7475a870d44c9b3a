// `geo-reports merge`: the output folders of the shards of one period → one period folder.
import { resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { anyPeriodValue, defineCommand, printResult, UsageError } from './define.js';
import { loadCommandConfig } from './shared.js';

export default defineCommand(
  {
    name: 'merge',
    usage: ['--period YYYY-MM --out DIR SRC...'],
    description: `Combines the outputs of \`geo-reports run --shard K/N\` (each SRC an output folder holding <period>/)
into DIR/<period>/: one manifest listing every project (status of the period and requests per token
recomputed), one agency index.html, every report copied. A project done in one source wins over the
same project failed or pending in another; the same project done twice with different content is
refused, and nothing is written. Merging the same sources again changes nothing.`,
    args: { SRC: { help: 'the --out folder of each shard', variadic: true } },
    options: {
      period: {
        type: 'string',
        value: 'PERIOD',
        parse: anyPeriodValue,
        help: 'the period to merge (required): a month, or a quarter or a year whose reviews the shards made',
      },
      out: { type: 'string', value: 'DIR', help: 'output folder of the merged period (required; may be one of the sources)' },
      config: { type: 'string', value: 'FILE', help: "config file, for the index's branding and language" },
      json: { type: 'boolean', help: 'print the result as JSON' },
    },
  },
  async ({ options, args }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ brandingFrom }, { mergePeriods }, { commandRenderer }] = await Promise.all([
      import('../config/branding.js'),
      import('../output/merge.js'),
      import('../preview/command-templates.js'),
    ]);
    const { period, out } = options;
    const sources = args.SRC;
    if (period === undefined) throw new UsageError('merge: --period is required (e.g. --period 2026-10).');
    if (out === undefined) throw new UsageError('merge: --out is required: the folder that receives the merged period.');
    if (sources.length === 0) {
      throw new UsageError('merge: give at least one source folder (the --out of each shard).', {
        hint: 'Example: geo-reports merge --period 2026-10 --out output shards/shard-1 shards/shard-2',
      });
    }
    const config = await loadCommandConfig(options, ctx);
    // Only the index is rendered: with report.templates, the folder's index.hbs; without, no report template is read.
    const renderer = await commandRenderer(undefined, config, ctx, { pages: 'index' });
    const result = await mergePeriods({
      period,
      sources: sources.map((label) => ({ label, root: resolve(ctx.cwd, label) })),
      outDir: resolve(ctx.cwd, out),
      language: config.report.language,
      branding: await brandingFrom(config),
      renderIndex: (model) => renderer.renderIndex(model),
      phrases: renderer.locales.phrases(config.report.language),
      onWarning: (message) => ctx.stderr.write(`Warning: ${message}\n`),
    });
    printResult(ctx, options.json, result, () =>
      [
        `Merged ${sources.length} source(s) into ${result.periodDir}: ${result.projects} project(s), ${result.done} done; period ${result.status}.`,
        `Files written: ${result.written}, already up to date: ${result.unchanged}.`,
        `Requests: ${result.requests.total} (${
          Object.entries(result.requests.byToken)
            .map(([t, n]) => `${t}: ${n}`)
            .join(', ') || 'none'
        }).`,
      ].join('\n'),
    );
    return EXIT.ok;
  },
);
