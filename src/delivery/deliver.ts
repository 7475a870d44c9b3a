// Once and only once: which reports of a period go out, and the manifest as the record of every SMTP transaction.
// `sending` is flushed to disk before a transaction starts and `sent` (with the server's answer) after it, so a
// crash leaves `sending`, read back as `unknown`: a message that may have arrived is never sent again on its own.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import { ConfigError, GeoReportsError } from '../errors.js';
import { pause } from '../sleep.js';
import type { Phrases } from '../i18n/locales.js';
import {
  insideRoot,
  lockPeriod,
  readManifest,
  writeFileAtomic,
  writeManifest,
  type EmailState,
  type Manifest,
  type ProjectEntry,
} from '../output/store.js';
import { buildIndexModel } from '../report/index-model.js';
import type { Branding, Language } from '../report/model.js';
import { periodLabel } from '../period.js';
import type { HtmlRenderer } from '../render/html.js';
import { buildReportMessage, composeMime, uniqueAddresses, type ReportMessage } from './message.js';
import type { MailTransport, Rejection, SendOutcome, StopReason } from './transport.js';

export type DeliveryMode = 'send' | 'dry-run' | 'test';

export type SkipReason = 'not-ready' | 'held' | 'no-address' | 'sent' | 'unknown';

export interface Skip {
  id: number;
  name: string;
  reason: SkipReason;
  detail: string;
}

/** A report that goes out in this run, with whom to deliver to. */
export interface Candidate {
  entry: ProjectEntry;
  clientName: string;
  language: Language;
  recipients: { to: string[]; cc: string[]; bcc: string[] };
  subject?: string;
  /** Recipients an earlier transaction of this message already reached: left out of the envelope. */
  alreadyAccepted: string[];
  /** The config now says another language or name than the report was made with: what is sent, and the fix. */
  notice: string | null;
}

export interface DeliveryPlan {
  candidates: Candidate[];
  skipped: Skip[];
  /** --project ids the period does not have. */
  unknownIds: number[];
}

export interface PlanOptions {
  mode: DeliveryMode;
  projectIds: number[];
  resend: boolean;
  acceptHeld: boolean;
}

/** Which projects of the manifest are mailed, and why the others are not. Pure. */
export function planDelivery(manifest: Manifest, config: Config, options: PlanOptions): DeliveryPlan {
  const wanted = new Set(options.projectIds);
  const entries = wanted.size > 0 ? manifest.projects.filter((e) => wanted.has(e.id)) : manifest.projects;
  const known = new Set(manifest.projects.map((e) => e.id));
  const candidates: Candidate[] = [];
  const skipped: Skip[] = [];
  for (const entry of [...entries].sort((a, b) => a.id - b.id)) {
    const client = config.clients[String(entry.id)];
    const made = reportAsMade(entry, config, options.mode);
    const clientName = made.clientName;
    const skip = (reason: SkipReason, detail: string): void => {
      skipped.push({ id: entry.id, name: clientName, reason, detail });
    };
    if (entry.status !== 'done' || entry.files.pdf === null) {
      skip('not-ready', `the report is ${entry.status}, not done`);
      continue;
    }
    if (entry.held.length > 0 && !entry.released && !options.acceptHeld) {
      skip('held', `held by the pre-send check: ${entry.held.join('; ')}`);
      continue;
    }
    const email = client?.email;
    if (email === undefined || email.to.length === 0) {
      skip('no-address', `no address in clients."${entry.id}".email.to`);
      continue;
    }
    // A test send is a preview: it goes out whatever the real message's state.
    const state = options.mode === 'test' || options.resend ? undefined : entry.email;
    if (state?.status === 'sent') {
      skip('sent', `sent ${state.at}`);
      continue;
    }
    if (state?.status === 'unknown' || state?.status === 'sending') {
      skip('unknown', `${state.error ?? 'the outcome of the last send is unknown'}; check with the client, then send it again with --resend --project ${entry.id}`);
      continue;
    }
    candidates.push({
      entry,
      clientName,
      language: made.language,
      recipients: { to: email.to, cc: email.cc, bcc: email.bcc },
      // A subject written for the language the config now says would not be the report's language.
      ...(email.subject !== undefined && made.language === made.configuredLanguage ? { subject: email.subject } : {}),
      alreadyAccepted: state?.status === 'failed' ? state.accepted : [],
      notice: made.notice,
    });
  }
  return { candidates, skipped, unknownIds: [...wanted].filter((id) => !known.has(id)) };
}

