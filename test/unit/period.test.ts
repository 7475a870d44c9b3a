// The period module: a month (YYYY-MM), a quarter (YYYY-Qn) or a year (YYYY) parsed, stepped across years and time zones, and named in each language.
import { describe, expect, it } from 'vitest';
import {
  addMonths,
  formatPeriod,
  isPeriod,
  monthsBetween,
  parsePeriod,
  PeriodError,
  periodBefore,
  periodLabel,
  periodOf,
  previousPeriod,
  toMonth,
  firstMonth,
  folderName,
  hasEnded,
  holdsDate,
  isAnyPeriod,
  kindOf,
  lastMonth,
  monthOfDate,
  monthOfDateOrNull,
  monthsOf,
  periodEnd,
  periodStart,
  quarterOfMonth,
  toPeriod,
  yearBefore,
} from '../../src/period.js';
import { loadLocales } from '../../src/i18n/locales.js';
import { periodNameIn } from '../../src/report/period-wording.js';

describe('period', () => {
  it('parses YYYY-MM and refuses anything else with the expected form', () => {
    expect(parsePeriod(toMonth('2026-10'))).toEqual({ year: 2026, month: 10 });
    for (const bad of ['2026-13', '2026-00', '2026-1', 'Oct 2026', '2026-10-01', '']) {
      expect(isPeriod(bad), bad).toBe(false);
      expect(() => toMonth(bad), bad).toThrow(PeriodError);
    }
    expect(() => toMonth('2026-13')).toThrow(/expected YYYY-MM, e\.g\. 2026-10/);
  });

  it('formats and steps across year boundaries', () => {
    expect(formatPeriod({ year: 2026, month: 3 })).toBe('2026-03');
    expect(formatPeriod({ year: 2026, month: 0 })).toBe('2025-12');
    expect(formatPeriod({ year: 2026, month: 13 })).toBe('2027-01');
    expect(periodBefore(toMonth('2026-10'))).toBe('2026-09');
    expect(periodBefore(toMonth('2027-01'))).toBe('2026-12');
    expect(addMonths(toMonth('2026-11'), 14)).toBe('2028-01');
    expect(monthsBetween(toMonth('2026-08'), toMonth('2026-10'))).toBe(2);
    expect(monthsBetween(toMonth('2026-11'), toMonth('2027-02'))).toBe(3);
    expect(monthsBetween(toMonth('2026-10'), toMonth('2026-09'))).toBe(-1);
  });

  it('reports on the month before the run, in the schedule time zone', () => {
    expect(previousPeriod(new Date('2026-11-04T06:00:00Z'))).toBe('2026-10');
    expect(previousPeriod(new Date('2027-01-04T06:00:00Z'))).toBe('2026-12');
    // 23:30 UTC on 31 October is already 1 November in Paris: October has ended there.
    const now = new Date('2026-10-31T23:30:00Z');
    expect(periodOf(now, 'UTC')).toBe('2026-10');
    expect(previousPeriod(now, 'UTC')).toBe('2026-09');
    expect(previousPeriod(now, 'Europe/Paris')).toBe('2026-10');
    // The zone's formatter is made once and kept: a second date in the same zone is read with it.
    expect(periodOf(new Date('2026-12-31T23:30:00Z'), 'Europe/Paris')).toBe('2027-01');
    expect(periodOf(new Date('2026-12-31T23:30:00Z'), 'America/New_York')).toBe('2026-12');
    expect(periodOf(new Date('2027-01-01T00:00:00Z'))).toBe('2027-01');
  });

  it('names a period in each language', () => {
    expect(periodLabel(toMonth('2026-10'), 'en')).toBe('October 2026');
    expect(periodLabel(toMonth('2026-10'), 'fr')).toBe('octobre 2026');
    expect(periodLabel(toMonth('2027-01'), 'fr')).toBe('janvier 2027');
    expect(() => periodLabel(toMonth('Oct 2026'), 'en')).toThrow(PeriodError);
  });

  it('reads a quarter and a year as well as a month, and refuses anything else naming the three forms', () => {
    expect(kindOf(toPeriod('2026-10'))).toBe('month');
    expect(kindOf(toPeriod('2026-Q3'))).toBe('quarter');
    expect(kindOf(toPeriod('2026'))).toBe('year');
    for (const bad of ['2026-Q5', '2026-Q0', '2026Q3', '26', '2026-13', 'Q3 2026', '']) {
      expect(isAnyPeriod(bad), bad).toBe(false);
      expect(() => toPeriod(bad), bad).toThrow(/a month \(2026-10\), a quarter \(2026-Q3\) or a year \(2026\)/);
    }
    // A quarter is no month: the month's own reader refuses it.
    expect(() => toMonth('2026-Q3')).toThrow(PeriodError);
  });

  it('lists the months a period holds, first to last', () => {
    expect(monthsOf(toPeriod('2026-10'))).toEqual(['2026-10']);
    expect(monthsOf(toPeriod('2026-Q3'))).toEqual(['2026-07', '2026-08', '2026-09']);
    expect(monthsOf(toPeriod('2026-Q1'))).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(monthsOf(toPeriod('2026'))).toHaveLength(12);
    expect(firstMonth(toPeriod('2026'))).toBe('2026-01');
    expect(lastMonth(toPeriod('2026'))).toBe('2026-12');
    expect(lastMonth(toPeriod('2026-Q4'))).toBe('2026-12');
    expect(quarterOfMonth(toMonth('2026-08'))).toBe('2026-Q3');
  });

  it('steps to the period before and to the same period a year before, across years', () => {
    expect(periodBefore(toPeriod('2026-Q3'))).toBe('2026-Q2');
    expect(periodBefore(toPeriod('2026-Q1'))).toBe('2025-Q4');
    expect(periodBefore(toPeriod('2026'))).toBe('2025');
    expect(periodBefore(toPeriod('2026-01'))).toBe('2025-12');
    expect(yearBefore(toPeriod('2026-Q3'))).toBe('2025-Q3');
    expect(yearBefore(toPeriod('2026-10'))).toBe('2025-10');
    expect(yearBefore(toPeriod('2026'))).toBe('2025');
    // The review's change is measured from the previous period's last month: June for the third quarter.
    expect(lastMonth(periodBefore(toPeriod('2026-Q3')))).toBe('2026-06');
  });

  it('says whether a period has ended by a clock, and where its reports are written', () => {
    const q3 = toPeriod('2026-Q3');
    expect(periodStart(q3).toISOString()).toBe('2026-07-01T00:00:00.000Z');
    expect(periodEnd(q3).toISOString()).toBe('2026-10-01T00:00:00.000Z');
    expect(hasEnded(q3, new Date('2026-09-30T23:59:59.999Z'))).toBe(false);
    expect(hasEnded(q3, new Date('2026-10-01T00:00:00.000Z'))).toBe(true);
    expect(hasEnded(toPeriod('2026'), new Date('2026-12-31T12:00:00Z'))).toBe(false);
    expect(holdsDate(q3, '2026-08-15')).toBe(true);
    expect(holdsDate(q3, '2026-10-01T00:00:00Z')).toBe(false);
    expect(folderName(q3)).toBe('2026-Q3');
    expect(folderName(toPeriod('2026'))).toBe('2026');
  });

  it("reads a date's month, and refuses a text that is no date", () => {
    expect(monthOfDate('2026-10-05')).toBe('2026-10');
    expect(monthOfDate('2026-10-05T06:00:00Z')).toBe('2026-10');
    expect(monthOfDate('2026-10')).toBe('2026-10');
    expect(() => monthOfDate('2026-1-05')).toThrow(/expected YYYY-MM-DD/);
    expect(monthOfDateOrNull('20261005')).toBeNull();
  });

  it("names a month, a quarter and a year in the report's language, with the locale's words for a quarter", () => {
    const locales = loadLocales();
    const name = (text: string, language: string, short = false): string => periodNameIn(toPeriod(text), language, locales.phrases(language), short);
    expect(name('2026-Q3', 'en')).toBe('Q3 2026');
    expect(name('2026-Q3', 'fr')).toBe('T3 2026');
    expect(name('2026-Q1', 'fr')).toBe('T1 2026');
    expect(name('2026-Q3', 'de')).toBe('3. Quartal 2026');
    expect(name('2026-Q3', 'de', true)).toBe('Q3 2026');
    expect(name('2026-Q4', 'es')).toBe('T4 2026');
    expect(name('2026-Q2', 'it')).toBe('T2 2026');
    expect(name('2026-Q3', 'nl')).toBe('K3 2026');
    expect(name('2026-Q1', 'pt')).toBe('T1 2026');
    expect(name('2026-Q3', 'en', true)).toBe('Q3 2026');
    expect(name('2026-Q3', 'fr', true)).toBe('T3 2026');
    expect(name('2026', 'fr')).toBe('2026');
    expect(name('2026-10', 'fr')).toBe('octobre 2026');
  });

  it('names a quarter so that it reads after a preposition in every language: its number, no ordinal word to decline', () => {
    const locales = loadLocales();
    // The words a quarter's name once had, whose case (German "bis drittes Quartal") or article the sentence would change.
    const ordinals =
      /\b(first|second|third|fourth|erstes|zweites|drittes|viertes|premier|deuxième|troisième|quatrième|primer|segundo|tercer|cuarto|primo|secondo|terzo|quarto|eerste|tweede|derde|vierde|primeiro|terceiro)\b/i;
    for (const language of ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt']) {
      for (const quarter of [1, 2, 3, 4]) {
        for (const short of [false, true]) {
          const shown = periodNameIn(toPeriod(`2026-Q${quarter}`), language, locales.phrases(language), short);
          expect(shown, `${language} Q${quarter}`).toMatch(new RegExp(`(^|\\D)${quarter}\\D.*2026$`));
          expect(shown, `${language} Q${quarter}`).not.toMatch(ordinals);
        }
      }
    }
  });
});
