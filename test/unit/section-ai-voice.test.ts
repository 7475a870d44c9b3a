// Share of voice on hand-made scan answers, in every shape the service may send: competitors as a list, a map of
// counts, one text or a wrapped list; positions as text; answers nested per question; raw responses only; no
// competitor field (the competitors found in the text). The agency's merges, the sources by kind, the grid, the
// noise threshold of the summary's sentence, the facts, and the `sov` goals.
import { describe, expect, it } from 'vitest';
import { toMonth } from '../../src/period.js';
import { aiAnswers } from '../../src/sections/ai-answers/index.js';
import { readAiAnswers, type AiAnswersRead } from '../../src/sections/ai-answers/read.js';
import { AiAnswersViewSchema, type AiAnswersView } from '../../src/sections/ai-answers/view.js';
import {
  answerGrid,
  competitorAliases,
  countAnswers,
  shareOfVoiceNoise,
  sourcesByKind,
  SOV_NOISE_FLOOR,
  voiceByAssistant,
  voiceOverall,
} from '../../src/sections/ai-answers/voice.js';
import { buildGoalViews, goalMetricProblem, parseGoalMetric, scanGoalSource } from '../../src/report/goals.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import type { ReportContent } from '../../src/content/report.js';

const SITE = { name: 'Fromagerie Dupont', domain: 'https://www.fromagerie-dupont.fr/' };

/** The scan's answers as read; a scan without them fails the test here. */
function readOf(scan: unknown): AiAnswersRead {
  const read = readAiAnswers(scan as Record<string, unknown>);
  if (read === null) throw new Error('no AI answers read');
  return read;
}

/** Two questions, two assistants; ChatGPT names the site once at 2, Gemini never. */
const scan = (competitors: (row: number) => unknown) => ({
  geo: {
    questions: [
      { id: 1, question: 'Where to buy cheese in Lyon?' },
      { id: 2, question: 'Best cheese shop?' },
    ],
    positions: [
      { question_id: 1, ai: 'chatgpt', mentioned: true, position: 2, competitors: competitors(0) },
      { question_id: 1, ai: 'gemini', mentioned: false, position: null, competitors: competitors(1) },
      { question_id: 2, ai: 'chatgpt', mentioned: false, position: null, competitors: competitors(2) },
      { question_id: 2, ai: 'gemini', mentioned: false, position: null, competitors: competitors(3) },
    ],
    raw_responses: [
      { question_id: 1, ai: 'chatgpt', response: 'rival.example, then Fromagerie Dupont. Sources: https://yelp.com/x https://www.fromagerie-dupont.fr/' },
      { question_id: 1, ai: 'gemini', response: 'Rival Ltd and cheese-lyon.example. See https://yelp.com/y' },
      { question_id: 2, ai: 'chatgpt', response: 'cheese-lyon.example is liked. https://wikipedia.org/wiki/Cheese' },
    ],
  },
});
const LISTS = [['rival.example'], ['Rival Ltd', 'cheese-lyon.example'], ['cheese-lyon.example'], []];