/**
 * The language and name the report was made with, which its email speaks (one language per mail, the report's
 * name); with a notice when the config now says otherwise. A manifest of an earlier version records neither: the
 * config decides, as it did then.
 */
export function reportAsMade(
  entry: ProjectEntry,
  config: Config,
  mode: DeliveryMode,
): { language: Language; clientName: string; configuredLanguage: Language; notice: string | null } {
  const client = config.clients[String(entry.id)];
  const configuredLanguage = client?.language ?? config.report.language;
  const configuredName = client?.displayName?.trim() || null;
  if (entry.language === undefined) {
    return { language: configuredLanguage, clientName: configuredName ?? entry.name, configuredLanguage, notice: null };
  }
  const madeName = entry.displayName ?? null;
  const clientName = madeName ?? entry.name;
  const changes: string[] = [];
  if (entry.language !== configuredLanguage) changes.push(`language "${configuredLanguage}"`);
  if (madeName !== configuredName) changes.push(`name "${configuredName ?? entry.name}"`);
  if (changes.length === 0) return { language: entry.language, clientName, configuredLanguage, notice: null };
  const subject =
    client?.email?.subject !== undefined && entry.language !== configuredLanguage
      ? ` (without clients."${entry.id}".email.subject, written for "${configuredLanguage}")`
      : '';
  return {
    language: entry.language,
    clientName,
    configuredLanguage,
    notice:
      `Project ${entry.id} (${clientName}): its report was made in "${entry.language}" as "${clientName}", but the config now says ${changes.join(' and ')}. ` +
      `The email ${mode === 'dry-run' ? 'would go' : 'goes'} as the report is: in "${entry.language}", as "${clientName}"${subject}. ` +
      `Fix: \`geo-reports report ${entry.id}\` makes the report again with the config (then \`geo-reports send --resend --project ${entry.id}\` if this one was sent).`,
  };
}

export type DeliveryEvent =
  | { type: 'email-plan'; period: string; mode: DeliveryMode; toSend: number; server: string | null }
  | { type: 'email-skipped'; id: number; name: string; reason: SkipReason; detail: string }
  | { type: 'email-sent'; id: number; name: string; recipients: string[]; response: string; ms: number }
  | { type: 'email-written'; id: number; name: string; path: string }
  | { type: 'email-retry'; id: number; name: string; attempt: number; delayMs: number; reason: string }
  | { type: 'email-failed'; id: number; name: string; reason: string }
  | { type: 'email-unknown'; id: number; name: string; reason: string }
  | { type: 'warning'; message: string }
  | { type: 'email-summary'; summary: DeliverySummary };

export interface NamedOutcome {
  id: number;
  name: string;
  reason: string;
}

export interface DeliverySummary {
  period: string;
  mode: DeliveryMode;
  /** Messages the server took in this run (test sends included in test mode). */
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
  /** Left for the next send: the run stopped (signal, or a server every message would fail on). */
  notAttempted: number;
  stopped: StopReason | 'signal' | null;
  durationMs: number;
  periodDir: string;
}

export interface DeliveryOptions {
  config: Config;
  period: string;
  /** Root output folder (absolute). */
  outDir: string;
  mode: DeliveryMode;
  /** The only recipient in test mode. */
  testTo?: string;
  projectIds?: number[];
  /** Send even when sent or unknown (only with projectIds). */
  resend?: boolean;
  /** Release held reports and send them. */
  acceptHeld?: boolean;
  /** Created on first use: a dry run never connects. */
  transport: () => MailTransport;
  /** Printable name of the server (no password). */
  serverLabel?: string;
  renderer: HtmlRenderer;
  branding: Branding;
  /** Messages on the wire at once. @default 2 */
  concurrency?: number;
  /** Transactions per message when the server answers 4xx. @default 3 */
  maxAttempts?: number;
  /** First wait before retrying a 4xx, doubled each time. @default 2000 */
  retryDelayMs?: number;
  /** Removes secrets from any text that reaches the manifest or the events. */
  redact?: (text: string) => string;
  clock?: () => Date;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on SIGINT / SIGTERM: no new message starts; messages on the wire finish and are recorded. */
  signal?: AbortSignal;
  onEvent?: (event: DeliveryEvent) => void;
}

