// The nine sections of a scan, and the include / exclude / seo_steps selection applied to them.
import { DEFAULT_SCAN_SECTIONS, SCAN_SECTIONS, type ScanSection } from '../api/schemas.js';
import { AI_ASSISTANTS, COMPETITOR_DOMAINS, QUESTION_PATTERNS, SEO_STEP_NAMES, type SeoStepName } from './catalog.js';
import { metricsAt, monthLabel, recommendationsAt, trustAt, type Dataset, type SimProject } from './data.js';
import { clamp, intBetween, pick, round1, shuffle, streamFor, type Rng } from './random.js';
import type { ScanRecord } from './scans.js';

export interface KeywordRankingRow {
  keyword: string;
  position: number;
  values: Array<number | null>;
  counted_as: number[];
}

/** Rank a trial counts as when the site is absent: the first position outside the top 10. */
export const ABSENT_RANK = 11;

export function keywordRanking(keyword: string, values: Array<number | null>): KeywordRankingRow {
  const counted_as = values.map((v) => v ?? ABSENT_RANK);
  const position = counted_as.length === 0 ? ABSENT_RANK : round1(counted_as.reduce((a, b) => a + b, 0) / counted_as.length);
  return { keyword, position, values, counted_as };
}

function findings(rng: Rng, labels: readonly string[], score: number): Array<{ check: string; status: string; evidence: string }> {
  return labels.map((check) => {
    const roll = rng() * 100;
    const status = roll < score ? 'pass' : roll < score + 20 ? 'warn' : 'fail';
    return { check, status, evidence: `${check}: ${status === 'pass' ? 'meets the threshold' : 'below the threshold'} on the audited page` };
  });
}

function block(rng: Rng, score: number, labels: readonly string[]): { score: number; findings: ReturnType<typeof findings> } {
  return { score, findings: findings(rng, labels, score) };
}

function keywords(project: SimProject): string[] {
  const trade = project.trade.toLowerCase();
  const city = project.city.toLowerCase();
  return [`${trade} ${city}`, `best ${trade}`, `${trade} prices`, `${trade} near me`, `${trade} reviews ${city}`, project.domain.split('.')[0] ?? trade];
}

