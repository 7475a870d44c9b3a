// A review's page (a quarter, a year) from the model of its last month, assembled against the previous period's last
// month: each month's GEO and SEO as its own report showed them (the table and the chart), the period's figure and
// its two changes, the goals and their pace, the annotations of the period, the recommendations resolved and opened
// in it, and a summary that speaks of the quarter or the year. Only what the saved months tell: nothing is asked.
import { shownFigure as shownIn } from '../i18n/figures.js';
import { phrase, pluralPhrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { holdsDate, kindOf, lastMonth, monthOfDateOrNull, periodBefore, periodStart, yearBefore, type MonthPeriod } from '../period.js';
import { FactTableBuilder, type FactTable, type FigureChange } from './facts.js';
import { buildGlossary } from './glossary.js';
import type { ScoreKind } from './months.js';
import type { HistoryPoint, Language, ReportModel, ReviewView } from './model.js';
import { periodNameIn } from './period-wording.js';
import type { ReviewFigures, ReviewScore } from './review.js';

export interface ReviewModelInput {
  /** The last month's report model, assembled against the previous period's last month (its tracking spans the period). */
  month: ReportModel;
  figures: ReviewFigures;
  language: Language;
  phrases: Phrases;
}

/** The review's page and its fact table (saved in its data.json): the figures it shows, each once. */
export function reviewModel(input: ReviewModelInput): ReportModel {
  const { month, figures, language, phrases } = input;
  const period = figures.period;
  const kind = kindOf(period) === 'year' ? 'year' : 'quarter';
  const name = periodNameIn(period, language, phrases);
  const short = periodNameIn(period, language, phrases, true);
  const previousName = periodNameIn(periodBefore(period), language, phrases, true);
  const yearBeforeName = periodNameIn(yearBefore(period), language, phrases, true);
  const kicker = phrase(phrases, `review.kicker.${kind}`);
  const scoreLabel = (score: ScoreKind): string => phrase(phrases, `scores.${score}`);
  const view = (score: ScoreKind): ReviewView['scores'][number] => ({
    kind: score,
    label: scoreLabel(score),
    value: figures[score].value,
    sincePrevious: figures[score].sincePrevious,
    sinceYearBefore: figures[score].sinceYearBefore,
  });
  const tracking = month.recommendations?.tracking ?? null;
  const pick = ({ key, title, priority }: { key: string; title: string; priority: string }) => ({ key, title, priority });
  const review: ReviewView = {
    kind,
    period,
    name,
    kicker,
    previousName,
    yearBeforeName,
    intro: phrase(phrases, `review.figures.intro.${kind}`),
    scores: [view('geo'), view('seo')],
    resolved: (tracking?.resolved ?? []).map(pick),
    opened: (tracking?.new ?? []).map(pick),
  };
  // Each month's point on the chart where the service dated it in the last month's history, else its first day.
  const dated = new Map<MonthPeriod, string>();
  for (const point of month.history ?? []) {
    const of = monthOfDateOrNull(point.date);
    if (of !== null) dated.set(of, point.date);
  }
  const history: HistoryPoint[] = figures.months.map((m) => ({
    date: dated.get(m.month) ?? periodStart(m.month).toISOString().slice(0, 10),
    geo: m.geo,
    seo: m.seo,
  }));
  const annotations = month.annotations.filter((a) => holdsDate(period, a.date)).map((a, i) => ({ ...a, marker: String(i + 1) }));
  const summary = [
    kind === 'quarter'
      ? phrase(phrases, 'review.summary.intro.quarter', {
          period: name,
          months: monthList(
            figures.months.map((m) => m.month),
            language,
          ),
        })
      : phrase(phrases, 'review.summary.intro.year', { period: name }),
    ...(['geo', 'seo'] as const).flatMap((score) =>
      scoreSentences(figures[score], scoreLabel(score), { short, previousName, yearBeforeName }, language, phrases),
    ),
    phrase(phrases, 'review.summary.recs', { resolved: review.resolved.length, opened: review.opened.length }),
  ];
  const model: Omit<ReportModel, 'glossary'> = {
    ...month,
    meta: {
      ...month.meta,
      period,
      periodLabel: name,
      title: phrase(phrases, 'review.documentTitle', { client: month.client.name, kind: kicker, period: name }),
    },
    summary,
    // The scores of the period are the review's own cards; the month's snapshot sections stay in the monthly reports.
    scores: null,
    history,
    annotations,
    metrics: null,
    trust: null,
    recommendations: month.recommendations === null ? null : { ...month.recommendations, tracking: null },
    sections: {},
    otherSections: [],
    facts: reviewFacts(figures, language),
    review,
  };
  return { ...model, glossary: buildGlossary(model, phrases) };
}

/** "July, August and September" in the report's language. */
function monthList(months: readonly MonthPeriod[], language: Language): string {
  const names = months.map((m) => new Intl.DateTimeFormat(language, { month: 'long', timeZone: 'UTC' }).format(periodStart(m)));
  return new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(names);
}

function scoreSentences(
  score: ReviewScore,
  label: string,
  names: { short: string; previousName: string; yearBeforeName: string },
  language: Language,
  phrases: Phrases,
): string[] {
  if (score.value === null) return [];
  const value = shownIn(score.value, 'score', language);
  const change = (c: FigureChange): string => shownIn(Math.abs(c.value), 'score', language);
  const sentences = [
    score.sincePrevious === null
      ? phrase(phrases, 'review.summary.score.alone', { score: label, value, period: names.short })
      : said(phrases, language, `review.summary.score.${score.sincePrevious.direction}`, score.sincePrevious, {
          score: label,
          value,
          period: names.short,
          change: change(score.sincePrevious),
          previous: names.previousName,
        }),
  ];
  if (score.sinceYearBefore !== null) {
    sentences.push(
      said(phrases, language, `review.summary.yearBefore.${score.sinceYearBefore.direction}`, score.sinceYearBefore, {
        period: names.yearBeforeName,
        change: change(score.sinceYearBefore),
      }),
    );
  }
  return sentences;
}

/** A change's sentence: "1 point", "2 points" by the language's plural rules; a flat change has one form. */
function said(phrases: Phrases, language: Language, key: string, change: FigureChange, params: Record<string, string>): string {
  return change.direction === 'flat' ? phrase(phrases, key, params) : pluralPhrase(phrases, language, key, Math.abs(change.value), params);
}

/** The review's figures as facts: the period's (its last month's), the two it is compared with, and each month's. */
export function reviewFacts(figures: ReviewFigures, language: Language): FactTable {
  const facts = new FactTableBuilder(language);
  const last = lastMonth(figures.period);
  for (const kind of ['geo', 'seo'] as const) {
    const score = figures[kind];
    facts.add({ key: `scores.${kind}`, value: score.value, unit: 'score', month: last, source: 'told' });
    facts.add({
      key: `scores.${kind}.previous`,
      value: score.sincePrevious?.previous,
      unit: 'score',
      month: lastMonth(periodBefore(figures.period)),
      source: 'told',
    });
    facts.add({
      key: `scores.${kind}.yearBefore`,
      value: score.sinceYearBefore?.previous,
      unit: 'score',
      month: lastMonth(yearBefore(figures.period)),
      source: 'told',
    });
    for (const m of figures.months) facts.add({ key: `history.${kind}.${m.month}`, value: m[kind], unit: 'score', month: m.month, source: 'told' });
  }
  return facts.table();
}
