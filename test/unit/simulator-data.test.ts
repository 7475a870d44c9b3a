import { describe, expect, it } from 'vitest';
import { CATEGORIES, DEFAULT_SCAN_SECTIONS, PRIORITIES, SCAN_SECTIONS } from '../../src/api/schemas.js';
import { createDataset, monthNumber, recommendationsAt, scoresAt } from '../../src/simulator/data.js';
import { QuotaLedger } from '../../src/simulator/quota.js';
import { keywordRanking, parseSectionSelection } from '../../src/simulator/sections.js';

const NOW = new Date('2026-11-22T06:00:00.000Z');

describe('seeded dataset', () => {
  it('is a pure function of seed and clock', () => {
    const a = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const b = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const c = createDataset({ seed: 43, projectCount: 36, hostileNames: false, now: NOW });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(c.projects.map((p) => p.name)).not.toEqual(a.projects.map((p) => p.name));
  });

  it('mixes statuses about 70/20/10 with unique names and domains', () => {
    const { projects } = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const count = (s: string) => projects.filter((p) => p.status === s).length;
    expect([count('active'), count('paused'), count('archived')]).toEqual([25, 7, 4]);
    expect(new Set(projects.map((p) => p.name)).size).toBe(36);
    expect(new Set(projects.map((p) => p.domain)).size).toBe(36);
    expect(projects.some((p) => p.failsAnalysis && p.status === 'active')).toBe(true);
    expect(projects.some((p) => !p.failsAnalysis && p.status === 'active')).toBe(true);
  });

  it('keeps 6–14 recommendations per project and covers every priority and category', () => {
    const dataset = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const month = monthNumber(NOW);
    const all = dataset.projects.flatMap((p) => recommendationsAt(dataset, p, month));
    for (const project of dataset.projects) {
      const n = recommendationsAt(dataset, project, month).length;
      expect(n).toBeGreaterThanOrEqual(6);
      expect(n).toBeLessThanOrEqual(14);
    }
    expect(new Set(all.map((r) => r.priority))).toEqual(new Set(PRIORITIES));
    expect(new Set(all.map((r) => r.category))).toEqual(new Set(CATEGORIES));
  });

  it('moves scores by a few points from one month to the next', () => {
    const dataset = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const month = monthNumber(NOW);
    const moves = dataset.projects.map((p) => Math.abs(scoresAt(dataset, p, month + 1).geo_score - scoresAt(dataset, p, month).geo_score));
    expect(Math.max(...moves)).toBeLessThanOrEqual(8);
    expect(moves.some((m) => m > 0)).toBe(true);
  });

  it('puts hostile names on active projects only when asked', () => {
    const plain = createDataset({ seed: 42, projectCount: 36, hostileNames: false, now: NOW });
    const hostile = createDataset({ seed: 42, projectCount: 36, hostileNames: true, now: NOW });
    expect(plain.projects.some((p) => p.name.includes('<script>'))).toBe(false);
    const names = hostile.projects.filter((p) => p.status === 'active').map((p) => p.name);
    expect(names.some((n) => n.includes('../'))).toBe(true);
    expect(names.some((n) => n.includes('\u0000'))).toBe(true);
    expect(names.some((n) => n.length === 300)).toBe(true);
    expect(names.some((n) => /[\u3040-\u30ff\u0400-\u04ff]/.test(n))).toBe(true);
    const titles = hostile.projects.flatMap((p) => recommendationsAt(hostile, p, monthNumber(NOW)).map((r) => r.title));
    expect(titles.some((t) => t.includes('<img src="http://198.51.100.7/x.png">') || t.includes('<script>'))).toBe(true);
  });
});

describe('keyword rankings', () => {
  it('counts an absent trial as 11 and averages to one decimal', () => {
    expect(keywordRanking('bakery lyon', [3, null, 4])).toEqual({ keyword: 'bakery lyon', position: 6, values: [3, null, 4], counted_as: [3, 11, 4] });
    expect(keywordRanking('k', [1, 2, 2]).position).toBe(1.7);
    expect(keywordRanking('k', [null, null]).position).toBe(11);
  });
});

describe('scan section selection', () => {
  it('defaults to every section but metadata and html', () => {
    expect(parseSectionSelection({})).toEqual({ sections: [...DEFAULT_SCAN_SECTIONS], seoSteps: null });
  });
  it('understands all, lists, exclude and seo_steps', () => {
    expect(parseSectionSelection({ include: 'all' })).toEqual({ sections: [...SCAN_SECTIONS], seoSteps: null });
    expect(parseSectionSelection({ include: 'geo, seo_audit', seo_steps: 'step6_report,step3_serp' })).toEqual({
      sections: ['geo', 'seo_audit'],
      seoSteps: ['step3_serp', 'step6_report'],
    });
    expect(parseSectionSelection({ include: 'all', exclude: 'html,geo' })).toEqual({
      sections: SCAN_SECTIONS.filter((s) => s !== 'html' && s !== 'geo'),
      seoSteps: null,
    });
  });
  it('rejects unknown names with a message naming them', () => {
    expect(parseSectionSelection({ include: 'geo,bogus' })).toMatch(/bogus/);
    expect(parseSectionSelection({ exclude: 'nope' })).toMatch(/nope/);
    expect(parseSectionSelection({ seo_steps: 'step9_magic' })).toMatch(/step9_magic/);
  });
});

describe('quota ledger', () => {
  it('counts per token and resets when the UTC date changes', () => {
    let now = new Date('2026-11-22T23:59:00.000Z');
    const ledger = new QuotaLedger(2, () => now);
    ledger.consume(0);
    expect(ledger.consume(0)).toEqual({ daily_used: 2, daily_limit: 2, daily_remaining: 0 });
    expect(ledger.exhausted(0)).toBe(true);
    expect(ledger.exhausted(1)).toBe(false);
    expect(ledger.secondsUntilReset()).toBe(60);
    now = new Date('2026-11-23T00:00:01.000Z');
    expect(ledger.exhausted(0)).toBe(false);
    expect(ledger.usage(0).daily_used).toBe(0);
  });
});