export function buildScanSections(dataset: Dataset, project: SimProject, scan: ScanRecord): Record<ScanSection, unknown> {
  const rng = streamFor(dataset.seed, 'scan', scan.id);
  const { geo_score, seo_score, trust_score, ai_visibility } = scan.scores;
  const metrics = metricsAt(dataset, project, scan.month);
  const trust = trustAt(dataset, project, scan.month);
  const recommendations = recommendationsAt(dataset, project, scan.month);
  const fill = (pattern: string) => pattern.replace('{trade}', project.trade.toLowerCase()).replace('{city}', project.city).replace('{name}', project.name);
  const questions = QUESTION_PATTERNS.slice(0, 4 + (project.index % 3)).map((pattern, i) => ({
    id: i + 1,
    question: fill(pattern),
    question_type: scan.questionType,
  }));
  const positions = questions.flatMap((q) =>
    AI_ASSISTANTS.map((ai) => {
      const mentioned = rng() * 100 < ai_visibility[ai];
      return { question_id: q.id, ai, mentioned, position: mentioned ? intBetween(rng, 1, 6) : null };
    }),
  );
  const ranked = keywords(project).map((keyword) => {
    const trials = intBetween(rng, 3, 5);
    const values: Array<number | null> = [];
    for (let t = 0; t < trials; t++) values.push(rng() * 100 < seo_score ? intBetween(rng, 1, 10) : null);
    return keywordRanking(keyword, values);
  });
  const lighthouse = {
    performance: clamp(seo_score + intBetween(rng, -10, 10), 0, 100),
    accessibility: clamp(seo_score + intBetween(rng, -5, 15), 0, 100),
    best_practices: clamp(seo_score + intBetween(rng, -5, 10), 0, 100),
    seo: seo_score,
    core_web_vitals: { lcp_ms: intBetween(rng, 1200, 5200), cls: round1(rng() * 0.4), inp_ms: intBetween(rng, 80, 450) },
  };
  const serpFor = (query: string) => {
    const own = intBetween(rng, 1, 8);
    const rivals = [...COMPETITOR_DOMAINS];
    return {
      query,
      results: [1, 2, 3, 4, 5, 6, 7, 8].map((position) => {
        const domain = position === own ? project.domain : (rivals[(position + query.length) % rivals.length] ?? 'example.com');
        return { position, url: `https://${domain}/`, title: domain === project.domain ? project.name : `${domain} — ${project.trade}` };
      }),
    };
  };
  const completedAt = new Date(scan.createdAt.getTime() + 9 * 60_000).toISOString();
  const steps: Record<SeoStepName, unknown> = {
    step1_lighthouse: { status: 'completed', lighthouse },
    step2_onpage: { status: 'completed', title_length: intBetween(rng, 20, 75), h1_count: intBetween(rng, 0, 2), word_count: intBetween(rng, 150, 2400) },
    step3_serp: { status: 'completed', serps: keywords(project).slice(0, 2).map(serpFor) },
    step4_keywords: { status: 'completed', keyword_rankings: ranked },
    step5_backlinks: { status: 'completed', backlinks: metrics.backlinks, referring_domains: metrics.referring_domains },
    step6_report: { status: 'completed', summary: `SEO score ${seo_score}/100 for ${project.domain}`, completed_at: completedAt },
  };

  return {
    analysis: {
      technical: block(rng, clamp(seo_score + intBetween(rng, -8, 8), 0, 100), ['robots_txt', 'sitemap', 'structured_data', 'canonical']),
      performance: block(rng, lighthouse.performance, ['lcp', 'cls', 'inp', 'page_weight']),
      content: block(rng, clamp(geo_score + intBetween(rng, -8, 8), 0, 100), ['faq', 'headings', 'word_count', 'freshness']),
      trust: block(rng, trust_score, ['https', 'contact_page', 'author_pages', 'reviews']),
    },
    geo: {
      geo_score,
      ai_visibility,
      questions,
      ...assistantAnswers(dataset, project, scan, positions, rng),
      recommendations: recommendations.filter((r) => r.category === 'ai_visibility').map((r) => ({ id: r.id, title: r.title, priority: r.priority })),
      query_fan_out: questions.map((q) => ({
        question_id: q.id,
        queries: [`${project.trade.toLowerCase()} ${project.city}`, `${project.trade.toLowerCase()} reviews`, `top ${project.trade.toLowerCase()}`],
      })),
      serps: keywords(project).slice(0, 3).map(serpFor),
    },
    trust: trust,
    metrics: { ...metrics, month: monthLabel(scan.month) },
    action_items: recommendations.slice(0, 8).map((r, i) => ({
      id: r.id,
      title: r.title,
      priority: r.priority,
      status: i % 4 === 3 ? 'in_progress' : 'open',
    })),
    seo_audit: {
      seo_score,
      lighthouse,
      onpage: steps.step2_onpage,
      internal_linking: { internal_links: intBetween(rng, 20, 400), orphan_pages: intBetween(rng, 0, 12), broken_links: intBetween(rng, 0, 8) },
      keyword_rankings: ranked,
      serp: { tracked_queries: ranked.length, top10: ranked.filter((k) => k.position <= 10).length },
      backlinks: steps.step5_backlinks,
      eeat: {
        experience: intBetween(rng, 20, 90),
        expertise: intBetween(rng, 20, 90),
        authoritativeness: intBetween(rng, 20, 90),
        trustworthiness: trust_score,
      },
      content_gaps: [`${project.trade.toLowerCase()} pricing guide`, `${project.trade.toLowerCase()} checklist`].slice(0, 1 + (scan.id % 2)),
      steps,
    },
    seo_domain: {
      domain: project.domain,
      mapping: { pages_discovered: metrics.indexed_pages + intBetween(rng, 0, 40), sitemaps: [`https://${project.domain}/sitemap.xml`] },
      crawl: { pages_crawled: metrics.indexed_pages, errors_4xx: intBetween(rng, 0, 9), errors_5xx: intBetween(rng, 0, 2), redirects: intBetween(rng, 0, 30) },
      pagespeed: { mobile: clamp(lighthouse.performance - 10, 0, 100), desktop: clamp(lighthouse.performance + 8, 0, 100) },
      keywords: { organic_keywords: metrics.organic_keywords, top3: intBetween(rng, 0, 20), top10: intBetween(rng, 5, 80) },
      market: { country: project.language === 'fr' ? 'FR' : 'US', competitors: COMPETITOR_DOMAINS.slice(0, 3) },
    },
    metadata: {
      pipeline_version: '4.12.0',
      started_at: scan.createdAt.toISOString(),
      finished_at: completedAt,
      duration_ms: 9 * 60_000,
      workers: intBetween(rng, 2, 8),
      model_versions: Object.fromEntries(AI_ASSISTANTS.map((ai) => [ai, `${ai}-2026-${String(1 + (scan.month % 12)).padStart(2, '0')}`])),
    },
    html: {
      url: `https://${project.domain}/`,
      html: `<!doctype html><html lang="${project.language}"><head><title>${project.domain}</title></head><body><h1>${project.domain}</h1></body></html>`,
      markdown: `# ${project.domain}\n\n${project.trade} in ${project.city}.`,
    },
  };
}

