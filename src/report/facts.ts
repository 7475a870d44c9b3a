// The fact table: every figure a report shows, defined once. Each fact keeps the service's raw value and the figure
// every view writes (the headline, the history table, the summary, the mail, the site, the index, the export), made
// by one rounding rule per unit; a change is the difference of two figures, so "77 → 77 ▲ +0.1" cannot be written.
// Built once in the assemble step and saved with data.json: next month reads "last month" from it (what was told).
import { z } from 'zod';
import { formatNumber } from '../i18n/format.js';
import { changeDirection, difference, finiteNumber } from './deltas.js';
import type { Delta } from './model.js';

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

/** Where a fact was read: the order also says which wins for a month (the period's dated data before a snapshot). */
export const FACT_SOURCES = ['history', 'scan', 'report', 'snapshot', 'competitors', 'told'] as const;
export type FactSource = (typeof FACT_SOURCES)[number];

export const FactSchema = z
  .object({
    key: z.string().describe('What the fact is: "scores.geo", "history.geo.2026-09", "ai.chatgpt", "benchmark.geo", "metrics.<key>"…'),
    value: z.number().describe('The raw value, as the service sent it.'),
    unit: z.enum(FACT_UNITS).describe('Its unit, which decides its rounding (FACT_RULES).'),
    direction: z.enum(['higher', 'lower']).describe('Which way is better.'),
    month: z.string().nullable().describe('YYYY-MM the fact belongs to; null when nothing dates it (an undated snapshot).'),
    date: z.string().nullable().describe('YYYY-MM-DD it was true on, when the service dated it.'),
    source: z
      .enum(FACT_SOURCES)
      .describe('history (a history point), scan (the period\'s scan), report (the report answer, dated), snapshot (undated), competitors, told (what the previous report showed).'),
    figure: z.number().describe('The value rounded by its unit\'s rule: the number every view writes and every change is computed from.'),
    shown: z.string().describe("The figure in the report's language."),
  })
  .describe('One figure of the report, defined once.');
export type Fact = z.infer<typeof FactSchema>;

export const FactTableSchema = z.array(FactSchema).describe('Every figure the report shows, each once (report/facts.ts).');
export type FactTable = Fact[];

/** The figure a view writes for a raw value of `unit`: the one rounding of that unit. */
export function figureOf(value: number, unit: FactUnit): number {
  const scale = 10 ** FACT_RULES[unit].decimals;
  // Rounded half away from zero on the decimal text, so 47.5 → 48 and -0.5 → -1 whatever the float says.
  const rounded = Math.sign(value) * Math.round(Number((Math.abs(value) * scale).toFixed(6))) / scale;
  return rounded === 0 ? 0 : rounded;
}

/** The figure as the report's language writes it: "76", "12.5", "12,5". */
export function shownFigure(figure: number, unit: FactUnit, language: string): string {
  return formatNumber(figure, language, { maximumFractionDigits: FACT_RULES[unit].decimals });
}

export interface FactInput {
  key: string;
  value: number | null | undefined;
  unit: FactUnit;
  direction?: Fact['direction'];
  month?: string | null;
  date?: string | null;
  source: FactSource;
}

/** Collects a report's facts: each key once, the figure made by its unit's rule. */
export class FactTableBuilder {
  readonly #facts = new Map<string, Fact>();

  constructor(private readonly language: string) {}

  /** Adds a fact (a value that is not a finite number is no fact) and returns it; a key already set is kept. */
  add(input: FactInput): Fact | null {
    const value = finiteNumber(input.value);
    if (value === null) return null;
    const seen = this.#facts.get(input.key);
    if (seen !== undefined) return seen;
    const figure = figureOf(value, input.unit);
    const fact: Fact = {
      key: input.key,
      value,
      unit: input.unit,
      direction: input.direction ?? 'higher',
      month: input.month ?? null,
      date: input.date ?? null,
      source: input.source,
      figure,
      shown: shownFigure(figure, input.unit, this.language),
    };
    this.#facts.set(input.key, fact);
    return fact;
  }

  get(key: string): Fact | null {
    return this.#facts.get(key) ?? null;
  }

  table(): FactTable {
    return [...this.#facts.values()];
  }
}

/** A fact's figure by key; null when the table has no such fact. */
export function factFigure(table: readonly Fact[] | undefined, key: string): number | null {
  return table?.find((fact) => fact.key === key)?.figure ?? null;
}

/**
 * The change between two figures: their difference (rounded by the unit's rule, so a change of two whole scores is
 * whole) and the arrow it makes; null when either side is missing.
 */
export function figureChange(current: number | null, previous: number | null, unit: FactUnit): Delta | null {
  if (current === null || previous === null) return null;
  const value = figureOf(difference(current, previous), unit);
  return { value, direction: value === 0 ? 'flat' : changeDirection(value), previous };
}

/** A month's score the service revised after a report showed it. */
export interface ScoreRevision {
  kind: 'geo' | 'seo';
  /** YYYY-MM */
  month: string;
  /** The figure the report of that month showed (what the client was told). */
  told: number;
  /** The figure the service now gives for that month. */
  now: number;
}
