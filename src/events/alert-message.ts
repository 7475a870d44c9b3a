// The words of an alert, in the agency's language: the client's name (its display name, else the name in its
// latest report), what happened with the scores before and after, and where its latest report is.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { formatNumber, phrase } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import { outgoingText, unlinkedHosts } from '../outgoing-text.js';
import { readManifest, type ProjectEntry } from '../output/store.js';
import { isPeriod, type MonthPeriod } from '../period.js';
import type { AlertMessage } from './alert-channel.js';
import type { OutcomeLine } from './journal.js';

/** How many months back the latest report of a project is looked for. */
const REPORT_LOOKBACK = 13;

/** The project's entry in the newest period folder that has its report done, with that period. */
export async function latestReport(outDir: string, projectId: number): Promise<{ period: MonthPeriod; entry: ProjectEntry } | null> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch {
    return null;
  }
  const periods = names.filter(isPeriod).sort().reverse().slice(0, REPORT_LOOKBACK);
  for (const period of periods) {
    const manifest = await readManifest(join(outDir, period)).catch(() => null);
    const entry = manifest?.projects.find((e) => e.id === projectId && e.status === 'done');
    if (entry !== undefined) return { period, entry };
  }
  return null;
}

export async function alertMessage(
  alert: OutcomeLine['alerts'][number],
  context: { config: Config; outDir: string; phrases: Phrases; language: string },
): Promise<AlertMessage> {
  const { config, phrases, language } = context;
  const latest = await latestReport(context.outDir, alert.projectId);
  const named =
    config.clients[String(alert.projectId)]?.displayName ?? latest?.entry.name ?? phrase(phrases, 'summary.projectFallback', { id: String(alert.projectId) });
  // The name is the service's: one clean line, and a hostname in it no link in a mail or a chat.
  const client = unlinkedHosts(outgoingText(named, { oneLine: true }));
  const number = (value: number | null): string => (value === null ? '—' : formatNumber(value, language, { maximumFractionDigits: 1 }));
  const points = alert.before !== null && alert.after !== null ? number(Math.round((alert.before - alert.after) * 10) / 10) : '—';
  const params = { client, before: number(alert.before), after: number(alert.after), points };
  const lines = [phrase(phrases, `alert.${alert.kind}.text`, params)];
  const report = latest?.entry.files.pdf ?? latest?.entry.files.html ?? null;
  if (latest !== null && report !== null) {
    lines.push(phrase(phrases, 'alert.lastReport', { period: latest.period, path: join(context.outDir, latest.period, report) }));
  }
  lines.push(phrase(phrases, 'alert.footer', { agency: config.agency.name }));
  return { key: alert.key, projectId: alert.projectId, subject: phrase(phrases, `alert.${alert.kind}.subject`, params), text: lines.join('\n') };
}
