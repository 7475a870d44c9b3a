// What an account manager would refuse to sign in a summary, as functions over its text and the report's fact table
// (this month's and last month's): each returns the contradictions it finds, in words, so that a test names them.
// English and French: each check reads the phrases of both languages.
import type { Fact } from '../../src/report/facts.js';
import { AI_ANSWERS_LARGE, LARGE_MOVE, SMALL_MOVE } from '../../src/report/summary.js';

export interface SummaryCase {
  /** Who the summary is for, to name in a failure. */
  client: string;
  language: 'en' | 'fr';
  /** YYYY-MM */
  period: string;
  summary: readonly string[];
  /** The report's fact table. */
  facts: readonly Fact[];
  /** Last month's report's fact table; null on a first report. */
  before: readonly Fact[] | null;
}

const figure = (facts: readonly Fact[] | null, key: string): number | null => facts?.find((f) => f.key === key)?.figure ?? null;

/** The figure as a number, from the report's writing of it ("1,240", "1 240", "12,5"). */
function numberIn(text: string, language: 'en' | 'fr'): number {
  const plain = language === 'fr' ? text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.') : text.replace(/,/g, '');
  return Number(plain);
}

/** The sentences of a summary, each paragraph split at its full stops (a decimal point is no full stop). */
export function sentencesOf(summary: readonly string[]): string[] {
  return summary.flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+(?=[A-ZÀ-Ý“«])/u)).map((s) => s.trim());
}

export function firstSentence(summary: readonly string[]): string {
  return sentencesOf(summary.slice(0, 1))[0] ?? '';
}

/** The rank words against the gap to the benchmark average: "below average" beside a score above the average, and the gap's own figures. */
export function rankAgainstBenchmark(c: SummaryCase): string[] {
  const problems: string[] = [];
  const geo = figure(c.facts, 'scores.geo');
  const average = figure(c.facts, 'benchmark.geo');
  if (geo === null || average === null) return problems;
  const gap = geo - average;
  const text = c.summary.join(' ');
  const below = c.language === 'en' ? /\bbelow average\b|\bbelow-average\b/ : /en dessous de la moyenne(?! de référence)/;
  const above = c.language === 'en' ? /\babove average\b|\babove-average\b/ : /au-dessus de la moyenne(?! de référence)/;
  if (below.test(text) && gap >= 0) problems.push(`says "below average" with a GEO score of ${geo} against an average of ${average}`);
  if (above.test(text) && gap <= 0) problems.push(`says "above average" with a GEO score of ${geo} against an average of ${average}`);
  const said =
    c.language === 'en'
      ? /Your GEO score of (\d[\d,]*(?:\.\d+)?) is (?:(\d[\d,]*(?:\.\d+)?) points? (above|below)|level with) the benchmark average(?: of (\d[\d,]*(?:\.\d+)?))?/.exec(
          text,
        )
      : /Votre score GEO de ([\d,\s\u202f]+?) (?:(dépasse) de ([\d,]+) points?|(est inférieur) de ([\d,]+) points? à|est au niveau de) la moyenne de référence(?: \(([\d,\s\u202f]+)\))?/.exec(
          text,
        );
  if (said === null) {
    problems.push('has no sentence placing the GEO score against the benchmark average');
    return problems;
  }
  const [value, size, side, shownAverage] =
    c.language === 'en'
      ? [said[1], said[2], said[3] ?? 'level', said[4]]
      : [said[1], said[3] ?? said[5], said[2] !== undefined ? 'above' : said[4] !== undefined ? 'below' : 'level', said[6]];
  if (numberIn(value ?? '', c.language) !== geo) problems.push(`writes the GEO score ${value ?? ''} where the page shows ${geo}`);
  if (shownAverage !== undefined && numberIn(shownAverage, c.language) !== average)
    problems.push(`writes the average ${shownAverage} where the page shows ${average}`);
  const sideOf = gap > 0 ? 'above' : gap < 0 ? 'below' : 'level';
  if (side !== sideOf) problems.push(`says ${side} the benchmark average with a gap of ${gap}`);
  if (size !== undefined && numberIn(size, c.language) !== Math.abs(gap)) problems.push(`writes a gap of ${size} where the figures make ${Math.abs(gap)}`);
  // The rank joined to the gap as its consequence ("and") must point the same way.
  const upper = c.language === 'en' ? /, and your site ranks in the (top|upper)/ : /, et votre site se classe dans (les \d+|le premier quart|la moitié haute)/;
  const lower = c.language === 'en' ? /, and your site ranks in the (lower|bottom)/ : /, et votre site se classe dans (la moitié basse|le dernier quart)/;
  if (upper.test(text) && gap < 0) problems.push(`joins an upper rank to a score ${-gap} points below the average as if they agreed`);
  if (lower.test(text) && gap > 0) problems.push(`joins a lower rank to a score ${gap} points above the average as if they agreed`);
  return problems;
}

