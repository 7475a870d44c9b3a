// `geo-reports events`: the webhook deliveries received, and what was done with each.
import { join, resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { choice, defineCommand, positiveInteger, printResult, table, UsageError, type ValueParser } from './define.js';
import { API_OPTIONS, BATCH_OPTIONS, loadCommandConfig } from './shared.js';

const EVENT_KIND_NAMES = ['scan.completed', 'scan.failed', 'score.change', 'test', 'unknown'] as const;
const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `7d`, `24h`, `90m`, or a date (YYYY-MM-DD): how far back to list. */
const since: ValueParser<{ ms: number } | { from: Date }> = (value, flag) => {
  const span = /^(\d{1,5})([mhd])$/.exec(value);
  if (span !== null) return { ms: Number(span[1]) * UNITS[span[2] as keyof typeof UNITS] };
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) return { from: new Date(`${value}T00:00:00Z`) };
  throw new UsageError(`${flag} takes a span such as 7d, 24h or 90m, or a date YYYY-MM-DD (got "${value}").`);
};

export default defineCommand(
  {
    name: 'events',
    description: `Lists the deliveries \`geo-reports listen\` received (from <out>/events/), each once, with what was
done: alerted (and where each alert stands on each channel), within cooldown, below the threshold,
recorded, test delivery, unknown kind, no project, no scores, not sent (no channel), or pending.`,
    options: {
      since: { type: 'string', value: 'SPAN', parse: since, help: 'how far back: 7d (default), 24h, 90m, or a date YYYY-MM-DD' },
      project: { type: 'string', value: 'ID', parse: positiveInteger, help: 'only this project' },
      kind: { type: 'string', value: 'KIND', parse: choice(EVENT_KIND_NAMES), help: `only this kind: ${EVENT_KIND_NAMES.join(', ')}` },
      out: BATCH_OPTIONS.out,
      config: API_OPTIONS.config,
      json: API_OPTIONS.json,
    },
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const { listEvents } = await import('../events/list.js');
    const config = await loadCommandConfig(options, ctx);
    const dir = join(resolve(ctx.cwd, options.out ?? config.output.dir), 'events');
    const span = options.since ?? { ms: 7 * UNITS.d };
    const from = 'from' in span ? span.from : new Date(ctx.clock().getTime() - span.ms);
    const rows = await listEvents(dir, { since: from, projectId: options.project, kind: options.kind }, (file, line) =>
      ctx.stderr.write(`warning: ${file} line ${line} is unreadable and left out\n`),
    );
    printResult(ctx, options.json, rows, () =>
      table(
        ['received', 'kind', 'project', 'outcome', 'alerts', 'detail'],
        rows.map((row) => [
          row.receivedAt.replace('T', ' ').slice(0, 19),
          row.kindText ?? row.kind,
          row.projectId,
          row.outcome.replace(/_/g, ' '),
          row.alerts
            .map(
              (a) =>
                Object.entries(a.channels)
                  .map(([channel, status]) => `${channel} ${status}`)
                  .join(', ') || 'owed',
            )
            .join('; ') || null,
          row.detail,
        ]),
      ),
    );
    return EXIT.ok;
  },
);
