// Public entry of the API v1 simulator: the app factory and a listener on loopback.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulatorApp } from './app.js';
import type { SimulatorHandle, SimulatorOptions } from './types.js';

export { createSimulatorApp } from './app.js';
export { DEMO_TOKEN } from './types.js';
export { DIALECT_NAMES, DIALECT_SUMMARIES, isDialectName } from './dialects.js';
export type { ClassicAnswer, ClassicError, Dialect, DialectName, DialectOption } from './dialects.js';
export type {
  FaultOptions,
  MalformedMode,
  RecordedRequest,
  ReportMode,
  SimulatorHandle,
  SimulatorOptions,
  SimulatorState,
  TokenUsage,
  WebhookDeliveryRecord,
} from './types.js';

/** Listens on host:port (port 0 picks a free one) and resolves once the socket is bound. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const host = options.host ?? '127.0.0.1';
  const app = createSimulatorApp(options);
  const server = createServer((req, res) => app.handle(req, res));
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    state: app.state,
    close() {
      closed ??= (async () => {
        await app.shutdown();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
