// `geo-reports send`: emails each client its report of the period, once; also the step after `run --send` and `schedule`.
import { resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { loadConfig, SMTP_URL_ENV } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { deliverPeriod, type DeliveryMode, type DeliverySummary } from '../delivery/deliver.js';
import { createRedactor, parseSmtpUrl, type SmtpSettings } from '../delivery/smtp-url.js';
import { createSmtpTransport } from '../delivery/transport.js';
import { createHtmlRenderer } from '../render/html.js';
import { parseCommandArgs, positiveInt, stringValue, UsageError } from './args.js';
import { brandingFrom } from './batch-runner.js';
import type { Command, CommandContext } from './context.js';
import { createDeliveryOutput } from './delivery-output.js';
import { periodOption } from './run.js';

const HELP = `Usage: geo-reports send [options]

Emails every client its report of the period: the PDF attached, a short summary in the client's
language, to the addresses of clients."<project id>".email in the config. Each message goes once:
the manifest records it, and a rerun sends only what is not sent yet (a failed message is tried
again; one whose outcome is unknown is named and left alone). Held reports are kept back.

The SMTP server comes from ${SMTP_URL_ENV} only, e.g. smtp://user:password@host:587 (STARTTLS)
or smtps://user:password@host:465. The sender is delivery.email.from in the config.

Options:
  --period YYYY-MM     period to send (default: the previous month)
  --out DIR            output folder (default: output/, or output.dir in the config)
  --project ID         send only this project, repeatable
  --dry-run            write each message as <period>/<client>/email.eml and send nothing
  --test-to ADDR       send every message to ADDR only, subject prefixed; nothing is recorded as sent
  --resend             send again even if sent or unknown (with --project only)
  --accept-held        release reports held by the pre-send check and send them
  --allow-insecure     allow an SMTP connection without TLS to a host that is not loopback
  --config FILE        config file (default: config/geo-reports.json when present)
  --json               one JSON line per event (default when not a terminal)

Review flow: --dry-run (read the .eml files), then --test-to you@agency.example, then send.

Exit codes: 0 every eligible client sent (or nothing to send), 1 some failed or their outcome is
unknown, 2 usage or config error (no ${SMTP_URL_ENV}, no delivery.email.from, login refused),
4 held reports kept back (everything else sent), 130/143 stopped by SIGINT/SIGTERM.
`;

const OPTIONS = {
  period: { type: 'string' },
  out: { type: 'string' },
  project: { type: 'string', multiple: true },
  'dry-run': { type: 'boolean' },
  'test-to': { type: 'string' },
  resend: { type: 'boolean' },
  'accept-held': { type: 'boolean' },
  'allow-insecure': { type: 'boolean' },
  config: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const EMAIL = /^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/;

export interface DeliveryCommandOptions {
  config: Config;
  period: string;
  outDir: string;
  mode: DeliveryMode;
  testTo?: string;
  projectIds?: number[];
  resend?: boolean;
  acceptHeld?: boolean;
  allowInsecure?: boolean;
  json?: boolean;
}

/** The SMTP settings, checked before anything is done (a dry run needs none). Errors are ConfigErrors. */
export function prepareDelivery(config: Config, ctx: CommandContext, mode: DeliveryMode, allowInsecure: boolean): SmtpSettings | null {
  if (config.delivery.email.from === undefined) {
    throw new ConfigError('delivery.email.from is not set: the messages have no sender.', {
      hint: 'Add "delivery": { "email": { "from": "Your Agency <reports@your-agency.example>" } } to the config file.',
    });
  }
  return mode === 'dry-run' ? null : parseSmtpUrl(ctx.env[SMTP_URL_ENV], { allowInsecure });
}

/** Exit code of a delivery; documented in `send --help` and the README. */
export function deliveryExitCode(summary: DeliverySummary): number {
  if (summary.stopped === 'auth' || summary.stopped === 'tls') return 2;
  if (summary.failed.length > 0 || summary.unknown.length > 0 || summary.notAttempted > 0) return 1;
  if (summary.held.length > 0) return 4;
  return 0;
}

export async function executeDelivery(options: DeliveryCommandOptions, ctx: CommandContext): Promise<{ code: number; summary: DeliverySummary }> {
  const settings = prepareDelivery(options.config, ctx, options.mode, options.allowInsecure === true);
  // The password is removed from anything printed or recorded, even in a dry run that does not use it.
  const password = settings?.password ?? passwordIn(ctx.env[SMTP_URL_ENV]);
  const summary = await deliverPeriod({
    config: options.config,
    period: options.period,
    outDir: resolve(ctx.cwd, options.outDir),
    mode: options.mode,
    ...(options.testTo !== undefined ? { testTo: options.testTo } : {}),
    projectIds: options.projectIds ?? [],
    resend: options.resend === true,
    acceptHeld: options.acceptHeld === true,
    transport: () => {
      if (settings === null) throw new Error('A dry run has no SMTP transport.');
      return createSmtpTransport(settings, { messageTimeoutMs: options.config.delivery.email.messageTimeoutMs });
    },
    ...(settings !== null ? { serverLabel: settings.display } : {}),
    renderer: await createHtmlRenderer(),
    branding: await brandingFrom(options.config),
    redact: createRedactor([password]),
    clock: ctx.clock,
    signal: ctx.signal,
    onEvent: createDeliveryOutput(ctx, options.json === true),
  });
  return { code: deliveryExitCode(summary), summary };
}

function passwordIn(url: string | undefined): string | null {
  try {
    return url === undefined ? null : decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}

export const sendCommand: Command = {
  name: 'send',
  usage: 'send [--period YYYY-MM] [--dry-run] [--test-to ADDR] …',
  summary: 'email each client its report, once (SMTP from GEO_REPORTS_SMTP_URL)',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'send' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const period = periodOption(values, ctx);
    const projectIds = ((values['project'] as string[] | undefined) ?? []).map((p) => positiveInt(p, '--project'));
    const testTo = stringValue(values['test-to']);
    const dryRun = values['dry-run'] === true;
    const resend = values['resend'] === true;
    if (testTo !== undefined && !EMAIL.test(testTo)) {
      throw new UsageError(`--test-to must be an email address (got "${testTo}").`);
    }
    if (testTo !== undefined && dryRun) throw new UsageError('--dry-run and --test-to do not go together: pick one.');
    if (resend && projectIds.length === 0) {
      throw new UsageError('--resend needs --project ID: a message is sent again one client at a time, after a look.', {
        hint: 'Check that the client did not get it (the manifest says why its outcome is unknown), then `geo-reports send --resend --project ID`.',
      });
    }
    if (resend && (dryRun || testTo !== undefined)) throw new UsageError('--resend is for a real send, not with --dry-run or --test-to.');
    const { config } = await loadConfig({ ...(typeof values['config'] === 'string' ? { path: values['config'] } : {}), cwd: ctx.cwd });
    const { code } = await executeDelivery(
      {
        config,
        period,
        outDir: stringValue(values['out']) ?? config.output.dir,
        mode: dryRun ? 'dry-run' : testTo !== undefined ? 'test' : 'send',
        ...(testTo !== undefined ? { testTo } : {}),
        projectIds,
        resend,
        acceptHeld: values['accept-held'] === true,
        allowInsecure: values['allow-insecure'] === true,
        json: values['json'] === true,
      },
      ctx,
    );
    return code;
  },
};
