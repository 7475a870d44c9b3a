// `geo-reports schedule`: stays up and runs the monthly batch on the configured cron, resuming quota-stopped periods.
import { join, resolve } from 'node:path';
import { SMTP_URL_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { previousPeriod } from '../period.js';
import { API_OPTIONS } from './args.js';
import { defineCommand } from './define.js';
import { BATCH_OPTIONS } from './run.js';

export const scheduleCommand = defineCommand(
  {
    name: 'schedule',
    summary: 'stay running and report every month on a cron (node-cron)',
    description: `Stays running and reports every period on the cron of the config (schedule.cron, default
"0 6 4 * *": 06:00 on the 4th, in schedule.timezone). A period stopped by the daily quota is
resumed on the following days (schedule.resumeCron). Runs never overlap; a failed run is logged
and the schedule goes on. With delivery.email.auto, each run then emails the finished reports
(as \`geo-reports send\`, SMTP from ${SMTP_URL_ENV}). Stop with Ctrl-C or SIGTERM: a run in progress saves its
state first.`,
    options: { out: BATCH_OPTIONS.out, ...API_OPTIONS },
    stopsOnSignal: true,
  },
  async ({ options }, ctx) => {
    const [{ executeBatch }, { setupApi }, { periodNeedsWork, startSchedule }, { readManifest }] = await Promise.all([
      import('./batch-runner.js'),
      import('./api-setup.js'),
      import('../batch/schedule.js'),
      import('../output/store.js'),
    ]);
    const log = (line: string): void => {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), schedule: line })}\n`);
    };
    // Validates config, tokens and base URL now rather than at the first run, weeks later.
    const { config, client: probe } = await setupApi(options, ctx);
    await probe.close();
    const outDir = resolve(ctx.cwd, options.out ?? config.output.dir);
    const sendAfter = config.delivery.email.auto
      ? (await import('./delivery-runner.js')).sendAfterRuns(config, ctx, { allowInsecure: options['allow-insecure'], json: true })
      : null;
    const handle = startSchedule({
      cron: config.schedule.cron,
      resumeCron: config.schedule.resumeCron,
      timezone: config.schedule.timezone,
      log,
      async needsResume() {
        return periodNeedsWork(await readManifest(join(outDir, previousPeriod(ctx.clock(), config.schedule.timezone))));
      },
      async job() {
        // A fresh client per run: a new quota day, a new token ledger.
        const { client } = await setupApi(options, ctx);
        const period = previousPeriod(ctx.clock(), config.schedule.timezone);
        const selection = { statuses: config.report.statuses, projectIds: [] };
        const { code } = await executeBatch({ client, config, period, outDir, selection, json: true }, ctx);
        return sendAfter === null ? code : sendAfter({ code, period, outDir });
      },
    });
    log(`Scheduled "${config.schedule.cron}" (${config.schedule.timezone}); next run ${handle.nextRun()?.toISOString() ?? 'unknown'}.`);
    await new Promise<void>((done) => {
      if (ctx.signal.aborted) done();
      else ctx.signal.addEventListener('abort', () => done(), { once: true });
    });
    log('Stopping: waiting for a run in progress to save its state.');
    await handle.stop();
    log('Stopped.');
    return EXIT.ok;
  },
);
