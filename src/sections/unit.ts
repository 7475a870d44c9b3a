// A report section as one unit: what it needs from a scan, its reader, its part of the model, its partial and
// styles, its phrases, its preview sample and its summary sentence. A new section is one folder and one line in
// ./index.ts; the batch, the plan, the page schema, the template reference and the preview iterate that list.
import type { FactUnit } from '../i18n/figures.js';
import type { z } from 'zod';
import type { Language, Phrases } from '../i18n/locales.js';
import { isRecord, keysNamed, parseText, type JsonRecord } from '../spec/find.js';
import type { ScanSection } from '../spec/vocabulary.js';
import type { MonthPeriod } from '../period.js';

/** What a section needs of a scan (like Lighthouse's `requiredArtifacts`): asked for, and looked for in the answer. */
export interface SectionNeeds {
  /** Scan sections to ask for with `include`. */
  scan: readonly ScanSection[];
  /** Steps of the SEO audit to ask for with `seo_steps` (empty: the section reads none of them). */
  seoSteps: readonly string[];
}

/** What a section's view is made from: this period's scan read, last period's (null on a first report). */
export interface SectionInput<Read> {
  now: Read;
  before: Read | null;
  /** YYYY-MM of `before`; null when there is none. */
  beforePeriod: MonthPeriod | null;
  language: Language;
  /** The words of that language (the locale file, the agency's own laid over it): every phrase the view writes. */
  phrases: Phrases;
  /** The client's site: its name and domain (to tell it from the competitors an answer names). */
  site: Site;
}

export interface Site {
  name: string;
  domain: string | null;
  /** The client's other domains (`clients."<id>".ownDomains`). */
  ownDomains?: readonly string[] | undefined;
  /** The competitors the agency lists (`clients."<id>".competitors`), "Rival Ltd = rival.example" merging names. */
  competitors?: readonly string[] | undefined;
}

export interface SectionDefinition<Read, View> {
  /** The key in the model (`sections.<name>`), in the config switches and in the partial's name (`section-<name>`). */
  name: string;
  needs: SectionNeeds;
  /** On unless the config switches it off (`report.sections`, `clients."<id>".sections`). */
  defaultOn: boolean;
  /** Reads a scan answer; null when the scan lacks what the section needs (the section is then left out). */
  read(scan: JsonRecord): Read | null;
  /** Where the scan holds the section's input (`result.geo.prompts`), for doctor; null when it does not. */
  locate?(scan: JsonRecord): string | null;
  schema: z.ZodType<View>;
  view(input: SectionInput<Read>): View;
  /** The section's sentence for the report's summary; null when it has nothing to say. */
  summary(view: View, phrases: Phrases, language: Language): string | null;
  /** Handlebars source of the partial `section-<name>`; it gets the section's view as its context. */
  partial: string;
  /** CSS added to the report's stylesheet when the section is shown. */
  styles: string;
  /** A view for the template preview and the template reference. */
  sample(language: Language, phrases: Phrases): View;
  /** The figures the view shows, as facts of the report's table (report/facts.ts): what the export writes of it. */
  facts(view: View): SectionFact[];
}

/** A figure a section shows: its key inside the section, its value and unit; its month and source are the scan's. */
export interface SectionFact {
  key: string;
  value: number | null;
  unit: FactUnit;
  direction?: 'higher' | 'lower';
}

/** A section, its types erased so that every section fits in one list. */
export interface Section {
  name: string;
  needs: SectionNeeds;
  defaultOn: boolean;
  schema: z.ZodType;
  partial: string;
  styles: string;
  /** Whether the scan has what the section needs. */
  readable(scan: JsonRecord): boolean;
  /** Where the scan holds the section's input, for doctor; null when it does not. */
  locate(scan: JsonRecord): string | null;
  /** The view and summary sentence from this period's scan and last period's; null when `now` lacks the input. */
  build(
    now: JsonRecord,
    before: { scan: JsonRecord; period: MonthPeriod } | null,
    language: Language,
    phrases: Phrases,
    site?: Site,
  ): { view: unknown; summary: string | null; facts: SectionFact[] } | null;
  sample(language: Language, phrases: Phrases): unknown;
}

