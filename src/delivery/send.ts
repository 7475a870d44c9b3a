// A period's emails as a command sends them (send, run --send and schedule): the email settings checked first, then
// the delivery, what it prints (a line per message on a terminal, a JSON line per event otherwise), and its exit code.
import { ConfigError } from '../errors.js';
import { resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import { brandingFrom } from '../config/branding.js';
import { CHROMIUM_SANDBOX_ENV, SMTP_URL_ENV } from '../config/environment.js';
import { BROWSER_WS_ENDPOINT_ENV, resolveBrowserEndpoint } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { linkSecret, siteBaseUrl, siteFolders } from '../config/site.js';
import { EXIT } from '../exit-codes.js';
import { pageUrlForPeriod, readLinksRecord, type LinksRecord } from '../output/links.js';
import type { ProjectEntry } from '../output/store.js';
import type { HtmlRenderer } from '../render/html.js';
import { mailLogo, mailLogoCache, type MailLogo } from '../render/mail-logo.js';
import type { PdfPrinter } from '../render/print/printer.js';
import type { Branding } from '../report/model.js';
import { deliverPeriod, type DeliveryEvent, type DeliveryOptions, type DeliverySummary } from './email/index.js';
import { checkEmailSettings } from './email/settings.js';
import { createRedactor } from './email/smtp-url.js';
import { createSmtpTransport } from './email/transport.js';
import { deliveryExitCode } from './ledger.js';
import { isMonth, type MonthPeriod, type Period } from '../period.js';

/** What a command decides of a delivery; the transport and the output are made here. */
export interface DeliveryCommandOptions extends Pick<
  DeliveryOptions,
  'config' | 'period' | 'outDir' | 'mode' | 'testTo' | 'projectIds' | 'listed' | 'resend' | 'acceptHeld' | 'onRecorded'
> {
  allowInsecure?: boolean;
  json?: boolean;
  /** The command's templates (their phrases and index.hbs), checked (commandRenderer). */
  renderer: HtmlRenderer;
  /** The published site the links point into (--site); default: site.dir in the config, else <out>/site. */
  siteDir?: string;
  /**
   * Brings the published site up to date (as `geo-reports publish`) before messages that carry the client's link
   * are made, so that every link leads to its report; not called for a dry run, nor when the messages carry none.
   */
  publishFirst?: PublishFirst | undefined;
}

/** Publishes the site of `outDir` into `siteDir` (made by the command: publishing lives a floor above delivery). */
export type PublishFirst = (folders: { outDir: string; siteDir: string | undefined }) => Promise<void>;

export async function executeDelivery(options: DeliveryCommandOptions, ctx: CommandContext): Promise<{ code: number; summary: DeliverySummary }> {
  const settings = checkEmailSettings(options.config, ctx.env, { mode: options.mode, allowInsecure: options.allowInsecure === true });
  const link = clientLinks(options.config, resolve(ctx.cwd, options.outDir), options.siteDir, options.period, ctx);
  // A link must lead somewhere on the first try: the pages of this period are published before any message.
  if (link !== null && options.mode !== 'dry-run' && options.publishFirst !== undefined) {
    await options.publishFirst({ outDir: resolve(ctx.cwd, options.outDir), siteDir: options.siteDir });
  }
  const { smtp } = settings;
  // The password is removed from anything printed or recorded, even in a dry run that does not use it.
  const password = smtp?.password ?? passwordIn(ctx.env[SMTP_URL_ENV]);
  const onEvent = createDeliveryOutput(ctx, options.json === true);
  const branding = await brandingFrom(options.config);
  const logo = await mailLogoFor(branding, resolve(ctx.cwd, options.outDir), options.config, ctx);
  if (logo.problem !== null) onEvent({ type: 'warning', message: `The messages go without the logo: ${logo.problem}.` });
  const summary = await deliverPeriod({
    config: options.config,
    period: options.period,
    outDir: resolve(ctx.cwd, options.outDir),
    mode: options.mode,
    ...(options.testTo !== undefined ? { testTo: options.testTo } : {}),
    projectIds: options.projectIds ?? [],
    listed: options.listed ?? null,
    resend: options.resend === true,
    acceptHeld: options.acceptHeld === true,
    transport: () => {
      if (smtp === null) throw new Error('A dry run has no SMTP transport.');
      return createSmtpTransport(smtp, { messageTimeoutMs: options.config.delivery.email.messageTimeoutMs });
    },
    ...(smtp !== null ? { serverLabel: smtp.display } : {}),
    renderer: options.renderer,
    branding,
    mailLogo: logo.dataUri,
    redact: createRedactor([password]),
    clock: ctx.clock,
    signal: ctx.signal,
    onEvent,
    ...(options.onRecorded !== undefined ? { onRecorded: options.onRecorded } : {}),
    ...(link !== null ? { link } : {}),
  });
  return { code: deliveryExitCode(summary), summary };
}

/**
 * The logo the messages carry: an SVG logo as the PNG the run drew (kept in the output folder), else drawn now by a
 * browser started for it alone (the run's, when it prints on a remote one) and closed at once.
 */
async function mailLogoFor(branding: Branding, outDir: string, config: Config, ctx: CommandContext): Promise<MailLogo> {
  let printer: PdfPrinter | null = null;
  try {
    return await mailLogo(branding.logoDataUri, {
      cacheDir: mailLogoCache(outDir),
      draw: async () => {
        const browserWSEndpoint = resolveBrowserEndpoint(undefined, ctx.env[BROWSER_WS_ENDPOINT_ENV], config);
        const sandbox = ctx.env[CHROMIUM_SANDBOX_ENV]?.trim().toLowerCase() !== 'off';
        // Loaded here, when a logo must be drawn: a send of a cached or PNG logo never loads the browser's library.
        const [{ PdfPrinter }, { findBrowser }] = await Promise.all([import('../render/print/printer.js'), import('../render/print/browser.js')]);
        const started = await PdfPrinter.launch(
          browserWSEndpoint !== undefined ? { browserWSEndpoint, pages: 1 } : { ...findBrowser({ env: ctx.env }), sandbox, pages: 1 },
        );
        printer = started;
        return (job) => started.picture(job);
      },
    });
  } finally {
    await (printer as PdfPrinter | null)?.close();
  }
}

/**
 * The address of each client's page for the messages, when they carry it (delivery.email.link, or attach: false):
 * the secret checked now (exit 2 before any message), the links record read once, each page checked on the site.
 */
function clientLinks(
  config: Config,
  outDir: string,
  site: string | undefined,
  period: Period,
  ctx: CommandContext,
): ((entry: ProjectEntry) => Promise<string>) | null {
  const email = config.delivery.email;
  if (!email.link && email.attach) return null;
  // The client's site lists the monthly reports: a review goes attached, without a link to a page that has none.
  if (!isMonth(period)) {
    if (email.attach) return null;
    throw new ConfigError(
      `The review of ${period} is sent as an attachment, and delivery.email.attach is false: the client's site holds the monthly reports only.`,
      {
        hint: 'Set delivery.email.attach to true (the default) to send reviews, or send the PDF of <out>/<period>/<client>/report.pdf yourself.',
      },
    );
  }
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
  period: MonthPeriod;
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
  options: {
    allowInsecure: boolean;
    json: boolean;
    /** The templates of the messages and the index, made when a send begins (the run's own, or the index's alone). */
    renderer: () => Promise<HtmlRenderer>;
    /** Only the listed clients (report.clients "listed"), unless a run names its projects; null: every report. */
    listed?: ReadonlySet<number> | null;
    /** The site published before messages that carry a link (see DeliveryCommandOptions.publishFirst). */
    publishFirst?: PublishFirst | undefined;
  },
): (run: AfterRun) => Promise<number> {
  checkEmailSettings(config, ctx.env, { mode: 'send', allowInsecure: options.allowInsecure });
  // A message with the client's link needs the link secret: known now, not after an hour of reports.
  if (config.delivery.email.link || !config.delivery.email.attach) linkSecret(ctx);
  return async (run) => {
    // Stopped by a signal or a usage error: nothing more. Otherwise what is done goes out (a partial or
    // quota-stopped period sends its finished reports; the rest go with the run that finishes them).
    if (ctx.signal.aborted || run.code === EXIT.usage || run.code === EXIT.sigint || run.code === EXIT.sigterm) return run.code;
    const { allowInsecure, json } = options;
    const sent = await executeDelivery(
      {
        config,
        period: run.period,
        outDir: run.outDir,
        mode: 'send',
        projectIds: run.projectIds ?? [],
        listed: options.listed ?? null,
        acceptHeld: run.acceptHeld === true,
        allowInsecure,
        json,
        renderer: await options.renderer(),
        ...(options.publishFirst !== undefined ? { publishFirst: options.publishFirst } : {}),
      },
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

/** What a send prints: one line per message on a terminal, one JSON line per event for logs and CI (or --json). */
function createDeliveryOutput(ctx: Pick<CommandContext, 'stdout' | 'clock'>, json: boolean): (event: DeliveryEvent) => void {
  if (json || ctx.stdout.isTTY !== true) {
    return (event) => {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), ...event })}\n`);
    };
  }
  return (event) => {
    const line = describeDeliveryEvent(event);
    if (line !== null) ctx.stdout.write(`${line}\n`);
  };
}

function describeDeliveryEvent(event: DeliveryEvent): string | null {
  switch (event.type) {
    case 'email-plan':
      if (event.mode === 'dry-run') {
        return `Emails for ${event.period}: ${event.toSend} message(s) to write as <client>/email.eml; nothing is sent.`;
      }
      return event.mode === 'test'
        ? `Emails for ${event.period}: test send of ${event.toSend} message(s) through ${event.server ?? 'the SMTP server'}; nothing is recorded as sent.`
        : `Emails for ${event.period}: ${event.toSend} message(s) to send through ${event.server ?? 'the SMTP server'}.`;
    case 'email-skipped':
      return `  ${event.reason === 'held' ? 'held' : event.reason === 'unknown' ? 'unknown, left alone' : 'skipped'}: ${event.name} (${event.id}): ${event.detail}`;
    case 'email-sent':
      return `  sent: ${event.name} (${event.id}) → ${event.recipients.join(', ')}`;
    case 'email-written':
      return `  written: ${event.name} (${event.id}): ${event.path}`;
    case 'email-retry':
      return `  retry: ${event.name} (${event.id}) in ${Math.round(event.delayMs / 100) / 10} s: ${event.reason}`;
    case 'email-failed':
      return `  failed: ${event.name} (${event.id}): ${event.reason}`;
    case 'email-unknown':
      return `  unknown: ${event.name} (${event.id}): ${event.reason}; check with the client, then \`geo-reports send --resend --project ${event.id}\` if it did not arrive`;
    case 'warning':
      return `  warning: ${event.message}`;
    case 'email-summary':
      return describeDeliverySummary(event.summary);
  }
}

function describeDeliverySummary(s: DeliverySummary): string {
  const seconds = (s.durationMs / 1000).toFixed(1);
  const head =
    s.mode === 'dry-run'
      ? `Written: ${s.written}`
      : `${s.mode === 'test' ? 'Test messages sent' : 'Sent'}: ${s.sent} · failed: ${s.failed.length} · unknown: ${s.unknown.length}`;
  const rest = [
    s.noAddress.length > 0 ? `without an address: ${s.noAddress.length}` : '',
    s.held.length > 0 ? `held: ${s.held.length}` : '',
    s.alreadySent > 0 ? `already sent: ${s.alreadySent}` : '',
    s.leftUnknown.length > 0 ? `unknown from before: ${s.leftUnknown.length}` : '',
    s.notReady > 0 ? `report not ready: ${s.notReady}` : '',
    s.notAttempted > 0 ? `not tried: ${s.notAttempted}` : '',
  ].filter(Boolean);
  const lines = [`${head}${rest.length > 0 ? ` · ${rest.join(' · ')}` : ''} — ${seconds} s`];
  if (s.failed.length > 0) lines.push(`Not sent (the next \`geo-reports send\` tries again): ${s.failed.map((f) => `${f.name} (${f.id})`).join(', ')}`);
  if (s.unknown.length + s.leftUnknown.length > 0) {
    lines.push(
      `Outcome unknown, not sent again without --resend --project ID: ${[...s.unknown, ...s.leftUnknown].map((f) => `${f.name} (${f.id})`).join(', ')}`,
    );
  }
  if (s.held.length > 0) lines.push(`Held back (release with --accept-held after a look): ${s.held.map((f) => `${f.name} (${f.id})`).join(', ')}`);
  return lines.join('\n');
}
