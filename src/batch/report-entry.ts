// A project's manifest entry: as a run first lists it, and as its report leaves it once written. Pure.
import type { Project } from '../api/schemas.js';
import { projectSlug, type ProjectEntry } from '../output/store.js';
import { reportFigures } from '../report/email-model.js';
import type { ReportModel } from '../report/model.js';
import { madeBeforePeriodEnd } from '../report/period-wording.js';
import { toPeriod } from '../period.js';

/** A selected project's first entry: pending, nothing written. */
export function newEntry(project: Project, now: string): ProjectEntry {
  return {
    id: project.id,
    name: project.name ?? `Project ${project.id}`,
    slug: projectSlug(project.id, project.name),
    status: 'pending',
    files: { html: null, pdf: null, data: null },
    held: [],
    released: false,
    reportId: null,
    geo: null,
    geoChange: null,
    percentile: null,
    openCritical: 0,
    notes: [],
    ...(project.language === undefined ? {} : { projectLanguage: project.language.slice(0, 35) }),
    updatedAt: now,
  };
}

/** What a written report says of itself, and how it was made. */
export interface WrittenReport {
  model: ReportModel;
  /** Data-quality notes for the agency. */
  notes: string[];
  /** The configured display name the report was made with; null when it shows the project's name. */
  displayName: string | null;
  /** The goals' labels in the agency's language (for the index), in the model's order; absent: the report's labels. */
  goalLabels?: readonly string[] | undefined;
  /** The scan sections on for the client that the report was made without, and why. @default none */
  sectionsLeftOut?: ReadonlyArray<{ section: string; reason: string }>;
  /** The SHA-256 of report.html as written, after the page check passed it; absent: publish checks the page. */
  checkedPage?: string | undefined;
}

/**
 * The entry of a written report: what it says (its figures, summary, note and goals) and how it was made (language,
 * display name), done. Every field the entry had keeps its place; one the report no longer has is left out.
 */
export function doneEntry(entry: ProjectEntry, report: WrittenReport, now: string): ProjectEntry {
  const { model, goalLabels } = report;
  const figures = reportFigures(model);
  const done: ProjectEntry = {
    ...entry,
    status: 'done',
    reportId: null,
    held: model.held,
    released: false,
    geo: figures.geo,
    geoChange: figures.geoChange,
    seo: figures.seo,
    seoChange: figures.seoChange,
    // The email's third figure: the assistant the summary names as having moved the most.
    ...(figures.aiMover !== undefined ? { aiMover: figures.aiMover } : {}),
    percentile: model.scores?.percentile ?? null,
    openCritical: model.recommendations?.groups.find((g) => g.priority === 'critical')?.items.length ?? 0,
    notes: report.notes,
    ...(report.sectionsLeftOut !== undefined && report.sectionsLeftOut.length > 0 ? { sectionsLeftOut: [...report.sectionsLeftOut] } : {}),
    summary: model.summary,
    ...(model.client.note !== null ? { note: model.client.note } : {}),
    ...(model.goals !== null ? { goals: model.goals.map(({ metric, label, status }, i) => ({ metric, label: goalLabels?.[i] ?? label, status })) } : {}),
    // The email speaks the report's language with the report's name, whatever the config says when it is sent.
    language: model.meta.language,
    ...(report.displayName !== null ? { displayName: report.displayName } : {}),
    ...(report.checkedPage !== undefined ? { checkedPage: report.checkedPage } : {}),
    ...(madeBeforePeriodEnd(toPeriod(model.meta.period), model.meta.generatedAt) ? { madeBeforeEnd: true as const } : {}),
    updatedAt: now,
  };
  delete done.error;
  if (figures.aiMover === undefined) delete done.aiMover;
  if (model.client.note === null) delete done.note;
  if (model.goals === null) delete done.goals;
  if (report.displayName === null) delete done.displayName;
  if (report.sectionsLeftOut === undefined || report.sectionsLeftOut.length === 0) delete done.sectionsLeftOut;
  if (report.checkedPage === undefined) delete done.checkedPage;
  if (!madeBeforePeriodEnd(toPeriod(model.meta.period), model.meta.generatedAt)) delete done.madeBeforeEnd;
  return done;
}
