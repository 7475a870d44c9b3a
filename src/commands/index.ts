// The command registry: each command's name, its line in `geo-reports --help`, and how to load it, in the order
// the help lists them. Nothing here imports a command: `--help` and an unknown name load none, and a command,
// loaded only when named, imports what it needs at its top.
import { SMTP_URL_ENV } from '../config/environment.js';
import { nearestName } from '../nearest-name.js';
import type { Command } from './define.js';

export type { Command } from './define.js';
export type { CommandContext } from '../command-context.js';

export interface CommandEntry {
  name: string;
  /** The command's line in the command list: its name and how it is called. */
  synopsis: string;
  /** What it does, in one line of the command list. */
  summary: string;
  /** The command's module, whose default export is the command. */
  load: () => Promise<{ default: Command }>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', synopsis: 'run', summary: 'the monthly batch: every selected project to HTML + PDF, resumable', load: () => import('./run.js') },
  {
    name: 'merge',
    synopsis: 'merge --period YYYY-MM --out DIR SRC...',
    summary: 'combine the shards of a period into one folder',
    load: () => import('./merge.js'),
  },
  { name: 'report', synopsis: 'report <project-id>', summary: "one project's report now (HTML + PDF)", load: () => import('./report.js') },
  { name: 'send', synopsis: 'send', summary: `email each client its report, once (SMTP from ${SMTP_URL_ENV})`, load: () => import('./send.js') },
  {
    name: 'publish',
    synopsis: 'publish [--out DIR] [--site DIR] [--base-url URL]',
    summary: "every client's reports as static pages at a private address (no API request)",
    load: () => import('./publish.js'),
  },
  {
    name: 'export',
    synopsis: 'export [--out DIR] [--period YYYY-MM]… [--format csv|xlsx|json] [--file PATH]',
    summary: "every client's values of every month on disk, as CSV, Excel or JSON lines (no API request)",
    load: () => import('./export.js'),
  },
  {
    name: 'links',
    synopsis: 'links | links rotate <project-id>',
    summary: "each client's page of the published site, and its address; rotate one",
    load: () => import('./links.js'),
  },
  { name: 'demo', synopsis: 'demo', summary: 'run the batch against the embedded simulator (no account needed)', load: () => import('./demo.js') },
  {
    name: 'template',
    synopsis: 'template init <dir> | check',
    summary: "make the agency's template folder, and check it",
    load: () => import('./template.js'),
  },
  {
    name: 'preview',
    synopsis: 'preview',
    summary: 'a report in the browser, reloaded at every template save (no API request)',
    load: () => import('./preview.js'),
  },
  { name: 'schedule', synopsis: 'schedule', summary: 'stay running and report every month on a cron (node-cron)', load: () => import('./schedule.js') },
  {
    name: 'history',
    synopsis: 'history status | restore | save | site-restore | site-save',
    summary: "keep each period's manifest and data.json in a git branch, month to month",
    load: () => import('./history.js'),
  },
  {
    name: 'listen',
    synopsis: 'listen',
    summary: "receive the API's signed webhooks; alert the agency when a client's score drops",
    load: () => import('./listen.js'),
  },
  { name: 'events', synopsis: 'events', summary: 'the webhook deliveries received, and what was done with each', load: () => import('./events.js') },
  { name: 'doctor', synopsis: 'doctor', summary: 'where this API puts every value the reports use', load: () => import('./doctor.js') },
  { name: 'projects', synopsis: 'projects', summary: 'list the projects of the account', load: () => import('./projects.js') },
  {
    name: 'analyze',
    synopsis: 'analyze <project-id> [--wait] | --status <id>',
    summary: 'start an AI analysis of a project, or follow one',
    load: () => import('./analyze.js'),
  },
  {
    name: 'scores',
    synopsis: 'scores (--project N | --scan N)',
    summary: 'scores of a project (with history) or of one scan',
    load: () => import('./scores.js'),
  },
  {
    name: 'recommendations',
    synopsis: 'recommendations (--project N | --scan N)',
    summary: 'AI recommendations of a project or a scan',
    load: () => import('./recommendations.js'),
  },
  {
    name: 'scans',
    synopsis: 'scans (--project N | --id N | --audit N)',
    summary: 'scans of a project, or one scan with its sections',
    load: () => import('./scans.js'),
  },
  { name: 'competitors', synopsis: 'competitors', summary: 'projects against the global benchmark', load: () => import('./competitors.js') },
  { name: 'stats', synopsis: 'stats', summary: 'global statistics of the account', load: () => import('./stats.js') },
  { name: 'webhooks', synopsis: 'webhooks list | create … | test <id>', summary: 'list, create and test webhooks', load: () => import('./webhooks.js') },
  {
    name: 'reports',
    synopsis: 'reports create <project-id> | get <id> | list',
    summary: 'generate and read JSON reports on the service',
    load: () => import('./reports.js'),
  },
  { name: 'usage', synopsis: 'usage', summary: 'daily quota left on each API token', load: () => import('./usage.js') },
  { name: 'simulator', synopsis: 'simulator', summary: 'run the API v1 simulator on loopback (demo backend)', load: () => import('./simulator.js') },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The command a mistyped name most likely meant, for "did you mean". */
export function nearestCommand(name: string): string | undefined {
  return nearestName(
    name,
    COMMANDS.map((c) => c.name),
  );
}
