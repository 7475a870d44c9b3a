// Which reports of a period go out through a channel, and the manifest as the record of every attempt: the
// once-only rules (./once.ts) with the record in the period's manifest. A channel (./email/) says whom a report goes
// to, makes the message and delivers it; the summary and its events are ./summary.ts.
import pLimit, { type LimitFunction } from 'p-limit';
import type { ClientOverride, Config } from '../config/schema.js';
import { errorMessage, GeoReportsError } from '../errors.js';
import { RecordWriter } from '../output/record-writer.js';
import { reportAsMade } from '../output/report-as-made.js';
import { insideRoot, lockFolder, readManifest, writeManifest, type DeliveryState, type Manifest, type ProjectEntry } from '../output/store.js';
import { pause } from '../pause.js';
import type { Candidate, Deliverable, DeliveryChannel } from './channel.js';
import { interruptedRecord, SEND_RETRY, settleOnce, standing, type RecordBook } from './once.js';
import { countSkip, emptySummary, type DeliveryEvent, type DeliveryMode, type DeliverySummary, type Skip, type SkipReason } from './summary.js';
import type { Period } from '../period.js';

export type { Candidate, Deliverable, DeliveryChannel, Receipt, StopReason } from './channel.js';
export { deliveryExitCode, type DeliveryEvent, type DeliveryMode, type DeliverySummary, type NamedOutcome, type Skip, type SkipReason } from './summary.js';

export interface DeliveryPlan<Target> {
  candidates: Array<Candidate<Target>>;
  skipped: Skip[];
  /** --project ids the period does not have. */
  unknownIds: number[];
}

export interface PlanOptions {
  mode: DeliveryMode;
  projectIds: number[];
  /** Without projectIds: only these clients (report.clients "listed"); null or absent, every report of the period. */
  listed?: ReadonlySet<number> | null;
  resend: boolean;
  acceptHeld: boolean;
}

export interface LedgerOptions<Name extends string> {
  config: Config;
  period: Period;
  /** Root output folder (absolute). */
  outDir: string;
  mode: DeliveryMode;
  projectIds?: number[];
  /** Without projectIds: only these clients (report.clients "listed"); null or absent, every report of the period. */
  listed?: ReadonlySet<number> | null;
  /** Send even when sent or unknown (only with projectIds). */
  resend?: boolean;
  /** Release held reports and send them. */
  acceptHeld?: boolean;
  /** Messages under way at once. @default 2 */
  concurrency?: number;
  /** Attempts per message when the answer is temporary. @default SEND_RETRY.maxAttempts (once.ts) */
  maxAttempts?: number;
  /** First wait before retrying a temporary failure, doubled each time. @default SEND_RETRY.retryDelayMs (once.ts) */
  retryDelayMs?: number;
  /** Removes secrets from any text that reaches the manifest or the events. */
  redact?: (text: string) => string;
  clock?: () => Date;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on SIGINT / SIGTERM: no new message starts; messages under way finish and are recorded. */
  signal?: AbortSignal;
  onEvent?: (event: DeliveryEvent<Name>) => void;
  /**
   * Called once a record of a message is on disk, and awaited before the message goes: the record put where the next
   * run finds it first (the history branch, for a runner that may be killed or whose cache expires). A throw keeps
   * the message back (it is tried by the next send); a message it cannot record as `sending` is not sent.
   */
  onRecorded?: () => Promise<void>;
  /** Rewrites the agency index from the manifest, after a send that recorded something. */
  writeIndex?: (manifest: Manifest, periodDir: string) => Promise<void>;
}

/** Which projects of the manifest go out through the channel, and why the others do not. Pure. */
export function planDeliveries<Target>(
  channel: Pick<DeliveryChannel<string, Target, Deliverable>, 'name' | 'target'>,
  manifest: Manifest,
  config: Config,
  options: PlanOptions,
): DeliveryPlan<Target> {
  const wanted = new Set(options.projectIds);
  const listed = options.listed ?? null;
  const entries = wanted.size > 0 ? manifest.projects.filter((e) => wanted.has(e.id)) : manifest.projects.filter((e) => listed === null || listed.has(e.id));
  const known = new Set(manifest.projects.map((e) => e.id));
  const plan: DeliveryPlan<Target> = { candidates: [], skipped: [], unknownIds: [...wanted].filter((id) => !known.has(id)) };
  for (const entry of [...entries].sort((a, b) => a.id - b.id)) {
    const client = config.clients[String(entry.id)];
    const made = reportAsMade(entry, config, { name: channel.name, dryRun: options.mode === 'dry-run' });
    const clientName = made.clientName;
    const judged = judge(channel, entry, client, options);
    if ('reason' in judged) {
      plan.skipped.push({ id: entry.id, name: clientName, ...judged });
      continue;
    }
    plan.candidates.push({
      ...judged.target,
      entry,
      clientName,
      language: made.language,
      notice: made.notice,
      alreadyAccepted: judged.state?.status === 'failed' ? judged.state.accepted : [],
    });
  }
  return plan;
}

