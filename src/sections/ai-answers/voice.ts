// Share of voice as GEO trackers count it, from the answers we read ourselves: per assistant, the answers that name
// the site against the competitor names in the same answers (each competitor once per answer); the average position
// when named; the domains the answers name or cite, by kind; one mark per question and assistant. Pure: the
// competitors the agency lists and the client's other domains come in with the site.
import type { AiAnswersRead } from './read.js';

/** The client as its answers are read: its name and domain, its other domains, the competitors the agency lists. */
export interface VoiceSite {
  name: string;
  domain: string | null;
  /** Other domains of the client (a shop, a second brand): its own sources too. */
  ownDomains?: readonly string[] | undefined;
  /** `clients."<id>".competitors`: "rival.example", or names merged as one, "Rival Ltd = rival.example". */
  competitors?: readonly string[] | undefined;
}

/** One answer of one assistant to one question, as counted. */
export interface CountedAnswer {
  questionId: string;
  assistant: string;
  /** null: the service sent no answer for it. */
  mentioned: boolean | null;
  position: number | null;
  /** The competitors it names, each once, in the order the answer names them (the agency's merged names). */
  competitors: string[];
  /** The domains it names or cites, each once. */
  sources: string[];
}

/** One assistant's figures for a scan: counts, and the ratios as percentages (null when nothing to divide by). */
export interface AssistantVoice {
  assistant: string;
  /** Answers that said whether the site was named. */
  answers: number;
  named: number;
  /** Competitor names in its answers, each competitor counted once per answer. */
  competitorNames: number;
  /** Per competitor, the answers that named it. */
  byCompetitor: Map<string, number>;
  /** named ÷ answers × 100. */
  mentionRate: number | null;
  /** named ÷ (named + competitorNames) × 100. */
  shareOfVoice: number | null;
  /** Mean position of the answers that named the site at a position. */
  averagePosition: number | null;
}

export const SOURCE_KINDS = ['own', 'competitor', 'other'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The sources shown per kind. */
export const TOP_SOURCES = 5;

/**
 * Domains of directories, media, marketplaces and platforms: named in answers, never a competitor of a client
 * (when the service sends no competitor field, a domain found in an answer is a competitor unless it is one of these).
 */
export const THIRD_PARTY_DOMAINS: readonly string[] = [
  'wikipedia.org',
  'yelp.com',
  'yelp.fr',
  'tripadvisor.com',
  'tripadvisor.fr',
  'trustpilot.com',
  'reddit.com',
  'quora.com',
  'youtube.com',
  'facebook.com',
  'instagram.com',
  'linkedin.com',
  'x.com',
  'twitter.com',
  'tiktok.com',
  'pinterest.com',
  'google.com',
  'maps.google.com',
  'bing.com',
  'apple.com',
  'amazon.com',
  'amazon.fr',
  'ebay.com',
  'etsy.com',
  'leboncoin.fr',
  'pagesjaunes.fr',
  'yellowpages.com',
  'houzz.com',
  'thumbtack.com',
  'angi.com',
  'bbb.org',
  'checkatrade.com',
  'forbes.com',
  'nytimes.com',
  'theguardian.com',
  'bbc.co.uk',
  'lemonde.fr',
  'lefigaro.fr',
  'medium.com',
  'github.com',
];

const DOMAIN = /\b(?:https?:\/\/)?(?:www\.)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})\b/gi;

/** "https://www.Rival.example/page" → "rival.example"; null when the text is no domain. */
export function hostOf(text: string | null): string | null {
  if (text === null) return null;
  const host = text
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/^www\./i, '')
    .split(/[/?#:\s]/)[0]
    ?.toLowerCase();
  return host !== undefined && /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(host) ? host : null;
}

const within = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Where `name` first stands as a whole word in `text` (case aside); -1 when it does not. */
function firstIndex(text: string, name: string): number {
  const match = new RegExp(`(?<![\\p{L}\\p{N}.-])${escapeRegExp(name)}(?![\\p{L}\\p{N}-]|\\.[\\p{L}\\p{N}])`, 'iu').exec(text);
  return match === null ? -1 : match.index;
}

/** The agency's merges: every spelling (lower case, a domain as its host) → the name shown. */
export function competitorAliases(entries: readonly string[] = []): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const entry of entries) {
    const names = entry
      .split('=')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    const shown = names[0];
    if (shown === undefined) continue;
    for (const name of names) aliases.set(spelling(name), shown);
  }
  return aliases;
}

