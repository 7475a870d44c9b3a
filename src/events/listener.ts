// The receiver, the journal and the actions wired together: deliveries are stored by the receiver, then acted on
// one at a time in the order they arrived (so cooldowns are decided in order), each outcome written before its
// alerts go out. At start, what the journal says is unfinished is finished first.
import pLimit from 'p-limit';
import { decide, type AlertPolicy } from './actions.js';
import { alertsOwed, sendAlert, type AlertChannel, type AlertMessage } from './alerts.js';
import type { DeliveryLine, OutcomeLine } from './journal.js';
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
  /** Receiver limits (tests make them short). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxConnections?: number;
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
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const store = await EventStore.open({
    dir: options.dir,
    clock,
    onBadLine: (file, line) => options.log(`the events journal ${file} has an unreadable line ${line}; it is skipped`),
  });
  const queue = pLimit(1);
  const work = new Set<Promise<void>>();
  const track = (promise: Promise<void>): void => {
    work.add(promise);
    void promise.finally(() => work.delete(promise));
  };
  const sendOptions = { store, clock, sleep, log: options.log, ...(options.redact === undefined ? {} : { redact: options.redact }) };

  const deliverAlerts = async (alerts: OutcomeLine['alerts']): Promise<void> => {
    for (const alert of alerts) await sendAlert(await options.message(alert), options.channels, sendOptions);
  };

  const act = (delivery: DeliveryLine): Promise<void> =>
    queue(async () => {
      const outcome = await decide(delivery, {
        store,
        policy: options.policy,
        clock,
        hasChannel: options.channels.length > 0,
        ...(options.latestScores === undefined ? {} : { latestScores: options.latestScores }),
      });
      await store.append([outcome]);
      options.log(`delivery ${delivery.id}: ${outcome.outcome.replace(/_/g, ' ')} (${outcome.detail})`);
      await deliverAlerts(outcome.alerts);
    }).catch((error: unknown) => {
      // Stays pending in the journal: the next start acts on it.
      options.log(`delivery ${delivery.id} could not be acted on: ${(error as Error).message}; it is retried at the next start`);
    });

  // What a stop left unfinished: alerts owed, then deliveries never acted on.
  const owed = alertsOwed(store.outcomesWithAlerts(), options.channels, store);
  if (owed.length > 0)
    track(queue(() => deliverAlerts(owed)).catch((error: unknown) => options.log(`alerts owed could not be sent: ${(error as Error).message}`)));
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
  });
  const url = await listenOn(receiver, options.host, options.port, options.path);
  const pruning = setInterval(() => store.prune(), 60 * 60 * 1000);
  pruning.unref();

  return {
    url,
    async idle() {
      while (work.size > 0) await Promise.allSettled([...work]);
    },
    async close() {
      clearInterval(pruning);
      await receiver.close();
      while (work.size > 0) await Promise.allSettled([...work]);
      await Promise.allSettled(options.channels.map((channel) => channel.close()));
      await store.close();
    },
  };
}
