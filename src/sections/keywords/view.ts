// Keyword rankings → what the client reads: per keyword one figure, the spec's `position` (the average over the
// trials, a trial where the site was absent counted as the rank after the top 10) rounded by the report's rule for
// a position, how often it was not in the top 10 said in words, and its move since last period computed from the
// two figures shown; the top-3 and top-10 counts from the same figures. Lower is better: up means a smaller number.
import { z } from 'zod';
import { formatNumber, phrase, pluralPhrase } from '../../i18n/format.js';
import type { Language, Phrases } from '../../i18n/locales.js';
import { figureOf } from '../../i18n/figures.js';
import type { SectionInput } from '../unit.js';
import type { KeywordRead } from './read.js';

/** A change of the shown position smaller than this is steady (averages of a few trials move by fractions). */
export const STEADY_WITHIN = 0.5;

const MOVES = ['up', 'down', 'new', 'lost', 'steady', 'absent', 'first'] as const;
type Move = (typeof MOVES)[number];

export const KeywordsViewSchema = z
  .object({
    title: z.string(),
    intro: z.string().describe('One line saying how the positions are measured (trials, lower is better).'),
    headers: z.object({ keyword: z.string(), position: z.string(), presence: z.string(), change: z.string() }),
    rows: z
      .array(
        z.object({
          keyword: z.string(),
          move: z.enum(MOVES).describe('up, down, new, lost, steady, absent (in no trial, now or before), first (no last period to compare with).'),
          cue: z.string().describe('The move as a sign (▲ ▼ ● ✕ =): the non-colour cue.'),
          moveText: z.string().describe('The move in words, e.g. "up 2.5 places" / "new in the top 10".'),
          position: z
            .number()
            .nullable()
            .describe("The keyword's one figure: the spec's position (absent trials counted as 11), one decimal; null when the service sent none."),
          positionText: z.string().describe('The figure as shown; "not in the top 10" when it is above 10.'),
          presenceText: z.string().describe('e.g. "not in the top 10 in 2 of 5 trials" / "in the top 10 in every trial (5)".'),
          previous: z.number().nullable().describe("Last period's figure for the keyword; null when there is none."),
          previousText: z.string().nullable().describe("Last period's figure as shown; null when there is none."),
        }),
      )
      .describe('One row per keyword, the movers first (lost, new, then the biggest moves), then by position.'),
    top3: z.object({ now: z.number(), before: z.number().nullable() }).describe('Keywords whose shown position is 3 or better.'),
    top10: z.object({ now: z.number(), before: z.number().nullable() }).describe('Keywords whose shown position is 10 or better.'),
    countsText: z.string().describe('The top 3 / top 10 counts in a sentence, with last period.'),
    summary: z.string().nullable(),
  })
  .describe('Keyword rankings (seo_audit.keyword_rankings): null when switched off or when the scan has none.');
export type KeywordsView = z.infer<typeof KeywordsViewSchema>;

const CUES: Record<Move, string> = { up: '▲', down: '▼', new: '●', lost: '✕', steady: '=', absent: '–', first: '·' };
const ORDER: Record<Move, number> = { lost: 0, new: 1, up: 2, down: 2, steady: 3, first: 3, absent: 4 };

/** The keyword's one figure: the service's position, rounded by the report's rule for a position (FACT_RULES). */
export const keywordFigure = (k: KeywordRead): number | null => (k.position === null ? null : figureOf(k.position, 'position'));
const inTop10 = (figure: number | null): boolean => figure !== null && figure <= 10;
const inTop3 = (figure: number | null): boolean => figure !== null && figure <= 3;

const keyOf = (keyword: string): string => keyword.trim().toLowerCase();

