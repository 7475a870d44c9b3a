// The "what AI assistants answer" section on hand-made scan answers: the spec's lists, maps by assistant, flags
// and numbers as text, an empty geo; the quote trimmed at a sentence; the competitors the answers name instead.
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { aiAnswers } from '../../src/sections/ai-answers/index.js';
import { readAiAnswers } from '../../src/sections/ai-answers/read.js';
import { AiAnswersViewSchema, namedSites, QUOTE_MAX, quoteOf, type AiAnswersView } from '../../src/sections/ai-answers/view.js';
import { toMonth } from '../../src/period.js';

const SITE = { name: 'Fromagerie Dupont', domain: 'https://www.fromagerie-dupont.fr/' };

const classic = (mentions: Array<[number, string, number | null]>) => ({
  geo: {
    geo_score: 60,
    questions: [
      { id: 1, question: 'Where to buy cheese in Lyon?', question_type: 'local' },
      { id: 2, question: 'Is Fromagerie Dupont good?', question_type: 'local' },
    ],
    positions: mentions.map(([question_id, ai, position]) => ({ question_id, ai, mentioned: position !== null, position })),
    raw_responses: [
      { question_id: 1, ai: 'chatgpt', response: 'Fromagerie Dupont is a favourite. See fromagerie-dupont.fr and cheese-lyon.example.' },
      { question_id: 2, ai: 'gemini', response: 'Try market-leader.org or www.best-local-choice.net instead.' },
    ],
  },
});

const build = (now: unknown, before: unknown, language: 'en' | 'fr' = 'en'): AiAnswersView => {
  const built = aiAnswers.build(
    now as Record<string, unknown>,
    before === null ? null : { scan: before as Record<string, unknown>, period: toMonth('2026-09') },
    language,
    loadPhrases(language),
    SITE,
  );
  if (built === null) throw new Error('no view');
  return AiAnswersViewSchema.parse(built.view);
};

describe('reading the scan’s geo section', () => {
  it('reads the questions, the mention and position per assistant, and the answers', () => {
    const read = readAiAnswers(
      classic([
        [1, 'chatgpt', 2],
        [1, 'gemini', null],
      ]),
    );
    expect(read?.questions).toEqual([
      { id: '1', text: 'Where to buy cheese in Lyon?' },
      { id: '2', text: 'Is Fromagerie Dupont good?' },
    ]);
    expect(read?.positions).toEqual([
      { questionId: '1', assistant: 'chatgpt', mentioned: true, position: 2 },
      { questionId: '1', assistant: 'gemini', mentioned: false, position: null },
    ]);
    expect(read?.responses).toHaveLength(2);
  });

  it('reads maps: questions by id, positions by assistant, flags and positions as text, under nested sections', () => {
    const read = readAiAnswers({
      sections: {
        geo: {
          questions: { '7': { text: 'Best cheese shop?' } },
          positions: { ChatGPT: [{ question_id: '7', mentioned: 'yes', position: '3' }], Claude: { '7': { mentioned: 'no' } } },
          responses: { items: [{ question: { id: 7 }, assistant: 'claude', answer: 'Ask at market-leader.org.' }] },
        },
      },
    });
    expect(read).toEqual({
      questions: [{ id: '7', text: 'Best cheese shop?' }],
      positions: [
        { questionId: '7', assistant: 'chatgpt', mentioned: true, position: 3 },
        { questionId: '7', assistant: 'claude', mentioned: false, position: null },
      ],
      responses: [{ questionId: '7', assistant: 'claude', text: 'Ask at market-leader.org.' }],
    });
  });

  it('is missing (the section left out) without geo, with an empty geo, or with no question', () => {
    expect(readAiAnswers({ seo_audit: {} })).toBeNull();
    expect(readAiAnswers({ geo: {} })).toBeNull();
    expect(readAiAnswers({ geo: { questions: [], positions: [] } })).toBeNull();
    expect(aiAnswers.build({ geo: {} }, null, 'en', loadPhrases('en'), SITE)).toBeNull();
  });
});

describe('the AI answers view', () => {
  it('says per question who mentioned the site and where, with a quote and the sites named instead; last month in the count', () => {
    const view = build(
      classic([
        [1, 'chatgpt', 2],
        [1, 'gemini', null],
        [2, 'chatgpt', null],
        [2, 'gemini', null],
      ]),
      classic([
        [1, 'chatgpt', 1],
        [1, 'gemini', 3],
        [2, 'chatgpt', null],
        [2, 'gemini', null],
      ]),
    );
    expect(view.questions[0]?.answers.map((a) => [a.label, a.cue, a.text])).toEqual([
      ['ChatGPT', '✓', 'mentioned, position 2'],
      ['Gemini', '✕', 'not mentioned'],
    ]);
    expect(view.questions[0]?.quote).toEqual({ label: 'ChatGPT', text: 'Fromagerie Dupont is a favourite. See fromagerie-dupont.fr and cheese-lyon.example.' });
    expect(view.questions[0]?.competitorsText).toBe('Named instead: cheese-lyon.example');
    expect(view.questions[1]?.competitorsText).toBe('Named instead: market-leader.org and best-local-choice.net');
    expect(view.mentionsText).toBe('Mentioned in 1 of 4 answers (2 of 4 last month)');
    expect(view.summary).toBe(
      'AI assistants mentioned the site in 1 of 4 answers (2 of 4 last month); the answers most often named best-local-choice.net, cheese-lyon.example, and market-leader.org instead.',
    );
  });

  it('speaks French', () => {
    const view = build(classic([[1, 'chatgpt', null]]), null, 'fr');
    expect(view.title).toBe('Ce que répondent les assistants IA');
    expect(view.questions[0]?.answers[0]?.text).toBe('non mentionné');
    expect(view.mentionsText).toBe('Mentionné dans 0 réponses sur 1');
  });

  it('trims a long answer at a sentence, else at a word; never cuts the client’s domain into a competitor', () => {
    const long = `${'The first sentence is here. '.repeat(5)}${'x'.repeat(300)}.`;
    const quote = quoteOf(long);
    expect(quote.length).toBeLessThanOrEqual(QUOTE_MAX);
    expect(quote.endsWith('here.')).toBe(true);
    const words = quoteOf('word '.repeat(100));
    expect(words.endsWith('…')).toBe(true);
    expect(words.length).toBeLessThanOrEqual(QUOTE_MAX + 1);
    expect(namedSites('Visit shop.fromagerie-dupont.fr or fromagerie-dupont.fr, or rival.example.', 'fromagerie-dupont.fr')).toEqual(['rival.example']);
  });

  it('gives the preview a sample that fits its schema, in both languages', () => {
    for (const language of ['en', 'fr'] as const) expect(AiAnswersViewSchema.safeParse(aiAnswers.sample(language, loadPhrases(language))).success).toBe(true);
  });
});
