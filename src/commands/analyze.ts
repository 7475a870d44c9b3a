// `geo-reports analyze`: start an AI analysis of a project, follow it (--wait), or read its status (--status).
import { setTimeout as delay } from 'node:timers/promises';
import type { ApiClient } from '../api/client.js';
import { ANALYSIS_FINAL_STATES, QUESTION_TYPES, type Analysis } from '../api/schemas.js';
import { GeoReportsError } from '../errors.js';
import { API_OPTIONS, API_OPTIONS_HELP, oneOf, optionalPositiveInt, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { formatTime, refuseFlags, withClient, formatText } from './api-command.js';
import { printResult, table, type Command, type CommandContext } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  'question-type': { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  status: { type: 'string' },
} as const;

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;
/** First pause between two status reads; each next pause is 1.5 times longer, up to the cap. */
export const FIRST_POLL_DELAY_MS = 500;
export const MAX_POLL_DELAY_MS = 15_000;
const POLL_GROWTH = 1.5;

const HELP = `Usage: geo-reports analyze <project-id> [--question-type T] [--wait] [--timeout SECONDS]
       geo-reports analyze --status <analysis-id>

Starts an AI analysis of a project (one request), or reads the status of an analysis.

Options:
  --question-type T    kind of questions asked to the AI assistants: ${QUESTION_TYPES.join(', ')}
                       (default: the API's choice)
  --wait               follow the analysis until it completes or fails, printing each change of state
                       (polls its status with a growing delay, ${FIRST_POLL_DELAY_MS / 1000} s to ${MAX_POLL_DELAY_MS / 1000} s)
  --timeout SECONDS    with --wait: stop waiting after this long (default ${DEFAULT_WAIT_TIMEOUT_SECONDS}); the analysis goes on
  --status ID          print the status of analysis ID instead of starting one
${API_OPTIONS_HELP}

Exit code with --wait: 0 when the analysis completed, 1 when it failed or the wait timed out.
`;

export interface AnalyzeCommandOptions {
  /** Pause between two status reads. @default node:timers/promises setTimeout, cancelled by the signal */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const defaultSleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  await delay(ms, undefined, { signal });
};

const isFinal = (analysis: Analysis): boolean => (ANALYSIS_FINAL_STATES as readonly string[]).includes(analysis.status);

function describeState(analysis: Analysis): string {
  const progress = typeof analysis.progress === 'number' && !isFinal(analysis) ? ` (${analysis.progress}%)` : '';
  return `${analysis.status}${progress}`;
}

function analysisTable(analysis: Analysis): string {
  return table(
    ['Analysis', 'Project', 'Question type', 'Status', 'Progress', 'Scan', 'Started'],
    [
      [
        analysis.id,
        analysis.project_id,
        formatText((analysis as Record<string, unknown>)['question_type'] ?? (analysis as Record<string, unknown>)['type']),
        analysis.status,
        typeof analysis.progress === 'number' ? `${analysis.progress}%` : null,
        analysis.scan_id,
        formatTime((analysis as Record<string, unknown>)['created_at'] ?? (analysis as Record<string, unknown>)['created']),
      ],
    ],
  );
}

function nextSteps(analysis: Analysis): string {
  if (analysis.status === 'failed') return `\nThe analysis failed${analysis.error ? `: ${analysis.error}` : '.'}`;
  if (analysis.scan_id != null) return `\nRead the scan: geo-reports scans --id ${analysis.scan_id}`;
  if (!isFinal(analysis)) return `\nFollow it: geo-reports analyze --status ${analysis.id}`;
  return '';
}

/** Reads the analysis until it reaches a final state or the deadline passes; prints each change of state. */
async function waitForAnalysis(
  client: ApiClient,
  started: Analysis,
  timeoutMs: number,
  ctx: CommandContext,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<Analysis> {
  const deadline = ctx.clock().getTime() + timeoutMs;
  const report = (analysis: Analysis): void => {
    ctx.stderr.write(`${ctx.clock().toISOString().slice(11, 19)} analysis ${analysis.id}: ${describeState(analysis)}\n`);
  };
  let analysis = started;
  report(analysis);
  let pause = FIRST_POLL_DELAY_MS;
  // Every pause lasts at least FIRST_POLL_DELAY_MS, so this many reads cover the whole timeout.
  const maxReads = Math.ceil(timeoutMs / FIRST_POLL_DELAY_MS) + 1;
  for (let read = 0; read < maxReads && !isFinal(analysis); read += 1) {
    const left = deadline - ctx.clock().getTime();
    if (left <= 0) break;
    await sleep(Math.min(pause, left), ctx.signal);
    pause = Math.min(pause * POLL_GROWTH, MAX_POLL_DELAY_MS);
    const previous = analysis.status;
    analysis = await client.getAnalysis(analysis.id);
    if (analysis.status !== previous) report(analysis);
  }
  if (!isFinal(analysis)) {
    throw new GeoReportsError(
      `Analysis ${analysis.id} of project ${analysis.project_id ?? started.project_id ?? '?'} is still ${analysis.status} after ${Math.round(timeoutMs / 1000)} s.`,
      { hint: `It goes on without us: follow it with \`geo-reports analyze --status ${analysis.id}\`, or wait longer with --timeout.` },
    );
  }
  return analysis;
}

export function createAnalyzeCommand(options: AnalyzeCommandOptions = {}): Command {
  const sleep = options.sleep ?? defaultSleep;
  return {
    name: 'analyze',
    usage: 'analyze <project-id> [--wait] | --status <id>',
    summary: 'start an AI analysis of a project, or follow one',
    async run(argv, ctx) {
      const args = parseCommandArgs(argv, { options: OPTIONS, positionals: 1, help: HELP, command: 'analyze' }, ctx.stdout);
      if (args === null) return 0;
      const { values, positionals } = args;
      const json = values['json'] === true;

      if (values['status'] !== undefined) {
        const analysisId = positiveInt(values['status'], '--status');
        if (positionals.length > 0) throw new UsageError('analyze: give a project id to start an analysis, or --status ID to read one, not both.');
        refuseFlags(values, ['question-type', 'wait', 'timeout'], 'with --status');
        const analysis = await withClient(values, ctx, (client) => client.getAnalysis(analysisId));
        printResult(ctx, json, analysis, () => `${analysisTable(analysis)}${nextSteps(analysis)}`);
        return 0;
      }

      if (positionals[0] === undefined) {
        throw new UsageError('analyze: missing <project-id>.', { hint: 'Run `geo-reports analyze <project-id>`, or `geo-reports analyze --status <analysis-id>`.' });
      }
      const projectId = positiveInt(positionals[0], 'project-id');
      const questionType = oneOf(values['question-type'], QUESTION_TYPES, '--question-type');
      const wait = values['wait'] === true;
      const timeoutSeconds = optionalPositiveInt(values['timeout'], '--timeout');
      if (timeoutSeconds !== undefined && !wait) throw new UsageError('--timeout applies only with --wait.');

      const analysis = await withClient(values, ctx, async (client) => {
        const started = await client.startAnalysis(projectId, questionType);
        if (!wait) return started;
        try {
          return await waitForAnalysis(client, started, (timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000, ctx, sleep);
        } catch (error) {
          if (!ctx.signal.aborted) throw error;
          ctx.stderr.write(`Stopped waiting; analysis ${started.id} goes on: follow it with \`geo-reports analyze --status ${started.id}\`.\n`);
          return null;
        }
      });
      if (analysis === null) return 1;
      printResult(ctx, json, analysis, () => `${analysisTable(analysis)}${nextSteps(analysis)}`);
      if (analysis.status === 'failed') {
        ctx.stderr.write(`Error: analysis ${analysis.id} of project ${projectId} failed${analysis.error ? `: ${analysis.error}` : '.'}\n`);
        return 1;
      }
      return 0;
    },
  };
}

export const analyzeCommand: Command = createAnalyzeCommand();