/** Why a report does not go out, or whom it goes to and what the last attempt left. */
function judge<Target>(
  channel: Pick<DeliveryChannel<string, Target, Deliverable>, 'name' | 'target'>,
  entry: ProjectEntry,
  client: ClientOverride | undefined,
  options: PlanOptions,
): { reason: SkipReason; detail: string } | { target: Target; state: DeliveryState | undefined } {
  if (entry.status !== 'done' || entry.files.pdf === null) return { reason: 'not-ready', detail: `the report is ${entry.status}, not done` };
  if (entry.held.length > 0 && !entry.released && !options.acceptHeld) {
    return { reason: 'held', detail: `held by the pre-send check: ${entry.held.join('; ')}` };
  }
  const target = channel.target(client, entry);
  if (isNone(target)) return { reason: 'no-address', detail: target.none };
  // A test send is a preview: it goes out whatever the real message's state.
  const state = options.mode === 'test' || options.resend ? undefined : entry.deliveries?.[channel.name];
  if (state !== undefined && standing(state) === 'sent') return { reason: 'sent', detail: `sent ${state.at}` };
  // Unknown, or left `sending` by a process that ended: it may have arrived.
  if (state !== undefined && standing(state) !== 'due') {
    const why = state.error ?? 'the outcome of the last send is unknown';
    return { reason: 'unknown', detail: `${why}; check with the client, then send it again with --resend --project ${entry.id}` };
  }
  return { target, state };
}

function isNone(target: unknown): target is { none: string } {
  return typeof target === 'object' && target !== null && 'none' in target;
}

/** Delivers (or writes, or test-sends) the period's reports through the channel; the manifest records each one. */
export async function deliverThrough<Name extends string, Target, Item extends Deliverable>(
  channel: DeliveryChannel<Name, Target, Item>,
  options: LedgerOptions<Name>,
): Promise<DeliverySummary> {
  const periodDir = insideRoot(options.outDir, options.period);
  const unlock = await lockFolder(periodDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw noReports(options.period, periodDir);
    throw error;
  });
  try {
    const manifest = await readManifest(periodDir);
    if (manifest === null) throw noReports(options.period, periodDir);
    return await new Ledger(channel, options, periodDir, manifest).run();
  } finally {
    await unlock();
  }
}

function noReports(period: Period, periodDir: string): GeoReportsError {
  return new GeoReportsError(`There are no reports for ${period} in ${periodDir}.`, {
    hint: `Make them first with \`geo-reports run --period ${period}\` (or pass the right --out folder).`,
  });
}

/** One send of one period through one channel: the manifest, its chain of writes, and the summary. */
class Ledger<Name extends string, Target, Item extends Deliverable> {
  readonly #channel: DeliveryChannel<Name, Target, Item>;
  readonly #options: LedgerOptions<Name>;
  readonly #periodDir: string;
  readonly #manifest: Manifest;
  readonly #clock: () => Date;
  readonly #emit: (event: DeliveryEvent<Name>) => void;
  readonly #redact: (text: string) => string;
  /** Only a real send is recorded: a dry run and a test send leave the manifest as it was. */
  readonly #recorded: boolean;
  readonly #summary: DeliverySummary;
  readonly #startedMs: number;
  /** The manifest's writes, one after the other, each of the whole file (read as it is by whoever opens it). */
  readonly #writes: RecordWriter<never>;
  #saveError: unknown = null;

