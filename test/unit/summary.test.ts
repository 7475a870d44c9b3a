import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/report/assemble.js';
import type { Recommendation } from '../support/classic-schemas.js';
import type { PeriodData } from '../../src/report/period-data.js';
import { buildSummary, LARGE_MOVE, monthVerdict, percentileTier } from '../../src/report/summary.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import type { AiAnswersView } from '../../src/sections/ai-answers/view.js';
import { assembleInput, competitorRow, competitors, currentReport, previousPeriod } from '../fixtures/api-fixtures.js';
import { toMonth } from '../../src/period.js';

type AssembleOverrides = Parameters<typeof assembleInput>[0];

// ICU writes French grouping with U+202F and the percent sign with U+00A0: both are non-breaking, both read "~" here.
const nb = (text: string | undefined): string => (text ?? '').replace(/[\u00a0\u202f]/g, '~');

const summaryOf = (overrides: AssembleOverrides = {}): string[] => assembleReport(assembleInput(overrides)).summary;

function withPercentile(percentile: number | null): AssembleOverrides {
  return { competitor: { ...competitorRow(), percentile } };
}

function withRecommendations(recommendations: Recommendation[]): AssembleOverrides {
  const report = currentReport();
  if (report.sections !== undefined) report.sections.recommendations = recommendations;
  return { report };
}

// No placeholder, no "undefined"/"NaN"/"null", no doubled spaces or empty sentence.
function expectClean(paragraphs: string[]): void {
  for (const paragraph of paragraphs) {
    expect(paragraph).not.toMatch(/undefined|NaN|null|\{\w+\}|\s\s|\s[.,]|^\s|\s$|\.\s*\./);
    expect(paragraph.length).toBeGreaterThan(10);
  }
}

