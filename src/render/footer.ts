// The PDF's running footer: the agency, the client (shortened so the page label always fits) and the period.
import type { Branding, ReportModel } from '../report/model.js';

/** Longest client name shown in the footer. */
const FOOTER_CLIENT_CHARS = 60;

export function footerText(branding: Branding, model: Pick<ReportModel, 'client' | 'meta'>): string {
  return `${branding.agencyName} · ${shorten(model.client.name, FOOTER_CLIENT_CHARS)} · ${model.meta.periodLabel}`;
}

/** "Page {page} of {pages}" in the report's language. */
export function pageLabel(phrases: Readonly<Record<string, string>>): string {
  return phrases['print.page'] ?? 'Page {page} of {pages}';
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