/** The moves the page shows, in points out of 100, each with the size from which it is large. */
export function movesOf(c: SummaryCase): Array<{ key: string; value: number; large: number }> {
  const moves: Array<{ key: string; value: number; large: number }> = [];
  for (const kind of ['geo', 'seo']) {
    const now = figure(c.facts, `scores.${kind}`);
    const told = figure(c.facts, `scores.${kind}.previous`);
    if (now !== null && told !== null) moves.push({ key: kind, value: now - told, large: LARGE_MOVE });
  }
  for (const fact of c.facts) {
    if (!fact.key.startsWith('ai.') && fact.key !== 'pageExperience.performance') continue;
    const before = figure(c.before, fact.key);
    if (before !== null) moves.push({ key: fact.key, value: fact.figure - before, large: LARGE_MOVE });
  }
  const share = (facts: readonly Fact[] | null): number | null => {
    const answers = (facts ?? []).filter((f) => /^aiAnswers\..+\.mentioned$/.test(f.key));
    return answers.length === 0 ? null : (answers.filter((f) => f.figure === 1).length / answers.length) * 100;
  };
  const [now, then] = [share(c.facts), share(c.before)];
  if (now !== null && then !== null) moves.push({ key: 'aiAnswers', value: now - then, large: AI_ANSWERS_LARGE });
  return moves;
}

/** The verdict against the month's moves: "a good month" beside a large fall (or no rise at all), "a harder month" beside a large rise. */
export function verdictAgainstMoves(c: SummaryCase): string[] {
  const text = c.summary.join(' ');
  const good = c.language === 'en' ? /\bA good month\b/ : /\bUn bon mois\b/;
  const hard = c.language === 'en' ? /\bA harder month\b/ : /\bUn mois plus difficile\b/;
  const moves = movesOf(c);
  const problems: string[] = [];
  const largest = [...moves].sort((a, b) => Math.abs(b.value) - Math.abs(a.value))[0];
  if (good.test(text)) {
    for (const m of moves) if (m.value <= -m.large) problems.push(`calls the month good beside ${m.key} down ${-m.value}`);
    if (!moves.some((m) => m.value > 0)) problems.push('calls the month good with nothing up');
    if (largest !== undefined && largest.value < 0 && Math.abs(largest.value) >= largest.large)
      problems.push(`calls the month good when its largest move, ${largest.key}, fell`);
  }
  if (hard.test(text)) {
    for (const m of moves) if (m.value >= m.large) problems.push(`calls the month harder beside ${m.key} up ${m.value}`);
    if (!moves.some((m) => m.value < 0)) problems.push('calls the month harder with nothing down');
  }
  return problems;
}

