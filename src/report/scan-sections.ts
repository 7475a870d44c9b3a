// The period's scan → the report's scan sections (src/sections), each with its summary sentence. A section whose
// input the scan lacks is left out with one note for the agency, named with its reason (the run's summary and the
// agency index show it); the report goes on without it, held only when the agency listed it in requiredSections.
import { phrase } from '../i18n/format.js';
import type { Language, Phrases } from '../i18n/locales.js';
import type { Section } from '../sections/index.js';
import { FactTableBuilder, type Fact } from './facts.js';
import type { ReportModel } from './model.js';
import type { SavedScan } from './period-data.js';

export interface ScanSectionsInput {
  /** The sections switched on for this client, in the list's order. */
  sections: readonly Section[];
  /** The period's scan; null when the period has none. */
  scan: SavedScan | null;
  /** Last period's scan; null on a first report or when it read none. */
  before: { scan: SavedScan; period: string } | null;
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

/** The model with its scan sections and their summary sentences; the notes and `leftOut` say which were left out and why. */
export function withScanSections(model: ReportModel, input: ScanSectionsInput): { model: ReportModel; notes: string[]; leftOut: SectionLeftOut[] } {
  if (input.sections.length === 0) return { model, notes: [], leftOut: [] };
  const notes: string[] = [];
  const leftOut: SectionLeftOut[] = [];
  const views: Record<string, unknown> = {};
  const sentences: string[] = [];
  // Each section's figures join the report's fact table, dated by the scan they were read from.
  const facts = new FactTableBuilder(input.language);
  for (const section of input.sections) {
    if (input.scan === null) {
      views[section.name] = null;
      leftOut.push({ section: section.name, reason: `no completed scan dated in ${model.meta.period}` });
      continue;
    }
    const before = input.before === null ? null : { scan: input.before.scan.data, period: input.before.period };
    let built: ReturnType<Section['build']>;
    try {
      built = section.build(input.scan.data, before, input.language, input.phrases, { name: model.client.name, domain: model.client.domain });
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
    if (built.summary !== null) sentences.push(built.summary);
    const scan = input.scan;
    for (const fact of built.facts) {
      facts.add({ ...fact, key: `${section.name}.${fact.key}`, month: scan.date.slice(0, 7), date: scan.date, source: 'scan' });
    }
  }
  if (input.scan === null)
    notes.push(`Sections ${input.sections.map((s) => `"${s.name}"`).join(', ')} left out: no completed scan dated in ${model.meta.period}.`);
  const required = new Set(input.required ?? []);
  const phrases = input.phrases;
  const held = leftOut
    .filter((out) => required.has(out.section))
    .map((out) => phrase(phrases, 'check.scanSectionMissing', { section: phrase(phrases, `check.section.${out.section}`) }));
  const added: Fact[] = facts.table();
  return {
    model: { ...model, sections: views, summary: [...model.summary, ...sentences], held: [...model.held, ...held], facts: [...model.facts, ...added] },
    notes,
    leftOut,
  };
}
