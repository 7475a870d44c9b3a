// How a report's period is named wherever it is shown (the report, the agency index, the client's page, the mail):
// a report made before its period ended (`--partial`) shows part of a month, and every view says so the same way.
import { phrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { isMonth, periodEnd, periodLabel, periodName, type MonthPeriod, type Period } from '../period.js';

/** Whether a report made at `madeAt` (ISO 8601) was made before its period ended: it holds part of the month. */
export function madeBeforePeriodEnd(period: Period, madeAt: string): boolean {
  return Date.parse(madeAt) < periodEnd(period).getTime();
}

/** The period as a view names it: "November 2026", or "November 2026, so far this month" for a report made before its end. */
export function periodWording(period: MonthPeriod, language: string, phrases: Phrases, madeBeforeEnd: boolean): string {
  const label = periodLabel(period, language);
  return madeBeforeEnd ? phrase(phrases, 'report.periodSoFar', { period: label }) : label;
}

/** Any period as a view names it: a month as periodWording, a quarter or a year by its name ("troisième trimestre 2026"). */
export function periodViewName(period: Period, language: string, phrases: Phrases, madeBeforeEnd: boolean): string {
  return isMonth(period) ? periodWording(period, language, phrases, madeBeforeEnd) : periodNameIn(period, language, phrases);
}

/**
 * Any period as a view names it in the report's language: "October 2026", "Q3 2026" ("3. Quartal 2026"; the short
 * form when `short`), "2026". The quarter's words are the locale's (`period.quarter.1`…`4`, `period.quarterShort`),
 * each a form that reads in a heading and after a preposition alike.
 */
export function periodNameIn(period: Period, language: string, phrases: Phrases, short = false): string {
  return periodName(period, language, { quarter: (quarter) => phrases[`period.quarter.${quarter}`], quarterShort: phrases['period.quarterShort'] }, short);
}
