// The API client's retry policy: how many times a request may be resent, and how long it waits before each.

export interface RetrySettings {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Each setting may be left out (or undefined): the default stands. */
export type RetryOptions = { [K in keyof RetrySettings]?: RetrySettings[K] | undefined };

/** The defaults, written once: the config's `api.maxRetries` and the client's options fall back to them. */
export const DEFAULT_RETRY: RetrySettings = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 8000 };

/** Capped exponential backoff with full jitter: a random wait in [0, min(max, base·2^(n-1))). */
export function backoffDelay(retryNumber: number, settings: RetrySettings, random: () => number): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
}
