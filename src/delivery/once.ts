// Once and only once, for a report and an alert alike, wherever the record lives (a period's manifest, the events
// journal): `sending` is on disk before an attempt starts and its outcome after it, so a crash leaves `sending`,
// read back as `unknown`: a message that may have arrived is never sent again on its own. A temporary failure is
// tried again after a growing pause; an unknown outcome never is.
import { errorMessage } from '../errors.js';
import type { Channel, Receipt, SendRecord } from './channel.js';

/** How a message on any channel (a report, an alert) is retried when its failure is temporary, by default. */
export const SEND_RETRY = { maxAttempts: 3, retryDelayMs: 2_000 } as const;

/** Where the record of one message on one channel lives. */
export interface RecordBook {
  /** Its latest record; undefined when the message was never tried. */
  read(): SendRecord | undefined;
  /** Puts the record on disk; false (or a throw) when it is not there. */
  write(record: SendRecord): Promise<boolean>;
}

/** Where a message stands by its record: due (never tried, or failed), or left alone. */
export type Standing = 'due' | 'sent' | 'unknown' | 'interrupted';

export function standing(record: Pick<SendRecord, 'status'> | undefined): Standing {
  const status = record?.status;
  if (status === undefined || status === 'failed') return 'due';
  // An attempt was under way when the process ended: the message may have arrived.
  return status === 'sending' ? 'interrupted' : status;
}

/** The record of an attempt a process that ended left `sending`: unknown, with why. */
export function interruptedRecord(record: SendRecord, reason: string): SendRecord {
  return { ...record, status: 'unknown', error: reason };
}

/** The record a receipt leaves; `acceptedBefore` stands when the receipt does not say who has the message. */
export function recordOf(receipt: Receipt, messageId: string, at: string, attempts: number, acceptedBefore: string[] = []): SendRecord {
  const accepted = receipt.accepted ?? acceptedBefore;
  switch (receipt.kind) {
    case 'sent':
      return { status: 'sent', messageId, at, accepted, rejected: [], response: receipt.response, attempts };
    case 'failed':
      return {
        status: 'failed',
        messageId,
        at,
        accepted,
        rejected: receipt.rejected ?? [],
        error: receipt.reason,
        ...(receipt.response === undefined ? {} : { response: receipt.response }),
        attempts,
      };
    case 'unknown':
      return { status: 'unknown', messageId, at, accepted, rejected: [], error: receipt.reason, attempts };
  }
}

/** One message for settleOnce: what the channel sends, its stable id, and whom it names. */
export interface OnceMessage<Item> {
  item: Item;
  /** The same for every attempt: the record is kept under it. */
  id: string;
  /** Everyone the message names; none when the channel's configuration says where it goes. */
  recipients: readonly string[];
  /** Recipients an earlier attempt reached: left out of the next one. */
  alreadyAccepted: string[];
}

export interface OnceRules {
  /** Null: nothing is recorded (a dry run, a test send), and the message goes whatever a record says. */
  book: RecordBook | null;
  /** Why a record left `sending` may have arrived, written when one is found. */
  interrupted: string;
  /** Sends even when the record says sent or unknown: a resend asked for by name. */
  again?: boolean;
  /** Attempts in one go when the failure is temporary. @default SEND_RETRY.maxAttempts */
  maxAttempts?: number;
  /** First wait before a retry, doubled each time. @default SEND_RETRY.retryDelayMs */
  retryDelayMs?: number;
  clock: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** Removes secrets from any text that reaches the record or the caller. */
  redact?: (text: string) => string;
  /** True once no retry may start (a stop was asked for, or every message would fail the same way). */
  stopping: () => boolean;
  /** Runs an attempt when its turn comes (a limit on messages under way); null when it may not start. @default at once */
  turn?: <T>(attempt: () => Promise<T>) => Promise<T | null>;
  /** The channel answered; called before its record is written. */
  onAnswer?: (receipt: Receipt) => void;
  /** A temporary failure, recorded, tried again after `delayMs`. */
  onRetry?: (reason: string, attempt: number, delayMs: number) => void;
}