const spelling = (name: string): string => hostOf(name) ?? name.trim().toLowerCase();

/** Reads the answers of a scan with the site's names: who is named, where, and which domains. */
export function countAnswers(read: AiAnswersRead, site: VoiceSite): CountedAnswer[] {
  const aliases = competitorAliases(site.competitors);
  const own = [hostOf(site.domain), ...(site.ownDomains ?? []).map((d) => hostOf(d))].filter((d): d is string => d !== null);
  const isOwn = (name: string): boolean => {
    const host = hostOf(name);
    return (host !== null && own.some((d) => within(host, d))) || (site.name !== '' && name.trim().toLowerCase() === site.name.trim().toLowerCase());
  };
  const isThirdParty = (host: string): boolean => THIRD_PARTY_DOMAINS.some((d) => within(host, d));
  const shownName = (name: string): string => aliases.get(spelling(name)) ?? hostOf(name) ?? name.trim();
  const distinct = (names: string[]): string[] => [...new Set(names)];
  // Names found in an answer's text, in the order it names them: the agency's spellings, then any other domain
  // that is not the client's and not a directory, medium or marketplace.
  const foundIn = (text: string): Array<{ name: string; at: number }> => {
    const found: Array<{ name: string; at: number }> = [];
    for (const [alias, shown] of aliases) {
      const at = firstIndex(text, alias);
      if (at >= 0) found.push({ name: shown, at });
    }
    for (const match of text.matchAll(DOMAIN)) {
      const host = match[1]?.toLowerCase();
      if (host === undefined || isOwn(host) || isThirdParty(host)) continue;
      found.push({ name: shownName(host), at: match.index });
    }
    return found.sort((a, b) => a.at - b.at);
  };
  const domainsIn = (text: string): string[] => [...text.matchAll(DOMAIN)].map((m) => m[1]?.toLowerCase() ?? '').filter((d) => d !== '');
  const siteAt = (text: string): number => {
    const places = [...own.map((d) => firstIndex(text, d)), site.name === '' ? -1 : firstIndex(text, site.name)].filter((i) => i >= 0);
    return places.length === 0 ? -1 : Math.min(...places);
  };

  const rows: Array<{ questionId: string; assistant: string; mentioned: boolean | null; position: number | null; competitors?: string[]; sources?: string[] }> =
    read.positions.length > 0
      ? read.positions
      : // Raw responses only: the answer names the site when its text does, at the rank of its first naming.
        [...new Map(read.responses.map((r) => [`${r.questionId}\u0000${r.assistant}`, r])).values()].map((r) => ({
          questionId: r.questionId,
          assistant: r.assistant,
          mentioned: null,
          position: null,
        }));
  return rows.map((row) => {
    const responses = read.responses.filter((r) => r.questionId === row.questionId && r.assistant === row.assistant);
    const text = responses.map((r) => r.text).join('\n');
    const field = row.competitors ?? responses.find((r) => r.competitors !== undefined)?.competitors;
    const inText = foundIn(text);
    const competitors = distinct(field === undefined ? inText.map((f) => f.name) : field.filter((name) => !isOwn(name)).map(shownName));
    const listed = [...(row.sources ?? []), ...responses.flatMap((r) => r.sources ?? []), ...(field ?? [])].map((s) => hostOf(s));
    const sources = distinct([...domainsIn(text), ...listed.filter((s): s is string => s !== null)]);
    if (read.positions.length > 0)
      return { questionId: row.questionId, assistant: row.assistant, mentioned: row.mentioned, position: row.position, competitors, sources };
    const at = siteAt(text);
    const mentioned = text.trim() === '' ? null : at >= 0;
    const position = at < 0 ? null : 1 + new Set(inText.filter((f) => f.at < at).map((f) => f.name)).size;
    return { questionId: row.questionId, assistant: row.assistant, mentioned, position, competitors, sources };
  });
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : (part / whole) * 100);

/** Each assistant's figures, in the order the service lists them. */
export function voiceByAssistant(answers: readonly CountedAnswer[]): AssistantVoice[] {
  const assistants = [...new Set(answers.map((a) => a.assistant))];
  return assistants.map((assistant) =>
    voiceOf(
      assistant,
      answers.filter((a) => a.assistant === assistant),
    ),
  );
}

/** Every assistant's answers counted together (the `sov` goal, "all assistants"). */
export function voiceOverall(answers: readonly CountedAnswer[]): AssistantVoice {
  return voiceOf('all', answers);
}