/** Sends (or writes, or test-sends) the period's reports; the manifest records each message's fate. */
export async function deliverPeriod(options: DeliveryOptions): Promise<DeliverySummary> {
  const periodDir = insideRoot(options.outDir, options.period);
  const unlock = await lockPeriod(periodDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw noReports(options.period, periodDir);
    throw error;
  });
  try {
    return await deliverLocked(options, periodDir);
  } finally {
    await unlock();
  }
}

function noReports(period: string, periodDir: string): GeoReportsError {
  return new GeoReportsError(`There are no reports for ${period} in ${periodDir}.`, {
    hint: `Make them first with \`geo-reports run --period ${period}\` (or pass the right --out folder).`,
  });
}

async function deliverLocked(options: DeliveryOptions, periodDir: string): Promise<DeliverySummary> {
  const clock = options.clock ?? (() => new Date());
  const sleep = options.sleep ?? pause;
  const emit = options.onEvent ?? (() => {});
  const redact = options.redact ?? ((text: string) => text);
  const { config, period, mode } = options;
  const started = clock().getTime();
  const manifest = await readManifest(periodDir);
  if (manifest === null) throw noReports(period, periodDir);
  const from = config.delivery.email.from;
  if (from === undefined) {
    throw new GeoReportsError('delivery.email.from is not set: the messages have no sender.', {
      hint: 'Add "delivery": { "email": { "from": "Your Agency <reports@your-agency.example>" } } to the config file.',
    });
  }

  let saving: Promise<void> = Promise.resolve();
  let saveError: unknown = null;
  const save = (): Promise<void> => {
    saving = saving.then(async () => {
      manifest.updatedAt = clock().toISOString();
      try {
        await writeManifest(periodDir, manifest);
      } catch (error) {
        saveError ??= error;
      }
    });
    return saving;
  };
  const recorded = mode === 'send';

  // `sending` left by a process that stopped mid-transaction (kill -9, power loss): the message may have arrived.
  if (recorded) {
    let recovered = false;
    for (const entry of manifest.projects) {
      if (entry.email?.status === 'sending') {
        entry.email = {
          ...entry.email,
          status: 'unknown',
          error: 'the sender stopped during the SMTP transaction (the process ended); the message may have arrived',
        };
        recovered = true;
      }
    }
    if (recovered) await save();
  }

  const plan = planDelivery(manifest, config, {
    mode,
    projectIds: options.projectIds ?? [],
    resend: options.resend === true,
    acceptHeld: options.acceptHeld === true,
  });
  const summary: DeliverySummary = {
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
  for (const id of plan.unknownIds) emit({ type: 'warning', message: `Project ${id} has no report in ${period}; nothing to send for it.` });
  for (const candidate of plan.candidates) if (candidate.notice !== null) emit({ type: 'warning', message: candidate.notice });
  emit({ type: 'email-plan', period, mode, toSend: plan.candidates.length, server: mode === 'dry-run' ? null : (options.serverLabel ?? null) });
  for (const skip of plan.skipped) {
    if (skip.reason === 'sent') summary.alreadySent += 1;
    else if (skip.reason === 'not-ready') summary.notReady += 1;
    else {
      const named = { id: skip.id, name: skip.name, reason: skip.detail };
      if (skip.reason === 'held') summary.held.push(named);
      if (skip.reason === 'no-address') summary.noAddress.push(named);
      if (skip.reason === 'unknown') summary.leftUnknown.push(named);
    }
    // Already sent and not-ready reports are counted, not listed: a rerun stays quiet.
    if (skip.reason !== 'sent' && skip.reason !== 'not-ready') emit({ type: 'email-skipped', ...skip });
  }

  if (recorded && options.acceptHeld === true) {
    for (const candidate of plan.candidates) {
      if (candidate.entry.held.length > 0 && !candidate.entry.released) candidate.entry.released = true;
    }
    await save();
  }

  const agency = {
    name: config.agency.name,
    contact: config.agency.contact,
    bcc: config.delivery.email.bcc,
  };
  // The phrases the renderer was made with: loaded once for the run, the same words as the reports.
  const messagesFor = (language: Language): Phrases => options.renderer.locales.phrases(language);
  const testStamp = clock().toISOString();
  const build = (candidate: Candidate): ReportMessage =>
    buildReportMessage({
      period,
      periodLabel: periodLabel(period, candidate.language),
      project: { id: candidate.entry.id, slug: candidate.entry.slug },
      clientName: candidate.clientName,
      language: candidate.language,
      messages: messagesFor(candidate.language),
      recipients: candidate.recipients,
      ...(candidate.subject !== undefined ? { subject: candidate.subject } : {}),
      summary: candidate.entry.summary ?? [],
      agency,
      from,
      ...(config.delivery.email.replyTo !== undefined ? { replyTo: config.delivery.email.replyTo } : {}),
      ...(mode === 'test' && options.testTo !== undefined ? { testTo: options.testTo, testStamp } : {}),
    });

  let transport: MailTransport | null = null;
  try {
    if (mode !== 'dry-run' && plan.candidates.length > 0) {
      transport = options.transport();
      const check = await transport.verify();
      if (!check.ok) {
        summary.notAttempted = plan.candidates.length;
        summary.stopped = check.stop ?? 'connection';
        throw smtpUnavailable(redact(check.reason), check.stop, options.serverLabel ?? 'the SMTP server');
      }
    }
    const active = transport;
    const limit = pLimit(Math.max(1, options.concurrency ?? 2));
    const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    const retryDelayMs = options.retryDelayMs ?? 2_000;
    const stopping = (): boolean => summary.stopped !== null || options.signal?.aborted === true;

    await Promise.all(
      plan.candidates.map(async (candidate) => {
        const { entry } = candidate;
        const name = candidate.clientName;
        let message: ReportMessage;
        let raw: Buffer;
        try {
          message = build(candidate);
          const pdf = await readFile(insideRoot(periodDir, entry.files.pdf as string));
          raw = await composeMime(message, pdf, clock());
        } catch (error) {
          const reason = redact(`the message could not be made: ${messageOf(error)}`);
          summary.failed.push({ id: entry.id, name, reason });
          emit({ type: 'email-failed', id: entry.id, name, reason });
          return;
        }
        if (mode === 'dry-run') {
          const path = insideRoot(periodDir, entry.slug, 'email.eml');
          await writeFileAtomic(path, raw);
          summary.written += 1;
          emit({ type: 'email-written', id: entry.id, name, path });
          return;
        }
        const transportNow = active as MailTransport;
        let accepted = candidate.alreadyAccepted;
        for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
          const envelopeTo = message.envelope.to.filter((a) => !accepted.some((b) => b.toLowerCase() === a.toLowerCase()));
          const t0 = clock().getTime();
          const outcome = await limit(async (): Promise<SendOutcome | null> => {
            if (stopping()) return null;
            if (recorded) {
              entry.email = {
                status: 'sending',
                messageId: message.messageId,
                at: clock().toISOString(),
                accepted,
                rejected: [],
                attempts: (entry.email?.messageId === message.messageId ? entry.email.attempts : 0) + 1,
              };
              // On disk before the first SMTP command: a crash from here on reads back as `unknown`.
              await save();
              if (saveError !== null) return null;
            }
            return transportNow.send({ raw, envelope: { from: message.envelope.from, to: envelopeTo } });
          });
          if (outcome === null) {
            summary.notAttempted += 1;
            return;
          }
          const result = settle(outcome, accepted);
          accepted = result.accepted;
          if (recorded) {
            entry.email = { ...result.state(message.messageId, clock().toISOString(), entry.email?.attempts ?? attempt) };
            await save();
          }
          if (result.kind === 'sent') {
            summary.sent += 1;
            emit({ type: 'email-sent', id: entry.id, name, recipients: envelopeTo, response: redact(result.response), ms: clock().getTime() - t0 });
            return;
          }
          const reason = redact(result.reason);
          if (result.kind === 'unknown') {
            summary.unknown.push({ id: entry.id, name, reason });
            emit({ type: 'email-unknown', id: entry.id, name, reason });
            return;
          }
          if (result.stop !== null) summary.stopped ??= result.stop;
          if (result.temporary && attempt < maxAttempts && !stopping()) {
            const delayMs = retryDelayMs * 2 ** (attempt - 1);
            emit({ type: 'email-retry', id: entry.id, name, attempt, delayMs, reason });
            await sleep(delayMs, options.signal);
            continue;
          }
          summary.failed.push({ id: entry.id, name, reason });
          emit({ type: 'email-failed', id: entry.id, name, reason });
          return;
        }
      }),
    );
  } finally {
    await transport?.close();
    await saving;
    if (options.signal?.aborted === true && summary.notAttempted > 0) summary.stopped ??= 'signal';
    if (recorded) await writeIndex(options, manifest, periodDir, clock).catch((error: unknown) => {
      emit({ type: 'warning', message: `The index of ${period} could not be rewritten: ${messageOf(error)}` });
    });
  }
  if (saveError !== null) {
    throw new GeoReportsError(`Could not save the manifest of ${period}: ${messageOf(saveError)}`, {
      hint: 'Check free space and permissions of the output folder; messages already sent are not sent again only if the manifest says so.',
    });
  }
  summary.durationMs = clock().getTime() - started;
  emit({ type: 'email-summary', summary });
  return summary;
}

