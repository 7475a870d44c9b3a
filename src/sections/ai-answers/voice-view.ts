// Share of voice → what the client reads: per assistant the mention rate, the share of voice and the average position
// when named, each with last month's change; the question × assistant grid; the sources by kind; and the summary's
// sentence when a share of voice moved beyond the noise. Figures rounded once, by the fact table's rules.
import { z } from 'zod';
import { figureOf, shownFigure } from '../../i18n/figures.js';
import { assistantLabel, formatPointsChange, formatWithUnit, phrase, pluralPhrase } from '../../i18n/format.js';
import type { Language, Phrases } from '../../i18n/locales.js';
import type { AiAnswersRead } from './read.js';
import {
  answerGrid,
  countAnswers,
  shareOfVoiceNoise,
  SOURCE_KINDS,
  sourcesByKind,
  voiceByAssistant,
  voiceOverall,
  type AssistantVoice,
  type VoiceSite,
} from './voice.js';

const FigureRow = z.object({
  assistant: z.string().describe('The assistant as the API names it (chatgpt…); "all" for every assistant together.'),
  label: z.string(),
  answers: z.number().describe('Answers that said whether the site was named.'),
  named: z.number(),
  competitorNames: z.number().describe("Competitor names in the assistant's answers, each competitor once per answer."),
  mentionRate: z.number().nullable().describe('named ÷ answers, in %, as its fact rounds it.'),
  mentionRateChange: z.number().nullable().describe("Change in points since last month's scan."),
  shareOfVoice: z.number().nullable().describe('named ÷ (named + competitor names), in %, as its fact rounds it.'),
  shareOfVoiceChange: z.number().nullable(),
  averagePosition: z.number().nullable().describe('Mean position when named, one decimal.'),
  averagePositionChange: z.number().nullable().describe('Change since last month (negative: a better place).'),
  countsText: z.string(),
  mentionRateText: z.string(),
  shareOfVoiceText: z.string(),
  positionText: z.string(),
});

export const VoiceViewSchema = z
  .object({
    title: z.string(),
    intro: z.string().describe('How the share of voice is counted, and where the competitors come from.'),
    headers: z.object({
      assistant: z.string(),
      named: z.string(),
      competitorNames: z.string(),
      mentionRate: z.string(),
      shareOfVoice: z.string(),
      position: z.string(),
    }),
    changeNote: z.string().describe('What the brackets hold: the change since last month.'),
    rows: z.array(FigureRow).describe('One per assistant of the scan.'),
    overall: FigureRow.describe('Every assistant counted together.'),
    grid: z.object({
      title: z.string(),
      questionHeader: z.string(),
      assistants: z.array(z.string()).describe('The column labels.'),
      rows: z.array(z.object({ question: z.string(), cells: z.array(z.object({ state: z.enum(['named', 'not', 'none']), text: z.string() })) })),
      legend: z.string(),
    }),
    sources: z.object({
      title: z.string(),
      kinds: z.array(
        z.object({
          kind: z.enum(SOURCE_KINDS),
          title: z.string(),
          items: z.array(z.object({ domain: z.string(), answers: z.number(), text: z.string() })),
          emptyText: z.string().nullable(),
        }),
      ),
    }),
    sentence: z.string().nullable().describe("The summary's sentence when a share of voice moved beyond the noise; null otherwise."),
  })
  .describe('Share of voice against the competitors, per assistant, with the grid and the sources by kind.');
export type VoiceView = z.infer<typeof VoiceViewSchema>;

const percentFigure = (value: number | null): number | null => (value === null ? null : figureOf(value, 'percent'));
const positionFigure = (value: number | null): number | null => (value === null ? null : figureOf(value, 'position'));
/** A change is the difference of two figures, rounded by the same rule (as the fact table's changes are). */
const figureChange = (current: number | null, previous: number | null, unit: 'percent' | 'position'): { value: number } | null =>
  current === null || previous === null ? null : { value: figureOf(current - previous, unit) };

export interface VoiceInput {
  now: AiAnswersRead;
  before: AiAnswersRead | null;
  site: VoiceSite;
  language: Language;
  phrases: Phrases;
}

