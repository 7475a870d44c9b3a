// One client's report of one period (its values, as the report's assembly computes them) → the rows of the tidy table:
// one row per value, with its unit and its change since the month before, the numbers the report shows.
import { PRIORITIES } from '../api/schemas.js';
import { outgoingText } from '../outgoing-text.js';
import type { ReportValues } from '../report/assemble.js';
import type { FactUnit } from '../report/facts.js';
import type { Delta, KeyValue, Language } from '../report/model.js';
import { kindOf, toMonth, type Period, type PeriodKind } from '../period.js';
import type { Fact } from '../report/facts.js';

/** The tidy table's columns, in order: the header of every format. */
// period_kind comes last: a sheet or a script that reads the columns by their place reads them where it did.
export const EXPORT_COLUMNS = ['period', 'project_id', 'client', 'domain', 'language', 'section', 'key', 'value', 'unit', 'change', 'period_kind'] as const;
export type ExportColumn = (typeof EXPORT_COLUMNS)[number];

export type ExportValue = number | string | boolean;

/** Who and when a row is about: the same for every value of one report. */
export interface ExportSubject {
  /** YYYY-MM for a month's report, YYYY-QN or YYYY for a quarterly or yearly review. */
  period: Period;
  /** What the period is: a month, a quarter or a year. */
  periodKind: PeriodKind;
  projectId: number;
  /** As the report names the client: its display name, else the project's name. */
  client: string;
  domain: string | null;
  language: Language;
}

export interface ExportRow extends ExportSubject {
  section: string;
  key: string;
  value: ExportValue;
  unit: string | null;
  /** Value − the value of the month before, as the report shows it; null on a first month or for a value without one. */
  change: number | null;
}

/** The facts' sections the tidy table takes from the fact table (the others have rows of their own above). */
const TABLE_SECTIONS = new Set(['keywords', 'pageExperience', 'aiAnswers', 'goals']);

/** A fact's unit as the tidy table names units. */
const FACT_EXPORT_UNITS: Record<FactUnit, string> = {
  score: 'points',
  percentile: 'percentile',
  percent: '%',
  count: 'count',
  rating: 'out of 5',
  position: 'position',
  number: 'number',
};

/** The unit of a 0–100 score: the report writes "out of 100". */
export const SCORE_UNIT = 'points';

/** The subject of a report: period, project, client as named in the report. */
export function subjectOf(model: ReportValues): ExportSubject {
  return {
    period: toMonth(model.meta.period),
    periodKind: 'month',
    projectId: model.meta.projectId,
    client: outgoingText(model.client.name),
    domain: model.client.domain === null ? null : outgoingText(model.client.domain),
    language: model.meta.language,
  };
}