export function keywordsView(input: SectionInput<KeywordRead[]>): KeywordsView {
  const { now, before, language, phrases } = input;
  const say = (key: string, params?: Record<string, string | number>): string => phrase(phrases, `keywords.${key}`, params);
  const earlier = new Map((before ?? []).map((k) => [keyOf(k.keyword), keywordFigure(k)]));
  const number = (value: number): string => formatNumber(value, language, { maximumFractionDigits: 1 });
  const shown = (figure: number | null): string => (inTop10(figure) ? number(figure as number) : say('notInTop10'));
  const rows = now.map((k) => {
    const figure = keywordFigure(k);
    const previous = earlier.has(keyOf(k.keyword)) ? (earlier.get(keyOf(k.keyword)) ?? null) : undefined;
    const move = moveOf(figure, previous, before !== null);
    // The places moved are the difference of the two figures printed beside each other.
    const places = figure !== null && previous != null ? Math.abs(figureOf(previous - figure, 'position')) : 0;
    return {
      sortPlaces: move === 'up' || move === 'down' ? places : 0,
      row: {
        keyword: k.keyword,
        move,
        cue: CUES[move],
        // The places as printed pick the plural form: "1 place", "1.5 places", French "1,5 place".
        moveText: say(move, { places: pluralPhrase(phrases, language, 'keywords.places', places, { count: number(places) }) }),
        position: figure,
        positionText: shown(figure),
        presenceText: presence(k, phrases, language),
        previous: previous ?? null,
        previousText: previous === undefined ? null : shown(previous),
      },
    };
  });
  rows.sort(
    (a, b) =>
      ORDER[a.row.move] - ORDER[b.row.move] ||
      b.sortPlaces - a.sortPlaces ||
      (a.row.position ?? Number.POSITIVE_INFINITY) - (b.row.position ?? Number.POSITIVE_INFINITY) ||
      a.row.keyword.localeCompare(b.row.keyword),
  );
  const figuresBefore = before === null ? null : before.map(keywordFigure);
  const figuresNow = now.map(keywordFigure);
  const top3 = { now: figuresNow.filter(inTop3).length, before: figuresBefore === null ? null : figuresBefore.filter(inTop3).length };
  const top10 = { now: figuresNow.filter(inTop10).length, before: figuresBefore === null ? null : figuresBefore.filter(inTop10).length };
  const countsText =
    say('counts', { top3: top3.now, top10: top10.now, total: now.length }) +
    (top3.before === null || top10.before === null ? '' : say('countsBefore', { top3: top3.before, top10: top10.before }));
  const view: KeywordsView = {
    title: say('title'),
    intro: say('intro'),
    headers: { keyword: say('keyword'), position: say('position'), presence: say('presence'), change: say('change') },
    rows: rows.map((r) => r.row),
    top3,
    top10,
    countsText,
    summary: null,
  };
  return { ...view, summary: keywordsSummary(view, phrases) };
}

/** The move from last period's figure to this one's: in or out of the top 10, else up, down or steady by the figures. */
function moveOf(figure: number | null, previous: number | null | undefined, compared: boolean): Move {
  if (!compared) return inTop10(figure) ? 'first' : 'absent';
  const now = inTop10(figure);
  const then = inTop10(previous ?? null);
  if (now && !then) return 'new';
  if (!now && then) return 'lost';
  if (!now) return 'absent';
  const change = figureOf((previous as number) - (figure as number), 'position');
  if (Math.abs(change) < STEADY_WITHIN) return 'steady';
  return change > 0 ? 'up' : 'down';
}

function presence(k: KeywordRead, phrases: Phrases, language: Language): string {
  if (k.trials === 0) return phrase(phrases, 'keywords.noTrials');
  if (k.absent === 0) return phrase(phrases, 'keywords.presentAll', { trials: k.trials });
  if (k.absent === k.trials) return phrase(phrases, 'keywords.absentAll', { trials: k.trials });
  return pluralPhrase(phrases, language, 'keywords.absentIn', k.absent, { absent: k.absent, trials: k.trials });
}

export function keywordsSummary(view: KeywordsView, phrases: Phrases): string | null {
  const say = (key: string, params?: Record<string, string | number>): string => phrase(phrases, `keywords.${key}`, params);
  if (view.rows.length === 0) return null;
  const up = view.rows.filter((r) => r.move === 'up' || r.move === 'new').length;
  const down = view.rows.filter((r) => r.move === 'down' || r.move === 'lost').length;
  const compared = view.top10.before !== null;
  return (
    say('summary', { top10: view.top10.now, total: view.rows.length }) +
    (compared ? say('summaryBefore', { before: view.top10.before ?? 0 }) : '') +
    (compared ? say('summaryMoves', { up, down }) : '') +
    '.'
  );
}
