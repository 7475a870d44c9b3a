// `geo-reports demo`: the embedded simulator on a free loopback port, and the monthly batch against it.
import { join, resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { monthlyRunDay, periodBefore } from '../period.js';
import { DIALECT_NAMES } from '../simulator/dialects.js';
import { choice, defineCommand, positiveInteger } from './define.js';
import { BATCH_JSON_OPTION, BATCH_OPTIONS, browserEndpointOption, loadCommandConfig, periodOrPrevious } from './shared.js';

export default defineCommand(
  {
    name: 'demo',
    description: `Starts the API simulator inside this process on a free loopback port (no network, no token needed),
runs the monthly batch against it for the period before and then for the period itself (so the
reports show month-over-month changes and recommendation tracking), and prints where they are.`,
    options: {
      out: BATCH_OPTIONS.out,
      period: BATCH_OPTIONS.period,
      'browser-ws-endpoint': BATCH_OPTIONS['browser-ws-endpoint'],
      templates: BATCH_OPTIONS.templates,
      projects: { type: 'string', value: 'N', parse: positiveInteger, help: 'projects in the simulated account (default: 36)' },
      config: { type: 'string', value: 'FILE', help: 'config file with the branding (default: config/geo-reports.json)' },
      dialect: {
        type: 'string',
        value: 'NAME',
        parse: choice(DIALECT_NAMES),
        help: `wire form the simulator answers in: ${DIALECT_NAMES.join(', ')} (default classic)`,
      },
      json: BATCH_JSON_OPTION,
    },
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ ApiClient }, { TokenPool }, { executeBatch }, { commandRenderer }, { DEMO_TOKEN, startSimulator }] = await Promise.all([
      import('../api/client.js'),
      import('../api/tokens.js'),
      import('../batch/execute.js'),
      import('../preview/command-templates.js'),
      import('../simulator/server.js'),
    ]);
    const period = periodOrPrevious(options.period, ctx);
    // The scan sections (src/sections) are on by default: the demo shows them unless the config switches one off.
    const config = await loadCommandConfig(options, ctx);
    const renderer = await commandRenderer(options.templates, config, ctx);
    // The simulated service lives on the 4th of the month after the period being reported, as a real monthly run would.
    let simulatedNow = monthlyRunDay(periodBefore(period));
    const simulator = await startSimulator({
      tokens: [DEMO_TOKEN],
      clock: () => simulatedNow,
      ...(options.projects !== undefined ? { projectCount: options.projects } : {}),
      ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    });
    try {
      ctx.stderr.write(`Demo API simulator on ${simulator.url}\n`);
      const outDir = options.out ?? config.output.dir;
      let code: number = EXIT.ok;
      for (const reported of [periodBefore(period), period]) {
        simulatedNow = monthlyRunDay(reported);
        const client = new ApiClient({
          baseUrl: simulator.url,
          tokens: new TokenPool([DEMO_TOKEN], { clock: () => simulatedNow }),
          clock: () => simulatedNow,
          signal: ctx.signal,
        });
        const selection = { statuses: config.report.statuses, projectIds: [] };
        ({ code } = await executeBatch(
          { client, config, period: reported, outDir, selection, json: options.json, renderer, ...browserEndpointOption(options['browser-ws-endpoint']) },
          ctx,
        ));
        if (code !== EXIT.ok && code !== EXIT.held) return code;
      }
      ctx.stdout.write(`Open ${join(resolve(ctx.cwd, outDir), period, 'index.html')} to see every client report of the demo.\n`);
      return code;
    } finally {
      await simulator.close();
    }
  },
);
