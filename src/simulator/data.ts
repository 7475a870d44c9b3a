// Seeded project catalogue and the month-by-month values derived from it (scores, recommendations, metrics, trust).
// Month numbers are `year * 12 + monthIndex` in UTC; everything is a pure function of (seed, project, month).
import type { ProjectStatus } from '../api/schemas.js';
import {
  AI_ASSISTANTS,
  CITIES,
  ENGLISH_PREFIXES,
  ENGLISH_TRADES,
  FRENCH_SURNAMES,
  FRENCH_TRADES,
  DEFAULT_HOSTILE_REMOTE_URL,
  hostileNames as hostileNameList,
  hostileTitleFragments,
  RECOMMENDATION_CATALOG,
  REVIEW_PLATFORMS,
  type RecommendationTemplate,
} from './catalog.js';
import { clamp, intBetween, pick, round1, shuffle, streamFor, type Rng } from './random.js';
import { formatPeriod } from '../period.js';

export const FIRST_PROJECT_ID = 101;
/** Scans kept in lists and history: the current month and the eleven before it. */
export const HISTORY_MONTHS = 12;
/** Months a long-tracked client's report history holds, the current one included: the same month last year and more. */
export const LONG_HISTORY_MONTHS = 14;

/**
 * Months of history a project's reports hold: a third of the projects (every third index) have been followed for
 * longer, so their reports reach back past the same month last year; the rest hold the last twelve months.
 */
export function historyMonthsOf(project: Pick<SimProject, 'index'>): number {
  return project.index % 3 === 0 ? LONG_HISTORY_MONTHS : HISTORY_MONTHS;
}

export type AiAssistant = (typeof AI_ASSISTANTS)[number];

interface RecommendationSlot {
  templateIndex: number;
  id: number;
  /** Months per open/closed block; blocks are staggered by `phase` so changes spread over time. */
  period: number;
  phase: number;
  openChance: number;
  hostileFragment: string | null;
}

export interface SimProject {
  id: number;
  index: number;
  name: string;
  domain: string;
  status: ProjectStatus;
  language: 'en' | 'fr';
  trade: string;
  city: string;
  createdAt: string;
  createdMonth: number;
  /** Last month with a monthly scan; null while the project is active. */
  lastScanMonth: number | null;
  failsAnalysis: boolean;
  hasLocalPresence: boolean;
  geoBase: number;
  geoTrend: number;
  seoBase: number;
  seoTrend: number;
  trustBase: number;
  aiOffsets: Record<AiAssistant, number>;
  slots: RecommendationSlot[];
  platforms: Array<{ name: string; url: string; rating: number; reviewsBase: number; reviewsPerMonth: number }>;
}

export interface MonthScores {
  geo_score: number;
  seo_score: number;
  trust_score: number;
  ai_visibility: Record<AiAssistant, number>;
}

export interface SimRecommendation extends RecommendationTemplate {
  id: number;
  /** First day of the month this recommendation (re)opened, YYYY-MM-DD. */
  detected_at: string;
}

export interface Dataset {
  seed: number;
  /** Month of the clock when the simulator started: project ages are measured from it. */
  anchorMonth: number;
  projects: SimProject[];
  /** Memo of scoresAt: pure in (project, month), asked for on almost every request. */
  scoreCache: Map<number, MonthScores>;
}