  constructor(channel: DeliveryChannel<Name, Target, Item>, options: LedgerOptions<Name>, periodDir: string, manifest: Manifest) {
    this.#channel = channel;
    this.#options = options;
    this.#periodDir = periodDir;
    this.#manifest = manifest;
    this.#clock = options.clock ?? (() => new Date());
    this.#emit = options.onEvent ?? (() => {});
    this.#redact = options.redact ?? ((text: string) => text);
    this.#recorded = options.mode === 'send';
    this.#startedMs = this.#clock().getTime();
    this.#summary = emptySummary(options.period, options.mode, periodDir);
    this.#writes = new RecordWriter({
      file: { whole: () => writeManifest(this.#periodDir, this.#manifest) },
      beforeWrite: () => {
        this.#manifest.updatedAt = this.#clock().toISOString();
      },
      // The first failure is kept and raised at the end.
      onError: (error) => {
        this.#saveError ??= error;
      },
    });
  }

  /** `<channel>-sent`, `<channel>-failed`…: the channel's own event names. */
  #type<Kind extends string>(kind: Kind): `${Name}-${Kind}` {
    return `${this.#channel.name}-${kind}`;
  }

  async run(): Promise<DeliverySummary> {
    if (this.#recorded) await this.#recover();
    const plan = this.#plan();
    if (this.#recorded && this.#options.acceptHeld === true) {
      for (const { entry } of plan.candidates) if (entry.held.length > 0 && !entry.released) entry.released = true;
      await this.#save();
    }
    try {
      await this.#deliverAll(plan.candidates);
    } finally {
      await this.#end();
    }
    if (this.#saveError !== null) {
      throw new GeoReportsError(`Could not save the manifest of ${this.#options.period}: ${errorMessage(this.#saveError)}`, {
        hint: 'Check free space and permissions of the output folder; messages already sent are not sent again only if the manifest says so.',
      });
    }
    this.#summary.durationMs = this.#clock().getTime() - this.#startedMs;
    this.#emit({ type: this.#type('summary'), summary: this.#summary });
    return this.#summary;
  }

  /** `sending` left by a process that stopped mid-attempt (kill -9, power loss): the message may have arrived. */
  async #recover(): Promise<void> {
    let recovered = false;
    for (const entry of this.#manifest.projects) {
      const state = entry.deliveries?.[this.#channel.name];
      if (state !== undefined && standing(state) === 'interrupted') {
        this.#record(entry, interruptedRecord(state, this.#channel.interrupted));
        recovered = true;
      }
    }
    if (recovered) await this.#save();
  }

  #plan(): DeliveryPlan<Target> {
    const { period, mode } = this.#options;
    const plan = planDeliveries(this.#channel, this.#manifest, this.#options.config, {
      mode,
      projectIds: this.#options.projectIds ?? [],
      listed: this.#options.listed ?? null,
      resend: this.#options.resend === true,
      acceptHeld: this.#options.acceptHeld === true,
    });
    for (const id of plan.unknownIds) this.#emit({ type: 'warning', message: `Project ${id} has no report in ${period}; nothing to send for it.` });
    for (const candidate of plan.candidates) if (candidate.notice !== null) this.#emit({ type: 'warning', message: candidate.notice });
    const server = mode === 'dry-run' ? null : this.#channel.label;
    this.#emit({ type: this.#type('plan'), period, mode, toSend: plan.candidates.length, server });
    for (const skip of plan.skipped) {
      countSkip(this.#summary, skip);
      // Already sent and not-ready reports are counted, not listed: a rerun stays quiet.
      if (skip.reason !== 'sent' && skip.reason !== 'not-ready') this.#emit({ type: this.#type('skipped'), ...skip });
    }
    return plan;
  }

  async #deliverAll(candidates: Array<Candidate<Target>>): Promise<void> {
    // Nothing goes out when the destination cannot be used at all: the error says why, and every message waits.
    if (this.#options.mode !== 'dry-run' && candidates.length > 0) await this.#channel.verify();
    const limit = pLimit(Math.max(1, this.#options.concurrency ?? 2));
    await Promise.all(candidates.map((candidate) => this.#deliverOne(candidate, limit)));
  }

  async #deliverOne(candidate: Candidate<Target>, limit: LimitFunction): Promise<void> {
    const { entry, clientName: name } = candidate;
    let item: Item;
    try {
      item = await this.#channel.prepare(candidate, this.#periodDir);
    } catch (error) {
      this.#fail(candidate, this.#redact(`the message could not be made: ${errorMessage(error)}`));
      return;
    }
    if (this.#options.mode === 'dry-run') {
      const path = await this.#channel.preview(item, candidate, this.#periodDir);
      this.#summary.written += 1;
      this.#emit({ type: this.#type('written'), id: entry.id, name, path });
      return;
    }
    const settled = await settleOnce(
      this.#channel,
      { item, id: item.messageId, recipients: item.recipients, alreadyAccepted: candidate.alreadyAccepted },
      {
        book: this.#recorded ? this.#book(entry) : null,
        interrupted: this.#channel.interrupted,
        again: this.#options.resend === true,
        maxAttempts: this.#options.maxAttempts ?? SEND_RETRY.maxAttempts,
        retryDelayMs: this.#options.retryDelayMs ?? SEND_RETRY.retryDelayMs,
        clock: this.#clock,
        sleep: (ms) => (this.#options.sleep ?? pause)(ms, this.#options.signal),
        redact: this.#redact,
        stopping: () => this.#stopping(),
        // No message starts once the run is stopping, even one that waited for its turn.
        turn: (attempt) => limit(async () => (this.#stopping() ? null : attempt())),
        onAnswer: (receipt) => {
          // Before the next message takes this one's turn: every other message would meet the same.
          const stop = receipt.kind === 'failed' ? (receipt.stop ?? null) : null;
          if (stop !== null) this.#summary.stopped ??= stop;
        },
        onRetry: (reason, attempt, delayMs) => this.#emit({ type: this.#type('retry'), id: entry.id, name, attempt, delayMs, reason }),
      },
    );
    switch (settled.kind) {
      case 'sent':
        this.#summary.sent += 1;
        this.#emit({ type: this.#type('sent'), id: entry.id, name, recipients: settled.recipients, response: settled.response, ms: settled.ms });
        return;
      case 'unknown':
        this.#summary.unknown.push({ id: entry.id, name, reason: settled.reason });
        this.#emit({ type: this.#type('unknown'), id: entry.id, name, reason: settled.reason });
        return;
      case 'failed':
        this.#fail(candidate, settled.reason);
        return;
      case 'not-attempted':
        this.#summary.notAttempted += 1;
        return;
      case 'left':
        // The plan leaves these out already; the rule is checked again right before an attempt.
        return;
    }
  }

  /** The record of an entry's message on the channel: in the manifest, on disk through its chain of writes. */
  #book(entry: ProjectEntry): RecordBook {
    return {
      read: () => entry.deliveries?.[this.#channel.name],
      write: async (record) => {
        const before = entry.deliveries?.[this.#channel.name];
        this.#record(entry, record);
        await this.#save();
        if (this.#saveError !== null) return false;
        if (await this.#publishRecord()) return true;
        // A message held back because its `sending` could not be handed on has not gone: its record says so again,
        // or the next send would read `sending` as a message that may have arrived and never send it.
        if (record.status === 'sending') {
          const { [this.#channel.name]: _sending, ...others } = entry.deliveries ?? {};
          entry.deliveries = before === undefined ? others : { ...others, [this.#channel.name]: before };
          await this.#save();
        }
        return false;
      },
    };
  }

  /** The record handed on (onRecorded); false, with a warning, when it could not be. */
  async #publishRecord(): Promise<boolean> {
    if (this.#options.onRecorded === undefined) return true;
    try {
      await this.#options.onRecorded();
      return true;
    } catch (error) {
      this.#emit({ type: 'warning', message: `The record of the mails could not be saved beyond this folder: ${this.#redact(errorMessage(error))}` });
      return false;
    }
  }

  #fail(candidate: Candidate<Target>, reason: string): void {
    const { entry, clientName: name } = candidate;
    this.#summary.failed.push({ id: entry.id, name, reason });
    this.#emit({ type: this.#type('failed'), id: entry.id, name, reason });
  }

  #stopping(): boolean {
    return this.#summary.stopped !== null || this.#options.signal?.aborted === true;
  }

  #record(entry: ProjectEntry, state: DeliveryState): void {
    entry.deliveries = { ...entry.deliveries, [this.#channel.name]: state };
  }

  /** Saves the manifest after the writes already asked for; the first failure is kept and raised at the end. */
  #save(): Promise<void> {
    return this.#writes.save();
  }

  async #end(): Promise<void> {
    await this.#channel.close();
    await this.#writes.idle();
    if (this.#options.signal?.aborted === true && this.#summary.notAttempted > 0) this.#summary.stopped ??= 'signal';
    if (!this.#recorded || this.#options.writeIndex === undefined) return;
    await this.#options.writeIndex(this.#manifest, this.#periodDir).catch((error: unknown) => {
      this.#emit({ type: 'warning', message: `The index of ${this.#options.period} could not be rewritten: ${errorMessage(error)}` });
    });
  }
}