/** "First report" beside a history table, or a last month's figure, that the same page shows. */
export function firstReportAgainstHistory(c: SummaryCase): string[] {
  const text = c.summary.join(' ');
  const first = c.language === 'en' ? /first monthly report|sets your starting point/ : /premier rapport mensuel|point de départ/;
  if (!first.test(text)) return [];
  const earlier = c.facts.filter((f) => (f.key.startsWith('history.') && f.month !== null && f.month < c.period) || f.source === 'told');
  return earlier.length === 0 ? [] : [`calls itself a first report beside ${earlier.length} figures of earlier months (${earlier[0]?.key ?? ''})`];
}

/** Words for a move against its size: "slipped" for 18 points, "sharply" for 2. */
export function intensityAgainstSize(c: SummaryCase): string[] {
  const problems: string[] = [];
  const text = c.summary.join(' ');
  const pattern =
    c.language === 'en'
      ? /\b(edged up|slipped|rose|fell)( sharply)?,? by (\d[\d,]*(?:\.\d+)?) points?/g
      : /\ba (légèrement |nettement )?(progressé|reculé),? de ([\d,]+) points?/g;
  for (const match of text.matchAll(pattern)) {
    const size = numberIn(match[3] ?? '', c.language);
    const words =
      c.language === 'en'
        ? match[2] !== undefined
          ? 'large'
          : match[1] === 'edged up' || match[1] === 'slipped'
            ? 'small'
            : 'medium'
        : match[1] === undefined
          ? 'medium'
          : match[1].startsWith('nettement')
            ? 'large'
            : 'small';
    const fits = words === 'small' ? size < SMALL_MOVE : words === 'large' ? size >= LARGE_MOVE : size >= SMALL_MOVE && size < LARGE_MOVE;
    if (!fits) problems.push(`"${match[0]}" for a move of ${size} points`);
  }
  // A metric's change: "slipped the most" for a quarter or more of its value is not a slip.
  const metric =
    c.language === 'en'
      ? /slipped the most, from (\d[\d,]*(?:\.\d+)?)%? to (\d[\d,]*(?:\.\d+)?)/g
      : /recule(?:nt)? le plus, de ([\d,]+)(?:[\s\u00a0]%)? à ([\d,]+)/g;
  for (const match of text.matchAll(metric)) {
    const [from, to] = [numberIn(match[1] ?? '', c.language), numberIn(match[2] ?? '', c.language)];
    if (from !== 0 && Math.abs(to - from) / Math.abs(from) >= 0.25)
      problems.push(`"${match[0]}" for a change of ${Math.round((Math.abs(to - from) / from) * 100)}%`);
  }
  return problems;
}

/** Plural and number agreement: "1 points", "0 moved up", "6 of 6", "et 1 autres". */
export function agreement(c: SummaryCase): string[] {
  const text = c.summary.join(' ');
  const wrong =
    c.language === 'en'
      ? [
          /\b0 (moved|points?|recommendations?|keywords?|answers?)\b/,
          /(?<!of )\b1 (points|months|recommendations|keywords|answers|sites|others)\b/,
          /\b(\d+) of \1\b/,
          /\b1 of \d+ tracked keywords are\b/,
        ]
      : [
          /\b0 (progressent|reculent|points|recommandations|réponses)\b/,
          /(?<!sur )\b1 (points|réponses|recommandations|mots-clés|autres|sites)\b/,
          /\b(\d+) (?:réponses )?sur \1\b/,
          /\b(\d+) des \1\b/,
          /\b1 des \d+ mots-clés suivis sont\b/,
        ];
  return wrong.flatMap((pattern) => {
    const found = pattern.exec(text);
    return found === null ? [] : [`"${found[0]}"`];
  });
}

/** Every contradiction of a summary, each prefixed with its client and language. */
export function summaryProblems(c: SummaryCase): string[] {
  return [rankAgainstBenchmark, verdictAgainstMoves, firstReportAgainstHistory, intensityAgainstSize, agreement].flatMap((check) =>
    check(c).map((problem) => `${c.client} (${c.language}): ${problem}`),
  );
}
