// The manifest's project entries → the agency overview model (index.html), shared by the batch and by `send`.
import type { ProjectEntry } from '../output/store.js';
import type { Branding, IndexEmail, IndexModel, Language } from './model.js';

export interface IndexInput {
  period: string;
  periodLabel: string;
  generatedAt: string;
  language: Language;
  branding: Branding;
  projects: ProjectEntry[];
}

export function buildIndexModel(input: IndexInput): IndexModel {
  const rows = input.projects;
  return {
    period: input.period,
    periodLabel: input.periodLabel,
    generatedAt: input.generatedAt,
    language: input.language,
    branding: input.branding,
    rows: rows.map((e) => ({
      projectId: e.id,
      name: e.name,
      status: e.status,
      held: e.released ? [] : e.held,
      geo: e.geo,
      change:
        e.geoChange === null || e.geo === null
          ? null
          : {
              value: e.geoChange,
              direction: Math.abs(e.geoChange) < 0.05 ? 'flat' : e.geoChange > 0 ? 'up' : 'down',
              previous: e.geo - e.geoChange,
            },
      percentile: e.percentile,
      openCritical: e.openCritical,
      htmlHref: e.files.html,
      pdfHref: e.files.pdf,
      error: e.error ?? null,
      email: emailOf(e),
    })),
    totals: {
      done: rows.filter((e) => e.status === 'done').length,
      failed: rows.filter((e) => e.status === 'failed').length,
      pending: rows.filter((e) => e.status === 'pending').length,
      skipped: rows.filter((e) => e.status === 'skipped').length,
      held: rows.filter((e) => e.held.length > 0 && !e.released).length,
    },
  };
}

function emailOf(entry: ProjectEntry): IndexEmail {
  const email = entry.email;
  if (email === undefined) return { status: 'not_sent', at: null, reason: null };
  switch (email.status) {
    case 'sent':
      return { status: 'sent', at: email.at, reason: null };
    case 'failed':
      return { status: 'failed', at: email.at, reason: email.error ?? null };
    // `sending` outside a send means the sender stopped mid-transaction: the message may have arrived.
    case 'sending':
    case 'unknown':
      return { status: 'unknown', at: email.at, reason: email.error ?? null };
  }
}
