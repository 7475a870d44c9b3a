// `geo-reports schedule`: stays up and runs the monthly batch on report.day (and the reviews asked for after a quarter
// or a year), resuming quota-stopped periods; `schedule --plan` says which runs a day owes, for the workflows.
import { join, resolve } from 'node:path';
import { SMTP_URL_ENV } from '../config/environment.js';
import { EXIT } from '../exit-codes.js';
import { folderName, type ReviewPeriod } from '../period.js';
import { defineCommand, integer, printResult, UsageError, type ValueParser } from './define.js';
import { API_OPTIONS, BATCH_OPTIONS, loadCommandConfig, publishFirst, setupApi } from './shared.js';

/** --date: a day as YYYY-MM-DD, read at 12:00 UTC so that every time zone's date is that day. */
const dayValue: ValueParser<Date> = (text, name) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = match === null ? null : new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 12));
  if (date === null || date.toISOString().slice(0, 10) !== text) throw new UsageError(`${name} must be a day like 2026-10-02 (got "${text}").`);
  return date;
};

export default defineCommand(
  {
    name: 'schedule',
    description: `Stays running and reports every month at 06:00 on report.day (default the 2nd, in
schedule.timezone; schedule.cron replaces the time), for the month before; with report.reviews
["quarter"] or ["quarter", "year"], the review of a quarter or a year that month ended runs after it
(as \`geo-reports run --period 2026-Q3\`). A period stopped by the daily quota is resumed on the
following days (schedule.resumeCron). With --plan, prints the runs a day owes and exits (for the workflows). Runs never overlap; a failed run is logged
and the schedule goes on. With delivery.email.auto, each run then emails the finished reports
(as \`geo-reports send\`, SMTP from ${SMTP_URL_ENV}; with delivery.email.link, the site is published first).
With report.clients "listed", only the clients of the config are reported and sent. Stop with Ctrl-C or SIGTERM: a run in progress saves its
state first. With --listen PORT, the webhook receiver of \`geo-reports listen\` runs in the same process
(on 127.0.0.1:PORT/webhooks), so one daemon serves a server.`,
    options: {
      out: BATCH_OPTIONS.out,
      plan: { type: 'boolean', help: "print the runs the day owes (the month's report, the reviews after it) and exit: no request" },
      date: { type: 'string', value: 'YYYY-MM-DD', parse: dayValue, help: 'with --plan: the day to plan (default: today)' },
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
    const { plannedRuns, runPlan, scheduleCron, validateTimezone } = await import('../batch/schedule.js');
    if (options.plan) {
      // The plan reads the config alone: a workflow asks it before it has any token.
      const config = await loadCommandConfig(options, ctx);
      validateTimezone(config.schedule.timezone);
      const plan = plannedRuns(options.date ?? ctx.clock(), { day: config.report.day, reviews: config.report.reviews, timezone: config.schedule.timezone });
      printResult(ctx, options.json, plan, () =>
        [`Run day ${plan.runDay}${plan.today ? ' (today)' : ''}:`, ...plan.runs.map((run) => `  geo-reports run --period ${run.period}`), ''].join('\n'),
      );
      return EXIT.ok;
    }
    if (options.date !== undefined) throw new UsageError('--date goes with --plan: the schedule itself runs on the clock.');
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [
      { executeBatch },
      { periodNeedsWork, startSchedule },
      { default: runCommand },
      { sendAfterRuns },
      { openListener },
      { readManifest },
      { commandRenderer, loadCommandTemplates },
    ] = await Promise.all([
      import('../batch/execute.js'),
      import('../batch/schedule.js'),
      import('./run.js'),
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
    const cron = scheduleCron(config.schedule, config.report.day);
    const days = { day: config.report.day, reviews: config.report.reviews, timezone: config.schedule.timezone };
    const runMonth = async (period: Parameters<typeof executeBatch>[0]['period']): Promise<number> => {
      // A fresh client per run: a new quota day, a new token ledger.
      const { client } = await setupApi(options, ctx);
      const selection = { statuses: config.report.statuses, projectIds: [], listed };
      // The templates of the day of the run: a folder edited since the start is read again (and checked first).
      const renderer = await commandRenderer(undefined, config, ctx);
      const { code } = await executeBatch({ client, config, period, outDir, selection, json: true, renderer }, ctx);
      return sendAfter === null ? code : sendAfter({ code, period, outDir });
    };
    // A review is what `geo-reports run --period 2026-Q3` makes, with the daemon's own options: the same command, in process.
    const runReview = async (period: ReviewPeriod): Promise<number> => {
      const args = ['--period', period, '--out', outDir, '--json'];
      for (const name of ['config', 'base-url'] as const) if (options[name] !== undefined) args.push(`--${name}`, options[name]);
      if (options['allow-insecure']) args.push('--allow-insecure');
      if (config.delivery.email.auto) args.push('--send');
      return runCommand.run(args, ctx);
    };
    const handle = startSchedule({
      cron,
      resumeCron: config.schedule.resumeCron,
      timezone: config.schedule.timezone,
      log,
      async needsResume() {
        // Every run the day owes: the month's report, and a review after it, until each is complete (or held).
        for (const run of plannedRuns(ctx.clock(), days).runs) {
          if (periodNeedsWork(await readManifest(join(outDir, folderName(run.period))))) return true;
        }
        return false;
      },
      async job() {
        const plan = plannedRuns(ctx.clock(), days);
        return runPlan(
          plan,
          async (run) => {
            if (run.kind === 'month') return runMonth(run.period);
            // A review made already (a resume after it, a run by hand) is left as it is.
            const made = await readManifest(join(outDir, folderName(run.period)));
            if (!periodNeedsWork(made)) return made?.status === 'held' ? EXIT.held : EXIT.ok;
            return runReview(run.period);
          },
          log,
        );
      },
    });
    log(
      `Scheduled "${cron}" (${config.schedule.timezone})${config.report.reviews.length > 0 ? `, then the ${config.report.reviews.join(' and ')} reviews when one ends` : ''}; next run ${handle.nextRun()?.toISOString() ?? 'unknown'}.`,
    );
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
