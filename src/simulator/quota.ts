// Daily request quota per token, reset when the clock's UTC date changes.
import type { TokenUsage } from './types.js';

export class QuotaLedger {
  private readonly counters = new Map<number, { day: string; used: number }>();

  constructor(
    private readonly dailyLimit: number,
    private readonly clock: () => Date,
  ) {}

  private today(): string {
    return this.clock().toISOString().slice(0, 10);
  }

  private used(tokenIndex: number): number {
    const counter = this.counters.get(tokenIndex);
    return counter && counter.day === this.today() ? counter.used : 0;
  }

  usage(tokenIndex: number): TokenUsage {
    const used = this.used(tokenIndex);
    return { daily_used: used, daily_limit: this.dailyLimit, daily_remaining: Math.max(0, this.dailyLimit - used) };
  }

  exhausted(tokenIndex: number): boolean {
    return this.used(tokenIndex) >= this.dailyLimit;
  }

  /** Counts one request and returns the usage after it. */
  consume(tokenIndex: number): TokenUsage {
    this.counters.set(tokenIndex, { day: this.today(), used: this.used(tokenIndex) + 1 });
    return this.usage(tokenIndex);
  }

  /** Seconds until the next UTC midnight of the clock, for Retry-After. */
  secondsUntilReset(): number {
    const now = this.clock();
    const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
  }
}
