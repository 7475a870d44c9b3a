// The agency's annotations on a report: those within the history chart's months, each with its marker, and the
// summary's sentence on how the GEO score moved since the latest one: a fact, with no claim that the work caused it.
import { formatDate, formatNumber, phrase, pluralPhrase } from '../i18n/format.js';
import { nestQuotes } from '../i18n/typography.js';
import type { Phrases } from '../i18n/locales.js';
import { addMonths, monthOfDate, type MonthPeriod } from '../period.js';
import { asShown, changeDirection, difference } from './deltas.js';
import type { AnnotationView, HistoryPoint, ScoreCard } from './model.js';

/** A dated line on the client's timeline (clients."<id>".annotations, annotations/<id>.csv). */
export interface Annotation {
  /** YYYY-MM-DD */
  date: string;
  text: string;
  kind: string | null;
}

/** Months back with no history to bound the window: a year, as the chart shows. */
const WINDOW_MONTHS = 12;
/** How recent the annotation the summary speaks of must be: the last few months, this one included. */
export const SUMMARY_ANNOTATION_MONTHS = 6;

/** The last day of a period: '2026-02' → '2026-02-28'. */
function lastDay(period: MonthPeriod): string {
  const next = new Date(`${addMonths(period, 1)}-01T00:00:00Z`);
  return new Date(next.getTime() - 86_400_000).toISOString().slice(0, 10);
}

/**
 * The annotations a report shows: from the first month of its history (a year back without one) to the last day of
 * the period, oldest first, marked 1, 2, 3…
 */
export function annotationViews(
  annotations: readonly Annotation[],
  period: MonthPeriod,
  history: readonly HistoryPoint[] | null,
  /** The report's phrases: a common kind ("technical") is written in its language. @default the kind as written */
  phrases?: Phrases,
): AnnotationView[] {
  const first = history?.[0]?.date;
  const from = first !== undefined ? `${monthOfDate(first)}-01` : `${addMonths(period, 1 - WINDOW_MONTHS)}-01`;
  const to = lastDay(period);
  return annotations
    .filter((a) => a.date >= from && a.date <= to)
    .map((a, index) => ({ marker: String(index + 1), date: a.date, text: a.text, kind: a.kind === null ? null : kindWord(a.kind, phrases) }));
}

/** A kind the locale files name (annotations.kind.<word>) in the report's language; any other as the agency wrote it. */
function kindWord(kind: string, phrases: Phrases | undefined): string {
  const word = kind
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return phrases?.[`annotations.kind.${word}`] ?? kind;
}

export interface SinceAnnotationInput {
  annotations: readonly AnnotationView[];
  history: readonly HistoryPoint[] | null;
  geo: ScoreCard | null;
  period: MonthPeriod;
  language: string;
  phrases: Phrases;
}

/**
 * "The GEO score is up 8 points since “Titles rewritten” on 3 May 2026.": the latest annotation of the last few
 * months, against the GEO score of the history's last month on or before its day. Null without both figures.
 */
export function sinceAnnotationSentence(input: SinceAnnotationInput): string | null {
  const now = input.geo?.value ?? null;
  if (now === null) return null;
  const recent = `${addMonths(input.period, 1 - SUMMARY_ANNOTATION_MONTHS)}-01`;
  const latest = input.annotations.filter((a) => a.date >= recent).at(-1);
  if (latest === undefined) return null;
  const before = (input.history ?? []).filter((point) => point.date <= latest.date && point.geo !== null).at(-1)?.geo ?? null;
  if (before === null) return null;
  const change = difference(now, before);
  const direction = changeDirection(change);
  const shown = asShown(Math.abs(change));
  return phrase(input.phrases, `summary.annotation.${direction}`, {
    delta: formatNumber(shown, input.language, { maximumFractionDigits: 1 }),
    points: pluralPhrase(input.phrases, input.language, 'summary.points', shown),
    value: formatNumber(now, input.language, { maximumFractionDigits: 1 }),
    text: phrase(input.phrases, 'summary.quote', { title: nestQuotes(latest.text, input.language) }),
    date: formatDate(latest.date, input.language, 'long'),
  });
}
