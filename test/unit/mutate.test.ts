// The answer mutator used by property tests: deterministic per seed, and never changes what the spec names.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORT_SECTIONS } from '../../src/api/schemas.js';
import { mutateAnswer, mutatedAnswer, type MutationKind } from '../support/mutate.js';

// What the spec names, written here independently of the mutator's own lists.
const FROZEN_KEYS = new Set(['id', 'format', 'status', 'priority', 'category', 'project_id', 'audit_id']);
const NAMED_KEYS = new Set(['vs_benchmark', 'scores', 'recommendations', 'history', 'metrics', 'trust', 'projects', 'total']);

type Json = Record<string, unknown>;
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

const report = fixture('api-report-2026-10.json');
const SAMPLES: Record<string, unknown> = {
  'report data': { report },
  report,
  competitors: fixture('api-competitors-2026-10.json'),
  stats: fixture('api-stats-2026-10.json'),
  'scan and webhook': {
    scan: {
      id: 1022610,
      project_id: 102,
      audit_id: 501022610,
      status: 'completed',
      created_at: '2026-10-01T03:07:00.000Z',
      geo_score: 65,
      seo_audit: {
        seo_score: 50,
        keyword_rankings: [
          { keyword: 'physiotherapy nantes', position: 6.8, values: [2, 8, 8, null, 5], counted_as: [2, 8, 8, 11, 5] },
          { keyword: 'best physiotherapy', position: 6.8, values: [null, 9, 6, 1], counted_as: [11, 9, 6, 1] },
        ],
      },
      metrics: { ai_mentions: 88, share_of_voice: { value: 20.6, unit: '%' }, month: '2026-10' },
    },
    webhook: { id: 3, name: 'CRM', url: 'https://crm.example/hook', events: ['scan.completed'], created_at: '2026-10-04T06:00:00.000Z' },
  },
};

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
function objects(value: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const v of value) objects(v, out);
  else if (isObject(value)) {
    out.push(value);
    for (const v of Object.values(value)) objects(v, out);
  }
  return out;
}

/** Every spec-named fact of an answer, order-free: frozen key=value pairs, named-key counts, untouched subtrees, webhook records. */
function specFacts(value: unknown): string[] {
  const facts: string[] = [];
  for (const o of objects(value)) {
    for (const [key, v] of Object.entries(o)) {
      if (FROZEN_KEYS.has(key)) facts.push(`${key}=${JSON.stringify(v)}`);
      if (NAMED_KEYS.has(key)) facts.push(`named:${key}`);
      if (key === 'keyword_rankings') facts.push(`keyword_rankings=${JSON.stringify(v)}`);
    }
    if (Array.isArray(o['events'])) facts.push(`webhook=${JSON.stringify([o['id'], o['name'], o['url'], o['events']])}`);
  }
  return facts.sort();
}

/** Report section names that carry content, at any depth. */
function contentSections(value: unknown): string[] {
  const names = new Set<string>();
  for (const o of objects(value)) for (const s of REPORT_SECTIONS) if (o[s] !== undefined && typeof o[s] === 'object' && o[s] !== null) names.add(s);
  return [...names].sort();
}

describe('mutateAnswer', () => {
  it.each(Object.keys(SAMPLES))('%s: the same seed gives the same copy, the input is left as it was', (name) => {
    const input = SAMPLES[name];
    const before = JSON.stringify(input);
    const outputs = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const a = mutateAnswer(input, seed);
      expect(mutateAnswer(input, seed)).toEqual(a);
      outputs.add(JSON.stringify(a.value));
    }
    expect(JSON.stringify(input)).toBe(before);
    // Different seeds give different wire forms.
    expect(outputs.size).toBeGreaterThan(50);
  });

  it.each(Object.keys(SAMPLES))('%s: never alters a spec-named field, over 500 seeds, with and without dropping valued keys', (name) => {
    const input = SAMPLES[name];
    const facts = specFacts(input);
    const sections = contentSections(input);
    for (let seed = 0; seed < 500; seed++) {
      for (const dropValued of [false, true]) {
        const { value } = mutateAnswer(input, seed, { dropValued, rate: 0.5 });
        expect(specFacts(value)).toEqual(facts);
        expect(contentSections(value)).toEqual(sections);
      }
    }
  });

  it('does every kind of change somewhere over the seeds', () => {
    const kinds = new Set<MutationKind>();
    for (const input of Object.values(SAMPLES)) {
      for (let seed = 0; seed < 200; seed++) for (const m of mutateAnswer(input, seed).mutations) kinds.add(m.kind);
    }
    expect([...kinds].sort()).toEqual(
      [
        'date-form',
        'drop',
        'list-to-map',
        'map-to-list',
        'percent',
        'rename',
        'rename-sections',
        'stringify',
        'unwrap-report',
        'unwrap-sections',
        'wrap-list',
      ].sort(),
    );
  });

  it('logs what it did against the classic paths', () => {
    const found = fc.sample(mutatedAnswer(report), { seed: 7, numRuns: 100 }).flatMap((r) => r.mutations);
    const geo = found.find((m) => m.kind === 'rename' && m.path === 'sections.scores.geo_score');
    expect(['geo', 'ai_visibility_score', 'visibility']).toContain(geo?.to);
    const drops = found.filter((m) => m.kind === 'drop').map((m) => m.path.split('.').at(-1));
    expect(drops).not.toContain('geo_score');
  });

  it('the fast-check arbitrary is replayable from its seed', () => {
    fc.assert(
      fc.property(mutatedAnswer(report), (sample) => {
        expect(mutateAnswer(report, sample.seed)).toEqual({ value: sample.value, mutations: sample.mutations });
      }),
      { numRuns: 50, seed: 3 },
    );
  });
});
