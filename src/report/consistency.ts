// The report checks itself before it is printed: a number that disagrees with another in the same report holds it,
// with the reason, like the pre-send checks. Pure: the model in, the reasons out.
import { formatNumber, phrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { periodBefore, periodLabel, toMonth, type MonthPeriod } from '../period.js';
import type { HeldReason } from './checks.js';
import { changeDirection, difference } from './deltas.js';
import { numeric } from './goals.js';
import type { Delta, GoalView, ReportModel } from './model.js';
import { monthOf, type ScoreKind } from './months.js';

/** Below this, two numbers of a report are the same number (they are shown with one or two decimals). */
const SAME = 1e-6;

const differs = (a: number, b: number): boolean => Math.abs(a - b) > SAME;
const normalName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A change shown beside a value: the value it is the change of, and the name to give in a reason. */
interface ShownChange {
  name: string;
  value: number | string | null;
  change: Delta | null;
}

/** The value of a goal's metric as the report's own section shows it; undefined when that section is not shown. */
function headlineOf(goal: GoalView, model: ReportModel): number | null | undefined {
  const [kind, ...rest] = goal.metric.split(':');
  const name = normalName(rest.join(':'));
  switch (kind) {
    case 'geo':
    case 'seo':
      return model.scores === null ? undefined : model.scores[kind].value;
    case 'trust':
      return model.trust === null ? undefined : model.trust.score;
    case 'ai':
      return model.scores === null ? undefined : (model.scores.aiVisibility.find((row) => normalName(row.assistant) === name)?.value ?? null);
    case 'metric': {
      if (model.metrics === null) return undefined;
      return numeric(model.metrics.find((row) => normalName(row.key) === name)?.value ?? null);
    }
    default:
      return undefined;
  }
}

/**
 * Every way the report disagrees with itself: a month after its period, a headline that is not the history's value
 * for the period, a "last period" that is not the history's month before, a change that is not the difference it
 * claims (a change of a percentage is in its points, never relative), a goal's "this month" that is not the value
 * the report shows. Empty when the numbers agree.
 */
export function checkConsistency(model: ReportModel, phrases: Phrases): HeldReason[] {
  const { language } = model.meta;
  const period = toMonth(model.meta.period);
  const num = (value: number): string => formatNumber(value, language, { maximumFractionDigits: 2 });
  const held: HeldReason[] = [];
  const history = model.history ?? [];
  const month = (date: string): string => periodLabel(monthOf(date), language);

  for (const point of history) {
    if (monthOf(point.date) > period) {
      held.push({
        rule: 'month-after-period',
        message: phrase(phrases, 'check.monthAfterPeriod', { month: month(point.date), period: model.meta.periodLabel }),
      });
    }
  }

  const before = periodBefore(period);
  const latestOf = (wanted: MonthPeriod, kind: ScoreKind): number | null => {
    const points = history.filter((p) => monthOf(p.date) === wanted && p[kind] !== null);
    return points.at(-1)?.[kind] ?? null;
  };
  for (const kind of ['geo', 'seo'] as const) {
    const card = model.scores?.[kind];
    if (card === undefined || model.history === null) continue;
    const score = phrase(phrases, `goals.metric.${kind}`);
    const own = latestOf(period, kind);
    if (own !== null && (card.value === null || differs(card.value, own))) {
      held.push({
        rule: 'headline-history',
        message: phrase(phrases, 'check.headlineHistory', {
          score,
          value: card.value === null ? '—' : num(card.value),
          history: num(own),
          period: model.meta.periodLabel,
        }),
      });
    }
    const previous = latestOf(before, kind);
    if (previous !== null && card.change !== null && differs(card.change.previous, previous)) {
      held.push({
        rule: 'last-period',
        message: phrase(phrases, 'check.lastPeriod', {
          score,
          previous: num(card.change.previous),
          history: num(previous),
          month: periodLabel(before, language),
        }),
      });
    }
  }

  const changes: ShownChange[] = [];
  if (model.scores !== null) {
    changes.push({ name: phrase(phrases, 'scores.geo'), value: model.scores.geo.value, change: model.scores.geo.change });
    changes.push({ name: phrase(phrases, 'scores.seo'), value: model.scores.seo.value, change: model.scores.seo.change });
    for (const row of model.scores.aiVisibility) changes.push({ name: row.label, value: row.value, change: row.change });
  }
  for (const row of model.metrics ?? []) changes.push({ name: row.label, value: row.value, change: row.change });
  if (model.trust !== null) changes.push({ name: phrase(phrases, 'trust.score'), value: model.trust.score, change: model.trust.change });
  for (const { name, value, change } of changes) {
    if (change === null) continue;
    const claimed = { change: num(change.value), previous: num(change.previous) };
    if (typeof value !== 'number') {
      held.push({ rule: 'change-difference', message: phrase(phrases, 'check.changeWithoutValue', { name, ...claimed }) });
    } else if (differs(difference(value, change.previous), change.value) || changeDirection(change.value) !== change.direction) {
      held.push({ rule: 'change-difference', message: phrase(phrases, 'check.changeDifference', { name, value: num(value), ...claimed }) });
    }
  }

  for (const goal of model.goals ?? []) {
    const shown = headlineOf(goal, model);
    if (shown === undefined) continue;
    const same = shown === null ? goal.value === null : goal.value !== null && !differs(goal.value, shown);
    if (!same) {
      held.push({
        rule: 'goal-headline',
        message: phrase(phrases, 'check.goalHeadline', {
          goal: goal.label,
          goalValue: goal.value === null ? '—' : num(goal.value),
          value: shown === null ? '—' : num(shown),
        }),
      });
    }
  }
  return held;
}
