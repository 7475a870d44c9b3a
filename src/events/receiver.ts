// The webhook receiver: node:http, one path, POST only. Reads the raw body itself (bounded in size and time),
// verifies the signature before anything else, stores a verified delivery in the journal (flushed) before it
// answers, and hands it to the actions afterwards: the sender gets its answer in milliseconds whatever the
// actions take, and a replay gets a 2xx and changes nothing.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryLine } from './journal.js';
import { readEvent, type EventFieldMap } from './payload.js';
import type { EventStore } from './store.js';
import { checkFreshness, ID_HEADERS, verifyDelivery } from './verify.js';

/** Bodies above this are refused (413) and their reading stops. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ReceiverOptions {
  /** The path deliveries are posted to, e.g. `/webhooks`. */
  path: string;
  /** Secrets accepted now (several while one is rotated); read from the environment by the caller. */
  secrets: readonly string[];
  toleranceSeconds: number;
  store: EventStore;
  fields?: EventFieldMap;
  clock?: () => Date;
  /** One line per refused or stored delivery, for the operator. */
  log: (line: string) => void;
  /** Called with each delivery once it is on disk. */
  onStored: (delivery: DeliveryLine) => void;
  /** Longest time to receive the headers. @default 10000 */
  headersTimeoutMs?: number;
  /** Longest time to receive a whole request, body included. @default 15000 */
  requestTimeoutMs?: number;
  /** Connections open at once; more are refused by the server. @default 256 */
  maxConnections?: number;
}

export interface Receiver {
  server: Server;
  /** Stops accepting, waits for requests in flight. */
  close(): Promise<void>;
}

type Answer = { status: number; body: Record<string, unknown> };

class BodyTooLarge extends Error {}

/** The body as received, or BodyTooLarge as soon as it grows past the limit (the reading stops there). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
    request.once('aborted', () => reject(new Error('the sender closed the connection')));
  });
}

function send(response: ServerResponse, answer: Answer, close = false): void {
  if (response.headersSent) return;
  const body = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...(close ? { connection: 'close' } : {}),
  });
  response.end(body);
}

export function createReceiver(options: ReceiverOptions): Receiver {
  const clock = options.clock ?? (() => new Date());
  const inFlight = new Set<Promise<void>>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://receiver.invalid');
    const from = request.socket.remoteAddress ?? 'unknown';
    if (url.pathname !== options.path) {
      send(response, { status: 404, body: { error: 'not found' } }, true);
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      send(response, { status: 405, body: { error: 'POST only' } }, true);
      return;
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      options.log(`refused a delivery from ${from}: body of ${declared} bytes, over ${MAX_BODY_BYTES}`);
      send(response, { status: 413, body: { error: 'body too large' } }, true);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(request, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        options.log(`refused a delivery from ${from}: body over ${MAX_BODY_BYTES} bytes`);
        send(response, { status: 413, body: { error: 'body too large' } }, true);
        return;
      }
      return; // the sender went away: nothing to answer
    }

    const now = clock();
    const verdict = verifyDelivery({ secrets: options.secrets, body, headers: request.headers, now, toleranceSeconds: options.toleranceSeconds });
    if (!verdict.ok) {
      options.log(`refused a delivery from ${from}: ${verdict.reason}`);
      send(response, { status: 401, body: { error: 'signature not verified' } });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      options.log(`refused a delivery from ${from}: the body is not JSON`);
      send(response, { status: 400, body: { error: 'body is not JSON' } });
      return;
    }
    // An id header the signature does not cover could be changed at each replay: only a signed one is read.
    const headers = verdict.id === null ? withoutIdHeaders(request.headers) : request.headers;
    const event = readEvent({ payload, body, headers, ...(options.fields === undefined ? {} : { fields: options.fields }) });
    // A payload's own time is checked only when the signature did not carry one.
    if (verdict.timestamp === null && event.timestamp !== null) {
      const stale = checkFreshness(event.timestamp, now, options.toleranceSeconds);
      if (stale !== null) {
        options.log(`refused a delivery from ${from}: ${stale} (${event.timestamp.toISOString()})`);
        send(response, { status: 401, body: { error: stale } });
        return;
      }
    }
    if (!options.store.claim(event.id)) {
      options.log(`delivery ${event.id} received again: already stored, nothing done`);
      send(response, { status: 200, body: { ok: true, id: event.id, duplicate: true } });
      return;
    }
    const line: DeliveryLine = {
      type: 'delivery',
      id: event.id,
      receivedAt: now.toISOString(),
      kind: event.kind,
      kindText: event.kindText,
      projectId: event.projectId,
      timestamp: event.timestamp?.toISOString() ?? null,
      scores: event.scores,
      known: event.projectId === null ? { geo: null, seo: null } : options.store.knownScores(event.projectId),
      payload,
    };
    try {
      await options.store.append([line]);
    } catch (error) {
      options.store.release(event.id);
      options.log(`could not store delivery ${event.id}: ${(error as Error).message}; the sender is asked to retry`);
      send(response, { status: 503, body: { error: 'could not store the delivery; retry later' } });
      return;
    }
    options.log(`stored delivery ${event.id} (${event.kindText ?? 'no kind'}${event.projectId === null ? '' : `, project ${event.projectId}`})`);
    send(response, { status: 200, body: { ok: true, id: event.id } });
    options.onStored(line);
  }

  const requestTimeout = options.requestTimeoutMs ?? 15_000;
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout,
      // Node checks the two limits above only this often (30 s by default): a slow sender is cut off in time.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(requestTimeout / 2)),
    },
    (request, response) => {
      const work = handle(request, response).catch((error: unknown) => {
        options.log(`error while receiving a delivery: ${(error as Error).message}`);
        send(response, { status: 500, body: { error: 'internal error' } }, true);
      });
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  );
  server.maxConnections = options.maxConnections ?? 256;
  server.keepAliveTimeout = 5_000;

  return {
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Listens on host:port (port 0: a free one) and returns the URL deliveries go to. */
export async function listenOn(receiver: Receiver, host: string, port: number, path: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    receiver.server.once('error', reject);
    receiver.server.listen(port, host, () => {
      receiver.server.off('error', reject);
      resolve();
    });
  });
  const address = receiver.server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}${path}`;
}

/** The request's headers without those that may carry a delivery id. */
function withoutIdHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const ids: ReadonlySet<string> = new Set(ID_HEADERS);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !ids.has(name)));
}
