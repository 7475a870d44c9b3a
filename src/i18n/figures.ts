// The figures a report writes: one rounding rule per unit, the same for every view and every section (the fact
// table, report/facts.ts, keeps each figure with its raw value). Below the report and the sections, which both round.
import { formatNumber } from './format.js';

/**
 * One rounding rule per unit: the decimals its figure keeps. Written down here and in docs/templates.md ("Facts").
 * - score: a 0–100 score (GEO, SEO, trust, AI visibility, benchmark, the difference to it) is a whole number.
 * - percentile: a share of tracked sites, whole.
 * - percent: a percentage, one decimal; its change is in points.
 * - count: a number of things, whole.
 * - rating: a review rating out of 5, one decimal.
 * - position: a keyword's place in the results, one decimal (an average over the scan's trials).
 * - number: any other figure the service sends, two decimals at most.
 */
export const FACT_RULES = {
  score: { decimals: 0 },
  percentile: { decimals: 0 },
  percent: { decimals: 1 },
  count: { decimals: 0 },
  rating: { decimals: 1 },
  position: { decimals: 1 },
  number: { decimals: 2 },
} as const satisfies Record<string, { decimals: number }>;
export type FactUnit = keyof typeof FACT_RULES;
export const FACT_UNITS = Object.keys(FACT_RULES) as [FactUnit, ...FactUnit[]];

/** The figure a view writes for a raw value of `unit`: the one rounding of that unit. */
export function figureOf(value: number, unit: FactUnit): number {
  const scale = 10 ** FACT_RULES[unit].decimals;
  // Rounded half away from zero on the decimal text, so 47.5 → 48 and -0.5 → -1 whatever the float says.
  const rounded = (Math.sign(value) * Math.round(Number((Math.abs(value) * scale).toFixed(6)))) / scale;
  return rounded === 0 ? 0 : rounded;
}

/** The figure as the report's language writes it: "76", "12.5", "12,5". */
export function shownFigure(figure: number, unit: FactUnit, language: string): string {
  return formatNumber(figure, language, { maximumFractionDigits: FACT_RULES[unit].decimals });
}
