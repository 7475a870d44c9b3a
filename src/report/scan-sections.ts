// The period's scan → the report's scan sections (src/sections), whose sentences the summary writes. A section whose
// input the scan lacks is left out with one note for the agency, named with its reason (the run's summary and the
// agency index show it); the report goes on without it, held only when the agency listed it in requiredSections.
import { phrase } from '../i18n/format.js';
import type { Language, Phrases } from '../i18n/locales.js';
import type { Section } from '../sections/index.js';
import type { Site } from '../sections/unit.js';
import { FactTableBuilder, type Fact } from './facts.js';
import type { ReportModel } from './model.js';
import type { SavedScan } from './period-data.js';
import { monthOfDateOrNull, toMonth, type MonthPeriod } from '../period.js';

export interface ScanSectionsInput {
  /** The sections switched on for this client, in the list's order. */
  sections: readonly Section[];
  /** The period's scan; null when the period has none. */
  scan: SavedScan | null;
  /** Last period's scan; null on a first report or when it read none. */
  before: { scan: SavedScan; period: MonthPeriod } | null;
  language: Language;
  /** The pre-send check's `requiredSections`: a scan section named there and left out holds the report. @default none */
  required?: readonly string[];
  /** The client's phrases: the sections' words, and the held reason. */
  phrases: Phrases;
}

/** A scan section the report was made without, and why (for the agency). */
export interface SectionLeftOut {
  section: string;
  reason: string;
}

/** The scan sections read from the period's scan: their views by name, their facts, and what was left out and why. */
export interface ScanSectionsRead {
  views: Record<string, unknown>;
  facts: Fact[];
  notes: string[];
  leftOut: SectionLeftOut[];
  /** Why the report is held: a required section left out (empty when none is, or no phrases were given). */
  held: string[];
}

/**
 * Builds each scan section on for the client from the period's scan, before the report is assembled: the summary
 * speaks of them (a keyword entering the top 3, the share of AI answers naming the site), so it needs their views.
 */
export function readScanSections(input: ScanSectionsInput & { period: MonthPeriod; site: Site }): ScanSectionsRead {
  const notes: string[] = [];
  const leftOut: SectionLeftOut[] = [];
  const views: Record<string, unknown> = {};
  // Each section's figures join the report's fact table, dated by the scan they were read from.
  const facts = new FactTableBuilder(input.language);
  for (const section of input.sections) {
    if (input.scan === null) {
      views[section.name] = null;
      leftOut.push({ section: section.name, reason: `no completed scan dated in ${input.period}` });
      continue;
    }
    const before = input.before === null ? null : { scan: input.before.scan.data, period: input.before.period };
    let built: ReturnType<Section['build']>;
    try {
      built = section.build(input.scan.data, before, input.language, input.phrases, input.site);
    } catch (error) {
      // One section's failure is kept to that section (like a Lighthouse audit): the report goes on without it.
      views[section.name] = null;
      const reason = `reading scan ${input.scan.id} failed (${error instanceof Error ? error.message : String(error)})`;
      leftOut.push({ section: section.name, reason });
      notes.push(`Section "${section.name}" left out: ${reason}.`);
      continue;
    }
    if (built === null) {
      views[section.name] = null;
      const reason = `scan ${input.scan.id} has none of its input (${section.needs.scan.join(', ')})`;
      leftOut.push({ section: section.name, reason });
      notes.push(`Section "${section.name}" left out: ${reason}.`);
      continue;
    }
    views[section.name] = built.view;
    const scan = input.scan;
    for (const fact of built.facts) {
      facts.add({ ...fact, key: `${section.name}.${fact.key}`, month: monthOfDateOrNull(scan.date), date: scan.date, source: 'scan' });
    }
  }
  if (input.scan === null && input.sections.length > 0)
    notes.push(`Sections ${input.sections.map((s) => `"${s.name}"`).join(', ')} left out: no completed scan dated in ${input.period}.`);
  const required = new Set(input.required ?? []);
  const phrases = input.phrases;
  const held = leftOut
    .filter((out) => required.has(out.section))
    .map((out) => phrase(phrases, 'check.scanSectionMissing', { section: phrase(phrases, `check.section.${out.section}`) }));
  return { views, facts: facts.table(), notes, leftOut, held };
}

/** The scan sections a report assembled with their views (`assembleReport`'s scanSections) add to its model. */
export function withScanSectionsRead(model: ReportModel, read: ScanSectionsRead): { model: ReportModel; notes: string[]; leftOut: SectionLeftOut[] } {
  if (Object.keys(read.views).length === 0 && read.leftOut.length === 0) return { model, notes: [], leftOut: [] };
  return {
    model: { ...model, sections: read.views, held: [...model.held, ...read.held], facts: [...model.facts, ...read.facts] },
    notes: read.notes,
    leftOut: read.leftOut,
  };
}

/**
 * The model with its scan sections, for a model assembled without them (the summary then does not speak of
 * them); the notes and `leftOut` say which were left out and why.
 */
export function withScanSections(model: ReportModel, input: ScanSectionsInput): { model: ReportModel; notes: string[]; leftOut: SectionLeftOut[] } {
  if (input.sections.length === 0) return { model, notes: [], leftOut: [] };
  const site = { name: model.client.name, domain: model.client.domain };
  return withScanSectionsRead(model, readScanSections({ ...input, period: toMonth(model.meta.period), site }));
}
