// What `send` prints: one line per message on a terminal, one JSON line per event for logs and CI (or --json).
import type { DeliveryEvent, DeliverySummary } from '../delivery/email/index.js';
import type { CommandContext } from './context.js';

export function createDeliveryOutput(ctx: CommandContext, json: boolean): (event: DeliveryEvent) => void {
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

export function describeDeliveryEvent(event: DeliveryEvent): string | null {
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

export function describeDeliverySummary(s: DeliverySummary): string {
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
