// One client's report email, built from the manifest entry, the config and the locale: pure, no I/O.
// `composeMime` turns it into the RFC 5322 bytes that are sent (and written as email.eml by --dry-run).
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Branding, Delta, Language } from '../../report/model.js';
import type { EmailFigure, EmailModel, ReportFigures } from '../../report/email-model.js';
import { changeDirection, difference } from '../../report/deltas.js';
import { interpolate, ofPeriod } from '../../i18n/format.js';
import { formatDelta, formatScore } from '../../render/format.js';
import type { Phrases } from '../../i18n/locales.js';
import { outgoingText, unlinkedHosts } from '../../outgoing-text.js';
import { isMonth, kindOf, type Period } from '../../period.js';
import { mailLogoSize } from '../../render/mail-logo.js';

export interface Mailbox {
  name: string;
  address: string;
}

export interface MessageInput {
  /** YYYY-MM */
  period: Period;
  /** Localised, e.g. "October 2026" / "octobre 2026". */
  periodLabel: string;
  project: { id: number; slug: string };
  /** The client's display name (config) or the project's name. */
  clientName: string;
  language: Language;
  messages: Phrases;
  recipients: { to: string[]; cc: string[]; bcc: string[] };
  /** Replaces the locale's subject; {client}, {period}, {ofPeriod} and {agency} are filled in. */
  subject?: string;
  /** The client's contact the mail greets by name; absent: "Hello,". */
  contactName?: string;
  /** The account manager who signs the mail, above the agency's name. */
  accountManager?: string;
  /** The report's summary sentences, in the client's language. */
  summary: string[];
  /** The report's headline figures, as the manifest kept them when the report was made. */
  figures: ReportFigures;
  /** The account manager's note the report was made with; null or absent when none. */
  note?: string | null;
  /** The agency's brand: the HTML part's colours, logo and footer. */
  branding: Branding;
  /** email.hbs, rendered (the renderer of the agency's template folder): the HTML part. */
  renderHtml: (model: EmailModel, logo: string | null, logoSize: { width: number; height: number } | null) => string;
  /** The client's page of the published site (delivery.email.link), or null. */
  link?: string | null;
  /** The PDF goes with the message; false sends the link alone (delivery.email.attach). @default true */
  attach?: boolean;
  /** The PDF opens with a password (report.pdf.encryptWithEnv), which the client gets apart from this mail. @default false */
  pdfProtected?: boolean;
  agency: {
    name: string;
    contact: { email?: string | undefined; phone?: string | undefined; website?: string | undefined };
    /** The agency's copy of every message: envelope only. */
    bcc: string[];
  };
  /** "reports@agency.example" or "Agency <reports@agency.example>". */
  from: string;
  replyTo?: string;
  /** A test send: every message goes to this address only, subject prefixed, recipients named in the body. */
  testTo?: string;
  /** Makes a test message's id unique (a test is not the real message). */
  testStamp?: string;
}

export interface ReportMessage {
  /** Without angle brackets. Stable for the period and project, so a resend is the same message. */
  messageId: string;
  /** The Content-Language header: the language the message (and its report) is written in. */
  language: Language;
  from: Mailbox;
  replyTo: Mailbox | null;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string;
  /** The figures both parts write, with the keys of their facts: what the check before sending compares. */
  figures: EmailFigure[];
  /** The language's colon after a label (" :" in French), as the text part writes it. */
  colon: string;
  /** Null when the message carries the link alone. */
  attachment: { filename: string; contentType: 'application/pdf' } | null;
  /** The logo as an inline part the HTML shows by its cid: (no remote image); null without a logo. */
  logo: InlineImage | null;
  /** Who the SMTP transaction delivers to: to, cc, the client's bcc and the agency's bcc, each once. */
  envelope: { from: string; to: string[] };
}

export interface InlineImage {
  cid: string;
  filename: string;
  contentType: string;
  content: Buffer;
  /** The size the mail shows it at, in CSS pixels; null when its format does not say (mailLogoSize). */
  size: { width: number; height: number } | null;
}

