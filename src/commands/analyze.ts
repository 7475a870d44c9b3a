// `geo-reports analyze`: start an AI analysis of a project, follow it (--wait), or read its status (--status).
import { setTimeout as delay } from 'node:timers/promises';
import type { ApiClient } from '../api/client.js';
import type { Analysis } from '../api/schemas.js';
import { ANALYSIS_FINAL_STATES, QUESTION_TYPES } from '../spec/vocabulary.js';
import { GeoReportsError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import {
  choice,
  type Command,
  type CommandContext,
  defineCommand,
  formatText,
  formatTime,
  positiveInteger,
  printResult,
  refuseFlags,
  table,
  UsageError,
} from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;
/** First pause between two status reads; each next pause is 1.5 times longer, up to the cap. */
export const FIRST_POLL_DELAY_MS = 500;
export const MAX_POLL_DELAY_MS = 15_000;
const POLL_GROWTH = 1.5;

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
  return defineCommand(
    {
      name: 'analyze',
      usage: ['<project-id> [--question-type T] [--wait] [--timeout SECONDS]', '--status <analysis-id>'],
      description: 'Starts an AI analysis of a project (one request), or reads the status of an analysis.',
      args: { 'project-id': { help: 'the project to analyse', parse: positiveInteger } },
      options: {
        'question-type': {
          type: 'string',
          value: 'T',
          parse: choice(QUESTION_TYPES),
          help: `kind of questions asked to the AI assistants: ${QUESTION_TYPES.join(', ')}\n(default: the API's choice)`,
        },
        wait: {
          type: 'boolean',
          help:
            'follow the analysis until it completes or fails, printing each change of state\n' +
            `(polls its status with a growing delay, ${FIRST_POLL_DELAY_MS / 1000} s to ${MAX_POLL_DELAY_MS / 1000} s)`,
        },
        timeout: {
          type: 'string',
          value: 'SECONDS',
          parse: positiveInteger,
          help: `with --wait: stop waiting after this long (default ${DEFAULT_WAIT_TIMEOUT_SECONDS}); the analysis goes on`,
        },
        status: { type: 'string', value: 'ID', parse: positiveInteger, help: 'print the status of analysis ID instead of starting one' },
        ...API_OPTIONS,
      },
      epilog: `Exit code with --wait: ${EXIT.ok} when the analysis completed, ${EXIT.failure} when it failed or the wait timed out.`,
    },
    async ({ options: flags, args, given }, ctx) => {
      const { json } = flags;
      const projectId = args['project-id'];

      if (flags.status !== undefined) {
        const analysisId = flags.status;
        if (projectId !== undefined) throw new UsageError('analyze: give a project id to start an analysis, or --status ID to read one, not both.');
        refuseFlags(given, ['question-type', 'wait', 'timeout'], 'with --status');
        const analysis = await withClient(flags, ctx, (client) => client.getAnalysis(analysisId));
        printResult(ctx, json, analysis, () => `${analysisTable(analysis)}${nextSteps(analysis)}`);
        return EXIT.ok;
      }

      if (projectId === undefined) {
        throw new UsageError('analyze: missing <project-id>.', {
          hint: 'Run `geo-reports analyze <project-id>`, or `geo-reports analyze --status <analysis-id>`.',
        });
      }
      if (flags.timeout !== undefined && !flags.wait) throw new UsageError('--timeout applies only with --wait.');
      const timeoutMs = (flags.timeout ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000;

      const analysis = await withClient(flags, ctx, async (client) => {
        const started = await client.startAnalysis(projectId, flags['question-type']);
        if (!flags.wait) return started;
        try {
          return await waitForAnalysis(client, started, timeoutMs, ctx, sleep);
        } catch (error) {
          if (!ctx.signal.aborted) throw error;
          ctx.stderr.write(`Stopped waiting; analysis ${started.id} goes on: follow it with \`geo-reports analyze --status ${started.id}\`.\n`);
          return null;
        }
      });
      if (analysis === null) return EXIT.failure;
      printResult(ctx, json, analysis, () => `${analysisTable(analysis)}${nextSteps(analysis)}`);
      if (analysis.status === 'failed') {
        ctx.stderr.write(`Error: analysis ${analysis.id} of project ${projectId} failed${analysis.error ? `: ${analysis.error}` : '.'}\n`);
        return EXIT.failure;
      }
      return EXIT.ok;
    },
  );
}

export default createAnalyzeCommand();
