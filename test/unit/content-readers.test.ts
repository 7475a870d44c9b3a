// The content readers on forms a faithful server could choose, one at a time.
import { describe, expect, it } from 'vitest';
import { readCompetitors, readStats } from '../../src/content/competitors.js';
import { parseDay, parseNumber } from '../../src/spec/find.js';
import { readScoresAnswer } from '../../src/content/lists.js';
import { readProjectInfo } from '../../src/spec/project.js';
import { Reading } from '../../src/content/reading.js';
import { readReport, stateOf } from '../../src/content/report.js';

describe('forms', () => {
  it('reads numbers bare, as text, with a decimal comma or as a percentage; nothing else', () => {
    expect([76, '76.6', ' 76,6 ', '76%', '76 %', '-3.5'].map(parseNumber)).toEqual([76, 76.6, 76.6, 76, 76, -3.5]);
    expect(['', 'high', '7 6', '1e3', null, true, Number.NaN, {}].map(parseNumber)).toEqual([null, null, null, null, null, null, null, null]);
  });

  it('reads a month or a day in the usual forms, Unix time included', () => {
    expect(['2026-10', '2026-10-15', '2026-10-15T06:00:00+02:00', '2026/10', '10/2026', 1_791_072_000, 1_791_072_000_000].map(parseDay)).toEqual([
      '2026-10-01',
      '2026-10-15',
      '2026-10-15',
      '2026-10-01',
      '2026-10-01',
      '2026-10-04',
      '2026-10-04',
    ]);
    expect(['October', '2026-13', '', 0].map(parseDay)).toEqual([null, null, null, null]);
  });

  it('names a project by its synonyms, nested ones included', () => {
    expect(readProjectInfo({ id: 1, title: 'Atelier', website: { domain: 'atelier.fr' }, locale: 'fr-FR' })).toEqual({
      name: 'Atelier',
      domain: 'atelier.fr',
      language: 'fr-FR',
    });
    expect(readProjectInfo({ id: 1, name: null, url: 'https://x.example' })).toEqual({ name: null, domain: 'https://x.example', language: null });
  });

  it('judges status words: finished, building, failed, or unknown', () => {
    expect(['Completed', 'ready', 'SUCCESS', 'in_progress', 'queued', 'error', 'archived', null].map((w) => stateOf(w))).toEqual([
      'finished',
      'finished',
      'finished',
      'building',
      'building',
      'failed',
      'unknown',
      'unknown',
    ]);
  });
});

