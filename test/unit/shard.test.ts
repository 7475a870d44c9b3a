// The split of projects over machines: K/N parsed strictly, every project in exactly one shard, shards of
// about the same size, and a project's shard fixed by its id alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatShard, inShard, parseShard, shardOfProject } from '../../src/batch/shard.js';
import { ConfigError } from '../../src/errors.js';

describe('parseShard', () => {
  it('reads K/N', () => {
    expect(parseShard('1/2')).toEqual({ index: 1, count: 2 });
    expect(parseShard('3/3')).toEqual({ index: 3, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(formatShard(parseShard('2/5'))).toBe('2/5');
  });

  it.each([
    ['0/2', /K must be between 1 and 2/],
    ['3/2', /K must be between 1 and 2/],
    ['1/0', /N must be at least 1/],
    ['1-2', /must look like K\/N/],
    ['a/b', /must look like K\/N/],
    ['', /must look like K\/N/],
    ['-1/2', /must look like K\/N/],
  ])('refuses %j with a message naming the fix', (text, message) => {
    expect(() => parseShard(text)).toThrow(ConfigError);
    expect(() => parseShard(text)).toThrow(message);
  });
});

describe('shardOfProject', () => {
  it('puts every project in exactly one shard', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 10_000_000 }), { maxLength: 200 }), fc.integer({ min: 1, max: 12 }), (ids, count) => {
        const shards = Array.from({ length: count }, (_, i) => ids.filter((id) => inShard(id, { index: i + 1, count })));
        expect(shards.flat().sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
        for (const id of ids) expect(shards.filter((s) => s.includes(id))).toHaveLength(1);
      }),
    );
  });

  it('keeps a project in its shard whatever other projects exist (the split reads the id, not a position)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 50 }),
        fc.uniqueArray(fc.integer({ min: 1_000_001, max: 2_000_000 }), { maxLength: 50 }),
        fc.integer({ min: 2, max: 10 }),
        (ids, added, count) => {
          const before = new Map(ids.map((id) => [id, shardOfProject(id, count)]));
          // A selection that grew (new clients) and shrank (the first one archived).
          const after = [...ids.slice(1), ...added];
          for (const id of after.filter((i) => before.has(i))) expect(shardOfProject(id, count)).toBe(before.get(id));
        },
      ),
    );
  });

  it.each([2, 3, 5, 10])('splits 1000 sequential ids into %i shards of about the same size', (count) => {
    const sizes = new Array<number>(count).fill(0);
    for (let id = 1; id <= 1000; id += 1) {
      const shard = shardOfProject(id, count);
      expect(shard).toBeGreaterThanOrEqual(1);
      expect(shard).toBeLessThanOrEqual(count);
      sizes[shard - 1] = (sizes[shard - 1] ?? 0) + 1;
    }
    const mean = 1000 / count;
    for (const size of sizes) expect(Math.abs(size - mean) / mean).toBeLessThan(0.2);
  });

  it('splits ids allocated in strides as evenly as sequential ones (a modulo of the id would not)', () => {
    // Ids that are all even: `id % 2` would put every one in the same shard.
    const sizes = [0, 0];
    for (let id = 2; id <= 2000; id += 2) sizes[shardOfProject(id, 2) - 1] = (sizes[shardOfProject(id, 2) - 1] ?? 0) + 1;
    for (const size of sizes) expect(Math.abs(size - 500) / 500).toBeLessThan(0.1);
  });

  it('gives every project to the only shard when N is 1', () => {
    for (const id of [1, 42, 999_999]) expect(shardOfProject(id, 1)).toBe(1);
    expect(inShard(7, undefined)).toBe(true);
  });
});
