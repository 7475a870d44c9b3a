// The email channel of alerts: a plain-text message to alerts.email.to, from delivery.email.from, through the
// same SMTP transport as the reports (GEO_REPORTS_SMTP_URL), with what each SMTP outcome means kept as it is there.
import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseMailbox, uniqueAddresses } from '../delivery/email/message.js';
import { settle } from '../delivery/email/settle.js';
import type { MailTransport } from '../delivery/email/transport.js';
import type { AlertChannel } from './alert-channel.js';
import { outgoingText } from '../outgoing-text.js';

export interface EmailAlertOptions {
  /** delivery.email.from */
  from: string;
  agencyName: string;
  to: readonly string[];
  transport: MailTransport;
  /** Printable server name (never the password). */
  serverLabel: string;
  clock: () => Date;
}

export function createEmailAlertChannel(options: EmailAlertOptions): AlertChannel {
  const from = parseMailbox(options.from, options.agencyName);
  const to = uniqueAddresses([...options.to]);
  const domain = from.address.split('@')[1] ?? 'geo-reports.invalid';
  return {
    name: 'email',
    label: `email to ${to.join(', ')} through ${options.serverLabel}`,
    async deliver(message) {
      // The same alert always has the same Message-ID: a mailbox that got it twice can tell.
      const messageId = `alert-${createHash('sha256').update(message.key).digest('hex').slice(0, 24)}@${domain}`;
      const raw = await new MailComposer({
        messageId: `<${messageId}>`,
        date: options.clock(),
        from,
        to,
        subject: outgoingText(message.subject, { oneLine: true }),
        text: outgoingText(message.text),
        disableFileAccess: true,
        disableUrlAccess: true,
      })
        .compile()
        .build();
      // What an SMTP answer means is the email channel's, for alerts as for reports.
      const receipt = settle(await options.transport.send({ raw, envelope: { from: from.address, to } }), []);
      // Some recipients took it: sending it again would give them a second copy.
      if (receipt.kind === 'failed' && receipt.accepted !== undefined && receipt.accepted.length > 0) {
        return { kind: 'sent', response: `taken by ${receipt.accepted.join(', ')}; ${receipt.reason}` };
      }
      return receipt;
    },
    close: () => options.transport.close(),
  };
}
