// What a send of a period did, as its summary and its events say it, and the exit code it ends with.
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { StopReason } from './channel.js';
import type { Period } from '../period.js';

export type DeliveryMode = 'send' | 'dry-run' | 'test';

export type SkipReason = 'not-ready' | 'held' | 'no-address' | 'sent' | 'unknown';

export interface Skip {
  id: number;
  name: string;
  reason: SkipReason;
  detail: string;
}

export type DeliveryEvent<Name extends string = string> =
  | { type: `${Name}-plan`; period: Period; mode: DeliveryMode; toSend: number; server: string | null }
  | { type: `${Name}-skipped`; id: number; name: string; reason: SkipReason; detail: string }
  | { type: `${Name}-sent`; id: number; name: string; recipients: string[]; response: string; ms: number }
  | { type: `${Name}-written`; id: number; name: string; path: string }
  | { type: `${Name}-retry`; id: number; name: string; attempt: number; delayMs: number; reason: string }
  | { type: `${Name}-failed`; id: number; name: string; reason: string }
  | { type: `${Name}-unknown`; id: number; name: string; reason: string }
  | { type: 'warning'; message: string }
  | { type: `${Name}-summary`; summary: DeliverySummary };

export interface NamedOutcome {
  id: number;
  name: string;
  reason: string;
}

export interface DeliverySummary {
  period: Period;
  mode: DeliveryMode;
  /** Messages delivered in this run (test sends included in test mode). */
  sent: number;
  written: number;
  failed: NamedOutcome[];
  /** Became unknown in this run. */
  unknown: NamedOutcome[];
  /** Unknown from an earlier run, left alone. */
  leftUnknown: NamedOutcome[];
  held: NamedOutcome[];
  noAddress: NamedOutcome[];
  alreadySent: number;
  notReady: number;
  /** Left for the next send: the run stopped (signal, or a destination every message would fail on). */
  notAttempted: number;
  stopped: StopReason | 'signal' | null;
  durationMs: number;
  periodDir: string;
}

/** Exit code of a delivery; documented in `send --help` and the README. */
export function deliveryExitCode(summary: DeliverySummary): ExitCode {
  if (summary.stopped === 'auth' || summary.stopped === 'tls') return EXIT.usage;
  if (summary.failed.length > 0 || summary.unknown.length > 0 || summary.notAttempted > 0) return EXIT.failure;
  if (summary.held.length > 0) return EXIT.held;
  return EXIT.ok;
}

export function emptySummary(period: Period, mode: DeliveryMode, periodDir: string): DeliverySummary {
  return {
    period,
    mode,
    sent: 0,
    written: 0,
    failed: [],
    unknown: [],
    leftUnknown: [],
    held: [],
    noAddress: [],
    alreadySent: 0,
    notReady: 0,
    notAttempted: 0,
    stopped: null,
    durationMs: 0,
    periodDir,
  };
}

export function countSkip(summary: DeliverySummary, skip: Skip): void {
  const named = { id: skip.id, name: skip.name, reason: skip.detail };
  if (skip.reason === 'sent') summary.alreadySent += 1;
  else if (skip.reason === 'not-ready') summary.notReady += 1;
  else if (skip.reason === 'held') summary.held.push(named);
  else if (skip.reason === 'no-address') summary.noAddress.push(named);
  else summary.leftUnknown.push(named);
}
