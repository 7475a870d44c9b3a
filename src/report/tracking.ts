// Month-over-month follow-up of recommendations: which are new, which were resolved, which stay open.
import type { Category, Priority } from '../api/schemas.js';
import { isPeriod, monthsBetween, type MonthPeriod } from '../period.js';
import type { ReportModel, TrackedRecommendation } from './model.js';

/** What tracking needs of a recommendation, as read now or from an earlier period's data. */
export interface TrackableRecommendation {
  id: string | number | null;
  title: string;
  priority: Priority;
  category: Category | null;
}

export type Tracking = NonNullable<NonNullable<ReportModel['recommendations']>['tracking']>;

/** What tracking needs from the previous period (a subset of PeriodData). */
export interface PreviousRecommendations {
  period: MonthPeriod;
  /** null when the previous report left the recommendations section out. */
  recommendations: readonly TrackableRecommendation[] | null;
  recommendationsFirstSeen: Readonly<Record<string, MonthPeriod>>;
}

/** "Fix <Title>!" and "fix title" are the same recommendation when the API gives no id. */
function normaliseTitle(title: string): string {
  return title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** String(id) when the API gives one, else a key stable across months built from category + normalised title. */
export function recommendationKey(rec: TrackableRecommendation): string {
  const id = rec.id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id === 'string' && id.trim() !== '') return id.trim();
  return `${rec.category ?? ''}:${normaliseTitle(rec.title)}`;
}

/**
 * Recommendation key → first period it was seen, for the recommendations open in `period`.
 * A key keeps its first period only while it stays open: one that was resolved and comes back starts again.
 */
export function carryFirstSeen(
  current: readonly TrackableRecommendation[],
  period: MonthPeriod,
  previous: PreviousRecommendations | null,
): Record<string, MonthPeriod> {
  const gap = previous === null ? null : monthsBetween(previous.period, period);
  const usable = previous !== null && gap !== null && gap >= 0 ? previous : null;
  const previousKeys = new Set((usable?.recommendations ?? []).map(recommendationKey));
  const firstSeen: Record<string, MonthPeriod> = {};
  for (const rec of current) {
    const key = recommendationKey(rec);
    if (firstSeen[key] !== undefined) continue;
    let since = period;
    if (usable !== null) {
      const carried = usable.recommendationsFirstSeen[key];
      if (carried !== undefined && monthsBetween(carried, usable.period) >= 0) since = carried;
      else if (previousKeys.has(key)) since = usable.period;
    }
    firstSeen[key] = since;
  }
  return firstSeen;
}

/** Periods in a row a recommendation first seen in `firstSeen` has been open in `period`, this one included. */
export function periodsOpen(firstSeen: string | undefined, period: MonthPeriod): number {
  if (firstSeen === undefined || !isPeriod(firstSeen)) return 1;
  const months = monthsBetween(firstSeen, period);
  return months < 0 ? 1 : months + 1;
}

const PRIORITY_RANK = { critical: 0, high: 1, medium: 2, low: 3 } as const;

/** New, resolved and persistent recommendations between the previous period and this one. */
export function trackRecommendations(current: readonly TrackedRecommendation[], previous: readonly TrackableRecommendation[]): Tracking {
  const currentKeys = new Set(current.map((rec) => rec.key));
  const previousKeys = new Set(previous.map(recommendationKey));
  const seenNew = new Set<string>();
  const fresh = current.filter((rec) => {
    if (previousKeys.has(rec.key) || seenNew.has(rec.key)) return false;
    seenNew.add(rec.key);
    return true;
  });
  const seenResolved = new Set<string>();
  const resolved: Tracking['resolved'] = [];
  for (const rec of previous) {
    const key = recommendationKey(rec);
    if (currentKeys.has(key) || seenResolved.has(key)) continue;
    seenResolved.add(key);
    resolved.push({ key, title: rec.title, priority: rec.priority, category: rec.category });
  }
  const seenPersistent = new Set<string>();
  const persistent = current
    .filter((rec) => {
      if (rec.periodsOpen < 2 || seenPersistent.has(rec.key)) return false;
      seenPersistent.add(rec.key);
      return true;
    })
    // Longest open first; among equals the more urgent first; otherwise the API's order (stable sort).
    .sort((a, b) => b.periodsOpen - a.periodsOpen || PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority]);
  return { new: fresh, resolved, persistent };
}
