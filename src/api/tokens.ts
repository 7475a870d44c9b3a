// Pool of API tokens and the ledger of their daily quota. Tokens live only in this module's private
// fields; everything that leaves it (status, errors, events) names a token by its label.
import { ConfigError } from '../errors.js';
import type { Usage } from './schemas.js';

/** Spec: an account holds at most 10 tokens at the same time. */
export const MAX_TOKENS = 10;
/** Spec: 5000 requests per day per token. */
export const DEFAULT_DAILY_LIMIT = 5000;
const TOKEN_ENV = 'AGENCY_API_TOKEN';
/** Below this length the last 4 characters would give away too much of the token. */
const MIN_LENGTH_FOR_SUFFIX = 12;

/** `token#2 (…f3a1)`: 1-based position in the pool and the last 4 characters. `index` is 0-based. */
export function tokenLabel(token: string, index: number): string {
  const position = `token#${index + 1}`;
  return token.length >= MIN_LENGTH_FOR_SUFFIX ? `${position} (…${token.slice(-4)})` : position;
}

export type TokenState = 'unknown' | 'ok' | 'exhausted' | 'unauthorized';

export interface TokenStatus {
  label: string;
  /** 0-based position in the pool. */
  index: number;
  state: TokenState;
  /** Last `meta.usage` reported for this token today. */
  usage: Usage | null;
  /** Requests sent through this client with this token today. */
  requests: number;
}

export interface AcquiredToken {
  token: string;
  label: string;
  index: number;
}

export interface TokenPoolOptions {
  /** @default () => new Date() */
  clock?: () => Date;
  /** Quota assumed for a token the API has not reported on yet. @default 5000 */
  assumedDailyLimit?: number;
}

interface TokenEntry {
  readonly token: string;
  readonly label: string;
  state: TokenState;
  usage: Usage | null;
  requests: number;
  /** Requests sent and not answered yet. */
  inFlight: number;
  /** Requests sent over the life of the pool, across quota days. */
  sent: number;
}

const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

export class TokenPool {
  readonly size: number;
  readonly #entries: TokenEntry[];
  readonly #clock: () => Date;
  readonly #assumedDailyLimit: number;
  #day: string;
  #waiters: Array<() => void> = [];

