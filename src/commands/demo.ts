// `geo-reports demo`: the embedded simulator on a free loopback port, and the monthly batch against it.
import { join, resolve } from 'node:path';
import { ApiClient } from '../api/client.js';
import { periodBefore } from '../period.js';
import { TokenPool } from '../api/tokens.js';
import { loadConfig } from '../config/load.js';
import { DEMO_TOKEN, startSimulator } from '../simulator/server.js';
import { parseCommandArgs, positiveInt, stringValue } from './args.js';
import { executeBatch } from './batch-runner.js';
import type { Command } from './context.js';
import { periodOption } from './run.js';

const HELP = `Usage: geo-reports demo [options]

Starts the API simulator inside this process on a free loopback port (no network, no token needed),
runs the monthly batch against it for the period before and then for the period itself (so the
reports show month-over-month changes and recommendation tracking), and prints where they are.

Options:
  --out DIR            output folder (default: output/)
  --period YYYY-MM     period to report (default: the previous month)
  --projects N         projects in the simulated account (default: 36)
  --config FILE        config file with the branding (default: config/geo-reports.json)
  --json               one JSON line per event
`;

/** 06:00 UTC on the 4th of the month after `period`: when the monthly run reports on it. */
function runDay(period: string): Date {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 4, 6));
}

export const demoCommand: Command = {
  name: 'demo',
  usage: 'demo [--out DIR]',
  summary: 'run the batch against the embedded simulator (no account needed)',
  async run(argv, ctx) {
    const args = parseCommandArgs(
      argv,
      {
        options: {
          out: { type: 'string' },
          period: { type: 'string' },
          projects: { type: 'string' },
          config: { type: 'string' },
          json: { type: 'boolean' },
        },
        help: HELP,
        command: 'demo',
      },
      ctx.stdout,
    );
    if (args === null) return 0;
    const { values } = args;
    const period = periodOption(values, ctx);
    const projectCount = values['projects'] === undefined ? undefined : positiveInt(values['projects'], '--projects');
    const { config } = await loadConfig({
      ...(typeof values['config'] === 'string' ? { path: values['config'] } : {}),
      cwd: ctx.cwd,
    });
    // The simulated service lives on the 4th of the month after the period being reported, as a real monthly run would.
    let simulatedNow = runDay(periodBefore(period));
    const simulator = await startSimulator({
      tokens: [DEMO_TOKEN],
      clock: () => simulatedNow,
      ...(projectCount !== undefined ? { projectCount } : {}),
    });
    try {
      ctx.stderr.write(`Demo API simulator on ${simulator.url}\n`);
      const outDir = stringValue(values['out']) ?? config.output.dir;
      let code = 0;
      for (const reported of [periodBefore(period), period]) {
        simulatedNow = runDay(reported);
        const client = new ApiClient({
          baseUrl: simulator.url,
          tokens: new TokenPool([DEMO_TOKEN], { clock: () => simulatedNow }),
          clock: () => simulatedNow,
          signal: ctx.signal,
        });
        const selection = { statuses: config.report.statuses, projectIds: [] };
        ({ code } = await executeBatch(
          { client, config, period: reported, outDir, selection, json: values['json'] === true },
          ctx,
        ));
        if (code !== 0 && code !== 4) return code;
      }
      ctx.stdout.write(`Open ${join(resolve(ctx.cwd, outDir), period, 'index.html')} to see every client report of the demo.\n`);
      return code;
    } finally {
      await simulator.close();
    }
  },
};