/**
 * The SMTP server cannot be used at all: nothing was sent. A refused login or a missing TLS is a configuration
 * error (exit 2); an unreachable server is a failure to try again later (exit 1).
 */
export function smtpUnavailable(reason: string, stop: StopReason | null, server: string): GeoReportsError {
  const message = `Cannot send through ${server}: ${reason}. Nothing was sent.`;
  if (stop === 'auth') {
    return new ConfigError(message, {
      hint: 'Check the user and password in GEO_REPORTS_SMTP_URL (a password with "@", ":" or "/" must be percent-encoded).',
    });
  }
  if (stop === 'tls') {
    return new ConfigError(message, {
      hint: 'Use smtps:// (port 465) or a server that offers STARTTLS; pass --allow-insecure only on a network you trust.',
    });
  }
  return new GeoReportsError(message, {
    hint: 'Check the host and port in GEO_REPORTS_SMTP_URL and that the server is up, then run the same command again.',
  });
}

type Settled =
  | { kind: 'sent'; accepted: string[]; response: string; state: StateOf }
  | { kind: 'failed'; accepted: string[]; reason: string; temporary: boolean; stop: StopReason | null; state: StateOf }
  | { kind: 'unknown'; accepted: string[]; reason: string; state: StateOf };
type StateOf = (messageId: string, at: string, attempts: number) => EmailState;

