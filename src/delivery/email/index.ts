// The email channel: whom a report goes to (clients."<id>".email), the message with its PDF (./message.ts), the
// SMTP transport (./transport.ts) and what its answers mean (./settle.ts), behind the channel interface (../channel.ts).
// `deliverPeriod` sends a period's reports by email, the ledger keeping the record.
import { readFile } from 'node:fs/promises';
import { footerIn } from '../../config/branding.js';
import type { ClientOverride, Config } from '../../config/schema.js';
import { ConfigError, GeoReportsError } from '../../errors.js';
import type { Phrases } from '../../i18n/locales.js';
import { writePeriodIndex } from '../../output/period-index.js';
import { insideRoot, writeFileAtomic, type Manifest, type ProjectEntry, projectSlug } from '../../output/store.js';
import { configuredLanguage } from '../../output/report-as-made.js';
import { periodViewName } from '../../report/period-wording.js';
import type { HtmlRenderer } from '../../render/html.js';
import type { ReportFigures } from '../../report/email-model.js';
import { FactTableSchema, type Fact } from '../../report/facts.js';
import { disagreementMessage, disagreements, shownInHtml, shownInMailText } from '../../report/view-check.js';
import type { Branding, Language } from '../../report/model.js';
import type { Candidate, Deliverable, DeliveryChannel, StopReason } from '../channel.js';
import { deliverThrough, planDeliveries, type DeliveryPlan, type LedgerOptions, type PlanOptions } from '../ledger.js';
import type { DeliveryEvent as ChannelEvent, DeliveryMode, DeliverySummary } from '../summary.js';
import { buildReportMessage, composeMime, type ReportMessage } from './message.js';
import { emailSender } from './settings.js';
import { settle } from './settle.js';
import type { MailTransport } from './transport.js';
import type { Period } from '../../period.js';

export { settle } from './settle.js';

export type { PlanOptions } from '../ledger.js';
export type { DeliveryMode, DeliverySummary, NamedOutcome, Skip, SkipReason } from '../summary.js';
export type DeliveryEvent = ChannelEvent<'email'>;

/** Whom one client's report goes to, from clients."<id>".email. */
export interface EmailTarget {
  recipients: { to: string[]; cc: string[]; bcc: string[] };
  /** Replaces the locale's subject for this client. */
  subject?: string;
  /** The client's contact the mail greets (clients."<id>".email.name). */
  contactName?: string;
  /** Who signs the mail (clients."<id>".accountManager). */
  accountManager?: string;
}

interface EmailItem extends Deliverable {
  message: ReportMessage;
  /** The RFC 5322 bytes, PDF included: what goes on the wire, and what a dry run writes. */
  raw: Buffer;
}

/** Whom a client's report goes to; its configured subject only when the report is in the language the config says. */
function emailTarget(config: Config): (client: ClientOverride | undefined, entry: ProjectEntry) => EmailTarget | { none: string } {
  return (client, entry) => {
    const email = client?.email;
    if (email === undefined || email.to.length === 0) return { none: `no address in clients."${entry.id}".email.to` };
    // A subject written for the language the config now says would not be the report's language.
    const sameLanguage = entry.language === undefined || entry.language === configuredLanguage(config, entry.id, entry.projectLanguage);
    return {
      recipients: { to: email.to, cc: email.cc, bcc: email.bcc },
      ...(email.subject !== undefined && sameLanguage ? { subject: email.subject } : {}),
      ...(email.name !== undefined ? { contactName: email.name } : {}),
      ...(client?.accountManager !== undefined ? { accountManager: client.accountManager } : {}),
    };
  };
}

/** Which projects of the manifest are mailed, and why the others are not. Pure. */
export function planDelivery(manifest: Manifest, config: Config, options: PlanOptions): DeliveryPlan<EmailTarget> {
  return planDeliveries({ name: 'email', target: emailTarget(config) }, manifest, config, options);
}

export interface EmailChannelOptions {
  config: Config;
  period: Period;
  mode: DeliveryMode;
  /** The only recipient in test mode. */
  testTo?: string;
  /** Created on first use: a dry run never connects. */
  transport: () => MailTransport;
  /** Printable name of the server (no password). */
  serverLabel?: string;
  /** The words of the messages, in each language: the renderer's, the same as the reports'. */
  phrases: (language: Language) => Phrases;
  /** email.hbs of the agency's template folder (or the built-in one), rendered: the HTML part. */
  renderHtml: HtmlRenderer['renderEmail'];
  /** The agency's brand as configured now: the message's colours and logo. */
  branding: Branding;
  /**
   * The logo as the messages carry it (./logo.ts: an SVG logo drawn as a PNG), null for none; a message never
   * carries an SVG. @default the branding's logo (an SVG one is then left out: the agency's name stands in its place)
   */
  mailLogo?: string | null;
  redact: (text: string) => string;
  clock: () => Date;
  /**
   * The address of the client's page on the published site, for the message (delivery.email.link, or attach:
   * false); it throws when the page is not there, and that message fails with the reason. @default no link
   */
  link?: (entry: ProjectEntry) => Promise<string>;
}

