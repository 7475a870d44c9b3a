// Change of one value against the previous period.
import type { Delta } from './model.js';

/** Below this absolute change a value is shown as unchanged. */
export const FLAT_THRESHOLD = 0.05;

/** A finite number, or null for anything else (null, strings, NaN, ±Infinity). */
export function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

// Float subtraction leaves noise (71.4 − 67.2 = 4.200000000000003); six decimals is far below what is shown.
const roundNoise = (value: number): number => Math.round(value * 1e6) / 1e6;

/** `current − previous` with its direction; null when either side is missing or not a finite number. */
export function computeDelta(current: unknown, previous: unknown): Delta | null {
  const now = finiteNumber(current);
  const before = finiteNumber(previous);
  if (now === null || before === null) return null;
  const value = roundNoise(now - before);
  const direction: Delta['direction'] = Math.abs(value) < FLAT_THRESHOLD ? 'flat' : value > 0 ? 'up' : 'down';
  return { value, direction, previous: before };
}
