import type { Report } from '../support/classic-schemas.js';
import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/report/assemble.js';
import { computeDelta } from '../../src/report/deltas.js';
import type { KeyValue, ReportModel } from '../../src/report/model.js';
import type { PeriodData } from '../../src/report/period-data.js';
import { ALL_SECTIONS, assembleInput, competitorRow, currentReport, previousPeriod, project } from '../fixtures/api-fixtures.js';
import { toMonth } from '../../src/period.js';

const model = (overrides: Parameters<typeof assembleInput>[0] = {}): ReportModel => assembleReport(assembleInput(overrides));

function entry(entries: readonly KeyValue[] | undefined, key: string): KeyValue | undefined {
  return entries?.find((e) => e.key === key);
}

/** Every number anywhere in the model. */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

describe('report meta and client', () => {
  it('titles the report with the client and the localised period', () => {
    const en = model();
    expect(en.meta).toEqual({
      projectId: 101,
      reportId: 7012,
      period: '2026-10',
      periodLabel: 'October 2026',
      generatedAt: '2026-11-04T06:01:00.000Z',
      // The API dates neither AI visibility nor metrics nor trust: they are shown as of the run.
      currentAsOf: '2026-11-04',
      language: 'en',
      // The service's own words are in English, as the report: nothing to mark.
      sourceLang: null,
      title: 'Boulangerie Martin — GEO & SEO report — October 2026',
    });
    const fr = model({ language: 'fr' });
    expect(fr.meta.periodLabel).toBe('octobre 2026');
    expect(fr.meta.title).toBe('Boulangerie Martin — Rapport GEO & SEO — octobre 2026');
  });

  it('says "so far this month" of a period made before it ended (run --partial), in each language', () => {
    const en = model({ generatedAt: '2026-10-27T09:00:00.000Z' });
    expect(en.meta.periodLabel).toBe('October 2026, so far this month');
    expect(en.meta.title).toBe('Boulangerie Martin — GEO & SEO report — October 2026, so far this month');
    const fr = model({ generatedAt: '2026-10-27T09:00:00.000Z', language: 'fr' });
    expect(fr.meta.periodLabel).toBe('octobre 2026, depuis le début du mois');
    // The first instant of the next month is the period ended.
    expect(model({ generatedAt: '2026-11-01T00:00:00.000Z' }).meta.periodLabel).toBe('October 2026');
  });

  it('names the client from the configuration, else the project, else its id', () => {
    const sections = { ...ALL_SECTIONS };
    const configured = model({ client: { displayName: 'Martin & Fils', note: 'Nouveau site en ligne le 12.', sections } });
    expect(configured.client).toEqual({ name: 'Martin & Fils', domain: 'boulangerie-martin.fr', note: 'Nouveau site en ligne le 12.' });
    expect(model().client).toEqual({ name: 'Boulangerie Martin', domain: 'boulangerie-martin.fr', note: null });
    const anonymous = { ...project(), name: undefined, domain: undefined };
    expect(model({ project: anonymous }).client.name).toBe('Project 101');
    expect(model({ project: anonymous, language: 'fr' }).client.name).toBe('Projet 101');
    expect(model({ project: anonymous }).client.domain).toBeNull();
  });

  it('passes the branding through untouched', () => {
    const input = assembleInput();
    expect(assembleReport(input).branding).toBe(input.branding);
  });
});