export function monthNumber(date: Date): number {
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

export function monthStart(month: number): Date {
  return new Date(Date.UTC(Math.floor(month / 12), month % 12, 1));
}

/** 'YYYY-MM' */
export function monthLabel(month: number): string {
  return formatPeriod({ year: Math.floor(month / 12), month: (month % 12) + 1 });
}

function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function businessName(rng: Rng, language: 'en' | 'fr'): { name: string; trade: string } {
  if (language === 'fr') {
    const trade = pick(rng, FRENCH_TRADES);
    return { name: `${trade} ${pick(rng, FRENCH_SURNAMES)}`, trade };
  }
  const trade = pick(rng, ENGLISH_TRADES);
  return { name: `${pick(rng, ENGLISH_PREFIXES)} ${trade}`, trade };
}

function statusPlan(seed: number, count: number): ProjectStatus[] {
  const active = Math.round(count * 0.7);
  const paused = Math.round(count * 0.2);
  const plan: ProjectStatus[] = [];
  for (let i = 0; i < count; i++) plan.push(i < active ? 'active' : i < active + paused ? 'paused' : 'archived');
  return shuffle(streamFor(seed, 'status', count), plan);
}

export function createDataset(options: { seed: number; projectCount: number; hostileNames: boolean; hostileRemoteUrl?: string; now: Date }): Dataset {
  const { seed, projectCount, hostileNames } = options;
  const anchorMonth = monthNumber(options.now);
  const statuses = statusPlan(seed, projectCount);
  const usedNames = new Set<string>();
  const projects: SimProject[] = [];

  for (let index = 0; index < projectCount; index++) {
    const id = FIRST_PROJECT_ID + index;
    const rng = streamFor(seed, 'project', id);
    const language = rng() < 0.45 ? 'fr' : 'en';
    const city = pick(rng, CITIES);
    let { name, trade } = businessName(rng, language);
    for (let attempt = 0; attempt < 20 && usedNames.has(name); attempt++) ({ name, trade } = businessName(rng, language));
    if (usedNames.has(name)) name = `${name} ${city}`;
    if (usedNames.has(name)) name = `${name} ${id}`;
    usedNames.add(name);

    const status = statuses[index] ?? 'active';
    const lastScanMonth = status === 'paused' ? anchorMonth - intBetween(rng, 1, 3) : status === 'archived' ? anchorMonth - intBetween(rng, 2, 8) : null;
    let createdMonth = anchorMonth - intBetween(rng, 4, 40);
    if (lastScanMonth !== null && createdMonth > lastScanMonth - 2) createdMonth = lastScanMonth - 2;
    const createdDay = intBetween(rng, 1, 27);

    const geoBase = intBetween(rng, 25, 80);
    const slots = shuffle(
      rng,
      RECOMMENDATION_CATALOG.map((_, i) => i),
    )
      .slice(0, 20)
      .map((templateIndex, slot): RecommendationSlot => {
        const persistent = slot < 4;
        const period = persistent ? 12 : intBetween(rng, 3, 8);
        return {
          templateIndex,
          id: id * 100 + templateIndex,
          period,
          phase: intBetween(rng, 0, period - 1),
          openChance: persistent ? 0.9 : 0.42,
          hostileFragment: null,
        };
      });
    const platformCount = intBetween(rng, 2, 4);
    const platforms = shuffle(rng, REVIEW_PLATFORMS)
      .slice(0, platformCount)
      .map((platform) => ({
        name: platform.name,
        url: `${platform.host}${slugify(name) || `project-${id}`}`,
        rating: round1(3.2 + rng() * 1.7),
        reviewsBase: intBetween(rng, 8, 400),
        reviewsPerMonth: intBetween(rng, 0, 12),
      }));
    const aiOffsets = Object.fromEntries(AI_ASSISTANTS.map((assistant) => [assistant, intBetween(rng, -15, 12)])) as Record<AiAssistant, number>;

    projects.push({
      id,
      index,
      name,
      domain: `${slugify(name) || `project-${id}`}.${language === 'fr' ? 'fr' : 'com'}`,
      status,
      language,
      trade,
      city,
      createdAt: new Date(monthStart(createdMonth).getTime() + (createdDay - 1) * 86_400_000 + 9 * 3_600_000).toISOString(),
      createdMonth,
      lastScanMonth,
      failsAnalysis: false,
      hasLocalPresence: rng() < 0.35,
      geoBase,
      geoTrend: round1(-1.2 + rng() * 2.7),
      seoBase: clamp(geoBase + intBetween(rng, -15, 20), 10, 95),
      seoTrend: round1(-0.8 + rng() * 2),
      trustBase: intBetween(rng, 35, 90),
      aiOffsets,
      slots,
      platforms,
    });
  }

  const active = projects.filter((p) => p.status === 'active');
  const failing = shuffle(streamFor(seed, 'fails'), active).slice(0, Math.min(Math.max(1, Math.round(projectCount * 0.12)), active.length - 1));
  for (const project of failing) project.failsAnalysis = true;

  if (hostileNames) {
    const remoteUrl = options.hostileRemoteUrl ?? DEFAULT_HOSTILE_REMOTE_URL;
    const names = hostileNameList(remoteUrl);
    const fragments = hostileTitleFragments(remoteUrl);
    active.slice(0, names.length).forEach((project, i) => {
      project.name = names[i] ?? project.name;
      project.slots.forEach((slot, s) => {
        if (s < fragments.length) slot.hostileFragment = fragments[(i + s) % fragments.length] ?? null;
      });
    });
  }
  return { seed, anchorMonth, projects, scoreCache: new Map() };
}

/** Signed noise in [-amplitude, amplitude] for one project, measure and month. */
function noise(dataset: Dataset, project: SimProject, measure: string, month: number, amplitude: number): number {
  return (streamFor(dataset.seed, measure, project.id, month)() * 2 - 1) * amplitude;
}

export function scoresAt(dataset: Dataset, project: SimProject, month: number): MonthScores {
  const key = project.id * 100_000 + month;
  const cached = dataset.scoreCache.get(key);
  if (cached) return cached;
  const scores = computeScores(dataset, project, month);
  dataset.scoreCache.set(key, scores);
  return scores;
}

function computeScores(dataset: Dataset, project: SimProject, month: number): MonthScores {
  const age = month - dataset.anchorMonth;
  const geo = Math.round(clamp(project.geoBase + project.geoTrend * age + noise(dataset, project, 'geo', month, 3), 3, 98));
  const seo = Math.round(clamp(project.seoBase + project.seoTrend * age + noise(dataset, project, 'seo', month, 3), 5, 99));
  const trust = Math.round(clamp(project.trustBase + age * 0.3 + noise(dataset, project, 'trust', month, 2), 5, 99));
  const ai_visibility = Object.fromEntries(
    AI_ASSISTANTS.map((assistant) => [
      assistant,
      Math.round(clamp(geo + project.aiOffsets[assistant] + noise(dataset, project, `ai-${assistant}`, month, 4), 0, 100)),
    ]),
  ) as Record<AiAssistant, number>;
  return { geo_score: geo, seo_score: seo, trust_score: trust, ai_visibility };
}

function slotOpen(dataset: Dataset, project: SimProject, slot: RecommendationSlot, month: number): boolean {
  const block = Math.floor((month + slot.phase) / slot.period);
  return streamFor(dataset.seed, 'rec', project.id, slot.templateIndex, block)() < slot.openChance;
}

/** Open recommendations of a project in a month: most persist, some resolve, some appear, ids stay stable. */
export function recommendationsAt(dataset: Dataset, project: SimProject, month: number): SimRecommendation[] {
  const open: SimRecommendation[] = [];
  for (const slot of project.slots) {
    if (!slotOpen(dataset, project, slot, month)) continue;
    let since = month;
    // Bounded walk back to the month this open stretch started.
    for (let back = 0; back < 48 && since - 1 > project.createdMonth && slotOpen(dataset, project, slot, since - 1); back++) since--;
    const template = RECOMMENDATION_CATALOG[slot.templateIndex];
    if (!template) continue;
    open.push({
      id: slot.id,
      title: slot.hostileFragment === null ? template.title : `${template.title} ${slot.hostileFragment}`,
      description: template.description,
      priority: template.priority,
      category: template.category,
      impact: template.impact,
      effort: template.effort,
      detected_at: monthStart(since).toISOString().slice(0, 10),
    });
  }
  return open;
}

export interface MonthMetrics {
  ai_mentions: number;
  citations: number;
  share_of_voice: { value: number; unit: '%' };
  avg_ai_position: number;
  indexed_pages: number;
  organic_keywords: number;
  backlinks: number;
  referring_domains: number;
  core_web_vitals_pass_rate: { value: number; unit: '%' };
}

export function metricsAt(dataset: Dataset, project: SimProject, month: number): MonthMetrics {
  const { geo_score, seo_score } = scoresAt(dataset, project, month);
  const age = Math.max(0, month - project.createdMonth);
  return {
    ai_mentions: Math.max(0, Math.round(geo_score * 1.4 + noise(dataset, project, 'mentions', month, 8))),
    citations: Math.max(0, Math.round(geo_score * 0.5 + noise(dataset, project, 'citations', month, 4))),
    share_of_voice: { value: round1(clamp(geo_score / 3 + noise(dataset, project, 'sov', month, 2), 0, 100)), unit: '%' },
    avg_ai_position: round1(clamp(1 + (100 - geo_score) / 18 + noise(dataset, project, 'pos', month, 0.4), 1, 10)),
    indexed_pages: 40 + project.index * 7 + age * 3,
    organic_keywords: Math.round(seo_score * 6 + age * 4 + noise(dataset, project, 'kw', month, 15)),
    backlinks: 120 + project.index * 31 + age * 9,
    referring_domains: 15 + project.index * 3 + age,
    core_web_vitals_pass_rate: {
      value: round1(clamp(seo_score * 0.9 + noise(dataset, project, 'cwv', month, 5), 0, 100)),
      unit: '%',
    },
  };
}

export interface TrustAt {
  trust_score: number;
  review_platforms: Array<{ name: string; rating: number; reviews_count: number; url: string }>;
  signals: Record<string, boolean | number>;
}

export function trustAt(dataset: Dataset, project: SimProject, month: number): TrustAt {
  const age = Math.max(0, month - project.createdMonth);
  const { trust_score } = scoresAt(dataset, project, month);
  return {
    trust_score,
    review_platforms: project.platforms.map((platform) => ({
      name: platform.name,
      rating: round1(clamp(platform.rating + noise(dataset, project, `rating-${platform.name}`, month, 0.1), 1, 5)),
      reviews_count: platform.reviewsBase + platform.reviewsPerMonth * age,
      url: platform.url,
    })),
    signals: {
      https: true,
      contact_page: trust_score > 40,
      legal_notice: trust_score > 30,
      author_pages: trust_score > 65,
      years_in_business: Math.max(1, Math.floor(age / 12) + 2),
    },
  };
}