describe('summary in English', () => {
  it('opens with the largest move, then the verdict with the scores, and the biggest metric mover', () => {
    const [movement] = summaryOf();
    expect(movement).toBe(
      'The largest move this month: visibility on ChatGPT rose sharply, by 8 points, to 62. ' +
        'A mixed month: your GEO score rose by 4 points to 71 and your SEO score slipped by 2 points to 64 since last month. ' +
        'Among the metrics, AI mentions improved the most, from 94 to 100 (+6.4% relative).',
    );
  });

  it('writes the change of a percentage in points, as the metrics table does, never as a bare per cent', () => {
    const report = currentReport();
    const metrics = report.sections?.metrics as Record<string, unknown>;
    // Share of voice from 22.4 % to 30 %: the biggest relative mover, +7.6 points.
    metrics['share_of_voice'] = { value: 30, unit: '%' };
    for (const language of ['en', 'fr'] as const) {
      const [movement] = summaryOf({ report, language });
      expect(nb(movement)).toContain(
        language === 'en'
          ? "the service's share of voice improved the most, and markedly: from 22.4% to 30% (+7.6~pts)."
          : 'la part de voix du service s’améliore le plus, et nettement~: de 22,4~% à 30~% (+7,6~pts).',
      );
      expect(movement).not.toMatch(/\(\+[\d.,]+\s?%\)/);
    }
  });

  it('says a worse position or a slower page slipped, a better one improved, and an unknown value changed', () => {
    const moved = (key: string, from: number, to: number, language: 'en' | 'fr' = 'en'): string => {
      // One metric in both months, so that it is the one that moved the most.
      const report = currentReport();
      const previous = previousPeriod();
      if (report.sections !== undefined) report.sections.metrics = { [key]: to };
      (previous.report as { sections: { metrics: Record<string, unknown> } }).sections.metrics = { [key]: from };
      return nb(summaryOf({ report, previous, language })[0]);
    };
    expect(moved('avg_ai_position', 2.9, 3.4)).toContain('the average position in AI answers slipped the most, from 2.9 to 3.4');
    expect(moved('avg_ai_position', 2.5, 1.9)).toContain('the average position in AI answers improved the most, from 2.5 to 1.9');
    expect(moved('avg_ai_position', 2.9, 3.4, 'fr')).toContain('la position moyenne dans les réponses IA recule le plus, de 2,9 à 3,4');
    // A third of the value lost is no slip: the words follow the size of the move.
    expect(moved('citations', 30, 20, 'fr')).toContain('les citations reculent le plus, et nettement~: de 30 à 20');
    expect(moved('citations', 30, 20)).toContain('citations worsened the most, and markedly: from 30 to 20');
    expect(moved('citations', 30, 20)).not.toContain('citations slipped');
    expect(moved('widgets_sold', 10, 12)).toContain('widgets sold changed the most, from 10 to 12 (+20% relative)');
    for (const text of [moved('avg_ai_position', 2.9, 3.4), moved('avg_ai_position', 2.5, 1.9)]) expect(text).not.toMatch(/\b(rose|fell)\b the most/);
  });

  it('places the client among tracked sites with the gap to the average', () => {
    expect(summaryOf()[1]).toBe(
      'Your GEO score of 71 is 12 points above the benchmark average of 59, and your site ranks in the top quarter of the 1,240 tracked sites for GEO.',
    );
  });

  it('names the most important actions, critical first, then high', () => {
    expect(summaryOf()[2]).toBe('Next, the actions that matter most are “Fix pages blocked by robots.txt” and “Publish an FAQ answering buyer questions”.');
  });

  it('counts resolved and new recommendations and names the one open longest', () => {
    expect(summaryOf()[3]).toBe('1 recommendation was resolved since last month and 1 is new; “Fix pages blocked by robots.txt” has been open for 3 months.');
  });

  it('describes the current standing on the first period, without tracking', () => {
    const report = currentReport();
    if (report.sections !== undefined) delete report.sections.history;
    const summary = summaryOf({ previous: null, report });
    expect(summary).toHaveLength(3);
    expect(summary[0]).toBe(
      'This first monthly report sets your starting point, with a GEO score of 71 and an SEO score of 64: the months ahead will show how your site moves from here. ' +
        'Your strongest AI visibility is on ChatGPT, at 62 out of 100.',
    );
    expect(summary.join(' ')).not.toContain('resolved');
  });

  it('never calls itself a first report beside a history of earlier months on the same page', () => {
    // No report of last month, but the service's history holds September: the page shows it, so this is no first report.
    const summary = summaryOf({ previous: null });
    expect(summary.join(' ')).not.toMatch(/first monthly report|starting point/);
    expect(summary[0]).toBe('Your site currently has a GEO score of 71 and an SEO score of 64. Your strongest AI visibility is on ChatGPT, at 62 out of 100.');
    expect(summaryOf({ previous: null, language: 'fr' }).join(' ')).not.toMatch(/premier rapport|point de départ/);
  });

  it('names the previous month when a period was skipped', () => {
    const previous: PeriodData = { ...previousPeriod(), period: toMonth('2026-08') };
    const summary = summaryOf({ previous });
    // The scores' last period is the history's September; the recommendations compare with August's report.
    expect(summary[0]).toMatch(/your GEO score rose by 4 points to 71 and your SEO score slipped by 2 points to 64 since last month\./);
    expect(summary[3]).toMatch(/^1 recommendation was resolved since August 2026 and 1 is new;/);
  });

  it('sizes the words by the move: an 18-point fall fell sharply, 2 points slipped, 5 points fell', () => {
    const withGeo = (geo: number): string => {
      const report = currentReport();
      const october = report.sections?.history?.at(-1);
      if (report.sections?.scores !== undefined && october !== undefined) report.sections.scores.geo_score = october.geo_score = geo;
      return summaryOf({ report }).join(' ');
    };
    // Last month's GEO score was 67.
    expect(withGeo(49)).toContain('your GEO score fell sharply, by 18 points, to 49');
    expect(withGeo(65)).toContain('your GEO score slipped by 2 points to 65');
    expect(withGeo(62)).toContain('your GEO score fell by 5 points to 62');
    expect(withGeo(76)).toContain('your GEO score rose sharply, by 9 points, to 76');
    expect(withGeo(49)).toMatch(/^The largest move this month: visibility on ChatGPT|^A harder month|A mixed month/);
    expect(withGeo(49)).not.toMatch(/A good month/);
  });

  it('says a score held steady and uses the singular for one point', () => {
    const report = currentReport();
    const october = report.sections?.history?.at(-1);
    if (report.sections?.scores !== undefined && october !== undefined) {
      report.sections.scores.geo_score = october.geo_score = 67.22;
      report.sections.scores.seo_score = october.seo_score = 66.5;
    }
    expect(summaryOf({ report })[0]).toMatch(/your GEO score held steady at 67 and your SEO score edged up by 1 point to 67 since last month\./);
  });
});