describe('scores', () => {
  it('merges scores, benchmark averages, vs_benchmark, percentile and changes, each as the whole figure shown', () => {
    const scores = model().scores;
    // 71.4 against 59.1 and 67.2: the card writes 71, 59 and 67, so its gap is 12 and its change +4 (one rounding per unit).
    expect(scores?.geo).toEqual({
      value: 71,
      benchmarkAverage: 59,
      vsBenchmark: 12,
      change: { value: 4, direction: 'up', previous: 67 },
      asOf: null,
    });
    // Halves round away from zero: 60.5 → 61, 65.5 → 66.
    expect(scores?.seo).toEqual({
      value: 64,
      benchmarkAverage: 61,
      vsBenchmark: 3,
      change: { value: -2, direction: 'down', previous: 66 },
      asOf: null,
    });
    expect(scores?.percentile).toBe(78);
    expect(scores?.benchmarkSampleSize).toBe(1240);
  });

  it('labels AI assistants, makes unknown ones readable, and compares each with last month', () => {
    const rows = model().scores?.aiVisibility;
    expect(rows?.map((r) => [r.assistant, r.label, r.value, r.change?.value ?? null, r.change?.direction ?? null])).toEqual([
      ['chatgpt', 'ChatGPT', 62, 8, 'up'],
      ['perplexity', 'Perplexity', 60, -1, 'down'],
      ['gemini', 'Gemini', 48, 0, 'flat'],
      ['claude', 'Claude', 53, 3, 'up'],
      ['copilot', 'Copilot', 41, 2, 'up'],
      ['mistral_le_chat', 'Mistral le chat', 22, null, null],
    ]);
  });

  it('leaves benchmark fields null without a competitor row or benchmark, without crashing', () => {
    const scores = model({ competitor: null, benchmark: null }).scores;
    expect(scores?.geo).toEqual({
      value: 71,
      benchmarkAverage: null,
      vsBenchmark: null,
      change: { value: 4, direction: 'up', previous: 67 },
      asOf: null,
    });
    expect(scores?.seo.benchmarkAverage).toBeNull();
    expect(scores?.percentile).toBeNull();
    expect(scores?.benchmarkSampleSize).toBeNull();
  });

  it("takes the gap between the two figures shown, even when the API says another; the API's gap only without an average", () => {
    const row = { ...competitorRow(), vs_benchmark: { geo: 10, seo: null } };
    const scores = model({ competitor: row }).scores;
    // The card shows 71 beside an average of 59: a gap of 10 beside them would be a second figure for one fact.
    expect(scores?.geo.vsBenchmark).toBe(12);
    expect(scores?.seo.vsBenchmark).toBe(3);
    const alone = model({ competitor: row, benchmark: null }).scores;
    expect(alone?.geo).toMatchObject({ benchmarkAverage: null, vsBenchmark: 10 });
  });

  it('has no changes when there is no previous period, or when the "previous" one is this same month', () => {
    for (const previous of [null, { ...previousPeriod(), period: toMonth('2026-10') } satisfies PeriodData]) {
      const m = model({ previous });
      expect(m.scores?.geo.change).toBeNull();
      expect(m.scores?.aiVisibility.every((r) => r.change === null)).toBe(true);
      expect(m.metrics?.every((r) => r.change === null)).toBe(true);
      expect(m.trust?.change).toBeNull();
      expect(m.recommendations?.tracking).toBeNull();
    }
  });
});

describe('deltas', () => {
  it('subtracts without float noise and picks the direction', () => {
    expect(computeDelta(71.4, 67.2)).toEqual({ value: 4.2, direction: 'up', previous: 67.2 });
    expect(computeDelta(64, 65.5)).toEqual({ value: -1.5, direction: 'down', previous: 65.5 });
    expect(computeDelta(10, 0)).toEqual({ value: 10, direction: 'up', previous: 0 });
  });

  it('is flat below 0.05 in either direction', () => {
    expect(computeDelta(50.04, 50)?.direction).toBe('flat');
    expect(computeDelta(49.96, 50)?.direction).toBe('flat');
    expect(computeDelta(50.05, 50)?.direction).toBe('up');
    expect(computeDelta(49.95, 50)?.direction).toBe('down');
  });

  it('is null, never NaN, when a side is missing or not a finite number', () => {
    for (const [current, previous] of [
      [null, 1],
      [1, null],
      [undefined, 1],
      [Number.NaN, 1],
      [1, Number.POSITIVE_INFINITY],
      ['12', 10],
      [{ value: 3 }, 1],
    ] as const) {
      expect(computeDelta(current, previous)).toBeNull();
    }
  });

  it('leaves no NaN or infinity anywhere in the model, even with broken previous data', () => {
    const previous = previousPeriod();
    const sections = (previous.report as Report).sections;
    if (sections?.scores !== undefined) {
      sections.scores.geo_score = null;
      sections.scores.ai_visibility = { chatgpt: null };
    }
    if (sections?.metrics !== undefined) sections.metrics = { ai_mentions: 'many', share_of_voice: { value: null, unit: '%' } };
    const m = model({ previous });
    // Last period's GEO is the history's September, whatever last period's own scores section says.
    expect(m.scores?.geo.change).toEqual({ value: 4, direction: 'up', previous: 67 });
    expect(m.metrics?.find((r) => r.key === 'ai_mentions')?.change).toBeNull();
    expect(numbersIn(m).every(Number.isFinite)).toBe(true);
  });
});