/**
 * The logo (a checked data: URI) as the message's inline part. Never an SVG: Gmail and Outlook show none, so an
 * SVG logo reaches the message drawn as a PNG (./logo.ts), and one that was not gives the agency's name instead.
 */
export function inlineLogo(logoDataUri: string | undefined, fromAddress: string): InlineImage | null {
  const match = /^data:(image\/(png|jpeg|gif|webp));base64,([A-Za-z0-9+/=]+)$/.exec(logoDataUri ?? '');
  if (match === null) return null;
  const [, contentType = '', subtype = '', data = ''] = match;
  const domain = fromAddress.split('@')[1] ?? 'geo-reports.invalid';
  return { cid: `logo@${domain}`, filename: `logo.${subtype}`, contentType, content: Buffer.from(data, 'base64'), size: mailLogoSize(logoDataUri ?? null) };
}

function delta(value: number | null, change: number | null): Delta | null {
  if (value === null || change === null) return null;
  return { value: change, direction: changeDirection(change), previous: difference(value, change) };
}

/** GEO, SEO and the biggest AI mover, labelled in the message's language. */
function figuresOf(figures: ReportFigures, messages: Phrases): EmailFigure[] {
  const list: EmailFigure[] = [
    { key: 'geo', fact: 'scores.geo', label: text(messages, 'email.figure.geo'), value: figures.geo, change: delta(figures.geo, figures.geoChange) },
    { key: 'seo', fact: 'scores.seo', label: text(messages, 'email.figure.seo'), value: figures.seo, change: delta(figures.seo, figures.seoChange) },
  ];
  const mover = figures.aiMover;
  if (mover !== undefined) {
    list.push({
      key: `ai:${mover.assistant}`,
      fact: `ai.${mover.assistant}`,
      label: interpolate(text(messages, 'email.figure.ai'), { assistant: mover.label }),
      value: mover.value,
      change: delta(mover.value, mover.change),
    });
  }
  return list;
}

/** "Name <a@b>" or "a@b" → name and address; a bare address gets `fallbackName`. */
export function parseMailbox(value: string, fallbackName: string): Mailbox {
  const match = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(value);
  if (match !== null) return { name: (match[1] ?? '').replace(/^"(.*)"$/, '$1') || fallbackName, address: match[2] ?? '' };
  return { name: fallbackName, address: value.trim() };
}

/** The recipients of a message once: addresses compared without case, the first spelling kept. */
export function uniqueAddresses(...lists: string[][]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const address of lists.flat()) {
    const key = address.trim().toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    result.push(address.trim());
  }
  return result;
}

export function attachmentName(slug: string, period: Period): string {
  return `${slug}-${period}.pdf`;
}

export function messageIdFor(period: Period, projectId: number, fromAddress: string, testStamp?: string): string {
  const domain = fromAddress.split('@')[1] ?? 'geo-reports.invalid';
  const test = testStamp === undefined ? '' : `.test-${testStamp.replace(/[^0-9A-Za-z]/g, '')}`;
  return `report-${period}-${projectId}${test}@${domain}`;
}