describe('summary in French', () => {
  it('uses French sentences and comma decimals', () => {
    const [movement] = summaryOf({ language: 'fr' });
    expect(nb(movement)).toContain('Un mois contrasté~: votre score GEO a progressé de 4 points pour atteindre 71');
    expect(movement).toContain('votre score SEO a légèrement reculé, de 2 points, pour s’établir à 64 depuis le mois dernier');
    expect(nb(movement)).toContain('Parmi les indicateurs, les mentions IA s’améliorent le plus, de 94 à 100 (+6,4~% en relatif).');
  });

  it('formats the sample size with a non-breaking space', () => {
    expect(nb(summaryOf({ language: 'fr' })[1])).toBe(
      'Votre score GEO de 71 dépasse de 12 points la moyenne de référence (59), et votre site se classe dans le premier quart des 1~240 sites suivis en GEO.',
    );
  });

  it('uses French quotes and tracking words', () => {
    const summary = summaryOf({ language: 'fr' });
    expect(summary[2]).toBe(
      'Prochaines étapes, les actions qui comptent le plus\u00a0: «\u00a0Fix pages blocked by robots.txt\u00a0» et «\u00a0Publish an FAQ answering buyer questions\u00a0».',
    );
    expect(summary[3]).toBe(
      '1 recommandation a été traitée depuis le mois dernier et 1 est nouvelle\u00a0; «\u00a0Fix pages blocked by robots.txt\u00a0» reste ouverte depuis 3 mois.',
    );
  });

  it('describes the first period in French', () => {
    expect(summaryOf({ language: 'fr', previous: null })[0]).toContain('Votre site affiche actuellement un score GEO de 71 et un score SEO de 64.');
    const report = currentReport();
    if (report.sections !== undefined) delete report.sections.history;
    expect(nb(summaryOf({ language: 'fr', previous: null, report })[0])).toContain(
      'Ce premier rapport mensuel pose votre point de départ, avec un score GEO de 71 et un score SEO de 64~: les mois suivants',
    );
  });
});