/** The report's figures as the manifest kept them when it was made. */
function figuresOf(entry: ProjectEntry): ReportFigures {
  return { geo: entry.geo, geoChange: entry.geoChange, seo: entry.seo ?? null, seoChange: entry.seoChange ?? null, aiMover: entry.aiMover };
}

/** The brand the messages carry: its logo the mail's (see EmailChannelOptions.mailLogo), or none. */
function withMailLogo(branding: Branding, mailLogo: string | null | undefined): Branding {
  const { logoDataUri: configured, ...brand } = branding;
  const logo = mailLogo === undefined ? configured : mailLogo;
  return logo === null || logo === undefined ? brand : { ...brand, logoDataUri: logo };
}

export function createEmailChannel(options: EmailChannelOptions): DeliveryChannel<'email', EmailTarget, EmailItem> {
  const { config, period } = options;
  const from = emailSender(config);
  const agency = { name: config.agency.name, contact: config.agency.contact, bcc: config.delivery.email.bcc };
  const replyTo = config.delivery.email.replyTo;
  // One stamp for the run: every test message gets an id of its own, never the real message's.
  const test = options.mode === 'test' && options.testTo !== undefined ? { testTo: options.testTo, testStamp: options.clock().toISOString() } : {};
  let transport: MailTransport | null = null;
  const open = (): MailTransport => (transport ??= options.transport());
  return {
    name: 'email',
    label: options.serverLabel ?? null,
    interrupted: 'the sender stopped during the SMTP transaction (the process ended); the message may have arrived',
    target: emailTarget(config),
    async prepare(candidate: Candidate<EmailTarget>, periodDir: string): Promise<EmailItem> {
      const link = options.link === undefined ? null : await options.link(candidate.entry);
      const message = buildReportMessage({
        period,
        periodLabel: periodViewName(period, candidate.language, options.phrases(candidate.language), candidate.entry.madeBeforeEnd === true),
        project: { id: candidate.entry.id, slug: projectSlug(candidate.entry.id, candidate.clientName) }, // named as the mail names the client
        clientName: candidate.clientName,
        language: candidate.language,
        messages: options.phrases(candidate.language),
        recipients: candidate.recipients,
        ...(candidate.subject !== undefined ? { subject: candidate.subject } : {}),
        ...(candidate.contactName !== undefined ? { contactName: candidate.contactName } : {}),
        ...(candidate.accountManager !== undefined ? { accountManager: candidate.accountManager } : {}),
        summary: candidate.entry.summary ?? [],
        figures: figuresOf(candidate.entry),
        note: candidate.entry.note ?? null,
        branding: { ...withMailLogo(options.branding, options.mailLogo), footer: footerIn(config.agency.footer, candidate.language) },
        renderHtml: options.renderHtml,
        link,
        attach: config.delivery.email.attach,
        pdfProtected: config.report.pdf.encryptWithEnv !== undefined, // the mail says the password comes apart
        agency,
        from,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...test,
      });
      const pdf = await checkedAttachment(message, periodDir, candidate.entry, options);
      return { messageId: message.messageId, recipients: message.envelope.to, message, raw: await composeMime(message, pdf, options.clock()) };
    },
    async preview(item, candidate, periodDir) {
      const path = insideRoot(periodDir, candidate.entry.slug, 'email.eml');
      await writeFileAtomic(path, item.raw);
      return path;
    },
    async verify() {
      const check = await open().verify();
      if (!check.ok) throw smtpUnavailable(options.redact(check.reason), check.stop, options.serverLabel ?? 'the SMTP server');
    },
    async deliver(item, recipients, alreadyAccepted) {
      return settle(await open().send({ raw: item.raw, envelope: { from: item.message.envelope.from, to: recipients } }), alreadyAccepted);
    },
    async close() {
      await transport?.close();
    },
  };
}

/**
 * The mail read back before it goes: each figure its HTML part marks (`data-fact`) and its text part writes after
 * its label must be the figure of the report's fact table (data.json); one that is not refuses this message, with the
 * fact named in the agency's language. A report saved without a fact table is not checked.
 */
