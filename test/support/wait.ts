// Waiting for something that happens elsewhere (another process, a server, a webhook delivery): checked every few
// milliseconds, and a clear failure naming what never happened, with the last state seen, when it does not.
import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  /** @default 5_000 */
  timeoutMs?: number;
  /** @default 10 */
  everyMs?: number;
  /** What to show of the state when the wait fails. */
  state?: () => unknown;
}

/** Resolves once `condition()` holds; throws `Timed out after … waiting for <what>` otherwise. */
export async function waitFor(what: string, condition: () => boolean, options: WaitOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) {
      const state = options.state === undefined ? '' : ` (last state: ${JSON.stringify(options.state())})`;
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${state}.`);
    }
    await delay(options.everyMs ?? 10);
  }
}
