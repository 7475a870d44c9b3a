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
import { EXIT } from '../exit-codes.js';
import type { HtmlRenderer } from '../render/html.js';
import type { CommandContext } from './context.js';
import { createDeliveryOutput } from './delivery-output.js';
import { linkSecret, siteBaseUrl, siteFolders } from './site-setup.js';
import { pageUrlForPeriod, readLinksRecord, type LinksRecord } from '../output/links.js';
import type { ProjectEntry } from '../output/store.js';

/** What a command decides of a delivery; the transport, renderer and output are made here. */
export interface DeliveryCommandOptions extends Pick<
  DeliveryOptions,
  'config' | 'period' | 'outDir' | 'mode' | 'testTo' | 'projectIds' | 'resend' | 'acceptHeld'
> {
  allowInsecure?: boolean;
  json?: boolean;
  /** The command's templates (their phrases and index.hbs); default: those of report.templates in the config. */
  renderer?: HtmlRenderer;
  /** The published site the links point into (--site); default: site.dir in the config, else <out>/site. */
  siteDir?: string;
}

export async function executeDelivery(options: DeliveryCommandOptions, ctx: CommandContext): Promise<{ code: number; summary: DeliverySummary }> {
  const settings = checkEmailSettings(options.config, ctx.env, { mode: options.mode, allowInsecure: options.allowInsecure === true });
  const link = clientLinks(options.config, resolve(ctx.cwd, options.outDir), options.siteDir, options.period, ctx);
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
    // Only the index is rendered: without a template folder, no report template is read.
    renderer: options.renderer ?? (await (await import('./templates-setup.js')).commandRenderer(undefined, options.config, ctx, { pages: 'index' })),
    branding: await brandingFrom(options.config),
    redact: createRedactor([password]),
    clock: ctx.clock,
    signal: ctx.signal,
    onEvent: createDeliveryOutput(ctx, options.json === true),
    ...(link !== null ? { link } : {}),
  });
  return { code: deliveryExitCode(summary), summary };
}

/**
 * The address of each client's page for the messages, when they carry it (delivery.email.link, or attach: false):
 * the secret checked now (exit 2 before any message), the links record read once, each page checked on the site.
 */
function clientLinks(
  config: Config,
  outDir: string,
  site: string | undefined,
  period: string,
  ctx: CommandContext,
): ((entry: ProjectEntry) => Promise<string>) | null {
  const email = config.delivery.email;
  if (!email.link && email.attach) return null;
  const secret = linkSecret(ctx);
  // The config's check made sure of it: a link needs the site's address.
  const baseUrl = siteBaseUrl(undefined, config, 'delivery.email.link');
  const { siteDir } = siteFolders({ out: outDir, site }, config, ctx);
  let record: Promise<LinksRecord | null> | null = null;
  return async (entry) => {
    record ??= readLinksRecord(outDir);
    return pageUrlForPeriod({ record: await record, secret, baseUrl, siteDir, projectId: entry.id, period });
  };
}

/** One run's reports to send once the run is over. */
export interface AfterRun {
  /** The run's exit code. */
  code: number;
  period: string;
  outDir: string;
  projectIds?: number[];
  acceptHeld?: boolean;
}

/**
 * The send that follows a run, for `run --send` and `schedule`: the email settings are checked now, before the
 * batch rather than after an hour of reports; the function returned sends what each run finished and gives the
 * command's exit code.
 */
export function sendAfterRuns(
  config: Config,
  ctx: CommandContext,
  options: { allowInsecure: boolean; json: boolean; renderer?: HtmlRenderer },
): (run: AfterRun) => Promise<number> {
  checkEmailSettings(config, ctx.env, { mode: 'send', allowInsecure: options.allowInsecure });
  // A message with the client's link needs the link secret: known now, not after an hour of reports.
  if (config.delivery.email.link || !config.delivery.email.attach) linkSecret(ctx);
  return async (run) => {
    // Stopped by a signal or a usage error: nothing more. Otherwise what is done goes out (a partial or
    // quota-stopped period sends its finished reports; the rest go with the run that finishes them).
    if (ctx.signal.aborted || run.code === EXIT.usage || run.code === EXIT.sigint || run.code === EXIT.sigterm) return run.code;
    const sent = await executeDelivery(
      { config, period: run.period, outDir: run.outDir, mode: 'send', projectIds: run.projectIds ?? [], acceptHeld: run.acceptHeld === true, ...options },
      ctx,
    );
    // The run's own failure (failed projects, quota) speaks first; a run that succeeded ends with the send's code.
    return run.code === EXIT.ok || run.code === EXIT.held ? sent.code : run.code;
  };
}

function passwordIn(url: string | undefined): string | null {
  try {
    return url === undefined ? null : decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}
