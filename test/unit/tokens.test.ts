import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { TokenPool, tokenLabel } from '../../src/api/tokens.js';
import type { Usage } from '../../src/api/schemas.js';

const usage = (used: number, limit = 5000): Usage => ({ daily_used: used, daily_limit: limit, daily_remaining: limit - used });

describe('tokenLabel', () => {
  it('shows the 1-based position and the last 4 characters', () => {
    expect(tokenLabel('sk_live_0123456789abf3a1', 1)).toBe('token#2 (…f3a1)');
    expect(tokenLabel('sk_live_0123456789ab0000', 0)).toBe('token#1 (…0000)');
  });

  it('leaves the suffix out for short tokens, where 4 characters would reveal too much', () => {
    expect(tokenLabel('abc123', 2)).toBe('token#3');
  });
});

describe('TokenPool.parse', () => {
  it('splits a comma-separated list and trims spaces around commas', () => {
    expect(TokenPool.parse('aaaa1111, bbbb2222 ,cccc3333')).toEqual(['aaaa1111', 'bbbb2222', 'cccc3333']);
    expect(TokenPool.parse('single-token-value')).toEqual(['single-token-value']);
  });

  const secret = 'very-secret-token-value';
  it.each([
    ['unset', undefined, /not set or empty/],
    ['empty', '   ', /not set or empty/],
    ['more than 10', Array.from({ length: 11 }, (_, i) => `${secret}${i}`).join(','), /11 tokens/],
    ['a duplicate', `${secret},other-token-1,${secret}`, /token #3 repeats token #1/],
    ['whitespace inside', `${secret} x,other-token`, /token #1 contains whitespace/],
    ['an empty entry', `${secret},,other-token`, /token #2 is empty/],
  ])('refuses %s, naming AGENCY_API_TOKEN and never the value', (_case, value, pattern) => {
    let thrown: unknown;
    try {
      TokenPool.parse(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.message).toMatch(pattern);
    expect(error.message).toContain('AGENCY_API_TOKEN');
    expect(`${String(error)} ${error.hint ?? ''} ${JSON.stringify(error)}`).not.toContain(secret);
  });

  it('accepts exactly 10 tokens', () => {
    expect(TokenPool.parse(Array.from({ length: 10 }, (_, i) => `token-number-${i}`).join(','))).toHaveLength(10);
  });
});

describe('TokenPool', () => {
  const tokens = ['token-aaaa-0001', 'token-bbbb-0002', 'token-cccc-0003'];

  it('hands out the token with the most quota left, unknown counting as the assumed limit', () => {
    const pool = new TokenPool(tokens);
    expect(pool.acquire()?.index).toBe(0); // all unknown: lowest position wins the tie
    pool.record(0, usage(4000));
    expect(pool.acquire()?.index).toBe(1);
    pool.record(1, usage(100));
    pool.record(2, usage(50));
    expect(pool.acquire()?.index).toBe(2);
    expect(pool.acquire()?.label).toBe('token#3 (…0003)');
  });

  it('rotates as requests are counted between usage reports', () => {
    const pool = new TokenPool(tokens.slice(0, 2), { assumedDailyLimit: 10 });
    const picked: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const token = pool.acquire();
      if (token === null) throw new Error('pool unexpectedly spent');
      picked.push(token.index);
      pool.countRequest(token.index);
      pool.settle(token.index);
    }
    expect(picked).toEqual([0, 1, 0, 1, 0, 1]);
    expect(pool.requestsByLabel()).toEqual({ 'token#1 (…0001)': 3, 'token#2 (…0002)': 3 });
    expect(pool.remaining()).toBe(14);
  });

  it('marks a token exhausted when usage reaches 0 or after a 429, and never hands it out again', () => {
    const pool = new TokenPool(tokens);
    pool.record(0, usage(5000));
    pool.markExhausted(1, usage(5000));
    expect(pool.status().map((s) => s.state)).toEqual(['exhausted', 'exhausted', 'unknown']);
    expect(pool.acquire()?.index).toBe(2);
    pool.markExhausted(2);
    expect(pool.acquire()).toBeNull();
    expect(pool.isSpent()).toBe(true);
    expect(pool.remaining()).toBe(0);
  });

  it('disables a token after a 401, also across a new day', () => {
    let now = new Date('2025-03-01T23:59:00Z');
    const pool = new TokenPool(tokens.slice(0, 2), { clock: () => now });
    pool.markUnauthorized(0);
    pool.record(0, usage(10)); // a late response does not revive it
    expect(pool.status()[0]?.state).toBe('unauthorized');
    expect(pool.acquire()?.index).toBe(1);
    pool.markExhausted(1);
    expect(pool.isSpent()).toBe(true);
    expect(pool.allUnauthorized()).toBe(false);
    now = new Date('2025-03-02T00:00:01Z');
    expect(pool.isSpent()).toBe(false);
    expect(pool.status().map((s) => s.state)).toEqual(['unauthorized', 'unknown']);
    expect(pool.acquire()?.index).toBe(1);
  });

  it('probes a token of unknown usage with one request at a time; take() waits for the probe', async () => {
    const pool = new TokenPool(tokens.slice(0, 1));
    const first = await pool.take();
    expect(first?.index).toBe(0);
    pool.countRequest(0);
    expect(pool.acquire()).toBeNull();
    let second: number | null | undefined;
    const waiting = pool.take().then((t) => {
      second = t?.index ?? null;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBeUndefined();
    pool.record(0, usage(10));
    pool.settle(0);
    await waiting;
    expect(second).toBe(0);
    // Once usage is known, requests go out concurrently up to what is left, in-flight ones counted as spent.
    const pool2 = new TokenPool(tokens.slice(0, 1));
    pool2.record(0, usage(4998)); // 2 left
    expect((await pool2.take())?.index).toBe(0);
    expect((await pool2.take())?.index).toBe(0);
    expect(pool2.acquire()).toBeNull();
    pool2.settle(0);
    expect(pool2.acquire()?.index).toBe(0);
  });

  it('resolves take() with null when the probe comes back with a 429 and no token is left', async () => {
    const pool = new TokenPool(tokens.slice(0, 1));
    expect((await pool.take())?.index).toBe(0);
    pool.countRequest(0);
    const waiting = pool.take();
    pool.markExhausted(0, usage(5000));
    pool.settle(0);
    expect(await waiting).toBeNull();
  });

  it('clears exhaustion, usage and request counts when the UTC date changes', () => {
    let now = new Date('2025-03-01T10:00:00Z');
    const pool = new TokenPool(tokens.slice(0, 1), { clock: () => now });
    pool.countRequest(0);
    pool.markExhausted(0, usage(5000));
    pool.settle(0);
    expect(pool.acquire()).toBeNull();
    now = new Date('2025-03-01T23:59:59.999Z');
    expect(pool.acquire()).toBeNull();
    now = new Date('2025-03-02T00:00:00Z');
    expect(pool.acquire()?.index).toBe(0);
    // Today's count starts again; the pool's own count of what it sent does not.
    expect(pool.requestsByLabel()).toEqual({ 'token#1 (…0001)': 0 });
    expect(pool.sentByLabel()).toEqual({ 'token#1 (…0001)': 1 });
    expect(pool.status()[0]).toEqual({ label: 'token#1 (…0001)', index: 0, state: 'unknown', usage: null, requests: 0 });
  });

  it('keeps the newest usage when responses arrive out of order', async () => {
    const pool = new TokenPool(tokens.slice(0, 1));
    pool.record(0, usage(120));
    pool.record(0, usage(118));
    expect(pool.status()[0]?.usage?.daily_used).toBe(120);
    expect(pool.remaining()).toBe(4880);
    await pool.take();
    await pool.take();
    expect(pool.remaining()).toBe(4878); // two in flight, not in the last report yet
    pool.settle(0);
    pool.record(0, usage(121));
    expect(pool.remaining()).toBe(4878); // one answered (and counted by the server), one still in flight
  });

  it('refuses an empty, oversized or duplicated pool', () => {
    expect(() => new TokenPool([])).toThrow(ConfigError);
    expect(() => new TokenPool(Array.from({ length: 11 }, (_, i) => `token-${i}-xxxx`))).toThrow(/at most 10/);
    expect(() => new TokenPool(['same-token-1', 'same-token-1'])).toThrow(ConfigError);
  });

  it('never exposes a token through status or labels', () => {
    const pool = new TokenPool(tokens);
    pool.record(1, usage(3));
    const text = JSON.stringify([pool.status(), pool.requestsByLabel()]);
    for (const token of tokens) expect(text).not.toContain(token);
  });
});