describe('metrics', () => {
  it('labels known metrics, keeps units and compares numbers with last month', () => {
    const rows = model().metrics;
    expect(rows?.find((r) => r.key === 'ai_mentions')).toEqual({
      key: 'ai_mentions',
      label: 'AI mentions',
      value: 100,
      unit: null,
      change: { value: 6, direction: 'up', previous: 94 },
    });
    expect(rows?.find((r) => r.key === 'share_of_voice')).toEqual({
      key: 'share_of_voice',
      label: 'Share of voice (service)',
      value: 23.8,
      unit: '%',
      change: { value: 1.4, direction: 'up', previous: 22.4 },
    });
    expect(model({ language: 'fr' }).metrics?.find((r) => r.key === 'indexed_pages')?.label).toBe('Pages indexées');
  });

  it('makes unknown keys readable, joins lists and moves nested objects to other sections', () => {
    const m = model();
    expect(m.metrics?.find((r) => r.key === 'top_cited_pages')).toEqual({
      key: 'top_cited_pages',
      label: 'Top cited pages',
      value: '/, /tarifs, /horaires',
      unit: null,
      change: null,
    });
    expect(m.metrics?.some((r) => r.key === 'core_web_vitals')).toBe(false);
    const vitals = m.otherSections.find((s) => s.key === 'metrics.core_web_vitals');
    expect(vitals?.label).toBe('Core Web Vitals');
    expect(vitals?.entries).toEqual([
      // Load times the tool knows, named in the report's language.
      { key: 'lcp_ms', label: 'Largest Contentful Paint (ms)', value: 2400 },
      { key: 'cls', label: 'Cumulative Layout Shift', value: 0.1 },
      { key: 'inp_ms', label: 'Interaction to Next Paint (ms)', value: 180 },
    ]);
  });

  it('shows strings and booleans as rows, leaves out metrics without a value, and keeps fields beside value and unit', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      report.sections.metrics = {
        sentiment: 'positive',
        has_llms_txt: true,
        citations: null,
        summary_text: '  ',
        page_speed: { value: 2.4, unit: 's', source: 'CrUX' },
      };
    }
    const m = model({ report, language: 'fr' });
    expect(m.metrics?.map((r) => [r.key, r.label, r.value, r.unit])).toEqual([
      ['sentiment', 'Sentiment', 'positive', null],
      ['has_llms_txt', 'Has LLMs txt', 'Oui', null],
      ['page_speed', 'Vitesse de chargement', 2.4, 's'],
    ]);
    expect(m.otherSections.find((s) => s.key === 'metrics.page_speed')?.entries).toEqual([{ key: 'source', label: 'Source', value: 'CrUX' }]);
  });

  it('shows no empty box: keys whose value is null, blank, an empty list or an empty object are not data', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      // As an API that sends "unit": null on every metric, and empty fields beside the values.
      report.sections.metrics = {
        pages_crawled: { value: 120, unit: null },
        share_of_voice: { value: 23.8, unit: null, trend: '', sources: [], details: {}, notes: [null, ''] },
        core_web_vitals: { lcp_ms: 2400, cls: null, inp: { p75: null } },
        empty_structure: { a: { b: null }, c: [] },
      };
    }
    const m = model({ report });
    expect(m.metrics?.map((r) => [r.key, r.value, r.unit])).toEqual([
      ['pages_crawled', 120, null],
      ['share_of_voice', 23.8, null],
    ]);
    expect(m.otherSections.map((s) => s.key)).not.toContain('metrics.pages_crawled');
    expect(m.otherSections.map((s) => s.key)).not.toContain('metrics.share_of_voice');
    expect(m.otherSections.map((s) => s.key)).not.toContain('metrics.empty_structure');
    expect(m.otherSections.find((s) => s.key === 'metrics.core_web_vitals')?.entries).toEqual([
      { key: 'lcp_ms', label: 'Largest Contentful Paint (ms)', value: 2400 },
    ]);
    const shown = JSON.stringify(m.otherSections);
    expect(shown).not.toMatch(/"(unit|trend|sources|details|notes|cls|inp)"/);
  });
});