/** Directories, media and marketplaces an answer cites: never a client's competitor. */
export const THIRD_PARTY_SOURCES = ['yelp.com', 'tripadvisor.com', 'wikipedia.org', 'reddit.com', 'pagesjaunes.fr'] as const;

/**
 * Each answer of each assistant: the competitors it names (`competitors` on its position, as a tracker lists them),
 * and its text, naming the site at its position among them and citing its sources. From a stream of its own, so
 * that the rest of the scan keeps the figures it had before answers named competitors.
 */
function assistantAnswers(
  dataset: Dataset,
  project: SimProject,
  scan: ScanRecord,
  positions: Array<{ question_id: number; ai: string; mentioned: boolean; position: number | null }>,
  rng: Rng,
): { positions: unknown[]; raw_responses: unknown[] } {
  // The draws the answers took from the scan's stream before they had a stream of their own.
  for (const p of positions.slice(0, 6)) if (!p.mentioned) pick(rng, COMPETITOR_DOMAINS);
  const talk = streamFor(dataset.seed, 'answers', scan.id);
  const trade = project.trade.toLowerCase();
  const rows = positions.map((p) => {
    const competitors = shuffle(talk, COMPETITOR_DOMAINS).slice(0, intBetween(talk, 0, 3));
    const listing: string[] = [...competitors];
    if (p.mentioned) listing.splice(Math.min((p.position ?? 1) - 1, listing.length), 0, project.name);
    const cited = [
      ...shuffle(talk, THIRD_PARTY_SOURCES).slice(0, intBetween(talk, 0, 2)),
      ...(p.mentioned && talk() < 0.6 ? [project.domain] : []),
      ...competitors.filter(() => talk() < 0.4),
    ];
    const text =
      (listing.length === 0
        ? `There is no single answer for ${trade} in ${project.city}; it depends on your needs.`
        : `For ${trade} in ${project.city}, people often mention ${listing.join(', ')}.`) +
      (cited.length === 0 ? '' : ` Sources: ${cited.map((domain) => `https://${domain}/`).join(' ')}`);
    return { position: { ...p, competitors }, response: { question_id: p.question_id, ai: p.ai, response: text } };
  });
  return { positions: rows.map((r) => r.position), raw_responses: rows.map((r) => r.response) };
}

export interface SectionSelection {
  sections: ScanSection[];
  /** null: every step of the SEO audit. */
  seoSteps: SeoStepName[] | null;
}

function csv(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const isScanSection = (s: string): s is ScanSection => (SCAN_SECTIONS as readonly string[]).includes(s);
const isSeoStep = (s: string): s is SeoStepName => (SEO_STEP_NAMES as readonly string[]).includes(s);

/** Parses include / exclude / seo_steps; returns an error message for unknown names. */
export function parseSectionSelection(query: Record<string, string>): SectionSelection | string {
  const include = query['include'] === undefined ? null : csv(query['include']);
  const exclude = query['exclude'] === undefined ? [] : csv(query['exclude']);
  const unknown = [...(include ?? []).filter((s) => s !== 'all'), ...exclude].filter((s) => !isScanSection(s));
  if (unknown.length > 0) return `Unknown scan section(s): ${unknown.join(', ')}. Known: all, ${SCAN_SECTIONS.join(', ')}.`;
  const base: readonly ScanSection[] = include === null ? DEFAULT_SCAN_SECTIONS : include.includes('all') ? SCAN_SECTIONS : include.filter(isScanSection);
  const sections = SCAN_SECTIONS.filter((s) => base.includes(s) && !exclude.includes(s));
  let seoSteps: SeoStepName[] | null = null;
  if (query['seo_steps'] !== undefined) {
    const names = csv(query['seo_steps']);
    const unknownSteps = names.filter((s) => !isSeoStep(s));
    if (unknownSteps.length > 0 || names.length === 0) {
      return `Unknown seo_steps value(s): ${unknownSteps.join(', ') || '(empty)'}. Known: ${SEO_STEP_NAMES.join(', ')}.`;
    }
    seoSteps = SEO_STEP_NAMES.filter((s) => names.includes(s));
  }
  return { sections, seoSteps };
}

export function applySelection(all: Record<ScanSection, unknown>, selection: SectionSelection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const section of selection.sections) {
    const content = all[section];
    if (section === 'seo_audit' && selection.seoSteps !== null && typeof content === 'object' && content !== null) {
      const audit = content as { steps?: Record<string, unknown> };
      const steps = Object.fromEntries(Object.entries(audit.steps ?? {}).filter(([name]) => selection.seoSteps?.includes(name as SeoStepName)));
      out[section] = { ...audit, steps };
    } else {
      out[section] = content;
    }
  }
  return out;
}
