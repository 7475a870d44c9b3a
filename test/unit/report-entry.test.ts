import { describe, expect, it } from 'vitest';
import { doneEntry } from '../../src/batch/report-entry.js';
import type { ProjectEntry } from '../../src/output/store.js';
import { reportModel } from '../fixtures/report-model.js';
import { pendingEntry } from '../support/manifest.js';

const NOW = '2026-11-04T06:30:00.000Z';

describe('doneEntry', () => {
  it('makes the entry of a written report from its model, without changing the entry it was given', () => {
    const model = reportModel('fr');
    const entry: ProjectEntry = { ...pendingEntry(4211), reportId: 98812, error: 'Printing failed' };
    const before = structuredClone(entry);
    const done = doneEntry(entry, { model, notes: ['no SEO trend'], displayName: 'Atelier Verdant SAS' }, NOW);
    expect(entry).toEqual(before);
    expect(done).toMatchObject({
      id: 4211,
      status: 'done',
      reportId: null,
      held: [],
      released: false,
      geo: model.scores?.geo.value,
      seo: model.scores?.seo.value,
      percentile: model.scores?.percentile ?? null,
      notes: ['no SEO trend'],
      summary: model.summary,
      note: model.client.note,
      language: 'fr',
      displayName: 'Atelier Verdant SAS',
      updatedAt: NOW,
    });
    expect(done).not.toHaveProperty('error');
    expect(done).not.toHaveProperty('goals');
    // The fields the entry had keep their place; the report's come after them.
    expect(Object.keys(done).slice(0, Object.keys(entry).length - 1)).toEqual(Object.keys(entry).filter((key) => key !== 'error'));
  });

  it('leaves out what the report no longer has, and labels the goals as asked', () => {
    const model = { ...reportModel('en'), client: { ...reportModel('en').client, note: null } };
    const goals = [{ metric: 'geo', label: 'GEO score', target: 70, status: 'met' }] as unknown as NonNullable<typeof model.goals>;
    const withGoals = { ...model, goals };
    const entry: ProjectEntry = {
      ...pendingEntry(7),
      note: 'an old note',
      displayName: 'Old name',
      aiMover: { assistant: 'x', label: 'X', value: 1, change: 1 },
    };
    const done = doneEntry(entry, { model: withGoals, notes: [], displayName: null, goalLabels: ['Score GEO'] }, NOW);
    expect(done).not.toHaveProperty('note');
    expect(done).not.toHaveProperty('displayName');
    expect(done.goals).toEqual([{ metric: 'geo', label: 'Score GEO', status: 'met' }]);
    expect(doneEntry(entry, { model: withGoals, notes: [], displayName: null }, NOW).goals).toEqual([{ metric: 'geo', label: 'GEO score', status: 'met' }]);
  });

  it('records the hash of the page the check passed, and drops the one of a page made before', () => {
    const model = reportModel('en');
    const hash = 'a'.repeat(64);
    const entry: ProjectEntry = { ...pendingEntry(9), checkedPage: 'b'.repeat(64) };
    expect(doneEntry(entry, { model, notes: [], displayName: null, checkedPage: hash }, NOW).checkedPage).toBe(hash);
    // A report made again without a recorded check: publish checks its page, not trusting the old hash.
    expect(doneEntry(entry, { model, notes: [], displayName: null }, NOW)).not.toHaveProperty('checkedPage');
  });
});