/** The share of voice part of the section. */
export function voiceView(input: VoiceInput): VoiceView {
  const { now, before, site, language, phrases } = input;
  const answers = countAnswers(now, site);
  const earlierAnswers = before === null ? null : countAnswers(before, site);
  const voices = voiceByAssistant(answers);
  const earlier = earlierAnswers === null ? null : voiceByAssistant(earlierAnswers);
  const percentText = (figure: number | null): string => (figure === null ? phrase(phrases, 'aiAnswers.voice.none') : formatWithUnit(figure, '%', language));
  const changeText = (change: number | null): string =>
    change === null
      ? ''
      : change === 0
        ? ` ${phrase(phrases, 'aiAnswers.voice.unchanged')}`
        : ` ${phrase(phrases, 'aiAnswers.voice.change', { change: formatPointsChange(change, phrases, language) })}`;
  const row = (voice: AssistantVoice, previous: AssistantVoice | null, label: string): VoiceView['rows'][number] => {
    const mentionRate = percentFigure(voice.mentionRate);
    const shareOfVoice = percentFigure(voice.shareOfVoice);
    const averagePosition = positionFigure(voice.averagePosition);
    const mentionRateChange = figureChange(mentionRate, previous === null ? null : percentFigure(previous.mentionRate), 'percent')?.value ?? null;
    const shareOfVoiceChange = figureChange(shareOfVoice, previous === null ? null : percentFigure(previous.shareOfVoice), 'percent')?.value ?? null;
    const averagePositionChange = figureChange(averagePosition, previous === null ? null : positionFigure(previous.averagePosition), 'position')?.value ?? null;
    const placeChange =
      averagePositionChange === null
        ? ''
        : ` ${phrase(phrases, `aiAnswers.voice.positionChange.${averagePositionChange < 0 ? 'up' : averagePositionChange > 0 ? 'down' : 'flat'}`, {
            value: shownFigure(Math.abs(averagePositionChange), 'position', language),
          })}`;
    return {
      assistant: voice.assistant,
      label,
      answers: voice.answers,
      named: voice.named,
      competitorNames: voice.competitorNames,
      mentionRate,
      mentionRateChange,
      shareOfVoice,
      shareOfVoiceChange,
      averagePosition,
      averagePositionChange,
      countsText: phrase(phrases, 'aiAnswers.voice.counts', { named: voice.named, answers: voice.answers }),
      mentionRateText: percentText(mentionRate) + changeText(mentionRateChange),
      shareOfVoiceText: percentText(shareOfVoice) + changeText(shareOfVoiceChange),
      positionText: averagePosition === null ? phrase(phrases, 'aiAnswers.voice.none') : shownFigure(averagePosition, 'position', language) + placeChange,
    };
  };
  const rows = voices.map((voice) => row(voice, earlier?.find((e) => e.assistant === voice.assistant) ?? null, assistantLabel(phrases, voice.assistant)));
  const overall = row(voiceOverall(answers), earlierAnswers === null ? null : voiceOverall(earlierAnswers), phrase(phrases, 'aiAnswers.voice.all'));
  const assistants = voices.map((v) => v.assistant);
  const grid = answerGrid(now, answers, assistants).map((line, index) => ({
    question: now.questions[index]?.text ?? line.questionId,
    cells: line.marks.map((mark) => ({
      state: mark.state,
      text:
        mark.state === 'named'
          ? mark.position === null
            ? phrase(phrases, 'aiAnswers.grid.namedNoPosition')
            : phrase(phrases, 'aiAnswers.grid.named', { position: mark.position })
          : mark.state === 'not'
            ? mark.first === null
              ? phrase(phrases, 'aiAnswers.grid.notNamed')
              : phrase(phrases, 'aiAnswers.grid.notNamedFirst', { first: mark.first })
            : phrase(phrases, 'aiAnswers.grid.noAnswer'),
    })),
  }));
  const byKind = sourcesByKind(answers, site);
  const fromService = now.positions.some((p) => p.competitors !== undefined) || now.responses.some((r) => r.competitors !== undefined);
  return {
    title: phrase(phrases, 'aiAnswers.voice.title'),
    intro: phrase(phrases, 'aiAnswers.voice.intro', {
      competitors: phrase(phrases, fromService ? 'aiAnswers.voice.competitorsFromService' : 'aiAnswers.voice.competitorsFromText'),
    }),
    headers: {
      assistant: phrase(phrases, 'aiAnswers.voice.assistant'),
      named: phrase(phrases, 'aiAnswers.voice.named'),
      competitorNames: phrase(phrases, 'aiAnswers.voice.competitorNames'),
      mentionRate: phrase(phrases, 'aiAnswers.voice.mentionRate'),
      shareOfVoice: phrase(phrases, 'aiAnswers.voice.shareOfVoice'),
      position: phrase(phrases, 'aiAnswers.voice.position'),
    },
    changeNote: phrase(phrases, 'aiAnswers.voice.changeNote'),
    rows,
    overall,
    grid: {
      title: phrase(phrases, 'aiAnswers.grid.title'),
      questionHeader: phrase(phrases, 'aiAnswers.grid.question'),
      assistants: rows.map((r) => r.label),
      rows: grid,
      legend: phrase(phrases, 'aiAnswers.grid.legend'),
    },
    sources: {
      title: phrase(phrases, 'aiAnswers.sources.title'),
      kinds: SOURCE_KINDS.map((kind) => ({
        kind,
        title: phrase(phrases, `aiAnswers.sources.kind.${kind}`),
        items: byKind[kind].map((s) => ({
          domain: s.domain,
          answers: s.answers,
          text: phrase(phrases, 'aiAnswers.sources.item', {
            domain: s.domain,
            answers: pluralPhrase(phrases, language, 'aiAnswers.sources.answers', s.answers, { count: s.answers }),
          }),
        })),
        emptyText: byKind[kind].length === 0 ? phrase(phrases, 'aiAnswers.sources.none') : null,
      })),
    },
    sentence: shareOfVoiceSentence(voices, earlier, phrases, language),
  };
}

