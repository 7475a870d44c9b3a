// `geo-reports export`: every value of every client's report already on disk, as one table for a spreadsheet.
// No request to the API.
import { isAbsolute, join, resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { anyPeriodValue, choice, defineCommand, UsageError } from './define.js';
import { ALL_CLIENTS_OPTION, BATCH_OPTIONS, loadCommandConfig } from './shared.js';

const FORMATS = ['csv', 'xlsx', 'json'] as const;

export default defineCommand(
  {
    name: 'export',
    description: `Reads the reports the monthly runs left in the output folder (each period folder's manifest and every
client's data.json) and writes one table of their values, the numbers the reports show: one row per client,
month and value, with the columns

  period, project_id, client, domain, language, section, key, value, unit, change, period_kind

(change: the value minus the month before's, as the report shows it; empty on a client's first month).

  csv    RFC 4180, UTF-8 (--bom for Excel); a text that starts like a formula (=, +, -, @) gets a leading '
  xlsx   an Excel workbook: the table in the sheet "data", and one sheet per section in wide form (a row per
         client and month, a column per value), header rows frozen, months as dates, numbers as numbers,
         every text a text cell (never a formula)
  json   JSON lines: one object per row, the columns as keys

The file is written whole or not at all.`,
    options: {
      out: BATCH_OPTIONS.out,
      history: {
        type: 'string',
        value: 'DIR',
        help: 'a checkout of the history branch: the months --out lacks are read there\n(`git worktree add DIR reports-history`)',
      },
      period: {
        type: 'string',
        value: 'PERIOD',
        parse: anyPeriodValue,
        multiple: true,
        help: 'only this period (a month, a quarter or a year), repeatable (default: every period folder)',
      },
      format: { type: 'string', value: 'FORMAT', parse: choice(FORMATS), default: 'csv', help: 'csv, xlsx or json' },
      file: { type: 'string', value: 'PATH', help: 'the file written (default: <out>/export-<first>_<last>.<csv|xlsx|jsonl>)' },
      all: ALL_CLIENTS_OPTION,
      bom: { type: 'boolean', help: 'CSV: start with a UTF-8 byte order mark, so that Excel reads accents right' },
      config: { type: 'string', value: 'FILE', help: 'config file: field map, client names (default: config/geo-reports.json when present)' },
      json: { type: 'boolean', help: 'print the summary as one JSON line' },
    },
    epilog: `Exit codes: ${EXIT.ok} written, ${EXIT.usage} usage, config or disk error (no such output folder or period,
a file that cannot be written), ${EXIT.sigint}/${EXIT.sigterm} stopped (no file written).`,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const exporter = await import('../export/write.js');
    if (options.bom && options.format !== 'csv') throw new UsageError('--bom is for --format csv only.');
    // The config alone, not the API's setup: export sends no request.
    const config = await loadCommandConfig(options, ctx);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { listedClients } = await import('../config/client-scope.js');
    const listed = listedClients(config, options.all);
    const outDir = resolve(ctx.cwd, options.out ?? config.output.dir);
    const history = options.history === undefined ? undefined : resolve(ctx.cwd, options.history);
    const periods = await exporter.exportPeriods(outDir, options.period, history);
    const file =
      options.file === undefined
        ? join(outDir, exporter.defaultExportName(periods, options.format))
        : isAbsolute(options.file)
          ? options.file
          : resolve(ctx.cwd, options.file);
    const summary = await exporter.writeExport({
      outDir,
      ...(history !== undefined ? { history } : {}),
      periods,
      config,
      clock: ctx.clock,
      signal: ctx.signal,
      format: options.format,
      file,
      bom: options.bom,
      listed: listed === null ? null : [...listed],
      onSkip: (message) => ctx.stderr.write(`Warning: ${message}\n`),
    });
    if (options.json) ctx.stdout.write(`${JSON.stringify({ type: 'export', ...summary })}\n`);
    else {
      const span = summary.periods.length === 0 ? 'no period' : `${summary.periods[0]} to ${summary.periods.at(-1)}`;
      ctx.stdout.write(`Wrote ${summary.rows} rows (${summary.reports} client reports, ${span}) to ${summary.file}\n`);
    }
    return EXIT.ok;
  },
);
