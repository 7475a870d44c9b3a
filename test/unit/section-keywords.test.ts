// The keyword rankings section on hand-made scan answers: a list or a map, numbers as text, a keyword absent in
// every trial, a missing SEO audit, the rankings under a step; and the view's honesty and movement.
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { keywords } from '../../src/sections/keywords/index.js';
import { readKeywordRankings } from '../../src/sections/keywords/read.js';
import { KeywordsViewSchema, type KeywordsView } from '../../src/sections/keywords/view.js';
import { scanOfPeriod, scanRequest } from '../../src/sections/scan.js';
import { toMonth } from '../../src/period.js';

const row = (keyword: string, values: Array<number | null>) => {
  const counted_as = values.map((v) => v ?? 11);
  return { keyword, position: counted_as.reduce((a, b) => a + b, 0) / counted_as.length, values, counted_as };
};

const build = (now: unknown, before: unknown, language: 'en' | 'fr' = 'en'): KeywordsView => {
  const built = keywords.build(
    now as Record<string, unknown>,
    before === null ? null : { scan: before as Record<string, unknown>, period: toMonth('2026-09') },
    language,
    loadPhrases(language),
  );
  if (built === null) throw new Error('no view');
  return KeywordsViewSchema.parse(built.view);
};

describe('reading seo_audit.keyword_rankings', () => {
  it('reads the list the spec describes, counting the trials where the site was absent', () => {
    const read = readKeywordRankings({ seo_audit: { keyword_rankings: [row('plumber lyon', [2, null, 4]), row('best plumber', [null, null, null, null])] } });
    expect(read).toEqual([
      { keyword: 'plumber lyon', position: 17 / 3, found: [2, 4], trials: 3, absent: 1, absentRank: 11 },
      { keyword: 'best plumber', position: 11, found: [], trials: 4, absent: 4, absentRank: 11 },
    ]);
  });

  it('reads a map keyed by keyword, numbers as text, counted_as as one number, under the nested sections', () => {
    const read = readKeywordRankings({
      sections: { seo_audit: { keyword_rankings: { 'plumber lyon': { position: '5.5', values: ['3', null, '8', '11'], counted_as: '11' } } } },
    });
    expect(read).toEqual([{ keyword: 'plumber lyon', position: 5.5, found: [3, 8], trials: 4, absent: 2, absentRank: 11 }]);
  });

  it('finds the rankings under their SEO audit step', () => {
    const read = readKeywordRankings({ seo_audit: { steps: { step4_keywords: { status: 'completed', keyword_rankings: [row('a', [1])] } } } });
    expect(read?.map((k) => k.keyword)).toEqual(['a']);
  });

  it('is missing (the section left out) without an SEO audit or without rankings in it; empty when the list is', () => {
    expect(readKeywordRankings({ geo: {} })).toBeNull();
    expect(readKeywordRankings({ seo_audit: { seo_score: 50 } })).toBeNull();
    expect(readKeywordRankings({ seo_audit: { keyword_rankings: [] } })).toEqual([]);
    expect(keywords.build({ geo: {} }, null, 'en', loadPhrases('en'))).toBeNull();
  });
});

