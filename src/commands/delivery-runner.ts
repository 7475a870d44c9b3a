// Shared by send, run --send and schedule: SMTP settings checked first, then the delivery of a period, and its exit
// code. Loaded only when a command sends: it pulls in the SMTP transport and the renderer.
import { resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { SMTP_URL_ENV } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { deliverPeriod, type DeliveryMode, type DeliveryOptions, type DeliverySummary } from '../delivery/deliver.js';
import { createRedactor, parseSmtpUrl, type SmtpSettings } from '../delivery/smtp-url.js';
import { createSmtpTransport } from '../delivery/transport.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { HtmlRenderer } from '../render/html.js';
import { brandingFrom } from './batch-runner.js';
import type { CommandContext } from './context.js';
import { createDeliveryOutput } from './delivery-output.js';

/** What a command decides of a delivery; the transport, renderer and output are made here. */
export interface DeliveryCommandOptions
  extends Pick<DeliveryOptions, 'config' | 'period' | 'outDir' | 'mode' | 'testTo' | 'projectIds' | 'resend' | 'acceptHeld'> {
  allowInsecure?: boolean;
  json?: boolean;
  /** The command's templates (their phrases and index.hbs); default: those of report.templates in the config. */
  renderer?: HtmlRenderer;
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
export function deliveryExitCode(summary: DeliverySummary): ExitCode {
  if (summary.stopped === 'auth' || summary.stopped === 'tls') return EXIT.usage;
  if (summary.failed.length > 0 || summary.unknown.length > 0 || summary.notAttempted > 0) return EXIT.failure;
  if (summary.held.length > 0) return EXIT.held;
  return EXIT.ok;
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
    renderer: options.renderer ?? (await (await import('./templates-setup.js')).commandRenderer(undefined, options.config, ctx)),
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
