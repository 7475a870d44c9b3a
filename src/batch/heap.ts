// How much garbage V8 may let build up between full collections during a batch. Every report leaves about the
// same garbage in the old generation (its answer, model and page, and the DevTools message that carried the page,
// all alive for the ~100 ms of its print), while what the run keeps stays flat; but V8 sets the next collection's
// threshold at up to 4 times what the last one kept, by a factor it picks from its own speed, and it picked
// higher ones as a run went on. Measured with `npm run bench` (see docs/benchmark.md, Memory): left to V8, Node
// peaked at RSS 203 MB for 200 projects and 231 MB for 1000 (heap 70 and 107 MB); bounded to half of what is kept,
// at RSS 195 to 202 MB and 197 to 203 MB (heap 55 to 60 and 63 to 68 MB), for 1 to 3 ms more per report.
import { setFlagsFromString } from 'node:v8';

/** After a full collection, the heap may grow by this share of what survived it before the next one. */
export const HEAP_GROWING_PERCENT = 50;

const OWN_SETTING = /^--heap[-_]growing[-_]percent(=|$)/;

export interface HeapGrowthOptions {
  /** The flags Node was started with: one that sets the growth itself wins. @default process.execArgv */
  execArgv?: readonly string[];
  /** @default v8.setFlagsFromString */
  setFlags?: (flags: string) => void;
}

/**
 * Bounds the heap's growth between full collections for the rest of the process, so Node's peak does not grow
 * with the number of reports (measured at 200 and 1000). V8 reads this setting at each collection, so it takes
 * effect while the process runs, unlike the sizes of the heap's spaces. Returns the flag it set, or null when
 * Node was started with its own `--heap-growing-percent`.
 */
export function boundHeapGrowth(options: HeapGrowthOptions = {}): string | null {
  const execArgv = options.execArgv ?? process.execArgv;
  if (execArgv.some((flag) => OWN_SETTING.test(flag))) return null;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  (options.setFlags ?? setFlagsFromString)(flag);
  return flag;
}
