// An SMTP answer → the channel's receipt. A recipient refused while others took the message is a failure naming
// the refusal; the recipients that took it are kept, so the retry goes to the others only.
import type { Receipt, Rejection } from '../channel.js';
import { uniqueAddresses } from './message.js';
import type { SendOutcome } from './transport.js';

export function settle(outcome: SendOutcome, acceptedBefore: string[]): Receipt {
  if (outcome.status === 'unknown') return { kind: 'unknown', accepted: acceptedBefore, reason: outcome.reason };
  if (outcome.status === 'failed') {
    const reason = describeRefusal(outcome.rejected, outcome.reason);
    return { kind: 'failed', accepted: acceptedBefore, reason, temporary: outcome.temporary, stop: outcome.stop, rejected: outcome.rejected };
  }
  const accepted = uniqueAddresses(acceptedBefore, outcome.accepted);
  if (outcome.rejected.length > 0) {
    const reason = describeRefusal(outcome.rejected, 'recipients refused');
    const temporary = outcome.rejected.every((r) => /^4\d\d/.test(r.response));
    return { kind: 'failed', accepted, reason, temporary, stop: null, rejected: outcome.rejected, response: outcome.response };
  }
  return { kind: 'sent', accepted, response: outcome.response };
}

function describeRefusal(rejected: Rejection[], fallback: string): string {
  if (rejected.length === 0) return fallback;
  return rejected.map((r) => `${r.address} refused: ${r.response}`).join('; ');
}
