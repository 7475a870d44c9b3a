// The language and name a report was made with, as its manifest entry records them: whatever carries the report (an
// email, the client's page on the site) speaks as the report does, whatever the config says now.
import type { Language } from '../i18n/locales.js';
import { reportLanguage } from '../i18n/report-language.js';
import type { ProjectEntry } from './store.js';

/** What the config says of a client's report now (a part of Config: the output folder does not read the config). */
export interface ConfiguredReports {
  clients: Record<string, { language?: Language | undefined; displayName?: string | undefined; email?: { subject?: string | undefined } | undefined } | undefined>;
  report: { language: Language; followProjectLanguage: boolean };
}

/** The language the config now gives a client's report (reportLanguage), the service's language for its project as `service`. */
export function configuredLanguage(config: ConfiguredReports, projectId: number, service: string | null | undefined): Language {
  return reportLanguage({
    pinned: config.clients[String(projectId)]?.language,
    service,
    followService: config.report.followProjectLanguage,
    fallback: config.report.language,
  });
}

export interface ReportAsMade {
  language: Language;
  /** The display name the report was made with, else the project's name. */
  clientName: string;
  configuredLanguage: Language;
  /** The config now says another language or name than the report was made with: what is sent, and the fix. */
  notice: string | null;
}

/**
 * The language and name the report was made with, which whatever carries it speaks (one language per message, the
 * report's name); with a notice naming `carrier` when the config now says otherwise. A manifest of an earlier
 * version records neither: the config decides, as it did then.
 */
export function reportAsMade(
  entry: ProjectEntry,
  config: ConfiguredReports,
  /** What carries the report, as the notice names it ("email"), and whether it only would (a dry run); none: no notice. */
  carrier: { name: string; dryRun: boolean } | null = null,
): ReportAsMade {
  const client = config.clients[String(entry.id)];
  const configured = configuredLanguage(config, entry.id, entry.projectLanguage);
  const configuredName = client?.displayName?.trim() || null;
  if (entry.language === undefined) {
    return { language: configured, clientName: configuredName ?? entry.name, configuredLanguage: configured, notice: null };
  }
  const madeName = entry.displayName ?? null;
  const clientName = madeName ?? entry.name;
  const changes: string[] = [];
  if (entry.language !== configured) changes.push(`language "${configured}"`);
  if (madeName !== configuredName) changes.push(`name "${configuredName ?? entry.name}"`);
  if (changes.length === 0 || carrier === null) return { language: entry.language, clientName, configuredLanguage: configured, notice: null };
  const subject =
    client?.email?.subject !== undefined && entry.language !== configured
      ? ` (without clients."${entry.id}".email.subject, written for "${configured}")`
      : '';
  return {
    language: entry.language,
    clientName,
    configuredLanguage: configured,
    notice:
      `Project ${entry.id} (${clientName}): its report was made in "${entry.language}" as "${clientName}", but the config now says ${changes.join(' and ')}. ` +
      `The ${carrier.name} ${carrier.dryRun ? 'would go' : 'goes'} as the report is: in "${entry.language}", as "${clientName}"${subject}. ` +
      `Fix: \`geo-reports report ${entry.id}\` makes the report again with the config (then \`geo-reports send --resend --project ${entry.id}\` if this one was sent).`,
  };
}