describe('percentile in words', () => {
  it.each([
    [100, 'top10'],
    [90, 'top10'],
    [89.9, 'top20'],
    [80, 'top20'],
    [79.9, 'topQuarter'],
    [75, 'topQuarter'],
    [74.9, 'upperHalf'],
    [50, 'upperHalf'],
    [49.9, 'lowerHalf'],
    [25, 'lowerHalf'],
    [24.9, 'bottomQuarter'],
    [0, 'bottomQuarter'],
  ] as const)('percentile %s → %s', (percentile, tier) => {
    expect(percentileTier(percentile)).toBe(tier);
  });

  it('has no words for a missing percentile', () => {
    expect(percentileTier(null)).toBeNull();
    expect(percentileTier(Number.NaN)).toBeNull();
  });

  it('writes each band as a sentence, with or without the sample size', () => {
    expect(summaryOf(withPercentile(90))[1]).toContain('ranks in the top 10% of the 1,240 tracked sites for GEO.');
    expect(summaryOf(withPercentile(80))[1]).toContain('ranks in the top 20% of the 1,240 tracked sites');
    expect(summaryOf(withPercentile(60))[1]).toContain('ranks in the upper half of the 1,240 tracked sites');
    // A percentile is against the median: "below average" beside a score 12 points above the average would contradict it.
    expect(summaryOf(withPercentile(40))[1]).toBe(
      'Your GEO score of 71 is 12 points above the benchmark average of 59, while your site ranks in the lower half of the 1,240 tracked sites for GEO.',
    );
    expect(summaryOf(withPercentile(24))[1]).toContain('while your site ranks in the bottom quarter of the 1,240 tracked sites');
    const { sample_size: _dropped, ...withoutSize } = competitors().benchmark;
    expect(summaryOf({ ...withPercentile(95), benchmark: withoutSize })[1]).toContain('ranks in the top 10% of tracked sites for GEO.');
    for (const text of [60, 40, 24].flatMap((p) => summaryOf(withPercentile(p)))) expect(text).not.toMatch(/above average|below average/);
    expect(nb(summaryOf({ ...withPercentile(95), language: 'fr' })[1])).toContain('dans les 10~% les mieux notés des 1~240 sites suivis');
  });

  it('says below or level with the average, by the two figures it writes', () => {
    const benchmark = (average: number) => ({ ...competitors().benchmark, geo_score: { average } });
    expect(summaryOf({ benchmark: benchmark(74.6) })[1]).toContain(
      'Your GEO score of 71 is 4 points below the benchmark average of 75, while your site ranks in the top quarter',
    );
    // 71.4 against 70.6: two figures of 71, level, never "0.8 points above the benchmark average of 71".
    expect(summaryOf({ benchmark: benchmark(70.6) })[1]).toContain('Your GEO score of 71 is level with the benchmark average of 71, and');
    // The API's own gap is not a second figure beside the two shown.
    const apiGap = { ...competitorRow(), vs_benchmark: { geo_score: -3.24, seo_score: 1 } };
    expect(summaryOf({ competitor: apiGap })[1]).toContain('Your GEO score of 71 is 12 points above the benchmark average of 59,');
  });
});

