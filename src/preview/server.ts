// The template preview: a small node:http server on loopback that shows a project's report made by the batch's own
// steps from saved or sample data, prints its PDF on request, and tells the page to reload (server-sent events)
// when the template folder or the config changes. It sends no request to the API: it has no API client at all.
// This file listens; the routes and their answers are handler.ts's, the setup and its version state.ts's.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { PreviewHandler, hostForUrl, type PreviewHandlerOptions } from './handler.js';

export type { PreviewSetup } from './state.js';

export interface PreviewServerOptions extends Omit<PreviewHandlerOptions, 'workDir'> {
  /** 0 takes a free port. */
  port: number;
}

export interface PreviewServer {
  url: string;
  port: number;
  /** How many times the setup was made again; each one reloads the pages open. */
  readonly version: number;
  /** Makes the setup again now and tells the pages (what a watched change does). */
  reload(reason: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPreviewServer(options: PreviewServerOptions): Promise<PreviewServer> {
  const workDir = await mkdtemp(join(tmpdir(), 'geo-reports-preview-'));
  const handler = new PreviewHandler({ ...options, workDir });
  const server: Server = createServer((req, res) => void handler.handle(req, res));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await handler.close();
    await rm(workDir, { recursive: true, force: true });
    throw listenError(error, options);
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostForUrl(options.host)}:${port}/`,
    port,
    get version() {
      return handler.state.version;
    },
    reload: (reason) => handler.state.reload(reason),
    async close() {
      handler.events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await handler.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Why the server cannot listen, with what to change. */
function listenError(error: unknown, options: Pick<PreviewServerOptions, 'host' | 'port'>): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'EADDRINUSE'
      ? `port ${options.port} is already in use`
      : code === 'EACCES'
        ? `port ${options.port} needs privileges`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `${options.host} is not an address of this machine`
          : (error as Error).message;
  return new ConfigError(`The preview cannot listen on ${hostForUrl(options.host)}:${options.port}: ${why}.`, {
    hint: 'Pick another port with --port N (--port 0 takes a free one), or another --host.',
    cause: error,
  });
}