/** How a message ended; its texts redacted. */
export type Settlement =
  | { kind: 'sent'; response: string; recipients: string[]; ms: number }
  | { kind: 'failed'; reason: string }
  | { kind: 'unknown'; reason: string }
  /** Its record says it went, or may have: nothing was done. */
  | { kind: 'left'; standing: 'sent' | 'unknown' }
  /** No attempt started: a stop, or `sending` could not be put on disk. */
  | { kind: 'not-attempted' };

/** Sends one message on one channel under the once-only rules, recording every attempt in the book. */
export async function settleOnce<Item>(channel: Channel<Item>, message: OnceMessage<Item>, rules: OnceRules): Promise<Settlement> {
  const { book, clock } = rules;
  const redact = rules.redact ?? ((text: string) => text);
  const before = book?.read();
  if (book !== null && rules.again !== true) {
    const now = standing(before);
    if (now === 'sent' || now === 'unknown') return { kind: 'left', standing: now };
    if (now === 'interrupted' && before !== undefined) {
      await book.write(interruptedRecord(before, rules.interrupted));
      return { kind: 'unknown', reason: rules.interrupted };
    }
  }
  const maxAttempts = Math.max(1, rules.maxAttempts ?? SEND_RETRY.maxAttempts);
  const turn = rules.turn ?? ((attempt) => attempt());
  let attempts = before?.messageId === message.id ? before.attempts : 0;
  let accepted = message.alreadyAccepted;
  for (let attempt = 1; ; attempt += 1) {
    if (attempt > 1 && rules.stopping()) return { kind: 'not-attempted' };
    const recipients = message.recipients.filter((a) => !accepted.some((b) => b.toLowerCase() === a.toLowerCase()));
    const started = clock().getTime();
    const receipt = await turn(async (): Promise<Receipt | null> => {
      if (book !== null) {
        attempts += 1;
        const sending: SendRecord = { status: 'sending', messageId: message.id, at: clock().toISOString(), accepted, rejected: [], attempts };
        // On disk before the first word to the destination: a crash from here on reads back as `unknown`.
        if (!(await book.write(sending))) return null;
      }
      const answer = redacted(
        await channel.deliver(message.item, recipients, accepted).catch((error: unknown): Receipt => ({ kind: 'unknown', reason: errorMessage(error) })),
        redact,
      );
      rules.onAnswer?.(answer);
      // A record that cannot be written leaves `sending`: unknown, never sent again.
      if (book !== null) await book.write(recordOf(answer, message.id, clock().toISOString(), attempts, accepted));
      return answer;
    });
    if (receipt === null) return { kind: 'not-attempted' };
    accepted = receipt.accepted ?? accepted;
    if (receipt.kind === 'sent') return { kind: 'sent', response: receipt.response, recipients, ms: clock().getTime() - started };
    if (receipt.kind === 'unknown') return { kind: 'unknown', reason: receipt.reason };
    if (!receipt.temporary || attempt >= maxAttempts || rules.stopping()) return { kind: 'failed', reason: receipt.reason };
    const delayMs = (rules.retryDelayMs ?? SEND_RETRY.retryDelayMs) * 2 ** (attempt - 1);
    rules.onRetry?.(receipt.reason, attempt, delayMs);
    await rules.sleep(delayMs);
  }
}

function redacted(receipt: Receipt, redact: (text: string) => string): Receipt {
  if (receipt.kind === 'sent') return { ...receipt, response: redact(receipt.response) };
  const response = receipt.kind === 'failed' && receipt.response !== undefined ? { response: redact(receipt.response) } : {};
  // Each refused address's answer too: a server may quote anything in it.
  const rejected =
    receipt.kind === 'failed' && receipt.rejected !== undefined
      ? { rejected: receipt.rejected.map((rejection) => ({ ...rejection, response: redact(rejection.response) })) }
      : {};
  return { ...receipt, reason: redact(receipt.reason), ...response, ...rejected };
}
