// The command registry: one file per subcommand, listed here in the order `--help` shows them. A command module
// imports only light modules at its top; what is heavy (API client, batch, Chromium, charts) it imports when it runs.
import { analyzeCommand } from './analyze.js';
import { competitorsCommand } from './competitors.js';
import type { Command } from './define.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { historyCommand } from './history.js';
import { linksCommand } from './links.js';
import { eventsCommand } from './events.js';
import { exportCommand } from './export.js';
import { listenCommand } from './listen.js';
import { mergeCommand } from './merge.js';
import { previewCommand } from './preview.js';
import { projectsCommand } from './projects.js';
import { publishCommand } from './publish.js';
import { recommendationsCommand } from './recommendations.js';
import { reportCommand } from './report.js';
import { reportsCommand } from './reports.js';
import { runCommand } from './run.js';
import { scansCommand } from './scans.js';
import { scheduleCommand } from './schedule.js';
import { scoresCommand } from './scores.js';
import { sendCommand } from './send.js';
import { simulatorCommand } from './simulator.js';
import { statsCommand } from './stats.js';
import { templateCommand } from './template.js';
import { usageCommand } from './usage.js';
import { webhooksCommand } from './webhooks.js';

export type { Command } from './define.js';
export type { CommandContext } from './context.js';

export const COMMANDS: readonly Command[] = [
  runCommand,
  mergeCommand,
  reportCommand,
  sendCommand,
  publishCommand,
  exportCommand,
  linksCommand,
  demoCommand,
  templateCommand,
  previewCommand,
  scheduleCommand,
  historyCommand,
  listenCommand,
  eventsCommand,
  doctorCommand,
  projectsCommand,
  analyzeCommand,
  scoresCommand,
  recommendationsCommand,
  scansCommand,
  competitorsCommand,
  statsCommand,
  webhooksCommand,
  reportsCommand,
  usageCommand,
  simulatorCommand,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