export function buildReportMessage(input: MessageInput): ReportMessage {
  const { messages } = input;
  const from = parseMailbox(input.from, input.agency.name);
  const replyToValue = input.replyTo ?? input.agency.contact.email;
  const replyTo = replyToValue === undefined ? null : parseMailbox(replyToValue, input.agency.name);
  // The subject is a header: one line, cleaned of the service's controls (a NUL or ESC in a project's name).
  const subject = outgoingText(
    interpolate(input.subject ?? text(messages, reviewKind(input.period) === null ? 'email.subject' : 'review.email.subject'), paramsOf(input)).replace(
      /[\r\n]+/g,
      ' ',
    ),
    {
      oneLine: true,
    },
  ).trim();
  const filename = attachmentName(input.project.slug, input.period);
  const intended = {
    to: uniqueAddresses(input.recipients.to),
    cc: uniqueAddresses(input.recipients.cc),
    bcc: uniqueAddresses(input.recipients.bcc, input.agency.bcc),
  };
  const test = input.testTo;
  const attach = input.attach !== false;
  const link = input.link ?? null;
  if (!attach && link === null) throw new Error("A message without its PDF needs the link to the client's page.");
  const testNote =
    test === undefined
      ? null
      : interpolate(text(messages, 'email.testNote'), {
          recipients: [...intended.to, ...intended.cc.map((a) => `cc ${a}`), ...intended.bcc.map((a) => `bcc ${a}`)].join(', '),
        });
  const model = emailModel(input, { subject, testNote, attachment: attach ? filename : null, link });
  const logo = inlineLogo(input.branding.logoDataUri, from.address);
  const linkText = link === null ? null : interpolate(text(messages, attach ? 'email.link' : 'email.linkOnly'), { url: link });
  return {
    messageId: messageIdFor(input.period, input.project.id, from.address, test === undefined ? undefined : (input.testStamp ?? 'now')),
    language: input.language,
    from,
    replyTo,
    to: test === undefined ? intended.to : [test],
    cc: test === undefined ? intended.cc : [],
    subject: test === undefined ? subject : `${text(messages, 'email.testPrefix')} ${subject}`,
    // The HTML part is cleaned by its renderer; the text part here, by the same sanitiser.
    text: outgoingText(plainBody(model, linkText, messages)),
    html: input.renderHtml(model, logo === null ? null : `cid:${logo.cid}`, logo?.size ?? null),
    figures: model.figures,
    colon: text(messages, 'label.colon'),
    attachment: attach ? { filename, contentType: 'application/pdf' } : null,
    logo,
    envelope: {
      from: from.address,
      to: test === undefined ? uniqueAddresses(intended.to, intended.cc, intended.bcc) : [test],
    },
  };
}

function paramsOf(input: MessageInput): Record<string, string> {
  const kind = reviewKind(input.period);
  return {
    client: input.clientName,
    period: input.periodLabel,
    ofPeriod: ofPeriod(input.periodLabel, input.messages),
    agency: input.agency.name,
    // A review's name ("Quarterly review"), for its subject.
    ...(kind === null ? {} : { kind: text(input.messages, `review.kicker.${kind}`) }),
  };
}

/** 'quarter' or 'year' for a review's message; null for a month's report. */
function reviewKind(period: Period): 'quarter' | 'year' | null {
  if (isMonth(period)) return null;
  return kindOf(period) === 'year' ? 'year' : 'quarter';
}

/** The sentence that introduces the report: a month's, or a review's of its quarter or year; attached or online. */
function introKey(period: Period, attached: boolean): string {
  const kind = reviewKind(period);
  if (kind === null) return attached ? 'email.intro' : 'email.introOnline';
  return attached ? `review.email.intro.${kind}` : `review.email.introOnline.${kind}`;
}

/** What email.hbs gets: every word already in the client's language, the figures as the report's. */
function emailModel(input: MessageInput, parts: { subject: string; testNote: string | null; attachment: string | null; link: string | null }): EmailModel {
  const { messages } = input;
  const params = paramsOf(input);
  return {
    language: input.language,
    subject: parts.subject,
    preheader: interpolate(text(messages, 'email.preheader'), {
      ...params,
      geo: formatScore(input.figures.geo, input.language),
      seo: formatScore(input.figures.seo, input.language),
    }),
    branding: input.branding,
    client: { name: unlinkedHosts(input.clientName) },
    period: input.period,
    periodLabel: input.periodLabel,
    testNote: parts.testNote,
    greeting:
      input.contactName === undefined ? text(messages, 'email.greeting') : interpolate(text(messages, 'email.greetingNamed'), { name: input.contactName }),
    intro: interpolate(text(messages, introKey(input.period, parts.attachment !== null)), params),
    note: input.note ?? null,
    figuresTitle: text(messages, reviewKind(input.period) === null ? 'email.figuresTitle' : 'review.email.figuresTitle'),
    figures: figuresOf(input.figures, messages),
    summaryTitle: input.summary.length > 0 ? text(messages, 'email.summaryTitle') : null,
    summary: input.summary.map(unlinkedHosts),
    button: parts.link === null ? null : { label: text(messages, 'email.button'), url: parts.link },
    attachment:
      parts.attachment === null
        ? null
        : interpolate(text(messages, input.pdfProtected === true ? 'email.attachmentProtected' : 'email.attachment'), { ...params, file: parts.attachment }),
    questions: text(messages, 'email.questions'),
    contact: contactLines(input.agency.contact, messages),
    closing: text(messages, 'email.closing'),
    accountManager: input.accountManager ?? null,
    signature: input.agency.name,
  };
}