async function checkMessageFacts(message: ReportMessage, periodDir: string, entry: ProjectEntry, agency: Phrases): Promise<void> {
  if (entry.files.data === null) return;
  const facts = await readFacts(insideRoot(periodDir, entry.files.data));
  if (facts.length === 0) return;
  const found = [
    ...disagreements('mail', facts, shownInHtml(message.html)),
    ...disagreements('mailText', facts, shownInMailText(message.text, message.figures, message.colon)),
  ];
  if (found.length === 0) return;
  throw new GeoReportsError(`the mail disagrees with its report, so it is held back: ${found.map((d) => disagreementMessage(d, agency)).join(' ')}`, {
    hint: "The mail template writes a figure the report does not show: correct email.hbs in the agency's template folder, then send again.",
  });
}

/** The message checked against its report (checkMessageFacts), then the PDF it carries; null when it goes without. */
async function checkedAttachment(
  message: ReportMessage,
  periodDir: string,
  entry: ProjectEntry,
  { config, phrases }: Pick<EmailChannelOptions, 'config' | 'phrases'>,
): Promise<Buffer | null> {
  await checkMessageFacts(message, periodDir, entry, phrases(config.report.language));
  return config.delivery.email.attach ? readFile(insideRoot(periodDir, entry.files.pdf as string)) : null;
}

/** The fact table a report was saved with; empty when its data.json has none. */
async function readFacts(path: string): Promise<Fact[]> {
  const data = JSON.parse(await readFile(path, 'utf8')) as { facts?: unknown };
  const parsed = FactTableSchema.safeParse(data.facts);
  return parsed.success ? parsed.data : [];
}

/**
 * The SMTP server cannot be used at all: nothing was sent. A refused login or a missing TLS is a configuration
 * error (exit 2); an unreachable server is a failure to try again later (exit 1).
 */
function smtpUnavailable(reason: string, stop: StopReason | null, server: string): GeoReportsError {
  const message = `Cannot send through ${server}: ${reason}. Nothing was sent.`;
  if (stop === 'auth') {
    return new ConfigError(message, {
      hint: 'Check the user and password in GEO_REPORTS_SMTP_URL (a password with "@", ":" or "/" must be percent-encoded).',
    });
  }
  if (stop === 'tls') {
    return new ConfigError(message, {
      hint: 'Use smtps:// (port 465) or a server that offers STARTTLS; pass --allow-insecure only on a network you trust.',
    });
  }
  return new GeoReportsError(message, {
    hint: 'Check the host and port in GEO_REPORTS_SMTP_URL and that the server is up, then run the same command again.',
  });
}

export interface DeliveryOptions extends Omit<LedgerOptions<'email'>, 'writeIndex'> {
  /** The only recipient in test mode. */
  testTo?: string;
  /** Created on first use: a dry run never connects. */
  transport: () => MailTransport;
  /** Printable name of the server (no password). */
  serverLabel?: string;
  /** Its phrases write the messages; its index template shows what was sent. */
  renderer: Pick<HtmlRenderer, 'locales' | 'renderIndex' | 'renderEmail'>;
  branding: Branding;
  /** The logo as the messages carry it (see EmailChannelOptions.mailLogo). */
  mailLogo?: string | null;
  /** The address of a client's page, when the messages carry it (see EmailChannelOptions.link). */
  link?: (entry: ProjectEntry) => Promise<string>;
}

/** Sends (or writes, or test-sends) the period's reports by email; the manifest records each message's fate. */
export async function deliverPeriod(options: DeliveryOptions): Promise<DeliverySummary> {
  const { transport, serverLabel, testTo, renderer, branding, mailLogo, link, ...ledger } = options;
  const clock = options.clock ?? (() => new Date());
  const redact = options.redact ?? ((text: string) => text);
  const channel = createEmailChannel({
    config: options.config,
    period: options.period,
    mode: options.mode,
    ...(testTo !== undefined ? { testTo } : {}),
    transport,
    ...(serverLabel !== undefined ? { serverLabel } : {}),
    phrases: (language) => renderer.locales.phrases(language),
    renderHtml: (model, logo, logoSize) => renderer.renderEmail(model, logo, logoSize),
    branding,
    ...(mailLogo !== undefined ? { mailLogo } : {}),
    redact,
    clock,
    ...(link !== undefined ? { link } : {}),
  });
  return deliverThrough(channel, {
    ...ledger,
    clock,
    redact,
    writeIndex: (manifest, periodDir) =>
      writePeriodIndex({
        periodDir,
        manifest,
        page: {
          renderIndex: (model) => renderer.renderIndex(model),
          language: options.config.report.language,
          branding,
          phrases: renderer.locales.phrases(options.config.report.language),
        },
        generatedAt: clock().toISOString(),
      }),
  });
}
