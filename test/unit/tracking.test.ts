import { describe, expect, it } from 'vitest';
import { readReport } from '../../src/content/report.js';
import type { TrackableRecommendation as Recommendation } from '../../src/report/tracking.js';
import type { Report } from '../support/classic-schemas.js';
import { assembleReport, recommendationKey } from '../../src/report/assemble.js';
import { buildPeriodData, parsePeriodData, type PeriodData } from '../../src/report/period-data.js';
import { carryFirstSeen, periodsOpen } from '../../src/report/tracking.js';
import {
  PERIOD,
  assembleInput,
  competitorRow,
  competitors,
  currentReport,
  previousFrom,
  previousPeriod,
  project,
  rankingFrom,
  rawPreviousPeriod,
  stats,
} from '../fixtures/api-fixtures.js';
import { toMonth } from '../../src/period.js';

const rec = (fields: Partial<Recommendation> & Pick<Recommendation, 'title'>): Recommendation => ({
  id: null,
  priority: 'medium',
  category: 'content',
  ...fields,
});

describe('recommendationKey', () => {
  it('uses the id when the API gives one, numeric or string', () => {
    expect(recommendationKey(rec({ id: 9001, title: 'Anything' }))).toBe('9001');
    expect(recommendationKey(rec({ id: 'rec-42', title: 'Anything' }))).toBe('rec-42');
  });

  it('builds a key from category and normalised title when there is no id', () => {
    const a = recommendationKey(rec({ title: 'Compress hero images', category: 'technical' }));
    const b = recommendationKey(rec({ title: '  Compress   HERO images! ', category: 'technical' }));
    const c = recommendationKey(rec({ title: 'Compress hero images', category: 'content' }));
    expect(a).toBe('technical:compress hero images');
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('treats an empty string id as no id', () => {
    expect(recommendationKey(rec({ id: ' ', title: 'Écrire une FAQ', category: 'content' }))).toBe('content:écrire une faq');
  });
});

describe('periodsOpen', () => {
  it('counts months from the first period seen, this one included', () => {
    expect(periodsOpen('2026-08', toMonth('2026-10'))).toBe(3);
    expect(periodsOpen('2026-10', toMonth('2026-10'))).toBe(1);
    expect(periodsOpen('2025-11', toMonth('2026-02'))).toBe(4);
  });

  it('is 1 without history or with a nonsensical first period', () => {
    expect(periodsOpen(undefined, toMonth('2026-10'))).toBe(1);
    expect(periodsOpen('2026-12', toMonth('2026-10'))).toBe(1);
    expect(periodsOpen('garbage', toMonth('2026-10'))).toBe(1);
  });
});

describe('first-seen periods carried from month to month', () => {
  it('keeps the first period of recommendations still open, starts new ones now and drops resolved ones', () => {
    const data = buildPeriodData({
      period: PERIOD,
      fetchedAt: '2026-11-04T06:00:30.000Z',
      project: project(),
      report: currentReport(),
      content: readReport(currentReport()),
      ranking: rankingFrom(competitorRow(), competitors().benchmark),
      stats: stats(),
      notes: [],
      previous: previousFrom(previousPeriod()),
    });
    expect(data.recommendationsFirstSeen).toEqual({
      '9001': '2026-08',
      '9003': '2026-09',
      '9004': '2026-10',
      'technical:compress hero images': '2026-09',
    });
    expect(data.schemaVersion).toBe(2);
    expect(data.period).toBe(PERIOD);
  });

  it('starts again a recommendation that was resolved and came back', () => {
    const previous = { period: toMonth('2026-09'), recommendations: [rec({ id: 1, title: 'A' })], recommendationsFirstSeen: { '1': toMonth('2026-05') } };
    const firstSeen = carryFirstSeen([rec({ id: 2, title: 'B' })], toMonth('2026-10'), previous);
    expect(firstSeen).toEqual({ '2': '2026-10' });
  });

  it('falls back to the previous period for a recommendation open last month but absent from the map', () => {
    const previous = { period: toMonth('2026-09'), recommendations: [rec({ id: 7, title: 'A' })], recommendationsFirstSeen: {} };
    expect(carryFirstSeen([rec({ id: 7, title: 'A' })], toMonth('2026-10'), previous)).toEqual({ '7': '2026-09' });
  });

  it('ignores a "previous" period that is later than this one', () => {
    const previous = { period: toMonth('2026-11'), recommendations: [rec({ id: 7, title: 'A' })], recommendationsFirstSeen: { '7': toMonth('2026-06') } };
    expect(carryFirstSeen([rec({ id: 7, title: 'A' })], toMonth('2026-10'), previous)).toEqual({ '7': '2026-10' });
  });
});

describe('parsePeriodData', () => {
  it('reads back what buildPeriodData wrote, through JSON', () => {
    const written = buildPeriodData({
      period: PERIOD,
      fetchedAt: '2026-11-04T06:00:30.000Z',
      project: project(),
      report: currentReport(),
      content: readReport(currentReport()),
      ranking: null,
      stats: null,
      notes: [],
      previous: null,
    });
    const read = parsePeriodData(JSON.parse(JSON.stringify(written)));
    expect(read).toEqual(written);
    expect(read?.recommendationsFirstSeen['9004']).toBe(PERIOD);
  });

  it('returns null, without throwing, for an unreadable or old file', () => {
    const valid = rawPreviousPeriod() as Record<string, unknown>;
    expect(parsePeriodData(valid)).not.toBeNull();
    expect(parsePeriodData({ ...valid, schemaVersion: 0 })).toBeNull();
    expect(parsePeriodData({ ...valid, period: 'September' })).toBeNull();
    expect(parsePeriodData({ ...valid, report: undefined })).toBeNull();
    expect(parsePeriodData(null)).toBeNull();
    expect(parsePeriodData('{"schemaVersion":1}')).toBeNull();
    expect(parsePeriodData([])).toBeNull();
  });

  it('keeps keys it does not know inside the raw API data', () => {
    const raw = rawPreviousPeriod() as { report: { sections: Record<string, unknown> } };
    raw.report.sections['future_section'] = { anything: 1 };
    const read = parsePeriodData(raw);
    expect((read?.report as Report).sections?.['future_section']).toEqual({ anything: 1 });
  });
});

describe('tracking in the report model', () => {
  it('lists one new, one resolved and the persistent ones longest first', () => {
    const model = assembleReport(assembleInput());
    const tracking = model.recommendations?.tracking;
    expect(tracking).not.toBeNull();
    expect(tracking?.new.map((r) => r.key)).toEqual(['9004']);
    expect(tracking?.new[0]?.periodsOpen).toBe(1);
    expect(tracking?.resolved).toEqual([{ key: '9002', title: 'Add Organization structured data', priority: 'high', category: 'technical', titleLang: null }]);
    expect(tracking?.persistent.map((r) => [r.key, r.periodsOpen])).toEqual([
      ['9001', 3],
      ['9003', 2],
      ['technical:compress hero images', 2],
    ]);
  });

  it('sets periodsOpen on every recommendation of the groups', () => {
    const model = assembleReport(assembleInput());
    const open = Object.fromEntries(model.recommendations?.groups.flatMap((g) => g.items.map((r) => [r.key, r.periodsOpen])) ?? []);
    expect(open).toEqual({ '9001': 3, '9003': 2, '9004': 1, 'technical:compress hero images': 2 });
  });

  it('has no tracking on the first period and every recommendation open for 1 period', () => {
    const model = assembleReport(assembleInput({ previous: null }));
    expect(model.recommendations?.tracking).toBeNull();
    const counts = model.recommendations?.groups.flatMap((g) => g.items.map((r) => r.periodsOpen));
    expect(counts).toEqual([1, 1, 1, 1]);
  });

  it('has no tracking when last period left the recommendations out, but keeps the carried ages', () => {
    const previous = previousPeriod();
    delete (previous.report as Report).sections?.recommendations;
    const model = assembleReport(assembleInput({ previous }));
    expect(model.recommendations?.tracking).toBeNull();
    expect(model.recommendations?.groups[0]?.items[0]?.periodsOpen).toBe(3);
  });

  it('counts the months in between when a period was skipped', () => {
    const previous: PeriodData = { ...previousPeriod(), period: toMonth('2026-08'), recommendationsFirstSeen: { '9001': toMonth('2026-07') } };
    const model = assembleReport(assembleInput({ previous }));
    const ages = Object.fromEntries(model.recommendations?.tracking?.persistent.map((r) => [r.key, r.periodsOpen]) ?? []);
    // 9001 since July; the others were open in August, the previous report.
    expect(ages).toEqual({ '9001': 4, '9003': 3, 'technical:compress hero images': 3 });
  });
});
