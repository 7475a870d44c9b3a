// The pages open in a browser, listening for reloads (server-sent events): each is told the setup's version when it
// connects and again after every reload; a page showing an older version reloads itself.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Pages listening for reloads at once; more is a page left open in many tabs, or abuse. */
const MAX_LISTENERS = 32;
/** A comment line now and then keeps idle connections open through proxies and browsers. */
const HEARTBEAT_MS = 15_000;

export class ReloadEvents {
  readonly #listeners = new Set<ServerResponse>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor() {
    this.#heartbeat = setInterval(() => {
      for (const listener of this.#listeners) listener.write(': still here\n\n');
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** As many pages listen as are let in: the next one is refused (503). */
  get full(): boolean {
    return this.#listeners.size >= MAX_LISTENERS;
  }

  /** Answers `res` with the event stream, telling `version` first; the page is let go when it disconnects. */
  open(req: IncomingMessage, res: ServerResponse, version: number): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Content-Type-Options': 'nosniff' });
    res.write(`retry: 1000\nevent: version\ndata: ${version}\n\n`);
    this.#listeners.add(res);
    const forget = (): void => {
      this.#listeners.delete(res);
    };
    req.on('close', forget);
    res.on('close', forget);
    res.on('error', forget);
  }

  /** Tells every page listening that the setup is now `version`. */
  tell(version: number): void {
    for (const listener of this.#listeners) listener.write(`event: reload\ndata: ${version}\n\n`);
  }

  /** Ends every stream and the heartbeat. */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const listener of this.#listeners) listener.end();
    this.#listeners.clear();
  }
}