export function defineSection<Read, View>(definition: SectionDefinition<Read, View>): Section {
  return {
    name: definition.name,
    needs: definition.needs,
    defaultOn: definition.defaultOn,
    schema: definition.schema,
    partial: definition.partial,
    styles: definition.styles,
    readable: (scan) => definition.read(scan) !== null,
    locate: (scan) => (definition.read(scan) === null ? null : (definition.locate?.(scan) ?? null)),
    build(now, before, language, phrases, site = { name: '', domain: null }) {
      const read = definition.read(now);
      if (read === null) return null;
      const earlier = before === null ? null : definition.read(before.scan);
      const view = definition.view({ now: read, before: earlier, beforePeriod: earlier === null ? null : (before?.period ?? null), language, phrases, site });
      return { view, summary: definition.summary(view, phrases, language), facts: definition.facts(view) };
    },
    sample: (language, phrases) => definition.sample(language, phrases),
  };
}

const SECTION_WRAPPERS = ['sections', 'data', 'results', 'result', 'scan'];
/** Wrappers inside wrappers (`data.scan.result.geo`): at most this deep. */
const WRAPPER_DEPTH = 3;

/** A scan section by name, at the top of the answer or under wrappers (`scan.result`, `sections`, `data`); null when absent. */
export function scanPart(scan: JsonRecord, names: readonly string[]): JsonRecord | null {
  return scanPartAt(scan, names)?.record ?? null;
}

/** Like scanPart, with the path it was found at (`scan.result.geo`), for doctor. */
export function scanPartAt(scan: JsonRecord, names: readonly string[]): { record: JsonRecord; path: string } | null {
  let level: Array<{ record: JsonRecord; path: string }> = [{ record: scan, path: '' }];
  for (let depth = 0; depth <= WRAPPER_DEPTH && level.length > 0; depth += 1) {
    for (const { record, path } of level) {
      for (const key of keysNamed(record, names)) {
        const value = record[key];
        if (isRecord(value)) return { record: value, path: path === '' ? key : `${path}.${key}` };
      }
    }
    level = level.flatMap(({ record, path }) =>
      keysNamed(record, SECTION_WRAPPERS).flatMap((key) => {
        const inner = record[key];
        return isRecord(inner) ? [{ record: inner, path: path === '' ? key : `${path}.${key}` }] : [];
      }),
    );
  }
  return null;
}

/** A value under one of `names` in `record`, else in one of its SEO audit steps (`steps.step4_keywords.…`). */
export function inRecordOrSteps(record: JsonRecord, names: readonly string[]): unknown {
  return inRecordOrStepsAt(record, names)?.value;
}

/** Like inRecordOrSteps, with the path from `record` it was found at (`steps.step4_keywords.keyword_rankings`). */
export function inRecordOrStepsAt(record: JsonRecord, names: readonly string[]): { value: unknown; path: string } | null {
  for (const key of keysNamed(record, names)) if (record[key] !== undefined && record[key] !== null) return { value: record[key], path: key };
  for (const stepsKey of keysNamed(record, ['steps'])) {
    const steps = record[stepsKey];
    const entries: Array<[string, unknown]> = Array.isArray(steps)
      ? (steps as unknown[]).map((step, index) => [String(index), step])
      : isRecord(steps)
        ? Object.entries(steps)
        : [];
    for (const [name, step] of entries) {
      if (!isRecord(step)) continue;
      for (const key of keysNamed(step, names))
        if (step[key] !== undefined && step[key] !== null) return { value: step[key], path: `${stepsKey}.${name}.${key}` };
    }
  }
  return null;
}

/** The first non-empty text under one of `names` in `record` (a number as text too); null when none is. */
export function textOf(record: JsonRecord, names: readonly string[]): string | null {
  for (const key of keysNamed(record, names)) {
    const text = parseText(record[key]);
    if (text !== null) return text;
  }
  return null;
}
