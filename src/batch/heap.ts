// How much garbage V8 may let build up between full collections during a batch. Every report leaves about the
// same garbage in the old generation (its answer, its model, its page, the DevTools messages that carried it,
// all alive for the ~100 ms of its print), and what the run keeps stays flat (about 40 MB); but V8 sizes the
// next collection's threshold by a factor of up to 4 that it picks from its own speed, and it picks higher ones
// as a run gets longer. Measured with `npm run bench`: the heap peaked at 78 to 80 MB for 200 projects and 102 MB
// for 1000 with V8's own choice; with the growth bounded to half of what is kept, at ... (see README, Memory).
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
 * Bounds the heap's growth between full collections for the rest of the process, so Node's peak stays the same
 * whether a run makes 200 reports or 10,000. V8 reads this setting at each collection, so it takes effect while
 * the process runs, unlike the sizes of the heap's spaces. Returns the flag it set, or null when Node was
 * started with its own `--heap-growing-percent`.
 */
export function boundHeapGrowth(options: HeapGrowthOptions = {}): string | null {
  const execArgv = options.execArgv ?? process.execArgv;
  if (execArgv.some((flag) => OWN_SETTING.test(flag))) return null;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  (options.setFlags ?? setFlagsFromString)(flag);
  return flag;
}