describe('readReport', () => {
  it('finds sections wrapped twice, as a list of named sections, with lists wrapped in { items, count }', () => {
    const content = readReport({
      data: {
        report: {
          id: '77',
          state: 'done',
          sections: [
            { name: 'scores', content: { overall: { geo: '61%', seo: 55 } } },
            {
              name: 'history',
              content: {
                items: [
                  { month: '2026-09', geo: 58 },
                  { month: '2026-10', geo: 61 },
                ],
                count: 2,
              },
            },
          ],
        },
      },
    });
    expect(content.id).toBe(77);
    expect(content.state).toBe('finished');
    expect(content.present).toEqual(['scores', 'history']);
    expect(content.scores).toMatchObject({ geo: 61, seo: 55 });
    expect(content.history).toEqual([
      { date: '2026-09-01', geo: 58, seo: null },
      { date: '2026-10-01', geo: 61, seo: null },
    ]);
  });

  it('reads history and metrics given as maps, and AI visibility as a list of records', () => {
    const content = readReport({
      id: 1,
      scores: {
        geo_score: 70,
        assistants: [
          { engine: 'chatgpt', share: '40%' },
          { engine: 'gemini', share: 22 },
        ],
      },
      history: { '2026-08': 66, '2026-09': { geo: 68, seo: 50 } },
      metrics: { citations: '12', share_of_voice: '9.5%', cwv: { value: 81, unit: 'percent' } },
    });
    expect(content.scores?.aiVisibility).toEqual([
      { assistant: 'chatgpt', value: 40 },
      { assistant: 'gemini', value: 22 },
    ]);
    expect(content.history?.map((p) => [p.date, p.geo, p.seo])).toEqual([
      ['2026-08-01', 66, null],
      ['2026-09-01', 68, 50],
    ]);
    expect(content.metrics?.map((m) => [m.key, m.value, m.unit])).toEqual([
      ['citations', 12, null],
      ['share_of_voice', 9.5, '%'],
      ['cwv', 81, '%'],
    ]);
  });

  it('leaves out malformed elements with a note naming where they were, and keeps the rest', () => {
    const reading = new Reading();
    const content = readReport(
      {
        id: 1,
        sections: {
          history: [{ geo: 50 }, { month: '2026-10', geo: 52 }],
          metrics: [{ value: 3 }, { name: 'citations', value: 4 }],
          trust: { score: 70, platforms: [{ rating: 4 }, { site: 'Google', stars: '4.5', reviews: '120', link: 'https://g.example' }] },
          recommendations: [
            { title: 'Fix titles', priority: 'urgent', category: 'seo' },
            { label: 'Add FAQ', severity: 'High', type: 'AI visibility', details: 'Answer the top questions.' },
          ],
        },
      },
      {},
      reading,
    );
    expect(content.history).toEqual([{ date: '2026-10-01', geo: 52, seo: null }]);
    expect(content.metrics?.map((m) => m.key)).toEqual(['citations']);
    expect(content.trust?.platforms).toEqual([{ name: 'Google', rating: 4.5, reviews: 120, url: 'https://g.example', extra: {} }]);
    expect(content.recommendations?.map((r) => [r.title, r.priority, r.category, r.description])).toEqual([
      ['Add FAQ', 'high', 'ai_visibility', 'Answer the top questions.'],
    ]);
    expect(reading.notes).toEqual([
      'History point at sections.history.0 has no month or no score: left out.',
      'Metric at sections.metrics.0 has no name: left out.',
      'Review platform at sections.trust.platforms.0 has no name: left out.',
      'Recommendation at sections.recommendations.0 ("Fix titles") has priority "urgent", not one of critical, high, medium, low: left out.',
    ]);
  });

  it('tries the field map first, and never throws on a shape it does not know', () => {
    const answer = { id: 3, payload: { kpi: { vis: '44' } } };
    expect(readReport(answer).scores).toBeNull();
    expect(readReport(answer, { 'scores.geo': ['payload.kpi.vis'] }).scores?.geo).toBe(44);
    for (const odd of [null, 'text', 42, [], [1, 2], { sections: 'none' }, { scores: [] }, { recommendations: { total: 0 } }]) {
      expect(() => readReport(odd)).not.toThrow();
    }
  });
});

describe('competitors, statistics and scores answers', () => {
  it('reads flat benchmark figures, rows keyed by project id, percentages as text and deltas given bare', () => {
    const content = readCompetitors({
      global: { avg_geo_score: '52.5', median_geo: 50, mean_seo: 60, sites: 900 },
      comparisons: { '12': { project: { id: 12, name: 'Atelier' }, score: { geo: 71 }, percentile_rank: '81%', delta: 18.5 } },
    });
    expect(content.benchmark.geo?.average).toBe(52.5);
    expect(content.benchmark.sampleSize).toBe(900);
    expect(content.rows).toEqual([{ projectId: 12, name: 'Atelier', geo: 71, seo: null, percentile: 81, vsBenchmark: { geo: 18.5, seo: null } }]);
  });

  it('reads statistics with counts grouped and evolution as a map of months', () => {
    expect(
      readStats({
        totals: { projects: { count: 5 }, scans: 40 },
        mean_score: 58.2,
        top: [{ project: { id: 3, name: 'A' }, geo: 80 }],
        trend: { '2026-09': 57, '2026-10': '58.2' },
      }),
    ).toEqual({
      projects: 5,
      scans: 40,
      averageScore: 58.2,
      topProjects: [{ projectId: 3, name: 'A', geo: 80 }],
      evolution: [
        { month: '2026-09', value: 57 },
        { month: '2026-10', value: 58.2 },
      ],
    });
  });

  it('reads a scores answer with latest and history under other names', () => {
    const scores = readScoresAnswer({
      project: { id: 9 },
      current: { geo: 70, measured_at: '2026-10-05' },
      timeline: {
        items: [
          { date: '2026-09-05', geo: 66 },
          { date: '2026-10-05', geo: 70 },
        ],
      },
    });
    expect(scores.projectId).toBe(9);
    expect(scores.latest).toMatchObject({ geo: 70, date: '2026-10-05' });
    expect(scores.history.map((s) => [s.date, s.geo])).toEqual([
      ['2026-09-05', 66],
      ['2026-10-05', 70],
    ]);
  });
});
