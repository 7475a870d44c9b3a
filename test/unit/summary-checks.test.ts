// The summary checks catch what the summary used to write (the sentences of the issue that asked for them), and find
// nothing in what it writes now, in English and French.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/report/facts.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import {
  agreement,
  firstReportAgainstHistory,
  firstSentence,
  intensityAgainstSize,
  rankAgainstBenchmark,
  summaryProblems,
  verdictAgainstMoves,
  type SummaryCase,
} from '../support/summary-checks.js';

const fact = (key: string, figure: number, source: Fact['source'] = 'report', month: string | null = '2026-10'): Fact => ({
  key,
  value: figure,
  unit: 'score',
  direction: 'higher',
  month,
  date: null,
  source,
  figure,
  shown: String(figure),
});

/** Answers to 25 questions, `mentioned` of them naming the site. */
const answers = (mentioned: number): Fact[] =>
  Array.from({ length: 25 }, (_, i) => fact(`aiAnswers.${i + 1}.chatgpt.mentioned`, i < mentioned ? 1 : 0, 'scan'));

const base = (summary: string[], facts: Fact[], before: Fact[] | null = null, language: 'en' | 'fr' = 'en'): SummaryCase => ({
  client: 'Fromagerie Lefèvre',
  language,
  period: '2026-10',
  summary,
  facts,
  before,
});

describe('the summary checks', () => {
  it('find "below average" beside a score level with the average, and a gap the figures do not make', () => {
    const facts = [fact('scores.geo', 48), fact('benchmark.geo', 48, 'competitors', null)];
    const problems = rankAgainstBenchmark(
      base(
        ['Your site ranks below average among the 256 tracked sites for GEO. Your GEO score of 48 is 0.5 points above the benchmark average of 47.5.'],
        facts,
      ),
    );
    expect(problems).toEqual([
      'says "below average" with a GEO score of 48 against an average of 48',
      'writes the average 47.5 where the page shows 48',
      'says above the benchmark average with a gap of 0',
      'writes a gap of 0.5 where the figures make 0',
    ]);
    expect(
      rankAgainstBenchmark(
        base(
          ['Votre score GEO de 48 est au niveau de la moyenne de référence (48), et votre site se classe dans la moitié basse des 256 sites suivis en GEO.'],
          facts,
          null,
          'fr',
        ),
      ),
    ).toEqual([]);
  });

  it('find "a good month" beside AI answers falling from 12 of 25 to 4 of 25', () => {
    const now = [fact('scores.geo', 50), fact('scores.geo.previous', 48, 'told', '2026-09'), ...answers(4)];
    const text = [
      'A good month for your visibility in AI assistants: your GEO score went up. AI assistants mentioned the site in 4 of 25 answers (12 of 25 last month).',
    ];
    expect(verdictAgainstMoves(base(text, now, answers(12)))).toEqual([
      'calls the month good beside aiAnswers down 32',
      'calls the month good when its largest move, aiAnswers, fell',
    ]);
    expect(verdictAgainstMoves(base(['A mixed month: your GEO score edged up by 2 points to 50.'], now, answers(12)))).toEqual([]);
  });

  it('find "first report" above a history of earlier months', () => {
    const facts = [fact('scores.geo', 50), fact('history.geo.2026-09', 47, 'history', '2026-09'), fact('history.geo.2026-10', 50, 'history', '2026-10')];
    expect(
      firstReportAgainstHistory(base(['This first monthly report sets your starting point: the months ahead will show how your site moves from here.'], facts)),
    ).toHaveLength(1);
    expect(firstReportAgainstHistory(base(['Ce premier rapport mensuel pose votre point de départ.'], facts, null, 'fr'))).toHaveLength(1);
    expect(firstReportAgainstHistory(base(['This first monthly report sets your starting point.'], [fact('history.geo.2026-10', 50, 'history')]))).toEqual([]);
  });

  it('find an 18-point fall that "slipped", and a 2-point one said sharply', () => {
    expect(intensityAgainstSize(base(['A harder month: your SEO score slipped by 18 points to 40.'], []))).toEqual([
      '"slipped by 18 points" for a move of 18 points',
    ]);
    expect(intensityAgainstSize(base(['votre score GEO a nettement reculé, de 2 points, pour s’établir à 40.'], [], null, 'fr'))).toHaveLength(1);
    expect(intensityAgainstSize(base(['Among the metrics, citations slipped the most, from 37 to 21 (−43.2% relative).'], []))).toHaveLength(1);
    expect(intensityAgainstSize(base(['your SEO score fell sharply, by 18 points, to 40; your GEO score slipped by 2 points to 50.'], []))).toEqual([]);
  });

  it('find "0 moved up", "6 of 6", "1 points" and "et 1 autres"', () => {
    expect(agreement(base(['6 of 6 tracked keywords are in the top 10 of search results (6 last month); 0 moved up and 2 moved down.'], []))).toEqual([
      '"0 moved"',
      '"6 of 6"',
    ]);
    expect(agreement(base(['It rose by 1 points.'], []))).toEqual(['"1 points"']);
    expect(agreement(base(['et 1 autres, dans les recommandations plus loin. 6 des 6 mots-clés suivis sont dans le top 10.'], [], null, 'fr'))).toEqual([
      '"1 autres"',
      '"6 des 6"',
    ]);
    expect(agreement(base(['AI assistants mentioned your site in 1 of 25 answers, against all 25 last month.'], []))).toEqual([]);
  });

  it('find nothing in what the summary writes now, in either language', () => {
    for (const language of ['en', 'fr'] as const) {
      for (const overrides of [{}, { previous: null }] as const) {
        const model = assembleReport(assembleInput({ language, ...overrides }));
        expect(summaryProblems(base(model.summary, model.facts, null, language))).toEqual([]);
        expect(firstSentence(model.summary).length).toBeGreaterThan(20);
      }
    }
  });
});