function voiceOf(assistant: string, answers: readonly CountedAnswer[]): AssistantVoice {
  const answered = answers.filter((a) => a.mentioned !== null);
  const named = answered.filter((a) => a.mentioned === true);
  const byCompetitor = new Map<string, number>();
  for (const answer of answers) for (const name of answer.competitors) byCompetitor.set(name, (byCompetitor.get(name) ?? 0) + 1);
  const competitorNames = answers.reduce((sum, a) => sum + a.competitors.length, 0);
  const placed = named.map((a) => a.position).filter((p): p is number => p !== null);
  return {
    assistant,
    answers: answered.length,
    named: named.length,
    competitorNames,
    byCompetitor,
    mentionRate: ratio(named.length, answered.length),
    shareOfVoice: ratio(named.length, named.length + competitorNames),
    averagePosition: placed.length === 0 ? null : placed.reduce((a, b) => a + b, 0) / placed.length,
  };
}

/** A domain the answers named or cited, with how many answers did. */
export interface SourceCount {
  domain: string;
  answers: number;
}

/** The domains of the answers by kind: the client's own, a competitor's, another's; the most named first, five per kind. */
export function sourcesByKind(answers: readonly CountedAnswer[], site: VoiceSite): Record<SourceKind, SourceCount[]> {
  const own = [hostOf(site.domain), ...(site.ownDomains ?? []).map((d) => hostOf(d))].filter((d): d is string => d !== null);
  const aliases = competitorAliases(site.competitors);
  // A competitor's domain: one the answers name as a competitor, or one the agency lists.
  const competitorHosts = new Set<string>([
    ...answers.flatMap((a) => a.competitors.map((c) => hostOf(c))).filter((h): h is string => h !== null),
    ...[...aliases.keys()].filter((k) => hostOf(k) !== null),
  ]);
  const counts = new Map<string, number>();
  for (const answer of answers) for (const domain of answer.sources) counts.set(domain, (counts.get(domain) ?? 0) + 1);
  const out: Record<SourceKind, SourceCount[]> = { own: [], competitor: [], other: [] };
  for (const [domain, count] of counts) {
    const kind: SourceKind = own.some((d) => within(domain, d)) ? 'own' : [...competitorHosts].some((d) => within(domain, d)) ? 'competitor' : 'other';
    out[kind].push({ domain, answers: count });
  }
  for (const kind of SOURCE_KINDS) out[kind] = out[kind].sort((a, b) => b.answers - a.answers || a.domain.localeCompare(b.domain)).slice(0, TOP_SOURCES);
  return out;
}

/** One mark of the grid: named at a position, not named (with the competitor named first), or no answer. */
export type GridMark = { state: 'named'; position: number | null } | { state: 'not'; first: string | null } | { state: 'none' };

/** For each question, each assistant's mark, in the order of `assistants`. */
export function answerGrid(
  read: AiAnswersRead,
  answers: readonly CountedAnswer[],
  assistants: readonly string[],
): Array<{ questionId: string; marks: GridMark[] }> {
  return read.questions.map((question) => ({
    questionId: question.id,
    marks: assistants.map((assistant): GridMark => {
      const answer = answers.find((a) => a.questionId === question.id && a.assistant === assistant);
      if (answer === undefined || answer.mentioned === null) return { state: 'none' };
      return answer.mentioned ? { state: 'named', position: answer.position } : { state: 'not', first: answer.competitors[0] ?? null };
    }),
  }));
}

/** No move of the share of voice is news below this many points, however many answers there were. */
export const SOV_NOISE_FLOOR = 5;

/**
 * The noise of a change of share of voice, in points: two standard errors of the difference of two shares (each
 * month's names a sample of what the assistant says), with their pooled share; at least SOV_NOISE_FLOOR. Answers
 * vary from run to run: a move inside this is what asking the same questions again could give.
 */
export function shareOfVoiceNoise(now: Pick<AssistantVoice, 'named' | 'competitorNames'>, before: Pick<AssistantVoice, 'named' | 'competitorNames'>): number {
  const n1 = now.named + now.competitorNames;
  const n2 = before.named + before.competitorNames;
  if (n1 === 0 || n2 === 0) return Number.POSITIVE_INFINITY;
  const pooled = (now.named + before.named) / (n1 + n2);
  const error = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2)) * 100;
  return Math.max(SOV_NOISE_FLOOR, 2 * error);
}