describe('summary with missing pieces', () => {
  it('computes the gap from the benchmark average when the competitor row is missing', () => {
    const summary = summaryOf({ competitor: null });
    expect(summary[1]).toBe('Your GEO score of 71 is 12 points above the benchmark average of 59.');
    expectClean(summary);
  });

  it('drops the benchmark paragraph when there is neither a competitor row nor a benchmark', () => {
    const summary = summaryOf({ competitor: null, benchmark: null });
    expect(summary).toHaveLength(3);
    expect(summary.join(' ')).not.toMatch(/benchmark|tracked sites/);
  });

  it('names at most three actions and says so when none is urgent', () => {
    const urgent = (n: number): Recommendation[] =>
      Array.from({ length: n }, (_, i) => ({ id: 100 + i, title: `Action ${i + 1}`, priority: i === 3 ? 'critical' : 'high', category: 'seo' }));
    expect(summaryOf(withRecommendations(urgent(5)))[2]).toBe('Next, the actions that matter most are “Action 4”, “Action 1”, and “Action 2”.');
    expect(summaryOf(withRecommendations(urgent(1)))[2]).toBe('Next, the action that matters most is “Action 1”.');
    const calm: Recommendation[] = [{ id: 1, title: 'Tidy alt texts', priority: 'low', category: 'content' }];
    expect(summaryOf(withRecommendations(calm))[2]).toBe('No critical or high-priority recommendation is open this month.');
    expect(summaryOf({ ...withRecommendations(calm), language: 'fr' })[2]).toBe('Aucune recommandation critique ou prioritaire n’est ouverte ce mois-ci.');
  });

  it('opens with a verdict on the month that the numbers after it bear out, small moves counted as none', () => {
    const card = (value: number, change: number | null) => ({
      value,
      benchmarkAverage: null,
      vsBenchmark: null,
      change:
        change === null
          ? null
          : { value: change, direction: change > 0 ? ('up' as const) : change < 0 ? ('down' as const) : ('flat' as const), previous: value - change },
      asOf: null,
    });
    const scores = (geo: number | null, seo: number | null) => ({
      geo: card(60, geo),
      seo: card(50, seo),
      percentile: null,
      benchmarkSampleSize: null,
      aiVisibility: [],
    });
    expect(monthVerdict(scores(3, 2))).toBe('good');
    expect(monthVerdict(scores(3, 0.4))).toBe('good');
    expect(monthVerdict(scores(-0.9, 2))).toBe('good');
    expect(monthVerdict(scores(3, -2))).toBe('mixed');
    expect(monthVerdict(scores(-3, -2))).toBe('hard');
    expect(monthVerdict(scores(0.5, -4))).toBe('hard');
    expect(monthVerdict(scores(0.5, -0.5))).toBe('steady');
    expect(monthVerdict(scores(null, null))).toBe('first');
    expect(monthVerdict(null)).toBeNull();
    // The month's largest move has its say: a large fall beside rising scores makes the month mixed, never good.
    const large = (value: number) => ({ value, large: LARGE_MOVE });
    expect(monthVerdict(scores(2, 0), [large(-32)])).toBe('mixed');
    expect(monthVerdict(scores(-3, -2), [large(11)])).toBe('mixed');
    expect(monthVerdict(scores(1, 0), [large(-9)])).toBe('hard');
    expect(monthVerdict(scores(1, 0), [large(-7)])).toBe('steady');
  });

  it('never calls a month good beside the large fall of its AI answers, and says the fall in the same sentence', () => {
    const card = (value: number, change: number) => ({
      value,
      benchmarkAverage: null,
      vsBenchmark: null,
      change: { value: change, direction: change > 0 ? ('up' as const) : change < 0 ? ('down' as const) : ('flat' as const), previous: value - change },
      asOf: null,
    });
    const aiAnswers = (mentioned: number, before: number): AiAnswersView => ({
      title: '',
      intro: '',
      mentionsText: '',
      mentions: { mentioned, asked: 25, before: { mentioned: before, asked: 25 }, namedInstead: [] },
      questions: [],
      summary: null,
    });
    const write = (language: 'en' | 'fr', mentioned: number, before: number): string[] =>
      buildSummary({
        language,
        phrases: loadPhrases(language),
        clientName: 'Fromagerie Lefèvre',
        period: toMonth('2026-10'),
        previousPeriod: toMonth('2026-09'),
        scores: { geo: card(50, 2), seo: card(57, -1), percentile: null, benchmarkSampleSize: null, aiVisibility: [] },
        metrics: null,
        recommendations: null,
        sections: { aiAnswers: aiAnswers(mentioned, before) },
      });
    const [collapse] = write('en', 4, 12);
    expect(collapse).toBe(
      'The largest move this month: AI assistants mentioned your site in 4 of 25 answers, against 12 of 25 last month. ' +
        'A mixed month: your GEO score edged up by 2 points to 50 and your SEO score slipped by 1 point to 57 since last month.',
    );
    expect(write('fr', 4, 12)[0]).toMatch(
      /^Le plus fort mouvement du mois\u00a0: les assistants IA ont mentionné votre site dans 4 réponses sur 25, contre 12 sur 25 le mois dernier\. Un mois contrasté/,
    );
    // The count is told once: the section's sentence keeps only who the answers named instead (here nobody).
    expect(
      write('en', 4, 12)
        .join(' ')
        .match(/4 of 25/g),
    ).toHaveLength(1);
    // A small move of the answers leaves the verdict to the scores, and is said where the section speaks.
    const calm = write('en', 13, 12);
    expect(calm[0]).toBe('A good month: your GEO score edged up by 2 points to 50 and your SEO score slipped by 1 point to 57 since last month.');
    expect(calm).toContain('AI assistants mentioned your site in 13 of 25 answers, against 12 of 25 last month.');
    expect(write('en', 25, 25)).toContain('AI assistants mentioned your site in all 25 answers, against all 25 last month.');
    expect(write('fr', 1, 0)).toContain('Les assistants IA ont mentionné votre site dans 1 réponse sur 25, contre aucune sur 25 le mois dernier.');
  });

  it('leaves out an AI assistant or a metric that barely moved', () => {
    const delta = (value: number, previous: number) => ({
      value: value - previous,
      direction: value > previous ? ('up' as const) : ('down' as const),
      previous,
    });
    const card = { value: 60, benchmarkAverage: null, vsBenchmark: null, change: delta(60, 57), asOf: null };
    const write = (ai: number, metric: number): string =>
      buildSummary({
        language: 'en',
        phrases: loadPhrases('en'),
        clientName: 'Boulangerie Martin',
        period: toMonth('2026-10'),
        previousPeriod: toMonth('2026-09'),
        scores: {
          geo: card,
          seo: card,
          percentile: null,
          benchmarkSampleSize: null,
          aiVisibility: [{ assistant: 'chatgpt', label: 'ChatGPT', value: ai, change: delta(ai, 50) }],
        },
        metrics: [{ key: 'share_of_voice', label: 'Share of voice', value: metric, unit: '%', change: delta(metric, 20) }],
        recommendations: null,
      }).join(' ');
    expect(write(51.5, 20.3)).not.toMatch(/among AI assistants|Among the metrics/);
    expect(write(53, 21)).toMatch(
      /The largest move among AI assistants: visibility on ChatGPT rose by 3 points to 53\..*service's share of voice improved the most, from 20% to 21% \(\+1\spt\)/,
    );
  });

  it('uses the plural for several resolved recommendations', () => {
    const summary = summaryOf(withRecommendations([{ id: 9003, title: 'Publish an FAQ', priority: 'high', category: 'content' }]));
    expect(summary[3]).toBe('3 recommendations were resolved since last month and none is new; “Publish an FAQ” has been open for 2 months.');
  });

  it('says "no recommendation" rather than "0 recommendations", in English and French', () => {
    // Every recommendation of last month is still open (the one without an id by its title), plus one new.
    const input = withRecommendations([
      { id: 9001, title: 'Fix pages blocked by robots.txt', priority: 'critical', category: 'technical' },
      { id: 9002, title: 'Add Organization structured data', priority: 'high', category: 'technical' },
      { id: 9003, title: 'Publish an FAQ answering buyer questions', priority: 'high', category: 'content' },
      { title: 'Compress hero images', priority: 'low', category: 'technical' },
      { id: 9010, title: 'Brand new idea', priority: 'low', category: 'seo' },
    ]);
    expect(summaryOf(input)[3]).toMatch(/^No recommendation was resolved since last month and 1 is new;/);
    expect(summaryOf({ ...input, language: 'fr' })[3]).toMatch(/^Aucune recommandation n’a été traitée depuis le mois dernier et 1 est nouvelle\u00a0;/);
  });

  it('says nothing rather than something broken when the report is empty', () => {
    const report = currentReport();
    delete report.sections;
    expect(summaryOf({ report, competitor: null, benchmark: null })).toEqual([]);
  });

  it('never writes undefined, NaN or an empty sentence, in either language', () => {
    const report = currentReport();
    if (report.sections?.scores !== undefined) {
      report.sections.scores.geo_score = null;
      report.sections.scores.ai_visibility = { chatgpt: null };
    }
    if (report.sections?.metrics !== undefined) report.sections.metrics = { ai_mentions: null, citations: 'n/a' };
    const partialRow = { ...competitorRow(), percentile: null, vs_benchmark: {} };
    for (const language of ['en', 'fr'] as const) {
      for (const overrides of [
        { report },
        { report, previous: null },
        { competitor: partialRow },
        { competitor: null, benchmark: null, previous: null },
        { client: { sections: { scores: false, recommendations: false, history: true, metrics: true, trust: true } } },
      ] satisfies Array<AssembleOverrides>) {
        expectClean(summaryOf({ ...overrides, language }));
      }
    }
  });

  it('does not mention switched-off sections', () => {
    const summary = summaryOf({
      client: { sections: { scores: false, recommendations: false, history: true, metrics: true, trust: true } },
    });
    expect(summary).toEqual(['Among the metrics, AI mentions improved the most, from 94 to 100 (+6.4% relative).']);
  });
});