describe('trust', () => {
  it('takes the score with its change, the platforms, and every other key as extra', () => {
    const trust = model().trust;
    expect(trust?.score).toBe(74);
    expect(trust?.change).toEqual({ value: 2, direction: 'up', previous: 72 });
    expect(trust?.platforms).toEqual([
      { name: 'Google', rating: 4.6, reviews: 128, url: 'https://g.page/boulangerie-martin' },
      { name: 'Trustpilot', rating: 4.2, reviews: 41, url: 'https://www.trustpilot.com/review/boulangerie-martin.fr' },
    ]);
    const signals = entry(trust?.extra, 'signals');
    expect(signals?.label).toBe('Signals');
    expect(signals?.value).toContainEqual({ key: 'https', label: 'HTTPS', value: true });
    expect(signals?.value).toContainEqual({ key: 'review_schema', label: 'Review schema', value: false });
    // The URLs now sit with their platform, so they are not repeated among the extra keys.
    expect(entry(trust?.extra, 'review_platforms')).toBeUndefined();
  });
});

describe('recommendations', () => {
  it('groups by priority in order critical, high, medium, low and keeps every other field as extra', () => {
    const recommendations = model().recommendations;
    expect(recommendations?.total).toBe(4);
    expect(recommendations?.groups.map((g) => [g.priority, g.items.map((r) => r.key)])).toEqual([
      ['critical', ['9001']],
      ['high', ['9003']],
      ['medium', ['9004']],
      ['low', ['technical:compress hero images']],
    ]);
    const local = recommendations?.groups[2]?.items[0];
    expect(local?.title).toBe('Get listed on local directories');
    expect(local?.description).toBe('Citations in local directories help assistants confirm the address and opening hours.');
    expect(local?.category).toBe('ai_visibility');
    expect(local?.extra).toEqual([
      // Words the API sends for a field the tool knows are the report's words; others stay as sent.
      { key: 'impact', label: 'Impact', value: 'Medium' },
      { key: 'effort', label: 'Effort', value: 'Medium' },
      { key: 'detected_at', label: 'Detected at', value: '2026-10-01' },
      { key: 'evidence_urls', label: 'Evidence URLs', value: 'https://www.pagesjaunes.fr/, https://fr.foursquare.com/' },
    ]);
  });

  it('writes the words the API sends for the fields it knows in the report’s language; a word it does not know stays as sent', () => {
    const report = currentReport();
    const recs = report.sections?.recommendations as Array<Record<string, unknown>>;
    const local = recs.find((r) => r['title'] === 'Get listed on local directories');
    if (local !== undefined) local['effort'] = 'Herculean';
    const item = model({ report, language: 'fr' }).recommendations?.groups[2]?.items[0];
    expect(item?.extra.slice(0, 2)).toEqual([
      { key: 'impact', label: 'Impact', value: 'Moyen' },
      { key: 'effort', label: 'Effort', value: 'Herculean' },
    ]);
  });

  it('omits empty groups', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      report.sections.recommendations = [{ title: 'Only one', priority: 'medium', category: 'seo' }];
    }
    const groups = model({ report }).recommendations?.groups;
    expect(groups?.map((g) => g.priority)).toEqual(['medium']);
    expect(groups?.[0]?.items[0]?.description).toBeNull();
  });
});

describe('history', () => {
  it('normalises dates and sorts the points', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      report.sections.history = [
        { date: '2026-10-05T06:00:00+02:00', geo_score: 71.4, seo_score: 64 },
        { date: '2026-08', geo_score: 64, seo_score: null },
        { date: '2026-09-05', geo_score: 67.2 },
      ];
    }
    expect(model({ report }).history).toEqual([
      { date: '2026-08-01', geo: 64, seo: null },
      { date: '2026-09-05', geo: 67, seo: null },
      { date: '2026-10-05', geo: 71, seo: 64 },
    ]);
  });
});

