// The fact table: every figure a report shows, defined once. Each fact keeps the service's raw value and the figure
// every view writes (the headline, the history table, the summary, the mail, the site, the index, the export), made
// by one rounding rule per unit; a change is the difference of two figures, so "77 → 77 ▲ +0.1" cannot be written.
// Built once in the assemble step and saved with data.json: next month reads "last month" from it (what was told).
import { z } from 'zod';
import { FACT_UNITS, figureOf, shownFigure, type FactUnit } from '../i18n/figures.js';
import type { MonthPeriod } from '../period.js';

export { FACT_RULES, FACT_UNITS, figureOf, shownFigure, type FactUnit } from '../i18n/figures.js';

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
      .describe(
        "history (a history point), scan (the period's scan), report (the report answer, dated), snapshot (undated), competitors, told (what the previous report showed).",
      ),
    figure: z.number().describe("The value rounded by its unit's rule: the number every view writes and every change is computed from."),
    shown: z.string().describe("The figure in the report's language."),
  })
  .describe('One figure of the report, defined once.');
export type Fact = z.infer<typeof FactSchema>;

export const FactTableSchema = z.array(FactSchema).describe('Every figure the report shows, each once (report/facts.ts).');
export type FactTable = Fact[];

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
    const value = input.value;
    if (typeof value !== 'number' || !Number.isFinite(value)) return null;
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
export function figureChange(current: number | null, previous: number | null, unit: FactUnit): FigureChange | null {
  if (current === null || previous === null) return null;
  // Both sides are figures already: their difference, rounded by the same rule, has no float noise left.
  const value = figureOf(current - previous, unit);
  return { value, direction: value > 0 ? 'up' : value < 0 ? 'down' : 'flat', previous };
}

/** A change between two figures: the shape of the model's Delta (report/model.ts), which reads this module. */
export interface FigureChange {
  value: number;
  direction: 'up' | 'down' | 'flat';
  previous: number;
}

/** A month's score the service revised after a report showed it. */
export interface ScoreRevision {
  kind: 'geo' | 'seo';
  month: MonthPeriod;
  /** The figure the report of that month showed (what the client was told). */
  told: number;
  /** The figure the service now gives for that month. */
  now: number;
}
