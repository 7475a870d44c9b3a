// One client's report email, built from the manifest entry, the config and the locale: pure, no I/O.
// `composeMime` turns it into the RFC 5322 bytes that are sent (and written as email.eml by --dry-run).
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Language } from '../../report/model.js';
import { interpolate } from '../../i18n/format.js';
import type { Phrases } from '../../i18n/locales.js';

export interface Mailbox {
  name: string;
  address: string;
}

export interface MessageInput {
  /** YYYY-MM */
  period: string;
  /** Localised, e.g. "October 2026" / "octobre 2026". */
  periodLabel: string;
  project: { id: number; slug: string };
  /** The client's display name (config) or the project's name. */
  clientName: string;
  language: Language;
  messages: Phrases;
  recipients: { to: string[]; cc: string[]; bcc: string[] };
  /** Replaces the locale's subject; {client}, {period} and {agency} are filled in. */
  subject?: string;
  /** The report's summary sentences, in the client's language. */
  summary: string[];
  /** The client's page of the published site (delivery.email.link), or null. */
  link?: string | null;
  /** The PDF goes with the message; false sends the link alone (delivery.email.attach). @default true */
  attach?: boolean;
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
  from: Mailbox;
  replyTo: Mailbox | null;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string;
  /** Null when the message carries the link alone. */
  attachment: { filename: string; contentType: 'application/pdf' } | null;
  /** Who the SMTP transaction delivers to: to, cc, the client's bcc and the agency's bcc, each once. */
  envelope: { from: string; to: string[] };
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

export function attachmentName(slug: string, period: string): string {
  return `${slug}-${period}.pdf`;
}

export function messageIdFor(period: string, projectId: number, fromAddress: string, testStamp?: string): string {
  const domain = fromAddress.split('@')[1] ?? 'geo-reports.invalid';
  const test = testStamp === undefined ? '' : `.test-${testStamp.replace(/[^0-9A-Za-z]/g, '')}`;
  return `report-${period}-${projectId}${test}@${domain}`;
}

export function buildReportMessage(input: MessageInput): ReportMessage {
  const { messages } = input;
  const from = parseMailbox(input.from, input.agency.name);
  const replyToValue = input.replyTo ?? input.agency.contact.email;
  const replyTo = replyToValue === undefined ? null : parseMailbox(replyToValue, input.agency.name);
  const params = { client: input.clientName, period: input.periodLabel, agency: input.agency.name };
  const subject = interpolate(input.subject ?? text(messages, 'email.subject'), params)
    .replace(/[\r\n]+/g, ' ')
    .trim();
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
  const body: BodyParts = {
    testNote:
      test === undefined
        ? null
        : interpolate(text(messages, 'email.testNote'), {
            recipients: [...intended.to, ...intended.cc.map((a) => `cc ${a}`), ...intended.bcc.map((a) => `bcc ${a}`)].join(', '),
          }),
    greeting: text(messages, 'email.greeting'),
    intro: interpolate(text(messages, attach ? 'email.intro' : 'email.introOnline'), params),
    summaryTitle: input.summary.length > 0 ? text(messages, 'email.summaryTitle') : null,
    summary: input.summary,
    attachment: attach ? interpolate(text(messages, 'email.attachment'), { ...params, file: filename }) : null,
    link: link === null ? null : { text: interpolate(text(messages, attach ? 'email.link' : 'email.linkOnly'), { url: '{url}' }), url: link },
    questions: text(messages, 'email.questions'),
    contact: contactLines(input.agency.contact, messages),
    closing: text(messages, 'email.closing'),
    signature: input.agency.name,
  };
  return {
    messageId: messageIdFor(input.period, input.project.id, from.address, test === undefined ? undefined : (input.testStamp ?? 'now')),
    from,
    replyTo,
    to: test === undefined ? intended.to : [test],
    cc: test === undefined ? intended.cc : [],
    subject: test === undefined ? subject : `${text(messages, 'email.testPrefix')} ${subject}`,
    text: plainBody(body),
    html: htmlBody(body, input.language, subject),
    attachment: attach ? { filename, contentType: 'application/pdf' } : null,
    envelope: {
      from: from.address,
      to: test === undefined ? uniqueAddresses(intended.to, intended.cc, intended.bcc) : [test],
    },
  };
}

interface BodyParts {
  testNote: string | null;
  greeting: string;
  intro: string;
  summaryTitle: string | null;
  summary: string[];
  attachment: string | null;
  /** The sentence around the link (`{url}` where it goes) and the link. */
  link: { text: string; url: string } | null;
  questions: string;
  contact: string[];
  closing: string;
  signature: string;
}

function text(messages: Phrases, key: string): string {
  return messages[key] ?? key;
}

function contactLines(contact: MessageInput['agency']['contact'], messages: Phrases): string[] {
  const lines: string[] = [];
  if (contact.email !== undefined) lines.push(`${text(messages, 'contact.email')}${text(messages, 'label.colon')} ${contact.email}`);
  if (contact.phone !== undefined) lines.push(`${text(messages, 'contact.phone')}${text(messages, 'label.colon')} ${contact.phone}`);
  if (contact.website !== undefined) lines.push(`${text(messages, 'contact.website')}${text(messages, 'label.colon')} ${contact.website}`);
  return lines;
}

function plainBody(b: BodyParts): string {
  const blocks = [
    ...(b.testNote !== null ? [b.testNote] : []),
    b.greeting,
    b.intro,
    ...(b.summaryTitle !== null ? [[b.summaryTitle, ...b.summary.map((s) => `- ${s}`)].join('\n')] : []),
    ...(b.attachment !== null ? [b.attachment] : []),
    ...(b.link !== null ? [interpolate(b.link.text, { url: b.link.url })] : []),
    [b.questions, ...b.contact].join('\n'),
    `${b.closing}\n${b.signature}`,
  ];
  return `${blocks.join('\n\n')}\n`;
}

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * Plain HTML with inline styles: no image, no tracking; mail clients drop <style> often. The one link, when there is
 * one, is the client's own page of the published site, written out in full so the reader sees where it leads.
 */
function htmlBody(b: BodyParts, language: Language, title: string): string {
  const p = (content: string): string => `<p style="margin:0 0 14px">${content}</p>`;
  const parts = [
    ...(b.testNote !== null ? [`<p style="margin:0 0 14px;padding:8px 12px;border:1px solid #b45309;background:#fffbeb">${escapeHtml(b.testNote)}</p>`] : []),
    p(escapeHtml(b.greeting)),
    p(escapeHtml(b.intro)),
    ...(b.summaryTitle !== null
      ? [
          `<p style="margin:0 0 6px;font-weight:bold">${escapeHtml(b.summaryTitle)}</p>`,
          `<ul style="margin:0 0 14px;padding-left:22px">${b.summary.map((s) => `<li style="margin:0 0 4px">${escapeHtml(s)}</li>`).join('')}</ul>`,
        ]
      : []),
    ...(b.attachment !== null ? [p(escapeHtml(b.attachment))] : []),
    ...(b.link !== null ? [p(linkSentence(b.link))] : []),
    p([escapeHtml(b.questions), ...b.contact.map(escapeHtml)].join('<br>')),
    p(`${escapeHtml(b.closing)}<br>${escapeHtml(b.signature)}`),
  ];
  return (
    `<!doctype html>\n<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n` +
    `<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1d2433;background:#ffffff">\n` +
    `${parts.join('\n')}\n</body></html>\n`
  );
}

/** The link sentence with the address as a link: the text around it escaped, the address written as it is. */
function linkSentence(link: { text: string; url: string }): string {
  const [before = '', after = ''] = link.text.split('{url}');
  const url = escapeHtml(link.url);
  return `${escapeHtml(before)}<a href="${url}" style="color:#1d4ed8">${url}</a>${escapeHtml(after)}`;
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
    text: message.text,
    html: message.html,
    attachments:
      message.attachment === null || pdf === null
        ? []
        : [{ filename: message.attachment.filename, content: Buffer.from(pdf), contentType: message.attachment.contentType }],
    // Nothing is fetched while composing: the PDF is already in memory.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}
