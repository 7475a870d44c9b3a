// `geo-reports schedule`: stays up and runs the monthly batch on the configured cron, resuming quota-stopped periods.
import { join, resolve } from 'node:path';
import { SMTP_URL_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { previousPeriod } from '../period.js';
import { defineCommand, integer } from './define.js';
import { API_OPTIONS, BATCH_OPTIONS, publishFirst, setupApi } from './shared.js';

export default defineCommand(
  {
    name: 'schedule',
    description: `Stays running and reports every period on the cron of the config (schedule.cron, default
"0 6 4 * *": 06:00 on the 4th, in schedule.timezone). A period stopped by the daily quota is
resumed on the following days (schedule.resumeCron). Runs never overlap; a failed run is logged
and the schedule goes on. With delivery.email.auto, each run then emails the finished reports
(as \`geo-reports send\`, SMTP from ${SMTP_URL_ENV}; with delivery.email.link, the site is published first).
With report.clients "listed", only the clients of the config are reported and sent. Stop with Ctrl-C or SIGTERM: a run in progress saves its
state first. With --listen PORT, the webhook receiver of \`geo-reports listen\` runs in the same process
(on 127.0.0.1:PORT/webhooks), so one daemon serves a server.`,
    options: {
      out: BATCH_OPTIONS.out,
      ...API_OPTIONS,
      listen: {
        type: 'string',
        value: 'PORT',
        parse: integer({ min: 0, max: 65_535 }),
        help: 'also receive the webhooks on 127.0.0.1:PORT/webhooks (as geo-reports listen)',
      },
    },
    stopsOnSignal: true,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [
      { executeBatch },
      { periodNeedsWork, startSchedule },
      { sendAfterRuns },
      { openListener },
      { readManifest },
      { commandRenderer, loadCommandTemplates },
    ] = await Promise.all([
      import('../batch/execute.js'),
      import('../batch/schedule.js'),
      import('../delivery/send.js'),
      import('../events/listen.js'),
      import('../output/store.js'),
      import('../preview/command-templates.js'),
    ]);
    const log = (line: string): void => {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), schedule: line })}\n`);
    };
    // Validates config, tokens and base URL now rather than at the first run, weeks later.
    const { config, client: probe } = await setupApi(options, ctx);
    await probe.close();
    // And report.templates: a broken template found now, not on the 4th at 6 a.m.
    await loadCommandTemplates(undefined, config, ctx);
    const outDir = resolve(ctx.cwd, options.out ?? config.output.dir);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { listedClients } = await import('../config/client-scope.js');
    const listed = listedClients(config);
    const sendAfter = config.delivery.email.auto
      ? sendAfterRuns(config, ctx, {
          allowInsecure: options['allow-insecure'],
          json: true,
          // The messages and the index only, with the templates of the day of the send.
          renderer: () => commandRenderer(undefined, config, ctx, { pages: 'index' }),
          listed,
          // The site's pages with the templates of the day, before messages that link to them.
          publishFirst: await publishFirst({ config, renderer: () => commandRenderer(undefined, config, ctx), listed, json: true }, ctx),
        })
      : null;
    // The receiver starts before the schedule: a missing secret or a busy port stops the daemon at once.
    const listener =
      options.listen === undefined
        ? null
        : await openListener(
            {
              host: '127.0.0.1',
              port: options.listen,
              path: '/webhooks',
              out: options.out,
              config: options.config,
              'base-url': options['base-url'],
              'allow-insecure': options['allow-insecure'],
            },
            ctx,
            (line) => log(`listen: ${line}`),
          );
    if (listener !== null) log(`Receiving webhooks on ${listener.url}.`);
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
        const selection = { statuses: config.report.statuses, projectIds: [], listed };
        // The templates of the day of the run: a folder edited since the start is read again (and checked first).
        const renderer = await commandRenderer(undefined, config, ctx);
        const { code } = await executeBatch({ client, config, period, outDir, selection, json: true, renderer }, ctx);
        return sendAfter === null ? code : sendAfter({ code, period, outDir });
      },
    });
    log(`Scheduled "${config.schedule.cron}" (${config.schedule.timezone}); next run ${handle.nextRun()?.toISOString() ?? 'unknown'}.`);
    await new Promise<void>((done) => {
      if (ctx.signal.aborted) done();
      else ctx.signal.addEventListener('abort', () => done(), { once: true });
    });
    log('Stopping: waiting for a run in progress to save its state.');
    await Promise.all([handle.stop(), listener?.close()]);
    log('Stopped.');
    return EXIT.ok;
  },
);
