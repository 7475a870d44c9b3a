// An alert is a message on a channel (src/delivery/channel.ts), settled once by the same rules as a report
// (src/delivery/once.ts) with its record in the events journal: `sending` before the attempt and its outcome after
// it. A record left `sending` by a receiver that died is `unknown` and never sent again; a temporary failure is
// retried with a growing delay; a failure is tried again when the receiver starts.
import { settleOnce, standing, type RecordBook } from '../delivery/once.js';
import type { AlertChannel, AlertMessage } from './alert-channel.js';
import type { OutcomeLine } from './journal.js';
import type { EventStore } from './store.js';

// Where `listen` and the tests take the alert channels from.
export type { AlertAttempt, AlertChannel, AlertMessage } from './alert-channel.js';
export { createChatChannel, type ChatChannelOptions } from './chat-alert.js';

export interface SendAlertOptions {
  store: EventStore;
  clock: () => Date;
  sleep: (ms: number) => Promise<void>;
  log: (line: string) => void;
  /** Attempts per channel in one go when the failure is temporary. @default SEND_RETRY.maxAttempts (delivery/once.ts) */
  maxAttempts?: number;
  /** First wait before a retry, doubled each time. @default SEND_RETRY.retryDelayMs (delivery/once.ts) */
  retryDelayMs?: number;
  /** Removes secrets from any text that reaches the journal or the log. */
  redact?: (text: string) => string;
  /** Aborted when the receiver stops: no retry after a failure (it is tried again at the next start). */
  signal?: AbortSignal;
}

const INTERRUPTED = 'the receiver stopped while this alert was being sent; it may have arrived';

/** The record of an alert on a channel: its latest line in the events journal; a line's time is when it is written. */
function journalBook(store: EventStore, key: string, channel: string, clock: () => Date): RecordBook {
  return {
    read() {
      const line = store.alertRecord(key, channel);
      if (line === undefined) return undefined;
      const { status, at, attempts, error, response } = line;
      return {
        status,
        messageId: key,
        at,
        accepted: [],
        rejected: [],
        attempts,
        ...(error === undefined ? {} : { error }),
        ...(response === undefined ? {} : { response }),
      };
    },
    async write({ status, attempts, error, response }) {
      const at = clock().toISOString();
      await store.append([
        { type: 'alert', key, channel, status, at, attempts, ...(error === undefined ? {} : { error }), ...(response === undefined ? {} : { response }) },
      ]);
      return true;
    },
  };
}

/** Sends one alert on every channel that has not had it; records every attempt. */
export async function sendAlert(message: AlertMessage, channels: readonly AlertChannel[], options: SendAlertOptions): Promise<void> {
  for (const channel of channels) {
    const settled = await settleOnce(
      channel,
      { item: message, id: message.key, recipients: [], alreadyAccepted: [] },
      {
        book: journalBook(options.store, message.key, channel.name, options.clock),
        interrupted: INTERRUPTED,
        clock: options.clock,
        sleep: options.sleep,
        stopping: () => options.signal?.aborted === true,
        onRetry: (reason) => options.log(`alert ${message.key} on ${channel.label}: failed (${reason})`),
        ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
        ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
        ...(options.redact === undefined ? {} : { redact: options.redact }),
      },
    );
    if (settled.kind === 'sent') options.log(`alert ${message.key} sent on ${channel.label}`);
    else if (settled.kind === 'failed' || settled.kind === 'unknown')
      options.log(`alert ${message.key} on ${channel.label}: ${settled.kind} (${settled.reason})`);
  }
}

/** An alert older than this is not sent any more: it would reach the agency as news of a day that is past. */
export const ALERT_FRESH_MS = 24 * 60 * 60 * 1000;

/**
 * The alerts some channel still owes, each with those channels: a channel owes an alert it was meant for (named on
 * the outcome line; for a line of an earlier version, one that has a record of it) and has not sent, unless the
 * alert is older than ALERT_FRESH_MS.
 */
export function alertsOwed(
  outcomes: readonly OutcomeLine[],
  channels: readonly AlertChannel[],
  store: EventStore,
  now: Date,
): Array<{ alert: OutcomeLine['alerts'][number]; channels: AlertChannel[] }> {
  const owed: Array<{ alert: OutcomeLine['alerts'][number]; channels: AlertChannel[] }> = [];
  for (const line of outcomes) {
    if (now.getTime() - Date.parse(line.at) > ALERT_FRESH_MS) continue;
    for (const alert of line.alerts) {
      const due = channels.filter((channel) => {
        const record = store.alertRecord(alert.key, channel.name);
        const meant = line.channels?.includes(channel.name) ?? record !== undefined;
        // One left `sending` is owed too: settleOnce records it as unknown, and sends nothing.
        return meant && (standing(record) === 'due' || standing(record) === 'interrupted');
      });
      if (due.length > 0) owed.push({ alert, channels: due });
    }
  }
  return owed;
}
