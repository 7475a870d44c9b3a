// Seeded mutations of a real API answer: another faithful server's wire form for the same values.
//
// Usage:
//   const { value, mutations } = mutateAnswer(report, seed);          // pure, same seed → same result
//   fc.assert(fc.property(mutatedAnswer(report), ({ value, mutations }) => { … }), { numRuns: 500 });
//
// `value` is a deep copy of the input (a report, a competitors or a stats `data`, or any JSON) with, decided by a
// PRNG seeded by `seed`:
//   - rename   keys renamed to plain synonyms (geo_score → geo | ai_visibility_score | visibility, average → mean | avg,
//              title → name | label, reviews_count → reviews | count | review_count, rating → score | stars, url → link, …);
//   - re-nest  a report's `sections` wrapper renamed to `content` / `data` or removed (sections at the report's top level);
//              a `{ report: … }` wrapper removed; lists of objects wrapped as `{ items, count }`; lists of records with a
//              `name` turned into a map keyed by that name; maps of numbers (or `{ value, unit }`) turned into lists of
//              `{ name, value[, unit] }`;
//   - forms    numbers as numeric strings ("76.6"), score-like numbers as percentages ("76%"); months and dates moved
//              between 'YYYY-MM', 'YYYY-MM-01' and 'YYYY-MM-01T00:00:00+00:00';
//   - drop     keys removed; by default only keys outside VALUED_KEYS (the classic names of values the product shows),
//              with `dropValued: true` any key that is not spec-named.
// `mutations` lists each change with the classic path it applied to (e.g. 'sections.scores.geo_score'), so a property
// test knows what a reader should still find (everything not dropped) and what may be missing (`kind: 'drop'`).
//
// Never touched (the spec names them): the keys and values of `id`, `format`, `status`, `priority`, `category`,
// `project_id`, `audit_id`; the names `vs_benchmark`, `scores`, `recommendations`, `history`, `metrics`, `trust`,
// `projects` and `total` (their content may change, they are never renamed or dropped); every `keyword_rankings`
// subtree; a webhook record's `id`, `name`, `url`, `events` (any object carrying `events`).
import fc from 'fast-check';
import { mulberry32 } from '../../src/simulator/random.js';

export type MutationKind =
  | 'rename'
  | 'drop'
  | 'unwrap-report'
  | 'rename-sections'
  | 'unwrap-sections'
  | 'wrap-list'
  | 'list-to-map'
  | 'map-to-list'
  | 'stringify'
  | 'percent'
  | 'date-form';

export interface Mutation {
  kind: MutationKind;
  /** Dot path in the input (classic) answer, '' for the root. */
  path: string;
  /** The new key, wrapper or form, when there is one. */
  to?: string;
}

export interface MutateOptions {
  /** Chance of each applicable change at each place, 0..1. @default 0.35 */
  rate?: number;
  /** Also drop keys in VALUED_KEYS (values the product shows). @default false */
  dropValued?: boolean;
}

export interface MutatedAnswer {
  value: unknown;
  mutations: Mutation[];
}

/** Spec-named keys whose name and value are never changed. */
export const FROZEN_KEYS: ReadonlySet<string> = new Set(['id', 'format', 'status', 'priority', 'category', 'project_id', 'audit_id']);
/** Spec-named keys never renamed or dropped; their content may be reshaped. */
export const NAMED_KEYS: ReadonlySet<string> = new Set(['vs_benchmark', 'scores', 'recommendations', 'history', 'metrics', 'trust', 'projects', 'total']);
/** Subtrees kept exactly as they are. */
export const UNTOUCHED_SUBTREES: ReadonlySet<string> = new Set(['keyword_rankings']);
/** Classic names of the values the product shows: dropped only with `dropValued`. */
export const VALUED_KEYS: ReadonlySet<string> = new Set([
  'report',
  'sections',
  'geo_score',
  'seo_score',
  'trust_score',
  'ai_visibility',
  'date',
  'month',
  'title',
  'description',
  'impact',
  'name',
  'rating',
  'reviews_count',
  'url',
  'review_platforms',
  'benchmark',
  'average',
  'percentile',
  'other_projects',
  'projects_count',
  'scans_count',
  'average_score',
  'top_projects',
  'evolution',
  'value',
  'unit',
  'latest',
]);