describe('share of voice, the rule', () => {
  it('named ÷ (named + competitor names, each once per answer), per assistant and all together; mention rate; position', () => {
    const read = readOf(scan((row) => LISTS[row]));
    const answers = countAnswers(read, SITE);
    const [chatgpt, gemini] = voiceByAssistant(answers);
    // ChatGPT: 1 named, 2 competitor names (rival, cheese-lyon) → 1 / 3.
    expect(chatgpt).toMatchObject({ assistant: 'chatgpt', answers: 2, named: 1, competitorNames: 2, mentionRate: 50, averagePosition: 2 });
    expect(chatgpt?.shareOfVoice).toBeCloseTo(100 / 3, 9);
    // Gemini: 0 named, 2 names (Rival Ltd and rival.example are two until the agency merges them… here two names of one answer).
    expect(gemini).toMatchObject({ named: 0, competitorNames: 2, shareOfVoice: 0, mentionRate: 0, averagePosition: null });
    expect(voiceOverall(answers)).toMatchObject({ named: 1, competitorNames: 4, answers: 4, shareOfVoice: 20 });
  });

  it('merges the names the agency lists: "Rival Ltd = rival.example" is one competitor, shown by its first name', () => {
    const site = { ...SITE, competitors: ['Rival Ltd = rival.example'] };
    expect(competitorAliases(site.competitors)).toEqual(
      new Map([
        ['rival ltd', 'Rival Ltd'],
        ['rival.example', 'Rival Ltd'],
      ]),
    );
    const answers = countAnswers(readOf(scan((row) => LISTS[row])), site);
    expect(answers.map((a) => a.competitors)).toEqual([['Rival Ltd'], ['Rival Ltd', 'cheese-lyon.example'], ['cheese-lyon.example'], []]);
    // A name given twice in one answer is counted once.
    const twice = countAnswers(readOf(scan((row) => (row === 1 ? ['Rival Ltd', 'rival.example'] : []))), site);
    expect(twice[1]?.competitors).toEqual(['Rival Ltd']);
  });

  it('counts the same from every shape of the competitor field: a map of counts, one text, a wrapped list of records', () => {
    const expected = countAnswers(readOf(scan((row) => LISTS[row])), SITE).map((a) => a.competitors);
    const shapes: Array<(names: string[]) => unknown> = [
      (names) => Object.fromEntries(names.map((n) => [n, 1])),
      (names) => names.join(', '),
      (names) => ({ items: names.map((name) => ({ name })), count: names.length }),
    ];
    for (const shape of shapes) {
      const answers = countAnswers(readOf(scan((row) => shape(LISTS[row] ?? []))), SITE);
      expect(answers.map((a) => a.competitors)).toEqual(expected);
    }
  });

  it('reads positions by assistant with flags and positions as text, and answers nested per question', () => {
    const byAssistant = {
      geo: {
        questions: { '1': { text: 'Where to buy cheese in Lyon?' } },
        positions: {
          chatgpt: [{ question_id: '1', mentioned: 'yes', position: '3', competitors: 'rival.example; cheese-lyon.example' }],
          gemini: { '1': { mentioned: 'no', competitors: ['rival.example'] } },
        },
      },
    };
    const nested = {
      result: {
        geo: {
          prompts: [
            {
              prompt_id: '1',
              prompt: 'Where to buy cheese in Lyon?',
              engines: {
                chatgpt: { cited: 'true', rank: '3', competitors: ['rival.example', 'cheese-lyon.example'] },
                gemini: { cited: 'false', rank: null, competitors: { 'rival.example': 2 } },
              },
            },
          ],
        },
      },
    };
    for (const shape of [byAssistant, nested]) {
      const answers = countAnswers(readOf(shape), SITE);
      const [chatgpt, gemini] = voiceByAssistant(answers);
      expect(chatgpt).toMatchObject({ named: 1, competitorNames: 2, averagePosition: 3 });
      expect(gemini).toMatchObject({ named: 0, competitorNames: 1 });
      expect(voiceOverall(answers).shareOfVoice).toBe(25);
    }
  });

  it('without a competitor field, finds the competitors in the text: other domains and the names the agency lists, not directories', () => {
    const noField = scan(() => undefined);
    const site = { ...SITE, competitors: ['Rival Ltd = rival.example'] };
    const answers = countAnswers(readOf(noField), site);
    // yelp.com and wikipedia.org are directories and media; the site's own domain is its own.
    expect(answers.map((a) => a.competitors)).toEqual([['Rival Ltd'], ['Rival Ltd', 'cheese-lyon.example'], ['cheese-lyon.example'], []]);
    const view = build(noField, null, site);
    expect(view.voice?.intro).toContain("found in the answers' text");
  });

  it('from raw responses only: named where the text names the site, at the rank of its first naming', () => {
    const raw = {
      geo: {
        questions: [{ id: 1, question: 'Where to buy cheese in Lyon?' }],
        raw_responses: [
          { question_id: 1, ai: 'chatgpt', response: 'rival.example first, then cheese-lyon.example, then Fromagerie Dupont.' },
          { question_id: 1, ai: 'gemini', response: 'Try rival.example.' },
        ],
      },
    };
    const answers = countAnswers(readOf(raw), SITE);
    expect(answers.map((a) => [a.assistant, a.mentioned, a.position, a.competitors])).toEqual([
      ['chatgpt', true, 3, ['rival.example', 'cheese-lyon.example']],
      ['gemini', false, null, ['rival.example']],
    ]);
    expect(voiceOverall(answers).shareOfVoice).toBe(25);
  });
});

