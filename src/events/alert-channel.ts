// What an alert is to a channel: a message with its identity in the journal, on a channel whose own configuration
// says whom it reaches (the agency's mailbox, a chat room). One file per channel: ./email-alert.ts, ./chat-alert.ts.
import type { Channel, Receipt } from '../delivery/channel.js';

/** What one attempt of an alert came to: a channel's receipt. */
export type AlertAttempt = Receipt;

export interface AlertMessage {
  /** `<delivery id>#<kind>`: the alert's identity in the journal. */
  key: string;
  projectId: number;
  subject: string;
  text: string;
}

/** Where alerts go: the agency's mailbox, a chat room… A channel whose own configuration says whom it reaches. */
export interface AlertChannel extends Channel<AlertMessage> {
  /** Printable, never a secret. */
  readonly label: string;
}
