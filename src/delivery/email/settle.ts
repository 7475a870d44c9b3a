// An SMTP answer → the message's record. A recipient refused while others took the message is a failure naming
// the refusal; the recipients that took it are kept, so the retry goes to the others only.
import { uniqueAddresses } from './message.js';
import type { Rejection, SendOutcome } from './transport.js';
import type { Settled } from '../ledger.js';

export function settle(outcome: SendOutcome, acceptedBefore: string[]): Settled {
  if (outcome.status === 'unknown') {
    return {
      kind: 'unknown',
      accepted: acceptedBefore,
      reason: outcome.reason,
      state: (messageId, at, attempts) => ({ status: 'unknown', messageId, at, accepted: acceptedBefore, rejected: [], error: outcome.reason, attempts }),
    };
  }
  if (outcome.status === 'failed') {
    const reason = describeRefusal(outcome.rejected, outcome.reason);
    return {
      kind: 'failed',
      accepted: acceptedBefore,
      reason,
      temporary: outcome.temporary,
      stop: outcome.stop,
      state: (messageId, at, attempts) => ({
        status: 'failed',
        messageId,
        at,
        accepted: acceptedBefore,
        rejected: outcome.rejected,
        error: reason,
        attempts,
      }),
    };
  }
  const accepted = uniqueAddresses(acceptedBefore, outcome.accepted);
  if (outcome.rejected.length > 0) {
    const reason = describeRefusal(outcome.rejected, 'recipients refused');
    const temporary = outcome.rejected.every((r) => /^4\d\d/.test(r.response));
    return {
      kind: 'failed',
      accepted,
      reason,
      temporary,
      stop: null,
      state: (messageId, at, attempts) => ({
        status: 'failed',
        messageId,
        at,
        accepted,
        rejected: outcome.rejected,
        error: reason,
        response: outcome.response,
        attempts,
      }),
    };
  }
  return {
    kind: 'sent',
    accepted,
    response: outcome.response,
    state: (messageId, at, attempts) => ({ status: 'sent', messageId, at, accepted, rejected: [], response: outcome.response, attempts }),
  };
}

function describeRefusal(rejected: Rejection[], fallback: string): string {
  if (rejected.length === 0) return fallback;
  return rejected.map((r) => `${r.address} refused: ${r.response}`).join('; ');
}
