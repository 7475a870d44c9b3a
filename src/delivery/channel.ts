// One channel interface for every message: a report's email, an alert by email or to a chat room. A channel makes
// one attempt and says what came of it (a Receipt); whether a message may go, and the record of every attempt, are
// the once-only rules of ./once.ts, whatever the channel and wherever its record lives.
import type { ClientOverride } from '../config/schema.js';
import type { DeliveryState, ProjectEntry } from '../output/store.js';
import type { Language } from '../report/model.js';

/** Why no more messages should be tried in this run: every one would fail the same way. */
export type StopReason = 'auth' | 'tls' | 'connection';

/** A recipient that refused a message, with its answer. */
export interface Rejection {
  address: string;
  /** The destination's answer, e.g. "550 5.1.1 No such user". */
  response: string;
}

/**
 * What one attempt came to. `accepted` is everyone who has the message now, earlier attempts included (left out:
 * those the attempt was given); a failure that is `temporary` may be tried again; `stop` says no message would pass.
 */
export type Receipt =
  | { kind: 'sent'; response: string; accepted?: string[] }
  | {
      kind: 'failed';
      reason: string;
      temporary: boolean;
      stop?: StopReason | null;
      accepted?: string[];
      rejected?: Rejection[];
      /** The destination's final answer, when it took the message from some recipients. */
      response?: string;
    }
  | { kind: 'unknown'; reason: string; accepted?: string[] };

/** Where messages go (an SMTP server, a chat webhook…): one attempt at a time, nothing recorded. */
export interface Channel<Item> {
  /** The key of its records (`deliveries.<name>` in a manifest, `channel` in the events journal). */
  readonly name: string;
  /** Where messages go, printable (never a secret); null when it connects to nothing (a dry run). */
  readonly label: string | null;
  /** One attempt, to `recipients` (those the message names and has not reached yet; none when the channel's own
   * configuration says where it goes). A throw is an attempt whose outcome is unknown. */
  deliver(item: Item, recipients: string[], alreadyAccepted: string[]): Promise<Receipt>;
  close(): Promise<void>;
}

/** The record of one message on one channel: the manifest's delivery state, the journal's alert line. */
export type SendRecord = DeliveryState;

/** What a channel of reports sends for one report: its stable id and everyone it goes to. */
export interface Deliverable {
  messageId: string;
  recipients: string[];
}

/** A report that goes out in this run, with the channel's target (whom it goes to). */
export type Candidate<Target> = Target & {
  entry: ProjectEntry;
  clientName: string;
  language: Language;
  /** The config now says another language or name than the report was made with: what is sent, and the fix. */
  notice: string | null;
  /** Recipients an earlier attempt of this message already reached: left out of the next one. */
  alreadyAccepted: string[];
};

/** A channel of a period's reports (email, a chat message, an upload…): one folder, this interface. */
export interface DeliveryChannel<Name extends string, Target, Item extends Deliverable> extends Channel<Item> {
  /** The key of its records (`deliveries.<name>` in the manifest) and the prefix of its events (`<name>-sent`). */
  readonly name: Name;
  /** Why a message left `sending` by a process that ended may have arrived. */
  readonly interrupted: string;
  /** Whom a client's report goes to, from its config; `{ none }` says why nobody. */
  target(client: ClientOverride | undefined, entry: ProjectEntry): Target | { none: string };
  /** The message for a candidate, made from its report in the period folder. */
  prepare(candidate: Candidate<Target>, periodDir: string): Promise<Item>;
  /** A dry run: writes the message for a person to read, and returns the file. */
  preview(item: Item, candidate: Candidate<Target>, periodDir: string): Promise<string>;
  /** Connects once, before any attempt; throws the error that ends the send when nothing can go out. */
  verify(): Promise<void>;
}
