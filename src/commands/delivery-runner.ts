// Shared by send, run --send and schedule: the email settings checked first, then the delivery of a period, and its
// exit code. Loaded only when a command sends: it pulls in the SMTP transport and the index template.
import { resolve } from 'node:path';
import { brandingFrom } from '../config/branding.js';
import { SMTP_URL_ENV } from '../config/environment.js';
import type { Config } from '../config/schema.js';
import { deliverPeriod, type DeliveryOptions, type DeliverySummary } from '../delivery/email/index.js';
import { checkEmailSettings } from '../delivery/email/settings.js';
import { createRedactor } from '../delivery/email/smtp-url.js';
import { createSmtpTransport } from '../delivery/email/transport.js';
import { deliveryExitCode } from '../delivery/ledger.js';
import { loadLocales } from '../i18n/locales.js';
import { createHtmlRenderer } from '../render/html.js';
import type { CommandContext } from './context.js';
import { createDeliveryOutput } from './delivery-output.js';

/** What a command decides of a delivery; the transport, renderer and output are made here. */
export interface DeliveryCommandOptions
  extends Pick<DeliveryOptions, 'config' | 'period' | 'outDir' | 'mode' | 'testTo' | 'projectIds' | 'resend' | 'acceptHeld'> {
  allowInsecure?: boolean;
  json?: boolean;
}

export async function executeDelivery(options: DeliveryCommandOptions, ctx: CommandContext): Promise<{ code: number; summary: DeliverySummary }> {
  const settings = checkEmailSettings(options.config, ctx.env, { mode: options.mode, allowInsecure: options.allowInsecure === true });
  const { smtp } = settings;
  // The password is removed from anything printed or recorded, even in a dry run that does not use it.
  const password = smtp?.password ?? passwordIn(ctx.env[SMTP_URL_ENV]);
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
      if (smtp === null) throw new Error('A dry run has no SMTP transport.');
      return createSmtpTransport(smtp, { messageTimeoutMs: options.config.delivery.email.messageTimeoutMs });
    },
    ...(smtp !== null ? { serverLabel: smtp.display } : {}),
    renderer: await createHtmlRenderer({ locales: loadLocales() }),
    branding: await brandingFrom(options.config),
    redact: createRedactor([password]),
    clock: ctx.clock,
    signal: ctx.signal,
    onEvent: createDeliveryOutput(ctx, options.json === true),
  });
  return { code: deliveryExitCode(summary), summary };
}

/** The email settings of `run --send` and `schedule`, checked before the batch rather than after an hour of reports. */
export function checkSendSettings(config: Config, ctx: CommandContext, allowInsecure: boolean): void {
  checkEmailSettings(config, ctx.env, { mode: 'send', allowInsecure });
}

function passwordIn(url: string | undefined): string | null {
  try {
    return url === undefined ? null : decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}