describe('sources by kind and the grid', () => {
  it('classes every domain named or cited as own, competitor or other, with the answers that named it', () => {
    const site = { ...SITE, ownDomains: ['dupont-shop.example'] };
    const read = readOf(scan((row) => LISTS[row]));
    read.responses.push({ questionId: '2', assistant: 'gemini', text: 'Order at shop.dupont-shop.example.' });
    const kinds = sourcesByKind(countAnswers(read, site), site);
    expect(kinds.own).toEqual([
      { domain: 'fromagerie-dupont.fr', answers: 1 },
      { domain: 'shop.dupont-shop.example', answers: 1 },
    ]);
    expect(kinds.competitor).toEqual([
      { domain: 'cheese-lyon.example', answers: 2 },
      { domain: 'rival.example', answers: 1 },
    ]);
    expect(kinds.other).toEqual([
      { domain: 'yelp.com', answers: 2 },
      { domain: 'wikipedia.org', answers: 1 },
    ]);
  });

  it('keeps the five most named per kind', () => {
    const text = Array.from({ length: 7 }, (_, i) => `site${i}.example`).join(' ');
    const read = { questions: [{ id: '1', text: 'q' }], positions: [], responses: [{ questionId: '1', assistant: 'chatgpt', text }] };
    expect(sourcesByKind(countAnswers(read, SITE), SITE).competitor).toHaveLength(5);
  });

  it('marks each question and assistant: named at a position, not named with the competitor named first, no answer', () => {
    const read = readOf(scan((row) => LISTS[row]));
    read.positions[3] = { ...(read.positions[3] as AiAnswersRead['positions'][number]), mentioned: null };
    const marks = answerGrid(read, countAnswers(read, SITE), ['chatgpt', 'gemini', 'claude']).map((line) => line.marks);
    expect(marks).toEqual([
      [{ state: 'named', position: 2 }, { state: 'not', first: 'Rival Ltd' }, { state: 'none' }],
      [{ state: 'not', first: 'cheese-lyon.example' }, { state: 'none' }, { state: 'none' }],
    ]);
    const view = build(
      scan((row) => LISTS[row]),
      null,
    );
    expect(view.voice?.grid.rows[0]?.cells.map((c) => c.text)).toEqual(['✓ 2', '✕ Rival Ltd']);
  });
});

/** A scan where ChatGPT names the site in `named` of 10 answers, each answer naming rival.example. */
const month = (named: number, rivalsPerAnswer = 1) => ({
  geo: {
    questions: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, question: `Question ${i + 1}?` })),
    positions: Array.from({ length: 10 }, (_, i) => ({
      question_id: i + 1,
      ai: 'chatgpt',
      mentioned: i < named,
      position: i < named ? 1 : null,
      competitors: ['rival.example', 'other-rival.example'].slice(0, rivalsPerAnswer),
    })),
  },
});

function build(now: unknown, before: unknown, site: typeof SITE & { competitors?: string[] } = SITE, language: 'en' | 'fr' = 'en'): AiAnswersView {
  const built = aiAnswers.build(
    now as Record<string, unknown>,
    before === null ? null : { scan: before as Record<string, unknown>, period: toMonth('2026-09') },
    language,
    loadPhrases(language),
    site,
  );
  if (built === null) throw new Error('no view');
  return AiAnswersViewSchema.parse(built.view);
}