/** Plain synonyms a designer could use instead of each classic name. */
export const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  geo_score: ['geo', 'ai_visibility_score', 'visibility'],
  seo_score: ['seo', 'seo_rating'],
  trust_score: ['trust_rating', 'trust_index'],
  ai_visibility: ['visibility_by_assistant', 'assistants'],
  average: ['mean', 'avg'],
  median: ['p50'],
  title: ['name', 'label'],
  name: ['title', 'label'],
  description: ['summary', 'details'],
  reviews_count: ['reviews', 'count', 'review_count'],
  rating: ['score', 'stars'],
  url: ['link'],
  percentile: ['percentile_rank'],
  review_platforms: ['platforms', 'reviews'],
  date: ['measured_at', 'on'],
  month: ['period'],
  average_score: ['avg_score', 'mean_score'],
  projects_count: ['project_count', 'total_projects'],
  scans_count: ['scan_count', 'total_scans'],
  top_projects: ['top', 'best_projects'],
  evolution: ['trend', 'timeline'],
  benchmark: ['global_benchmark'],
  other_projects: ['others', 'siblings'],
  sample_size: ['sample'],
  created_at: ['created', 'generated_at'],
  include: ['requested_sections'],
  impact: ['expected_impact'],
  effort: ['cost'],
};

const SECTION_WRAPPERS = ['content', 'data'] as const;
const SCORE_LIKE = /(score|visibility|percentile|share|rate|average|median|mean|p75|p90|chatgpt|perplexity|gemini|claude|copilot|mistral)/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Does a subtree carry a spec-named key (so dropping it would drop a named field)? */
function holdsSpecNamed(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSpecNamed);
  if (!isObject(value)) return false;
  return Object.entries(value).some(([key, v]) => FROZEN_KEYS.has(key) || NAMED_KEYS.has(key) || UNTOUCHED_SUBTREES.has(key) || holdsSpecNamed(v));
}

/** A path with list positions generalised, so every element of a list is treated alike. */
const place = (path: string[]) => path.map((segment) => (/^\d+$/.test(segment) ? '*' : segment)).join('.');

class Mutator {
  readonly mutations: Mutation[] = [];
  private readonly random: () => number;
  private readonly choices = new Map<string, unknown>();

  constructor(
    seed: number,
    private readonly rate: number,
    private readonly dropValued: boolean,
  ) {
    this.random = mulberry32(seed);
  }

  private chance(): boolean {
    return this.random() < this.rate;
  }

  /** One decision per key or per place, so the whole answer speaks one consistent dialect, as a real server would. */
  private once<T>(decision: string, make: () => T): T {
    if (!this.choices.has(decision)) this.choices.set(decision, make());
    return this.choices.get(decision) as T;
  }

  /** One of `options`; undefined when there is none. */
  private pick<T>(options: readonly T[]): T | undefined {
    return options[Math.floor(this.random() * options.length)];
  }

  private log(kind: MutationKind, path: string[], to?: string): void {
    this.mutations.push({ kind, path: path.join('.'), ...(to === undefined ? {} : { to }) });
  }

  node(value: unknown, path: string[]): unknown {
    if (Array.isArray(value)) return this.list(value, path);
    if (isObject(value)) return this.object(value, path);
    if (typeof value === 'number') return this.number(value, path);
    if (typeof value === 'string') return this.date(value, path);
    return value;
  }

  private number(value: number, path: string[]): unknown {
    const key = path.at(-1) ?? '';
    // Siblings of one kind share a form: a map of assistants or of scores is written one way.
    const scoreLike = SCORE_LIKE.test(key) || SCORE_LIKE.test(path.at(-2) ?? '');
    const form = this.once(`number:${place(path.slice(0, -1))}:${scoreLike}`, () =>
      !this.chance() ? 'number' : scoreLike && this.random() < 0.5 ? 'percent' : 'string',
    );
    if (form === 'number') return value;
    if (form === 'percent' && value >= 0 && value <= 100) {
      this.log('percent', path, `${value}%`);
      return `${value}%`;
    }
    this.log('stringify', path, String(value));
    return String(value);
  }