/**
 * The summary's sentence: the assistant whose share of voice moved most beyond its noise (shareOfVoiceNoise), and
 * when it fell, the competitor whose names in that assistant's answers grew most; null when none moved beyond it.
 */
export function shareOfVoiceSentence(
  now: readonly AssistantVoice[],
  before: readonly AssistantVoice[] | null,
  phrases: Phrases,
  language: Language,
): string | null {
  if (before === null) return null;
  let chosen: { voice: AssistantVoice; previous: AssistantVoice; change: number; beyond: number; noise: number } | null = null;
  for (const voice of now) {
    const previous = before.find((b) => b.assistant === voice.assistant);
    const current = percentFigure(voice.shareOfVoice);
    const earlier = previous === undefined ? null : percentFigure(previous.shareOfVoice);
    if (previous === undefined || current === null || earlier === null) continue;
    const change = figureOf(current - earlier, 'percent');
    const noise = shareOfVoiceNoise(voice, previous);
    const beyond = Math.abs(change) - noise;
    if (beyond > 0 && (chosen === null || beyond > chosen.beyond)) chosen = { voice, previous, change, beyond, noise };
  }
  if (chosen === null) return null;
  const { voice, previous, change, noise } = chosen;
  const gains = [...voice.byCompetitor]
    .map(([name, count]) => ({ name, gain: count - (previous.byCompetitor.get(name) ?? 0) }))
    .filter((g) => g.gain > 0)
    .sort((a, b) => b.gain - a.gain || a.name.localeCompare(b.name));
  const params = {
    assistant: assistantLabel(phrases, voice.assistant),
    delta: formatPointsChange(Math.abs(change), phrases, language).replace(/^\+/, ''),
    value: formatWithUnit(percentFigure(voice.shareOfVoice) ?? 0, '%', language),
    noise: formatPointsChange(figureOf(noise, 'percent'), phrases, language).replace(/^\+/, ''),
    competitor: gains[0]?.name ?? '',
  };
  const key = change > 0 ? 'up' : gains.length > 0 ? 'down' : 'downNoCompetitor';
  return phrase(phrases, `aiAnswers.voice.sentence.${key}`, params);
}
