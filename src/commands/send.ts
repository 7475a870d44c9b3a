// `geo-reports send`: emails each client its report of the period, once; also the step after `run --send` and `schedule`.
import { resolve } from 'node:path';
import { SMTP_URL_ENV } from '../config/environment.js';
import { DEFAULT_HISTORY_BRANCH, DEFAULT_HISTORY_KEEP } from '../history/defaults.js';
import { EXIT } from '../exit-codes.js';
import { anyPeriodValue, defineCommand, nonBlank, positiveInteger, UsageError, type ValueParser } from './define.js';
import { ALL_CLIENTS_OPTION, BATCH_JSON_OPTION, BATCH_OPTIONS, loadCommandConfig, periodOrPrevious, publishFirst } from './shared.js';

const EMAIL = /^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/;

const emailAddress: ValueParser<string> = (text, name) => {
  if (!EMAIL.test(text)) throw new UsageError(`${name} must be an email address (got "${text}").`);
  return text;
};

export default defineCommand(
  {
    name: 'send',
    description: `Emails every client its report of the period: the PDF attached, a short summary in the client's
language, to the addresses of clients."<project id>".email in the config. Each message goes once:
the manifest records it, and a rerun sends only what is not sent yet (a failed message is tried
again; one whose outcome is unknown is named and left alone). Held reports are kept back.

The SMTP server comes from ${SMTP_URL_ENV} only, e.g. smtp://user:password@host:587 (STARTTLS)
or smtps://user:password@host:465. The sender is delivery.email.from in the config.

With delivery.email.link, the site is published first (as \`geo-reports publish\`), so that every
link leads to its report.`,
    options: {
      period: {
        ...BATCH_OPTIONS.period,
        value: 'PERIOD',
        parse: anyPeriodValue,
        help: 'period to send (default: the previous month); a quarter (2026-Q3) or a year (2026) sends its reviews',
      },
      out: BATCH_OPTIONS.out,
      templates: {
        ...BATCH_OPTIONS.templates,
        help: "the agency's template folder (the phrases of the messages, the agency index)\n(default: report.templates in the config)",
      },
      project: { type: 'string', value: 'ID', multiple: true, parse: positiveInteger, help: 'send only this project, repeatable' },
      all: ALL_CLIENTS_OPTION,
      'dry-run': { type: 'boolean', help: 'write each message as <period>/<client>/email.eml and send nothing' },
      site: { type: 'string', value: 'DIR', help: 'with delivery.email.link: the published site (default: site.dir in the config, else <out>/site)' },
      'test-to': {
        type: 'string',
        value: 'ADDR',
        parse: emailAddress,
        help: 'send every message to ADDR only, subject prefixed; nothing is recorded as sent',
      },
      resend: { type: 'boolean', help: 'send again even if sent or unknown (with --project only)' },
      'accept-held': { type: 'boolean', help: 'release reports held by the pre-send check and send them' },
      'allow-insecure': { type: 'boolean', help: 'allow an SMTP connection without TLS to a host that is not loopback' },
      history: {
        type: 'string',
        value: 'GIT',
        parse: nonBlank,
        help: "the history storage (as `history save --storage`): each message's record is pushed there before it\ngoes and once it is answered, so a cancelled or killed send never mails anyone twice",
      },
      'history-branch': { type: 'string', value: 'NAME', parse: nonBlank, help: `with --history: its branch (default: ${DEFAULT_HISTORY_BRANCH})` },
      config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
      json: BATCH_JSON_OPTION,
    },
    epilog: `Review flow: --dry-run (read the .eml files), then --test-to you@agency.example, then send.

Exit codes: ${EXIT.ok} every eligible client sent (or nothing to send), ${EXIT.failure} some failed or their outcome is
unknown, ${EXIT.usage} usage or config error (no ${SMTP_URL_ENV}, no delivery.email.from, login refused),
${EXIT.held} held reports kept back (everything else sent), ${EXIT.sigint}/${EXIT.sigterm} stopped by SIGINT/SIGTERM.`,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ executeDelivery }, { commandRenderer }, { historyRecorder }] = await Promise.all([
      import('../delivery/send.js'),
      import('../preview/command-templates.js'),
      import('../history/branch.js'),
    ]);
    const { project: projectIds, 'test-to': testTo, 'dry-run': dryRun, resend } = options;
    if (testTo !== undefined && dryRun) throw new UsageError('--dry-run and --test-to do not go together: pick one.');
    if (resend && projectIds.length === 0) {
      throw new UsageError('--resend needs --project ID: a message is sent again one client at a time, after a look.', {
        hint: 'Check that the client did not get it (the manifest says why its outcome is unknown), then `geo-reports send --resend --project ID`.',
      });
    }
    if (resend && (dryRun || testTo !== undefined)) throw new UsageError('--resend is for a real send, not with --dry-run or --test-to.');
    if (options.history !== undefined && (dryRun || testTo !== undefined))
      throw new UsageError('--history records a real send: not with --dry-run or --test-to.');
    const config = await loadCommandConfig(options, ctx);
    // Loaded when the command runs: its --help loads the declaration alone.
    const { listedClients } = await import('../config/client-scope.js');
    const listed = listedClients(config, options.all);
    const period = options.period ?? periodOrPrevious(undefined, ctx);
    const outDir = options.out ?? config.output.dir;
    // Quiet: the send's own events say what happened; a failed push is a warning event of the send.
    const storage =
      options.history === undefined
        ? null
        : { remote: options.history, branch: options['history-branch'] ?? DEFAULT_HISTORY_BRANCH, env: ctx.env, log: () => {} };
    // The messages and the index only: without a template folder, no report template is read.
    const renderer = await commandRenderer(options.templates, config, ctx, { pages: 'index' });
    // The site's pages need their own templates: read only when the messages carry a link.
    const sitePages = () => commandRenderer(options.templates, config, ctx);
    const { code } = await executeDelivery(
      {
        config,
        period,
        outDir,
        mode: dryRun ? 'dry-run' : testTo !== undefined ? 'test' : 'send',
        ...(testTo !== undefined ? { testTo } : {}),
        projectIds,
        listed,
        resend,
        acceptHeld: options['accept-held'],
        allowInsecure: options['allow-insecure'],
        json: options.json,
        renderer,
        ...(options.site !== undefined ? { siteDir: options.site } : {}),
        publishFirst: await publishFirst({ config, renderer: sitePages, listed, json: options.json }, ctx),
        ...(storage !== null ? { onRecorded: historyRecorder(storage, resolve(ctx.cwd, outDir), period, DEFAULT_HISTORY_KEEP) } : {}),
      },
      ctx,
    );
    return code;
  },
);
