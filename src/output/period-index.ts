// The agency overview of a period (index.html): the manifest's entries → IndexModel → the page. The batch, `send`
// and `merge` all write it through writePeriodIndex, so the three always show the same page.
import { join } from 'node:path';
import type { Phrases } from '../i18n/locales.js';
import { periodNameIn, periodWording } from '../report/period-wording.js';
import { changeDirection } from '../report/deltas.js';
import type { Branding, IndexEmail, IndexModel, Language } from '../report/model.js';
import { writeFileAtomic, type Manifest, type ProjectEntry } from './store.js';
import { isMonth, lastMonth, type Period } from '../period.js';

export const INDEX_FILE = 'index.html';

export function buildIndexModel(input: {
  period: Period;
  entries: readonly ProjectEntry[];
  /** The account's statistics, when the run could read them. */
  account?: Manifest['account'];
  language: Language;
  branding: Branding;
  generatedAt: string;
  /** The phrases of the index's language. */
  phrases: Phrases;
}): IndexModel {
  const { entries } = input;
  return {
    period: input.period,
    // A period with a report made before its end is shown as it is: part of a month.
    periodLabel: isMonth(input.period)
      ? periodWording(input.period, input.language, input.phrases, entries.some((e) => e.status === 'done' && e.madeBeforeEnd === true))
      : periodNameIn(input.period, input.language, input.phrases),
    generatedAt: input.generatedAt,
    language: input.language,
    branding: input.branding,
    account: accountOfPeriod(input.account ?? null, input.period),
    showGoals: entries.some((e) => e.goals !== undefined && e.goals.length > 0),
    rows: entries.map((e) => ({
      projectId: e.id,
      // The agency reads its clients by the names their reports carry: the display name when one is configured.
      name: e.displayName ?? e.name,
      status: e.status,
      held: e.released ? [] : e.held,
      geo: e.geo,
      change:
        e.geoChange === null || e.geo === null
          ? null
          : {
              value: e.geoChange,
              direction: changeDirection(e.geoChange),
              previous: e.geo - e.geoChange,
            },
      percentile: e.percentile,
      openCritical: e.openCritical,
      htmlHref: e.files.html,
      pdfHref: e.files.pdf,
      error: e.error ?? null,
      notes: e.notes,
      sectionsLeftOut: e.status === 'done' ? (e.sectionsLeftOut ?? []) : [],
      goalsOff: (e.goals ?? []).flatMap(({ label, status }) => (status === 'behind' || status === 'missed' ? [{ label, status }] : [])),
      email: emailOf(e),
    })),
    totals: {
      done: entries.filter((e) => e.status === 'done').length,
      failed: entries.filter((e) => e.status === 'failed').length,
      pending: entries.filter((e) => e.status === 'pending').length,
      skipped: entries.filter((e) => e.status === 'skipped').length,
      held: entries.filter((e) => e.held.length > 0 && !e.released).length,
    },
  };
}

/** The account's statistics as a page of `period` shows them: no month after the period in the evolution. */
function accountOfPeriod(account: IndexModel['account'], period: Period): IndexModel['account'] {
  return account === null ? null : { ...account, evolution: account.evolution.filter((point) => point.month <= lastMonth(period)) };
}

function emailOf(entry: ProjectEntry): IndexEmail {
  const email = entry.deliveries?.email;
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

/** How the page looks: the renderer's index template, in the agency's language and branding. */
export interface IndexPage {
  renderIndex: (model: IndexModel) => string;
  language: Language;
  branding: Branding;
  /** The phrases of `language`, as the renderer has them (an agency's locale files over the built-in ones). */
  phrases: Phrases;
}

/** Writes `<periodDir>/index.html` from the manifest's entries. */
export async function writePeriodIndex(input: {
  periodDir: string;
  manifest: Pick<Manifest, 'period' | 'projects' | 'account'>;
  page: IndexPage;
  generatedAt: string;
  /** Writes the page. @default writeFileAtomic */
  write?: (path: string, html: string) => Promise<void>;
}): Promise<void> {
  const { manifest, page } = input;
  const model = buildIndexModel({
    period: manifest.period,
    entries: manifest.projects,
    account: manifest.account ?? null,
    language: page.language,
    branding: page.branding,
    phrases: page.phrases,
    generatedAt: input.generatedAt,
  });
  await (input.write ?? writeFileAtomic)(join(input.periodDir, INDEX_FILE), page.renderIndex(model));
}
