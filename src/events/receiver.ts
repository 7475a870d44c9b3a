// The webhook receiver: node:http, one path, POST only. Reads the raw body itself (bounded in size and time),
// verifies the signature before anything else, stores a verified delivery in the journal (flushed) before it
// answers, and hands it to the actions afterwards: the sender gets its answer in milliseconds whatever the
// actions take, and a replay gets a 2xx and changes nothing.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
  /** Longest time to receive the headers. @default 5000 */
  headersTimeoutMs?: number;
  /** Longest time to receive a whole request, body included. @default 10000 */
  requestTimeoutMs?: number;
  /**
   * Connections open at once. At the limit, a new connection takes the place of the oldest one that is not in the
   * middle of a request (a sender still trickling its headers, a kept-alive idle one). @default 1024
   */
  maxConnections?: number;
  /**
   * Connections open at once from one address; beyond, a new one takes the place of that address's oldest idle one,
   * or is closed when all of them are mid-request. @default 128
   */
  maxConnectionsPerAddress?: number;
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
    const from = request.socket.remoteAddress ?? 'unknown';
    const url = requestTarget(request.url ?? '/');
    // `//`, `http://[`…: a target no URL can be made of.
    if (url === null) {
      send(response, { status: 400, body: { error: 'bad request target' } }, true);
      return;
    }
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
    // Final refusals (4xx): a retry of the same bytes would be refused again, and no id is taken by them.
    if (nestingDepth(body) > MAX_NESTING) {
      options.log(`refused a delivery from ${from}: the body nests deeper than ${MAX_NESTING} levels`);
      send(response, { status: 400, body: { error: `body nests deeper than ${MAX_NESTING} levels` } });
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
    // A payload's own time is checked only when the signature did not carry one; one that is no date is never fresh.
    if (verdict.timestamp === null && event.timestampUnreadable) {
      options.log(`refused a delivery from ${from}: its time of sending is not a date`);
      send(response, { status: 400, body: { error: 'the time of sending is not a date' } });
      return;
    }
    if (verdict.timestamp === null && event.timestamp !== null) {
      const stale = checkFreshness(event.timestamp, now, options.toleranceSeconds);
      if (stale !== null) {
        options.log(`refused a delivery from ${from}: ${stale} (${event.timestamp.toISOString()})`);
        send(response, { status: 401, body: { error: stale } });
        return;
      }
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
    // The id is taken only for the write: a delivery that could not be stored leaves it free for the retry.
    if (!options.store.claim(event.id)) {
      options.log(`delivery ${event.id} received again: already stored, nothing done`);
      send(response, { status: 200, body: { ok: true, id: event.id, duplicate: true } });
      return;
    }
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

  const requestTimeout = options.requestTimeoutMs ?? 10_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 5_000, requestTimeout);
  const connections = new ConnectionSlots(options.maxConnections ?? 1024, options.maxConnectionsPerAddress ?? 128, options.log);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      // Node checks the two limits above only this often (30 s by default): a slow sender is cut off in time.
      connectionsCheckingInterval: Math.max(100, Math.min(500, Math.ceil(headersTimeout / 4))),
    },
    (request, response) => {
      connections.busy(request.socket, response);
      const work = handle(request, response).catch((error: unknown) => {
        options.log(`error while receiving a delivery: ${(error as Error).message}`);
        send(response, { status: 500, body: { error: 'internal error' } }, true);
      });
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  );
  server.on('connection', (socket: Socket) => connections.open(socket));
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

function requestTarget(target: string): URL | null {
  try {
    return new URL(target, 'http://receiver.invalid');
  } catch {
    return null;
  }
}

/** Deepest nesting of arrays and objects a delivery may have; real payloads have a handful of levels. */
export const MAX_NESTING = 64;

/** How deep the JSON text nests, read byte by byte (no recursion, whatever the depth), strings skipped. */
function nestingDepth(body: Buffer): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c) i += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return deepest;
}

/**
 * The receiver's connections, by address: a sender that opens many and sends nothing (slowloris) holds at most its
 * share, and a full house gives way to a new connection by closing the oldest one that is not mid-request (still
 * sending its headers, or kept alive with nothing to do).
 */
class ConnectionSlots {
  /** Open connections in the order they came (a Map keeps insertion order), each with whether a request is in progress. */
  readonly #open = new Map<Socket, { address: string; busy: boolean }>();
  readonly #byAddress = new Map<string, number>();
  readonly #max: number;
  readonly #perAddress: number;
  readonly #log: (line: string) => void;
  #refusedSince = 0;

  constructor(max: number, perAddress: number, log: (line: string) => void) {
    this.#max = Math.max(1, max);
    this.#perAddress = Math.max(1, perAddress);
    this.#log = log;
  }

  open(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    // At its share, the address's own oldest idle connection makes room; at the limit, anyone's.
    const full = (this.#byAddress.get(address) ?? 0) >= this.#perAddress;
    if (full || this.#open.size >= this.#max) {
      const idle = [...this.#open].find(([, state]) => !state.busy && (!full || state.address === address))?.[0];
      if (idle === undefined) {
        this.#refuse(socket, address);
        return;
      }
      idle.destroy();
      this.#forget(idle);
    }
    this.#open.set(socket, { address, busy: false });
    this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + 1);
    socket.once('close', () => this.#forget(socket));
  }

  /** A request came on `socket`: it keeps its slot until the answer is sent. */
  busy(socket: Socket, response: ServerResponse): void {
    const state = this.#open.get(socket);
    if (state === undefined) return;
    state.busy = true;
    response.once('close', () => {
      state.busy = false;
    });
  }

  #refuse(socket: Socket, address: string): void {
    socket.destroy();
    // One line per burst, not one per connection: a flood must not flood the log as well.
    const now = Date.now();
    if (now - this.#refusedSince < 10_000) return;
    this.#refusedSince = now;
    this.#log(`refused connections from ${address}: ${this.#open.size} open, at most ${this.#perAddress} from one address and ${this.#max} in all`);
  }

  #forget(socket: Socket): void {
    const state = this.#open.get(socket);
    if (state === undefined) return;
    this.#open.delete(socket);
    const left = (this.#byAddress.get(state.address) ?? 1) - 1;
    if (left <= 0) this.#byAddress.delete(state.address);
    else this.#byAddress.set(state.address, left);
  }
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