function text(messages: Phrases, key: string): string {
  return messages[key] ?? key;
}

/** "Label: value", with the language's colon ("E-mail : …" in French). */
function labelled(messages: Phrases, label: string, value: string): string {
  return `${label}${text(messages, 'label.colon')} ${value}`;
}

function contactLines(contact: MessageInput['agency']['contact'], messages: Phrases): string[] {
  const lines: string[] = [];
  if (contact.email !== undefined) lines.push(labelled(messages, text(messages, 'contact.email'), contact.email));
  if (contact.phone !== undefined) lines.push(labelled(messages, text(messages, 'contact.phone'), contact.phone));
  if (contact.website !== undefined) lines.push(labelled(messages, text(messages, 'contact.website'), contact.website));
  return lines;
}

/** The plain-text part: what the HTML part says, in the same words and figures. */
function plainBody(m: EmailModel, link: string | null, messages: Phrases): string {
  const figure = (f: EmailFigure): string => {
    const value = `${formatScore(f.value, m.language)}${f.value === null ? '' : '/100'}`;
    return `- ${labelled(messages, f.label, f.change === null ? value : `${value} (${formatDelta(f.change, m.language)})`)}`;
  };
  const blocks = [
    ...(m.testNote !== null ? [m.testNote] : []),
    m.greeting,
    m.intro,
    ...(m.note !== null ? [m.note] : []),
    [m.figuresTitle, ...m.figures.map(figure)].join('\n'),
    ...(m.summaryTitle !== null ? [[m.summaryTitle, ...m.summary.map((s) => `- ${s}`)].join('\n')] : []),
    ...(m.attachment !== null ? [m.attachment] : []),
    ...(link !== null ? [link] : []),
    [m.questions, ...m.contact].join('\n'),
    [m.closing, ...(m.accountManager !== null ? [m.accountManager] : []), m.signature].join('\n'),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** The message as the bytes that go on the wire: headers, both bodies, the PDF (when attached). Bcc never appears. */
export async function composeMime(message: ReportMessage, pdf: Uint8Array | null, date: Date): Promise<Buffer> {
  const composer = new MailComposer({
    messageId: `<${message.messageId}>`,
    date,
    from: message.from,
    ...(message.replyTo !== null ? { replyTo: message.replyTo } : {}),
    to: message.to,
    ...(message.cc.length > 0 ? { cc: message.cc } : {}),
    subject: message.subject,
    // Read by screen readers and translators to pick the voice and the dictionary of the whole message.
    headers: { 'Content-Language': message.language },
    text: message.text,
    html: message.html,
    attachments: [
      ...(message.logo === null
        ? []
        : [
            {
              filename: message.logo.filename,
              content: message.logo.content,
              contentType: message.logo.contentType,
              cid: message.logo.cid,
              contentDisposition: 'inline' as const,
            },
          ]),
      ...(message.attachment === null || pdf === null
        ? []
        : [{ filename: message.attachment.filename, content: Buffer.from(pdf), contentType: message.attachment.contentType }]),
    ],
    // Nothing is fetched while composing: the PDF is already in memory.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}