  private date(value: string, path: string[]): string {
    let forms: string[] = [];
    let match: RegExpExecArray | null;
    if ((match = /^(\d{4}-\d{2})$/.exec(value))) forms = [`${match[1]}-01`, `${match[1]}-01T00:00:00+00:00`];
    else if ((match = /^(\d{4}-\d{2})-01$/.exec(value))) forms = [match[1] as string, `${value}T00:00:00+00:00`];
    else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) forms = [`${value}T00:00:00+00:00`];
    else if ((match = /^(\d{4}-\d{2}-\d{2})T00:00:00(\.000)?(Z|\+00:00)$/.exec(value))) forms = [match[1] as string];
    if (forms.length === 0) return value;
    const choice = this.once(`date:${place(path)}:${forms.length}`, () => (this.chance() ? Math.floor(this.random() * forms.length) : -1));
    const next = forms[choice];
    if (next === undefined) return value;
    this.log('date-form', path, next);
    return next;
  }

  private list(items: unknown[], path: string[]): unknown {
    // Records with a unique string `name` become a map keyed by it.
    const names = items.map((item) => (isObject(item) && typeof item['name'] === 'string' ? item['name'] : null));
    const keyable = items.length > 0 && names.every((n) => n !== null) && new Set(names).size === names.length;
    if (keyable && this.once(`list-to-map:${place(path)}`, () => this.chance())) {
      this.log('list-to-map', path, 'name');
      return Object.fromEntries(
        items.map((item, index) => {
          const { name, ...rest } = item as Json;
          return [String(name), this.object(rest, [...path, String(index)])];
        }),
      );
    }
    const out = items.map((item, index) => this.node(item, [...path, String(index)]));
    if (items.length > 0 && items.every(isObject) && this.once(`wrap-list:${place(path)}`, () => this.chance())) {
      this.log('wrap-list', path, 'items');
      return { items: out, count: out.length };
    }
    return out;
  }

  private object(record: Json, path: string[]): unknown {
    // A webhook record: its named fields stay as they are.
    const webhook = Array.isArray(record['events']);
    const out: Json = {};
    for (const [key, value] of Object.entries(record)) {
      const here = [...path, key];
      if (FROZEN_KEYS.has(key) || UNTOUCHED_SUBTREES.has(key) || (webhook && ['name', 'url', 'events'].includes(key))) {
        out[key] = value;
        continue;
      }
      const named = NAMED_KEYS.has(key);
      const droppable = !named && (this.dropValued || !VALUED_KEYS.has(key));
      if (droppable && !holdsSpecNamed(value) && this.once(`drop:${key}`, () => this.random() < this.rate / 3)) {
        this.log('drop', here);
        continue;
      }
      const mutated = this.node(value, here);
      const synonyms = named ? undefined : SYNONYMS[key];
      let name = key;
      const candidate = synonyms ? this.once(`rename:${key}`, () => (this.chance() ? (this.pick(synonyms) ?? null) : null)) : null;
      if (candidate !== null) {
        if (!(candidate in record) && !(candidate in out) && !FROZEN_KEYS.has(candidate) && !NAMED_KEYS.has(candidate)) {
          name = candidate;
          this.log('rename', here, candidate);
        }
      }
      out[name] = mutated;
    }
    return this.reshape(out, record, path);
  }

  /** Object-level re-nesting, after the children were mutated. */
  private reshape(out: Json, original: Json, path: string[]): unknown {
    // The report wrapper of an answer's data.
    const keys = Object.keys(out);
    if (keys.length === 1 && keys[0] === 'report' && isObject(out['report']) && this.once('unwrap-report', () => this.chance())) {
      this.log('unwrap-report', [...path, 'report']);
      return out['report'];
    }
    // The sections wrapper of a report: renamed, or removed with the sections lifted to the report's top level.
    const sections = out['sections'];
    const wrapperForm = isObject(sections)
      ? this.once(`sections:${place(path)}`, () => (this.chance() ? (this.random() < 0.5 ? 'lift' : 'rename') : 'keep'))
      : 'keep';
    if (isObject(sections) && wrapperForm !== 'keep') {
      const lift = Object.keys(sections).every((name) => !(name in out));
      if (lift && wrapperForm === 'lift') {
        this.log('unwrap-sections', [...path, 'sections']);
        const { sections: _lifted, ...rest } = out;
        return { ...rest, ...sections };
      }
      const wrapper = this.pick(SECTION_WRAPPERS.filter((w) => !(w in out)));
      if (wrapper !== undefined) {
        this.log('rename-sections', [...path, 'sections'], wrapper);
        const renamed: Json = {};
        for (const [key, value] of Object.entries(out)) renamed[key === 'sections' ? wrapper : key] = value;
        return renamed;
      }
    }
    // A map of figures (numbers or { value, unit }) becomes a list of { name, value[, unit] }.
    const entries = Object.entries(original);
    const figures =
      entries.length > 1 &&
      entries.every(
        ([key, v]) =>
          !FROZEN_KEYS.has(key) &&
          !NAMED_KEYS.has(key) &&
          (typeof v === 'number' || (isObject(v) && typeof v['value'] === 'number' && Object.keys(v).every((k) => k === 'value' || k === 'unit'))),
      );
    if (figures && Object.keys(out).length === entries.length && this.once(`map-to-list:${place(path)}`, () => this.chance())) {
      this.log('map-to-list', path, 'name');
      return Object.entries(out).map(([name, v]) => (isObject(v) ? { name, ...v } : { name, value: v }));
    }
    return out;
  }
}

/** A mutated deep copy of `answer`, the same for the same seed. */
export function mutateAnswer(answer: unknown, seed: number, options: MutateOptions = {}): MutatedAnswer {
  const mutator = new Mutator(seed, options.rate ?? 0.35, options.dropValued ?? false);
  const value = mutator.node(structuredClone(answer), []);
  return { value, mutations: mutator.mutations };
}

/** fast-check arbitrary of mutated copies of `answer` (shrinks towards seed 0). */
export function mutatedAnswer(answer: unknown, options: MutateOptions = {}): fc.Arbitrary<MutatedAnswer & { seed: number }> {
  return fc.nat().map((seed) => ({ seed, ...mutateAnswer(answer, seed, options) }));
}
