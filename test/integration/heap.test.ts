import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, boundHeapGrowth } from '../../src/batch/heap.js';

const BUILT = pathToFileURL(join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'batch', 'heap.js')).href;

/**
 * A process that makes garbage the way a batch does (each batch of objects stays alive while the next ones are
 * made, so it reaches the old generation before it dies) and prints the largest heap it saw once past its first
 * collections (the first full one comes at V8's starting limit, whatever the growth).
 */
const PROGRAM = `
import { getHeapStatistics } from 'node:v8';
const { boundHeapGrowth } = await import(process.argv[1]);
if (process.argv[2] === 'bounded') boundHeapGrowth();
const alive = [];
let peak = 0;
for (let i = 0; i < 10000; i++) {
  alive.push(Array.from({ length: 1000 }, (_, j) => ({ i, j, label: 'item ' + j })));
  if (alive.length > 300) alive.shift();
  if (i >= 5000) peak = Math.max(peak, getHeapStatistics().used_heap_size);
}
process.stdout.write(String(peak));
`;

/** The steady heap peak of PROGRAM; `nodeFlags` are given to Node at start. */
async function heapPeak(mode: 'bounded' | 'as started', nodeFlags: string[] = []): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeFlags, '--input-type=module', '-e', PROGRAM, BUILT, mode], {
    timeout: 60_000,
  });
  return Number(stdout);
}

describe('boundHeapGrowth', () => {
  it('sets the growth once Node runs, unless Node was started with its own', () => {
    const set: string[] = [];
    expect(boundHeapGrowth({ execArgv: ['--enable-source-maps'], setFlags: (flag) => set.push(flag) })).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);

    for (const own of ['--heap-growing-percent=20', '--heap_growing_percent=20']) {
      expect(boundHeapGrowth({ execArgv: [own], setFlags: (flag) => set.push(flag) })).toBeNull();
    }
    expect(set).toHaveLength(1);
  });

  it('takes effect in a running Node: the same garbage peaks far lower', async () => {
    // Against a Node started with a generous growth of its own (V8's largest factor, 4): a call that did nothing
    // would leave the bounded process at V8's own choice, which peaks as high on this garbage.
    const bounded = await heapPeak('bounded');
    const generous = await heapPeak('as started', ['--heap-growing-percent=300']);
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(generous * 0.75);
  });
});