describe('the change, the noise and the summary sentence', () => {
  it('puts each figure and its change in the facts', () => {
    const built = aiAnswers.build(month(6), { scan: month(3), period: toMonth('2026-09') }, 'en', loadPhrases('en'), SITE);
    const facts = new Map(built?.facts.map((f) => [f.key, f.value]));
    // Now 6 / (6 + 10) = 37.5 %, before 3 / 13 = 23.1 %.
    expect(facts.get('sov.chatgpt')).toBe(37.5);
    expect(facts.get('sov.chatgpt.change')).toBe(14.4);
    expect(facts.get('mentionRate.chatgpt')).toBe(60);
    expect(facts.get('mentionRate.chatgpt.change')).toBe(30);
    expect(facts.get('position.chatgpt')).toBe(1);
    expect(facts.get('sov')).toBe(37.5);
    expect(facts.get('sources.competitor.rival.example')).toBe(10);
  });

  it('says nothing when the move is within the noise; names the assistant and the competitor that gained beyond it', () => {
    // 10 answers a month: the noise is about 2 × 18 points, more than the 14.4-point move.
    expect(shareOfVoiceNoise({ named: 6, competitorNames: 10 }, { named: 3, competitorNames: 10 })).toBeGreaterThan(14.4);
    expect(build(month(6), month(3)).voice?.sentence).toBeNull();
    // From 9 of 10 answers with 10 names to 1 of 10 with 20: 47.4 % → 4.8 %; noise 2 × √(.25 × .75 × (1/21 + 1/19)) = 27.4 points.
    const fell = build(month(1, 2), month(9, 1));
    expect(fell.voice?.sentence?.replace(/[\u00a0\u202f]/g, ' ')).toBe(
      'The share of AI answers on ChatGPT fell by 42.6 pts to 4.8%, beyond the run-to-run noise of 27.4 pts; other-rival.example gained the most.',
    );
    expect(aiAnswers.build(month(1, 2), { scan: month(9, 1), period: toMonth('2026-09') }, 'en', loadPhrases('en'), SITE)?.summary).toContain(
      fell.voice?.sentence as string,
    );
    const french = build(month(1, 2), month(9, 1), SITE, 'fr');
    expect(french.voice?.sentence).toMatch(/^La part des réponses IA sur ChatGPT recule de 42,6\spts à 4,8\s%/);
    expect(french.voice?.rows[0]?.shareOfVoiceText).toMatch(/^4,8\s% \(−42,6\spts\)$/);
  });

  it('never counts a move below the floor as news, however many answers', () => {
    expect(shareOfVoiceNoise({ named: 5000, competitorNames: 5000 }, { named: 4900, competitorNames: 5100 })).toBe(SOV_NOISE_FLOOR);
  });
});

describe('goals on the share of voice', () => {
  it('accepts sov and sov:<assistant>; reads the figure the section shows', () => {
    expect(parseGoalMetric('sov')).toEqual({ kind: 'sov', assistant: null });
    expect(parseGoalMetric('sov:ChatGPT')).toEqual({ kind: 'sov', assistant: 'chatgpt' });
    expect(goalMetricProblem('sov:')).not.toBeNull();
    const source = scanGoalSource(month(6), { keywords: false, pageExperience: false, aiAnswers: true }, SITE);
    expect(source.voice?.get('chatgpt')).toBe(37.5);
    expect(scanGoalSource(month(6), { keywords: false, pageExperience: false }, SITE).voice).toBeNull();
    const phrases = loadPhrases('en');
    const views = buildGoalViews({
      goals: [
        { metric: 'sov:chatgpt', target: 30, by: toMonth('2027-03') },
        { metric: 'sov', target: 50, by: toMonth('2027-03') },
      ],
      period: toMonth('2026-10'),
      language: 'en',
      phrases,
      content: {} as ReportContent,
      earlier: [],
      scan: source,
    });
    expect(views.map((v) => [v.metricName, v.value, v.unit, v.status])).toEqual([
      ['Share of AI answers on ChatGPT', 37.5, '%', 'achieved'],
      ['Share of AI answers', 37.5, '%', 'no_trend'],
    ]);
    expect(views.map((v) => v.label)).toEqual(['Share of AI answers on ChatGPT: 30% or more', 'Share of AI answers: 50% or more']);
  });
});
