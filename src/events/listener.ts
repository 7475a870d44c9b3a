// The receiver, the journal and the actions wired together: deliveries are stored by the receiver, then acted on
// one at a time in the order they arrived (so cooldowns are decided in order), each outcome written before its
// alerts go out. At start, what the journal says is unfinished is finished first.
import { setTimeout as delay } from 'node:timers/promises';
import pLimit from 'p-limit';
import { decide, type AlertPolicy } from './actions.js';
import type { AlertChannel, AlertMessage } from './alert-channel.js';
import { alertsOwed, sendAlert } from './alerts.js';
import type { DeliveryLine, JournalWriterOptions, OutcomeLine } from './journal.js';
import type { EventFieldMap } from './payload.js';
import { createReceiver, listenOn } from './receiver.js';
import { EventStore, type KnownScores } from './store.js';

export interface ListenerOptions {
  /** `<out>/events` */
  dir: string;
  host: string;
  port: number;
  path: string;
  secrets: readonly string[];
  toleranceSeconds: number;
  fields?: EventFieldMap;
  policy: AlertPolicy;
  channels: readonly AlertChannel[];
  /** The words of an alert (client name, scores, link to the last report). */
  message: (alert: OutcomeLine['alerts'][number]) => Promise<AlertMessage>;
  latestScores?: (projectId: number) => Promise<KnownScores | null>;
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  redact?: (text: string) => string;
  log: (line: string) => void;
  /** How often alerts that failed are tried again while the receiver runs. @default 300000 (5 minutes) */
  retryEveryMs?: number;
  /** Receiver limits (tests make them short). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
  /** The journal's flush to disk. @default the file's datasync */
  journalSync?: JournalWriterOptions['sync'];
}

export interface Listener {
  url: string;
  /** Resolves when every delivery stored so far has been acted on. */
  idle(): Promise<void>;
  /** Stops receiving, finishes what is in flight, closes the journal. */
  close(): Promise<void>;
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const clock = options.clock ?? (() => new Date());
  // Aborted by close(): a wait before a retry ends at once, and the retry is left to the next start.
  const stopping = new AbortController();
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined));
  const store = await EventStore.open({
    dir: options.dir,
    clock,
    onBadLine: (file, line) => options.log(`the events journal ${file} has an unreadable line ${line}; it is skipped`),
    ...(options.journalSync === undefined ? {} : { sync: options.journalSync }),
  });
  const queue = pLimit(1);
  const work = new Set<Promise<void>>();
  const track = (promise: Promise<void>): void => {
    work.add(promise);
    void promise.finally(() => work.delete(promise));
  };
  const sendOptions = { store, clock, sleep, log: options.log, signal: stopping.signal, ...(options.redact === undefined ? {} : { redact: options.redact }) };

  const deliverAlerts = async (alerts: ReadonlyArray<{ alert: OutcomeLine['alerts'][number]; channels: readonly AlertChannel[] }>): Promise<void> => {
    for (const { alert, channels } of alerts) await sendAlert(await options.message(alert), channels, sendOptions);
  };
  /** Alerts still owed (a failure, a stop during an attempt), sent in the queue: never two attempts at once. */
  const deliverOwed = (why: string): void =>
    track(
      queue(async () => {
        const owed = alertsOwed(store.outcomesWithAlerts(), options.channels, store, clock());
        if (owed.length > 0) options.log(`${owed.length} alert${owed.length === 1 ? '' : 's'} owed ${why}: sending`);
        await deliverAlerts(owed);
      }).catch((error: unknown) => options.log(`alerts owed could not be sent: ${(error as Error).message}`)),
    );

  const act = (delivery: DeliveryLine): Promise<void> =>
    queue(async () => {
      const outcome = await decide(delivery, {
        store,
        policy: options.policy,
        clock,
        channels: options.channels.map((channel) => channel.name),
        ...(options.latestScores === undefined ? {} : { latestScores: options.latestScores }),
      });
      const written = store.append([outcome]).then(() => options.log(`delivery ${delivery.id}: ${outcome.outcome.replace(/_/g, ' ')} (${outcome.detail})`));
      if (outcome.alerts.length === 0 && outcome.read === undefined) {
        // No later decision reads this line (no alert, no scores read), and nothing goes out because of it: the
        // next delivery is decided while it is written, and the outcomes decided meanwhile share one flush instead
        // of taking one each, a flush the receiver's next acknowledgements would otherwise queue behind. The
        // journal writes lines in the order they were asked for, so the outcomes keep the deliveries' order.
        track(written.catch((error: unknown) => notActed(delivery, error)));
        return;
      }
      await written;
      await deliverAlerts(outcome.alerts.map((alert) => ({ alert, channels: options.channels })));
    }).catch((error: unknown) => notActed(delivery, error));
  // Stays pending in the journal: the next start acts on it.
  const notActed = (delivery: DeliveryLine, error: unknown): void =>
    options.log(`delivery ${delivery.id} could not be acted on: ${(error as Error).message}; it is retried at the next start`);

  // What a stop left unfinished: alerts owed, then deliveries never acted on.
  deliverOwed('from before the start');
  for (const delivery of store.pending()) track(act(delivery));

  const receiver = createReceiver({
    path: options.path,
    secrets: options.secrets,
    toleranceSeconds: options.toleranceSeconds,
    store,
    clock,
    log: options.log,
    onStored: (delivery) => track(act(delivery)),
    ...(options.fields === undefined ? {} : { fields: options.fields }),
    ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    ...(options.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: options.maxConnectionsPerAddress }),
  });
  const url = await listenOn(receiver, options.host, options.port, options.path);
  const pruning = setInterval(() => store.prune(), 60 * 60 * 1000);
  pruning.unref();
  // A chat room or a mail server down for a while: what failed goes out once it is back, without a restart.
  const retrying = setInterval(() => deliverOwed('after a failure'), options.retryEveryMs ?? 5 * 60 * 1000);
  retrying.unref();

  return {
    url,
    async idle() {
      while (work.size > 0) await Promise.allSettled([...work]);
    },
    async close() {
      clearInterval(pruning);
      clearInterval(retrying);
      stopping.abort();
      await receiver.close();
      while (work.size > 0) await Promise.allSettled([...work]);
      await Promise.allSettled(options.channels.map((channel) => channel.close()));
      await store.close();
    },
  };
}
