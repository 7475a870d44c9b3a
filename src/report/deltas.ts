// Change of one value against another (last period, the benchmark): how it is rounded and when it counts as none.
import type { Delta } from './model.js';

/** Below this absolute change a value is shown as unchanged: half the one decimal a change is shown with. */
export const FLAT_THRESHOLD = 0.05;

/** Decimals a score or a change is read with. */
export const SHOWN_DECIMALS = 1;

/** A finite number, or null for anything else (null, strings, NaN, ±Infinity). */
export function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * `a − b` without float noise (71.4 − 67.2 = 4.200000000000003): six decimals is far below what is shown, and a
 * drop exactly equal to a limit stays equal to it.
 */
export function difference(a: number, b: number): number {
  return Math.round((a - b) * 1e6) / 1e6;
}

/** A value as it is read, with SHOWN_DECIMALS decimals (the plural of "point" follows this). */
export function asShown(value: number): number {
  const scale = 10 ** SHOWN_DECIMALS;
  return Math.round(value * scale) / scale;
}

/** Up, down, or flat when the change is below FLAT_THRESHOLD either way. */
export function changeDirection(change: number): Delta['direction'] {
  return Math.abs(change) < FLAT_THRESHOLD ? 'flat' : change > 0 ? 'up' : 'down';
}

/** `current − previous` with its direction; null when either side is missing or not a finite number. */
export function computeDelta(current: unknown, previous: unknown): Delta | null {
  const now = finiteNumber(current);
  const before = finiteNumber(previous);
  if (now === null || before === null) return null;
  const value = difference(now, before);
  return { value, direction: changeDirection(value), previous: before };
}
