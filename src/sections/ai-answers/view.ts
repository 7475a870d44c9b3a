// What AI assistants answer → what the client reads: each question asked, for each assistant whether it mentioned
// the site and at which position, a short quote of an answer, and the competitors the answers name instead.
import { z } from 'zod';
import { formatList, phrase } from '../../i18n/format.js';
import type { SectionInput } from '../unit.js';
import type { AiAnswersRead } from './read.js';
import { voiceView, VoiceViewSchema } from './voice-view.js';

/** A quote stops at the end of a sentence within this many characters (else at a word, with an ellipsis). */
export const QUOTE_MAX = 220;

export const AiAnswersViewSchema = z
  .object({
    title: z.string(),
    intro: z.string(),
    mentionsText: z.string().describe('How many answers mentioned the site, with last month.'),
    mentions: z
      .object({
        mentioned: z.number().describe('Answers that named the site this month.'),
        asked: z.number().describe('Answers read this month.'),
        before: z.object({ mentioned: z.number(), asked: z.number() }).nullable().describe('The same counts last month; null when there is none.'),
        namedInstead: z.array(z.string()).describe('The sites the answers most often name instead of the client, at most three.'),
      })
      .describe("The counts behind mentionsText, for the report's summary."),
    questions: z
      .array(
        z.object({
          question: z.string(),
          answers: z
            .array(
              z.object({
                assistant: z.string().describe('The assistant as the API names it (chatgpt…).'),
                label: z.string(),
                labelText: z.string().describe('The label with its colon, as the language writes it ("ChatGPT:" / "ChatGPT :").'),
                mentioned: z.boolean().nullable().describe('null when the answer did not say.'),
                cue: z.string().describe('✓ mentioned, ✕ not mentioned, – unknown: the non-colour cue.'),
                text: z.string().describe('e.g. "mentioned, position 2" / "not mentioned".'),
              }),
            )
            .describe('One per assistant asked.'),
          quote: z
            .object({ label: z.string(), text: z.string() })
            .nullable()
            .describe('A short quote of one answer (trimmed at a sentence; escaped like every value); null when none was sent.'),
          competitorsText: z.string().nullable().describe('The sites the answers name instead of the client; null when none.'),
        }),
      )
      .describe('One per question the service asked.'),
    summary: z.string().nullable(),
    voice: VoiceViewSchema.optional().describe('Share of voice, the grid and the sources; absent in views made before they were counted.'),
  })
  .describe("What AI assistants answer (the scan's geo section): null when switched off or when the scan has none.");
export type AiAnswersView = z.infer<typeof AiAnswersViewSchema>;

const LABELS: Record<string, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  mistral: 'Mistral',
};
const labelOf = (assistant: string): string => LABELS[assistant] ?? assistant.charAt(0).toUpperCase() + assistant.slice(1);

const DOMAIN = /\b(?:https?:\/\/)?(?:www\.)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})\b/gi;
const hostOf = (domain: string | null): string | null =>
  domain === null
    ? null
    : (domain
        .replace(/^https?:\/\//i, '')
        .replace(/^www\./i, '')
        .split('/')[0]
        ?.toLowerCase() ?? null);

/** The domains an answer names, but the client's own. */
export function namedSites(text: string, own: string | null): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(DOMAIN)) {
    const host = match[1]?.toLowerCase();
    if (host !== undefined && host !== own && !(own !== null && host.endsWith(`.${own}`))) found.add(host);
  }
  return [...found];
}

/** An answer cut to a short quote: whole sentences within QUOTE_MAX characters, else words and an ellipsis. */
export function quoteOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= QUOTE_MAX) return flat;
  // A sentence ends at a stop followed by a space: "market-leader.org, …" does not end one.
  const sentences = flat.split(/(?<=[.!?])\s+/).map((sentence) => `${sentence} `);
  let quote = '';
  for (const sentence of sentences) {
    if ((quote + sentence).trim().length > QUOTE_MAX) break;
    quote += sentence;
  }
  if (quote.trim() !== '') return quote.trim();
  const cut = flat.slice(0, QUOTE_MAX);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).trim()}…`;
}

const tally = (read: AiAnswersRead): { mentioned: number; asked: number } => ({
  mentioned: read.positions.filter((p) => p.mentioned === true).length,
  asked: read.positions.length,
});

export function aiAnswersView(input: SectionInput<AiAnswersRead>): AiAnswersView {
  const { now, before, language, phrases, site } = input;
  const say = (key: string, params?: Record<string, string | number>): string => phrase(phrases, `aiAnswers.${key}`, params);
  const own = hostOf(site.domain);
  const counts = new Map<string, number>();
  const questions = now.questions.map((question) => {
    const answers = now.positions
      .filter((p) => p.questionId === question.id)
      .map((p) => ({
        assistant: p.assistant,
        label: labelOf(p.assistant),
        labelText: say('labelText', { label: labelOf(p.assistant) }),
        mentioned: p.mentioned,
        cue: p.mentioned === true ? '✓' : p.mentioned === false ? '✕' : '–',
        text:
          p.mentioned === true
            ? p.position === null
              ? say('mentioned')
              : say('mentionedAt', { position: p.position })
            : p.mentioned === false
              ? say('notMentioned')
              : say('unknown'),
      }));
    const responses = now.responses.filter((r) => r.questionId === question.id);
    const sites = [...new Set(responses.flatMap((r) => namedSites(r.text, own)))];
    for (const named of sites) counts.set(named, (counts.get(named) ?? 0) + 1);
    // The quote: an answer that names the site when there is one, else the first.
    const chosen = responses.find((r) => site.name !== '' && r.text.toLowerCase().includes(site.name.toLowerCase())) ?? responses[0];
    return {
      question: question.text,
      answers,
      quote: chosen === undefined ? null : { label: labelOf(chosen.assistant), text: quoteOf(chosen.text) },
      competitorsText: sites.length === 0 ? null : say('competitors', { list: formatList(sites, language) }),
    };
  });
  const current = tally(now);
  const earlier = before === null ? null : tally(before);
  const top = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([name]) => name);
  const mentionsText = say('mentions', current) + (earlier === null ? '' : say('mentionsBefore', { before: earlier.mentioned, beforeAsked: earlier.asked }));
  const summary =
    current.asked === 0
      ? null
      : say('summary', current) +
        (earlier === null ? '' : say('summaryBefore', { before: earlier.mentioned, beforeAsked: earlier.asked })) +
        (top.length === 0 ? '' : say('summaryCompetitors', { list: formatList(top, language) })) +
        '.';
  const mentions = { ...current, before: earlier, namedInstead: top };
  const voice = voiceView({ now, before, site, language, phrases });
  return { title: say('title'), intro: say('intro'), mentionsText, mentions, questions, summary, voice };
}

/** The section's sentences for the summary: the mentions, then the share of voice when it moved beyond the noise. */
export const aiAnswersSummary = (view: AiAnswersView): string | null =>
  [view.summary, view.voice?.sentence ?? null].filter((sentence): sentence is string => sentence !== null).join(' ') || null;