/**
 * The transport's outcome → the message's record. A recipient refused while others took the message is a
 * failure naming the refusal; the recipients that took it are kept, so the retry goes to the others only.
 */
export function settle(outcome: SendOutcome, acceptedBefore: string[]): Settled {
  if (outcome.status === 'unknown') {
    return {
      kind: 'unknown',
      accepted: acceptedBefore,
      reason: outcome.reason,
      state: (messageId, at, attempts) => ({ status: 'unknown', messageId, at, accepted: acceptedBefore, rejected: [], error: outcome.reason, attempts }),
    };
  }
  if (outcome.status === 'failed') {
    const reason = describeRefusal(outcome.rejected, outcome.reason);
    return {
      kind: 'failed',
      accepted: acceptedBefore,
      reason,
      temporary: outcome.temporary,
      stop: outcome.stop,
      state: (messageId, at, attempts) => ({
        status: 'failed',
        messageId,
        at,
        accepted: acceptedBefore,
        rejected: outcome.rejected,
        error: reason,
        attempts,
      }),
    };
  }
  const accepted = uniqueAddresses(acceptedBefore, outcome.accepted);
  if (outcome.rejected.length > 0) {
    const reason = describeRefusal(outcome.rejected, 'recipients refused');
    const temporary = outcome.rejected.every((r) => /^4\d\d/.test(r.response));
    return {
      kind: 'failed',
      accepted,
      reason,
      temporary,
      stop: null,
      state: (messageId, at, attempts) => ({ status: 'failed', messageId, at, accepted, rejected: outcome.rejected, error: reason, response: outcome.response, attempts }),
    };
  }
  return {
    kind: 'sent',
    accepted,
    response: outcome.response,
    state: (messageId, at, attempts) => ({ status: 'sent', messageId, at, accepted, rejected: [], response: outcome.response, attempts }),
  };
}

function describeRefusal(rejected: Rejection[], fallback: string): string {
  if (rejected.length === 0) return fallback;
  return rejected.map((r) => `${r.address} refused: ${r.response}`).join('; ');
}

async function writeIndex(options: DeliveryOptions, manifest: Manifest, periodDir: string, clock: () => Date): Promise<void> {
  const model = buildIndexModel({
    period: manifest.period,
    entries: manifest.projects,
    account: manifest.account ?? null,
    language: options.config.report.language,
    branding: options.branding,
    generatedAt: clock().toISOString(),
  });
  await writeFileAtomic(join(periodDir, 'index.html'), options.renderer.renderIndex(model));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
