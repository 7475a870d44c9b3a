// Pre-send checks: signs that the API data is broken, which hold a report back for a human look before it goes out.
import type { ReportSection } from '../api/schemas.js';
import type { ReportContent } from '../content/report.js';
import { formatNumber, phrase, pluralPhrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { asShown, difference } from './deltas.js';

export type CheckRule =
  | 'geo-missing'
  | 'geo-zero'
  | 'history-empty'
  | 'geo-drop'
  | 'section-missing'
  // The report's own consistency (consistency.ts).
  | 'month-after-period'
  | 'headline-history'
  | 'last-period'
  | 'change-difference'
  | 'goal-headline';

export interface HeldReason {
  rule: CheckRule;
  /** Localised, shown to the agency. */
  message: string;
}

export interface PreSendCheckInput {
  language: string;
  phrases: Phrases;
  report: ReportContent;
  /** The previous period's report, only when it is from an earlier period. */
  previousReport: ReportContent | null;
  /** Sections the client sees; a switched-off section is neither required nor checked. */
  sections: Readonly<Record<ReportSection, boolean>>;
  requiredSections: readonly ReportSection[];
  /**
   * The GEO the report shows for its period and its last-period value (report/months.ts).
   * @default the report's and the previous report's scores section
   */
  geo?: { value: number | null; previous: number | null };
  /** A GEO drop larger than this many points holds the report. */
  maxScoreDrop: number;
}

/** Every reason to hold this report; empty when it may be sent. */
export function runPreSendChecks(input: PreSendCheckInput): HeldReason[] {
  const { language, phrases, report, sections } = input;
  const held: HeldReason[] = [];
  const previous = input.previousReport;
  const num = (value: number): string => formatNumber(value, language);

  const missingRequired = new Set<ReportSection>();
  for (const section of new Set(input.requiredSections)) {
    if (!sections[section]) continue;
    if (!report.present.includes(section)) {
      missingRequired.add(section);
      held.push({
        rule: 'section-missing',
        message: phrase(phrases, 'check.sectionMissing', { section: phrase(phrases, `check.section.${section}`) }),
      });
    }
  }

  if (sections.scores && !missingRequired.has('scores')) {
    const geo = input.geo === undefined ? (report.scores?.geo ?? null) : input.geo.value;
    if (geo === null) held.push({ rule: 'geo-missing', message: phrase(phrases, 'check.geoMissing') });
    else if (geo === 0) held.push({ rule: 'geo-zero', message: phrase(phrases, 'check.geoZero') });
    const before = input.geo === undefined ? (previous?.scores?.geo ?? null) : input.geo.previous;
    const drop = geo === null || before === null ? null : difference(before, geo);
    if (geo !== null && before !== null && drop !== null && drop > input.maxScoreDrop) {
      held.push({
        rule: 'geo-drop',
        message: phrase(phrases, 'check.geoDrop', {
          drop: num(drop),
          points: pluralPhrase(phrases, language, 'summary.points', asShown(drop)),
          previous: num(before),
          value: num(geo),
          limit: num(input.maxScoreDrop),
        }),
      });
    }
  }

  if (sections.history && !missingRequired.has('history')) {
    const hadHistory = (previous?.history?.length ?? 0) > 0;
    const hasHistory = (report.history?.length ?? 0) > 0;
    if (hadHistory && !hasHistory) held.push({ rule: 'history-empty', message: phrase(phrases, 'check.historyEmpty') });
  }

  return held;
}
