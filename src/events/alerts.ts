// Alerts go out once: for every channel, `sending` is written (and flushed) before the attempt and its outcome
// after it, in the events journal. A record left `sending` by a receiver that died is `unknown` and never sent
// again; a temporary failure is retried with a growing delay; a failure is tried again when the receiver starts.
import { request, type Dispatcher } from 'undici';
import type { OutcomeLine } from './journal.js';
import type { EventStore } from './store.js';

export type AlertAttempt = { kind: 'sent'; response: string } | { kind: 'failed'; reason: string; temporary: boolean } | { kind: 'unknown'; reason: string };

export interface AlertMessage {
  /** `<delivery id>#<kind>`: the alert's identity in the journal. */
  key: string;
  projectId: number;
  subject: string;
  text: string;
}

/** Where alerts go: the agency's mailbox, a chat room… */
export interface AlertChannel {
  readonly name: string;
  /** Printable, never a secret. */
  readonly label: string;
  deliver(message: AlertMessage): Promise<AlertAttempt>;
  close(): Promise<void>;
}

export interface SendAlertOptions {
  store: EventStore;
  clock: () => Date;
  sleep: (ms: number) => Promise<void>;
  log: (line: string) => void;
  /** Attempts per channel in one go when the failure is temporary. @default 3 */
  maxAttempts?: number;
  /** First wait before a retry, doubled each time. @default 2000 */
  retryDelayMs?: number;
  /** Removes secrets from any text that reaches the journal or the log. */
  redact?: (text: string) => string;
  /** Aborted when the receiver stops: no retry after a failure (it is tried again at the next start). */
  signal?: AbortSignal;
}

/** Sends one alert on every channel that has not had it; records every attempt. */
export async function sendAlert(message: AlertMessage, channels: readonly AlertChannel[], options: SendAlertOptions): Promise<void> {
  const redact = options.redact ?? ((text: string) => text);
  const maxAttempts = options.maxAttempts ?? 3;
  const stopping = (): boolean => options.signal?.aborted === true;
  for (const channel of channels) {
    const record = options.store.alertRecord(message.key, channel.name);
    if (record?.status === 'sent' || record?.status === 'unknown') continue;
    let attempts = record?.attempts ?? 0;
    const at = (): string => options.clock().toISOString();
    if (record?.status === 'sending') {
      // The receiver stopped during this attempt: the alert may have gone out.
      const reason = 'the receiver stopped while this alert was being sent; it may have arrived';
      await options.store.append([{ type: 'alert', key: message.key, channel: channel.name, status: 'unknown', at: at(), attempts, error: reason }]);
      options.log(`alert ${message.key} on ${channel.label}: unknown (${reason})`);
      continue;
    }
    for (let tries = 0; tries < maxAttempts; tries += 1) {
      attempts += 1;
      await options.store.append([{ type: 'alert', key: message.key, channel: channel.name, status: 'sending', at: at(), attempts }]);
      const result = await channel.deliver(message).catch((error: unknown): AlertAttempt => ({ kind: 'unknown', reason: (error as Error).message }));
      if (result.kind === 'sent') {
        await options.store.append([
          { type: 'alert', key: message.key, channel: channel.name, status: 'sent', at: at(), attempts, response: redact(result.response) },
        ]);
        options.log(`alert ${message.key} sent on ${channel.label}`);
        break;
      }
      const reason = redact(result.reason);
      const status = result.kind === 'unknown' ? 'unknown' : 'failed';
      await options.store.append([{ type: 'alert', key: message.key, channel: channel.name, status, at: at(), attempts, error: reason }]);
      options.log(`alert ${message.key} on ${channel.label}: ${status} (${reason})`);
      if (result.kind === 'unknown' || !result.temporary || tries + 1 === maxAttempts || stopping()) break;
      await options.sleep((options.retryDelayMs ?? 2_000) * 2 ** tries);
      if (stopping()) break;
    }
  }
}

/** An alert older than this is not sent any more: it would reach the agency as news of a day that is past. */
export const ALERT_FRESH_MS = 24 * 60 * 60 * 1000;

/**
 * The alerts some channel still owes, each with those channels: a channel owes an alert it was meant for (named on
 * the outcome line; for a line of an earlier version, one that has a record of it) and has not sent, unless the
 * alert is older than ALERT_FRESH_MS. A record left `sending` is among them: sendAlert marks it unknown.
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
        const status = store.alertRecord(alert.key, channel.name)?.status;
        const meant = line.channels?.includes(channel.name) ?? status !== undefined;
        return meant && (status === undefined || status === 'sending' || status === 'failed');
      });
      if (due.length > 0) owed.push({ alert, channels: due });
    }
  }
  return owed;
}

export interface ChatChannelOptions {
  /** The incoming-webhook URL (Slack, Mattermost, Rocket.Chat, a Teams workflow): it carries a secret. */
  url: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/** Slack-compatible `{"text": …}` to an incoming webhook; the URL is never printed, only its host. */
export function createChatChannel(options: ChatChannelOptions): AlertChannel {
  const url = new URL(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    name: 'chat',
    label: `chat webhook on ${url.host}`,
    async deliver(message) {
      const body = JSON.stringify({ text: `*${message.subject}*\n${message.text}` });
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        });
        const answer = (await response.body.text()).slice(0, 200);
        if (response.statusCode >= 200 && response.statusCode < 300) return { kind: 'sent', response: `${response.statusCode} ${answer}`.trim() };
        const temporary = response.statusCode === 429 || response.statusCode >= 500;
        return { kind: 'failed', reason: `the chat webhook answered ${response.statusCode}`, temporary };
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Refused or not found: nothing reached the chat. Anything later may have posted the message.
        if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
          return { kind: 'failed', reason: `the chat webhook could not be reached (${code})`, temporary: true };
        }
        return { kind: 'unknown', reason: `the chat webhook did not answer (${code ?? (error as Error).message})` };
      }
    },
    close: async () => undefined,
  };
}
