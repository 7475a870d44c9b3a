// Splitting one period's projects over N machines: shard K of N owns the projects whose id hashes to K.
// The split depends on the id alone, so a project stays in its shard when others are added or removed.
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';

export interface Shard {
  /** 1-based: 1 ≤ index ≤ count. */
  index: number;
  count: number;
}

const SHARD_PATTERN = /^(\d+)\/(\d+)$/;

/** `K/N` → a Shard, or a ConfigError naming what is wrong. */
export function parseShard(text: string): Shard {
  const match = SHARD_PATTERN.exec(text.trim());
  if (match === null) {
    throw new ConfigError(`--shard must look like K/N, e.g. 1/3 for the first of three machines (got "${text}").`);
  }
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new ConfigError(`--shard ${text}: the number of shards N must be at least 1.`);
  }
  if (!Number.isSafeInteger(index) || index < 1 || index > count) {
    throw new ConfigError(`--shard ${text}: K must be between 1 and ${count}.`, {
      hint: `Give each of the ${count} machines one of 1/${count} … ${count}/${count}.`,
    });
  }
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The shard (1-based) a project belongs to among `count`: a hash of its id, not its place in a list,
 * so the split is balanced whatever the ids look like (sequential, strided) and stable over time.
 */
export function shardOfProject(projectId: number, count: number): number {
  const digest = createHash('sha256').update(String(projectId)).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

export function inShard(projectId: number, shard: Shard | undefined): boolean {
  return shard === undefined || shardOfProject(projectId, shard.count) === shard.index;
}