/** Every value of the report, section by section, in the order the report shows them; values it has none for are left out. */
export function reportRows(model: ReportValues): ExportRow[] {
  const subject = subjectOf(model);
  const rows: ExportRow[] = [];
  const add = (section: string, key: string, value: ExportValue | null | undefined, unit: string | null, change: Pick<Delta, 'value'> | null = null): void => {
    if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return;
    const { period, periodKind, projectId, client, domain, language } = subject;
    // The service's texts leave the tool here, for the CSV, the JSON lines and the workbook alike (a U+FFFF in
    // a workbook's shared strings is XML no spreadsheet opens).
    const text = typeof value === 'string' ? outgoingText(value) : value;
    const keyText = outgoingText(key);
    const unitText = outgoingText(unit ?? unitOfValue(text));
    rows.push({
      period,
      periodKind,
      projectId,
      client,
      domain,
      language,
      section: outgoingText(section),
      key: keyText,
      value: text,
      unit: unitText,
      change: change?.value ?? null,
    });
  };

  const scores = model.scores;
  if (scores !== null) {
    for (const kind of ['geo', 'seo'] as const) {
      const card = scores[kind];
      add('scores', `${kind}_score`, card.value, SCORE_UNIT, card.change);
      add('scores', `${kind}_benchmark_average`, card.benchmarkAverage, SCORE_UNIT);
      add('scores', `${kind}_vs_benchmark`, card.vsBenchmark, SCORE_UNIT);
    }
    add('scores', 'percentile', scores.percentile, 'percentile');
    add('scores', 'benchmark_sample_size', scores.benchmarkSampleSize, 'sites');
    for (const visibility of scores.aiVisibility) add('ai_visibility', visibility.assistant, visibility.value, SCORE_UNIT, visibility.change);
  }
  for (const metric of model.metrics ?? []) add('metrics', metric.key, metric.value, metric.unit, metric.change);
  const trust = model.trust;
  if (trust !== null) {
    add('trust', 'trust_score', trust.score, SCORE_UNIT, trust.change);
    for (const platform of trust.platforms) {
      add('trust', `${platform.name}.rating`, platform.rating, 'out of 5');
      add('trust', `${platform.name}.reviews`, platform.reviews, 'reviews');
    }
    for (const [key, value] of flatten(trust.extra)) add('trust', key, value, null);
  }
  const recommendations = model.recommendations;
  if (recommendations !== null) {
    add('recommendations', 'open', recommendations.total, 'count');
    for (const priority of PRIORITIES) {
      add('recommendations', `open_${priority}`, recommendations.groups.find((g) => g.priority === priority)?.items.length ?? 0, 'count');
    }
    const tracking = recommendations.tracking;
    if (tracking !== null) {
      add('recommendations', 'new', tracking.new.length, 'count');
      add('recommendations', 'resolved', tracking.resolved.length, 'count');
      add('recommendations', 'persistent', tracking.persistent.length, 'count');
    }
  }
  for (const section of model.otherSections) for (const [key, value] of flatten(section.entries)) add(section.key, key, value, null);
  // The scan sections' and the goals' figures, as the report showed them (its fact table): section.key → section, key.
  // A fact `<key>.change` beside `<key>` is that figure's change since last month: its change column, not a row.
  const byKey = new Map(model.facts.map((fact) => [fact.key, fact]));
  for (const fact of model.facts) {
    const dot = fact.key.indexOf('.');
    const section = fact.key.slice(0, dot);
    if (dot < 0 || !TABLE_SECTIONS.has(section)) continue;
    if (fact.key.endsWith('.change') && byKey.has(fact.key.slice(0, -'.change'.length))) continue;
    const change = byKey.get(`${fact.key}.change`);
    add(section, fact.key.slice(dot + 1), fact.figure, FACT_EXPORT_UNITS[fact.unit], change === undefined ? null : { value: change.figure });
  }
  return rows;
}

/**
 * The unit of a value the service sent without one, so that no row's unit is empty: a whole number counts things
 * (`count`), another number is a `number`, a yes or no is `yes/no`, a word is `text`.
 */
export function unitOfValue(value: ExportValue): string {
  if (typeof value === 'boolean') return 'yes/no';
  if (typeof value === 'string') return 'text';
  return Number.isInteger(value) ? 'count' : 'number';
}

/** A nested key/value list as dotted keys and scalar values. */
function* flatten(entries: readonly KeyValue[], prefix = ''): Generator<[string, ExportValue | null]> {
  for (const entry of entries) {
    const key = `${prefix}${entry.key}`;
    if (Array.isArray(entry.value)) yield* flatten(entry.value, `${key}.`);
    else yield [key, entry.value];
  }
}

/**
 * A quarterly or yearly review's rows, from the figures it showed (its data.json's fact table): a score is its
 * period's (its last month's), with its change since the period before; the figures it is compared with and each
 * month's follow, a row each.
 */
export function reviewRows(subject: Omit<ExportSubject, 'periodKind'>, facts: readonly Fact[]): ExportRow[] {
  const full: ExportSubject = {
    ...subject,
    periodKind: kindOf(subject.period),
    client: outgoingText(subject.client),
    domain: subject.domain === null ? null : outgoingText(subject.domain),
  };
  const byKey = new Map(facts.map((fact) => [fact.key, fact]));
  return facts.flatMap((fact): ExportRow[] => {
    const dot = fact.key.indexOf('.');
    if (dot < 0 || !Number.isFinite(fact.figure)) return [];
    const section = fact.key.slice(0, dot);
    const rest = fact.key.slice(dot + 1);
    const score = section === 'scores' && !rest.includes('.');
    const previous = score ? byKey.get(`${fact.key}.previous`) : undefined;
    return [
      {
        ...full,
        section: outgoingText(section),
        key: outgoingText(score ? `${rest}_score` : rest),
        value: fact.figure,
        unit: FACT_EXPORT_UNITS[fact.unit],
        change: previous === undefined ? null : fact.figure - previous.figure,
      },
    ];
  });
}