  constructor(tokens: string[], options: TokenPoolOptions = {}) {
    if (tokens.length === 0) throw new ConfigError('The token pool needs at least one API token.', { hint: `Set ${TOKEN_ENV}.` });
    if (tokens.length > MAX_TOKENS) {
      throw new ConfigError(`The token pool holds at most ${MAX_TOKENS} tokens; got ${tokens.length}.`);
    }
    if (new Set(tokens).size !== tokens.length) throw new ConfigError('The token pool holds the same token twice.');
    this.#clock = options.clock ?? (() => new Date());
    this.#assumedDailyLimit = options.assumedDailyLimit ?? DEFAULT_DAILY_LIMIT;
    this.#entries = tokens.map((token, index) => ({
      token,
      label: tokenLabel(token, index),
      state: 'unknown',
      usage: null,
      requests: 0,
      inFlight: 0,
      sent: 0,
    }));
    this.size = tokens.length;
    this.#day = utcDay(this.#clock());
  }

  /**
   * Reads `AGENCY_API_TOKEN`: 1 to 10 tokens separated by commas (spaces around commas allowed).
   * Errors name the variable and the position, never the value.
   */
  static parse(value: string | undefined): string[] {
    const hint = `Set ${TOKEN_ENV} to one token, or up to ${MAX_TOKENS} tokens separated by commas.`;
    if (value === undefined || value.trim() === '') throw new ConfigError(`${TOKEN_ENV} is not set or empty.`, { hint });
    const tokens = value.split(',').map((part) => part.trim());
    if (tokens.length > MAX_TOKENS) {
      throw new ConfigError(`${TOKEN_ENV} holds ${tokens.length} tokens; an account has at most ${MAX_TOKENS}.`, { hint });
    }
    tokens.forEach((token, index) => {
      if (token === '') throw new ConfigError(`${TOKEN_ENV}: token #${index + 1} is empty (a stray comma?).`, { hint });
      if (/\s/.test(token)) {
        throw new ConfigError(`${TOKEN_ENV}: token #${index + 1} contains whitespace.`, {
          hint: 'Separate tokens with commas only; a token never contains spaces or line breaks.',
        });
      }
      const first = tokens.indexOf(token);
      if (first !== index) {
        throw new ConfigError(`${TOKEN_ENV}: token #${index + 1} repeats token #${first + 1}.`, {
          hint: 'List each token once.',
        });
      }
    });
    return tokens;
  }

  /** Token with the most quota left today (ties: lowest position); null when every token is spent. */
  acquire(): AcquiredToken | null {
    this.#rollDay();
    let bestIndex = -1;
    let bestLeft = Number.NEGATIVE_INFINITY;
    for (const [index, entry] of this.#entries.entries()) {
      if (!isUsable(entry)) continue;
      // A token whose usage is unknown gets one probe request at a time: a day already spent elsewhere
      // then costs one 429, not a burst of them.
      if (entry.usage === null && entry.inFlight > 0) continue;
      const left = this.#estimateLeft(entry);
      // Requests in flight already spend what is left: never send one the quota cannot cover.
      if (left <= 0) continue;
      if (left > bestLeft) {
        bestIndex = index;
        bestLeft = left;
      }
    }
    const best = this.#entries[bestIndex];
    if (best === undefined) return null;
    return { token: best.token, label: best.label, index: bestIndex };
  }

  /**
   * Like acquire, but while the only usable tokens are being probed, waits for a probe's answer instead of
   * giving up. Null when every token is spent.
   */
  async take(signal?: AbortSignal): Promise<AcquiredToken | null> {
    for (;;) {
      const token = this.acquire();
      if (token !== null) {
        // Reserved before any await, so concurrent callers see it in flight.
        this.#entry(token.index).inFlight += 1;
        return token;
      }
      if (!this.#entries.some((e) => isUsable(e) && e.usage === null && e.inFlight > 0)) return null;
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** A request handed out by take() was answered, or failed: frees its slot. */
  settle(index: number): void {
    const entry = this.#entry(index);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    const waiters = this.#waiters.splice(0);
    for (const wake of waiters) wake();
  }

  /** Records `meta.usage` of a response sent with that token; 0 remaining makes it exhausted. */
  record(index: number, usage: Usage): void {
    this.#rollDay();
    const entry = this.#entry(index);
    // Responses of concurrent requests arrive out of order: an older count never replaces a newer one.
    if (entry.usage !== null && usage.daily_used < entry.usage.daily_used) return;
    entry.usage = usage;
    if (entry.state === 'unauthorized') return;
    entry.state = usage.daily_remaining <= 0 ? 'exhausted' : 'ok';
  }

  /** After a 429: no more requests with this token until the next UTC day. */
  markExhausted(index: number, usage?: Usage): void {
    this.#rollDay();
    const entry = this.#entry(index);
    if (usage !== undefined) {
      entry.usage = usage;
    }
    if (entry.state !== 'unauthorized') entry.state = 'exhausted';
  }

  /** After a 401: the token is disabled for the life of this pool. */
  markUnauthorized(index: number): void {
    this.#entry(index).state = 'unauthorized';
  }

  countRequest(index: number): void {
    this.#rollDay();
    const entry = this.#entry(index);
    entry.requests += 1;
    entry.sent += 1;
  }

  label(index: number): string {
    return this.#entry(index).label;
  }

  /** Estimated requests left today over the usable tokens. */
  remaining(): number {
    this.#rollDay();
    return this.#entries.reduce((sum, entry) => (isUsable(entry) ? sum + Math.max(0, this.#estimateLeft(entry)) : sum), 0);
  }

  isSpent(): boolean {
    this.#rollDay();
    return !this.#entries.some(isUsable);
  }

  /** True when no token is usable and the cause is refusal (401), not quota. */
  allUnauthorized(): boolean {
    return this.#entries.every((entry) => entry.state === 'unauthorized');
  }

  status(): TokenStatus[] {
    this.#rollDay();
    return this.#entries.map((entry, index) => ({
      label: entry.label,
      index,
      state: entry.state,
      usage: entry.usage === null ? null : { ...entry.usage },
      requests: entry.requests,
    }));
  }

  /** Requests sent today with each token. */
  requestsByLabel(): Record<string, number> {
    this.#rollDay();
    return Object.fromEntries(this.#entries.map((entry) => [entry.label, entry.requests]));
  }

  /** Requests sent with each token over the life of the pool: a run that crosses midnight counts them all. */
  sentByLabel(): Record<string, number> {
    return Object.fromEntries(this.#entries.map((entry) => [entry.label, entry.sent]));
  }

  #estimateLeft(entry: TokenEntry): number {
    if (entry.usage === null) return this.#assumedDailyLimit - entry.requests;
    // Requests still in flight may or may not be in the last usage seen: count them as spent.
    return entry.usage.daily_remaining - entry.inFlight;
  }

  #entry(index: number): TokenEntry {
    const entry = this.#entries[index];
    if (entry === undefined) throw new RangeError(`No token at position ${index} in a pool of ${this.size}.`);
    return entry;
  }

  /** The quota day is assumed to be the UTC date (the spec does not say); a new day clears quota state. */
  #rollDay(): void {
    const today = utcDay(this.#clock());
    if (today === this.#day) return;
    this.#day = today;
    for (const entry of this.#entries) {
      entry.usage = null;
      entry.requests = 0;
      // A refused token stays refused: a new day does not make it valid.
      if (entry.state !== 'unauthorized') entry.state = 'unknown';
    }
  }
}

const isUsable = (entry: TokenEntry): boolean => entry.state === 'unknown' || entry.state === 'ok';
