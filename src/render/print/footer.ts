// The PDF's running footer: the agency's footer line (agency.footer) left, "Page X of Y" right, on every page.
import type { Branding, ReportModel } from '../../report/model.js';

/** Longest client name shown in the footer that stands in for a blank agency.footer. */
const FOOTER_CLIENT_CHARS = 60;

/** agency.footer as configured; when it is blank, the agency, the client (shortened) and the period. */
export function footerText(branding: Pick<Branding, 'agencyName' | 'footer'>, model: Pick<ReportModel, 'client' | 'meta'>): string {
  const own = branding.footer.trim();
  if (own !== '') return own;
  return `${branding.agencyName} · ${shorten(model.client.name, FOOTER_CLIENT_CHARS)} · ${model.meta.periodLabel}`;
}

/** "Page {page} of {pages}" in the report's language. */
export function pageLabel(phrases: Readonly<Record<string, string>>): string {
  return phrases['print.page'] ?? 'Page {page} of {pages}';
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