describe('sections switched off or left out', () => {
  it('sets a section switched off by the client to null', () => {
    const m = model({ client: { sections: { scores: false, recommendations: false, history: false, metrics: false, trust: false } } });
    expect([m.scores, m.recommendations, m.history, m.metrics, m.trust]).toEqual([null, null, null, null, null]);
    // Unknown sections are not covered by the switches: still shown.
    expect(m.otherSections.map((s) => s.key)).toEqual(['local_presence']);
  });

  it('sets a section the API left out to null, never to an empty object', () => {
    const report = currentReport();
    delete report.sections;
    const m = model({ report });
    expect([m.scores, m.recommendations, m.history, m.metrics, m.trust]).toEqual([null, null, null, null, null]);
    expect(m.otherSections).toEqual([]);
    expect(m.meta.reportId).toBe(7012);
  });

  it('switches sections one by one', () => {
    const m = model({ client: { sections: { ...ALL_SECTIONS, trust: false, history: false } } });
    expect(m.trust).toBeNull();
    expect(m.history).toBeNull();
    expect(m.scores).not.toBeNull();
    expect(m.metrics).not.toBeNull();
  });
});

describe('unknown data kept', () => {
  it('shows an unknown report section as labelled key/values, with units formatted for the language', () => {
    const en = model().otherSections.find((s) => s.key === 'local_presence');
    expect(en).toEqual({
      key: 'local_presence',
      label: 'Local presence',
      entries: [
        { key: 'google_business_profile', label: 'Google business profile', value: 'Verified' },
        { key: 'nap_consistency', label: 'NAP consistency', value: '92.5%' },
        { key: 'local_pack_keywords', label: 'Local pack keywords', value: 7 },
        { key: 'directory_citations', label: 'Directory citations', value: 31 },
      ],
    });
    const fr = model({ language: 'fr' }).otherSections.find((s) => s.key === 'local_presence');
    expect(entry(fr?.entries, 'nap_consistency')?.value).toMatch(/^92,5[\u00a0\u202f]%$/);
  });

  it('shows scalar and list sections, and nested lists labelled by their names', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      report.sections['crawl_budget'] = 1200;
      report.sections['competitor_mentions'] = [
        { name: 'boulangerie-dupont.fr', mentions: 12 },
        { mentions: 3, sources: ['chatgpt', 'gemini'] },
      ];
    }
    const other = model({ report }).otherSections;
    expect(other.find((s) => s.key === 'crawl_budget')?.entries).toEqual([{ key: 'crawl_budget', label: 'Crawl budget', value: 1200 }]);
    expect(other.find((s) => s.key === 'competitor_mentions')?.entries).toEqual([
      {
        key: '0',
        label: 'boulangerie-dupont.fr',
        value: [
          { key: 'name', label: 'Name', value: 'boulangerie-dupont.fr' },
          { key: 'mentions', label: 'Mentions', value: 12 },
        ],
      },
      {
        key: '1',
        label: '#2',
        value: [
          { key: 'mentions', label: 'Mentions', value: 3 },
          { key: 'sources', label: 'Sources', value: 'chatgpt, gemini' },
        ],
      },
    ]);
  });

  it('keeps hostile strings exactly as they came (escaping is the renderer’s job)', () => {
    const hostileName = '"><img src=x onerror=alert(1)> ../../etc/passwd \u0000 مخبز 東京';
    const hostileTitle = '<script>alert("x")</script> {client} & {{title}}';
    const report = currentReport();
    const first = report.sections?.recommendations?.[0];
    if (first !== undefined) first.title = hostileTitle;
    if (report.sections !== undefined) report.sections['<b>odd</b>'] = { '<i>k</i>': '<u>v</u>' };
    const m = model({ project: { ...project(), name: hostileName }, report });
    expect(m.client.name).toBe(hostileName);
    expect(m.meta.title).toBe(`${hostileName} — GEO & SEO report — October 2026`);
    expect(m.recommendations?.groups[0]?.items[0]?.title).toBe(hostileTitle);
    expect(m.summary[2]).toContain(`“${hostileTitle}”`);
    // The summary speaks to the client ("your site"): the name is the cover's and the title's, kept as it came.
    expect(m.otherSections.find((s) => s.key === '<b>odd</b>')?.entries).toEqual([{ key: '<i>k</i>', label: '<i>k</i>', value: '<u>v</u>' }]);
  });
});