describe('the keyword rankings view', () => {
  it('shows one figure per keyword, the spec’s position, and says in words how often the site was absent', () => {
    const view = build({ seo_audit: { keyword_rankings: [row('never seen', [null, null, null, null, null]), row('sometimes', [4, null, 6, null, 5])] } }, null);
    const never = view.rows.find((r) => r.keyword === 'never seen');
    expect(never).toMatchObject({ position: 11, positionText: 'not in the top 10', presenceText: 'not in the top 10 in any of 5 trials', move: 'absent' });
    // (4 + 11 + 6 + 11 + 5) ÷ 5 = 7.4: absent trials counted as the spec counts them, said beside it in words.
    const sometimes = view.rows.find((r) => r.keyword === 'sometimes');
    expect(sometimes).toMatchObject({ position: 7.4, positionText: '7.4', presenceText: 'not in the top 10 in 2 of 5 trials', move: 'first' });
  });

  it('takes every row’s arrow, word and places, and the top-3 and top-10 counts, from the figures it shows', () => {
    // The rows: a figure of 1 now is in the top 3; a move of 4.9 places reads from the two figures shown.
    const before = { seo_audit: { keyword_rankings: [row('bike shop near me', [null, null, null, 10, 4]), row('bike shop reviews dublin', [1, 1, 1, 1, 1])] } };
    const now = { seo_audit: { keyword_rankings: [row('bike shop near me', [4, 5, 4, 6, 4]), row('bike shop reviews dublin', [1, 1, 1, 1, 1])] } };
    const view = build(now, before);
    for (const r of view.rows) {
      const places = r.previous === null || r.position === null ? null : Math.round((r.previous - r.position) * 10) / 10;
      if (r.move === 'up') expect(r.moveText).toBe(`up ${Math.abs(places ?? NaN)} places`);
      if (r.move === 'down') expect(r.moveText).toBe(`down ${Math.abs(places ?? NaN)} places`);
      if (r.move === 'steady') expect(Math.abs(places ?? NaN)).toBeLessThan(0.5);
      expect(Number(r.positionText)).toBe(r.position);
    }
    expect(view.rows.find((r) => r.keyword === 'bike shop near me')).toMatchObject({ position: 4.6, previous: 9.4, moveText: 'up 4.8 places', cue: '▲' });
    expect(view.rows.find((r) => r.keyword === 'bike shop reviews dublin')).toMatchObject({ position: 1, move: 'steady' });
    expect(view.top3).toEqual({ now: 1, before: 1 });
    expect(view.top10).toEqual({ now: 2, before: 2 });
  });

  it('compares with last month: up, down, new, lost, steady; movers first; top 3 / top 10 now and then', () => {
    const before = {
      seo_audit: { keyword_rankings: [row('up', [6, 6]), row('down', [2, 2]), row('lost', [3, 4]), row('steady', [5, 5]), row('was absent', [null])] },
    };
    const now = {
      seo_audit: {
        keyword_rankings: [
          row('steady', [5, 5]),
          row('up', [2, 3]),
          row('down', [7, 8]),
          row('lost', [null, null]),
          row('was absent', [9]),
          row('brand new', [1]),
        ],
      },
    };
    const view = build(now, before);
    expect(view.rows.map((r) => [r.keyword, r.move])).toEqual([
      ['lost', 'lost'],
      ['brand new', 'new'],
      ['was absent', 'new'],
      ['down', 'down'],
      ['up', 'up'],
      ['steady', 'steady'],
    ]);
    expect(view.rows.find((r) => r.keyword === 'up')).toMatchObject({ cue: '▲', moveText: 'up 3.5 places', previousText: '6' });
    expect(view.rows.find((r) => r.keyword === 'lost')).toMatchObject({ cue: '✕', moveText: 'dropped out of the top 10', positionText: 'not in the top 10' });
    expect(view.top3).toEqual({ now: 2, before: 1 });
    expect(view.top10).toEqual({ now: 5, before: 4 });
    expect(view.countsText).toBe('2 in the top 3 and 5 in the top 10 of 6 keywords (last month: 1 and 4)');
    expect(view.summary).toBe('5 of 6 tracked keywords are in the top 10 of search results (4 last month); 3 moved up and 2 moved down.');
  });

  it('speaks French', () => {
    const view = build(
      { seo_audit: { keyword_rankings: [row('plombier', [3, null, 4])] } },
      { seo_audit: { keyword_rankings: [row('plombier', [1, 1, 1])] } },
      'fr',
    );
    expect(view.title).toBe('Positions sur les mots-clés');
    // (3 + 11 + 4) ÷ 3 = 6 against 1: « perd 5 places » from the two figures shown, 6 and 1.
    expect(view.rows[0]).toMatchObject({ presenceText: 'hors du top 10 dans 1 essai sur 3', moveText: 'perd 5 places', positionText: '6', previousText: '1' });
    expect(view.summary).toBe(
      '1 des 1 mots-clés suivis sont dans le top 10 des résultats de recherche (1 le mois dernier)\u00a0; 0 progressent et 1 reculent.',
    );
  });

  it('gives the preview a sample that fits its schema, in both languages', () => {
    for (const language of ['en', 'fr'] as const) expect(KeywordsViewSchema.safeParse(keywords.sample(language, loadPhrases(language))).success).toBe(true);
  });
});

describe('the scan a period reads', () => {
  it('is the latest completed scan dated in the period, whatever the list calls its date and status', () => {
    const scans = [
      { id: 1, created_at: '2026-10-01T02:00:00Z', status: 'completed' },
      { id: 2, date: '2026-10-20', status: 'done' },
      { id: 3, started_at: '2026-10-25T00:00:00+02:00', state: 'failed' },
      { id: 4, created_at: '2026-11-01T02:00:00Z', status: 'completed' },
      { id: '5', created: '2026-09-30' },
    ];
    expect(scanOfPeriod(scans, toMonth('2026-10'))).toEqual({ id: 2, date: '2026-10-20' });
    expect(scanOfPeriod(scans, toMonth('2026-09'))).toEqual({ id: 5, date: '2026-09-30' });
    expect(scanOfPeriod(scans, toMonth('2026-08'))).toBeNull();
  });

  it('asks for the sections and SEO steps the sections need, and no more', () => {
    expect(scanRequest([keywords])).toEqual({ include: ['seo_audit'], seoSteps: ['step4_keywords'] });
    expect(scanRequest([])).toEqual({ include: [], seoSteps: [] });
  });
});
