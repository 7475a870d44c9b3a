// The `simulator` command: serve the API v1 double until the signal aborts.
import { DEMO_TOKEN, startSimulator, type DialectName, type FaultOptions } from './server.js';

export interface SimulatorCommandOptions {
  port: number;
  host?: string;
  tokens?: string[];
  seed?: number;
  projectCount?: number;
  faults?: FaultOptions;
  dialect?: DialectName;
  out: (line: string) => void;
  signal?: AbortSignal;
}

/** Shows a token by position and last four characters, never in full. */
function tokenLabel(token: string, index: number): string {
  return `token#${index + 1} (…${token.slice(-4)})`;
}

export async function runSimulatorCommand(opts: SimulatorCommandOptions): Promise<void> {
  const handle = await startSimulator({
    port: opts.port,
    host: opts.host ?? '127.0.0.1',
    ...(opts.tokens !== undefined ? { tokens: opts.tokens } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.projectCount !== undefined ? { projectCount: opts.projectCount } : {}),
    ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
    ...(opts.dialect !== undefined ? { dialect: opts.dialect } : {}),
  });
  opts.out(`Simulator listening on ${handle.url}`);
  if (opts.tokens === undefined) opts.out(`Demo token: ${DEMO_TOKEN}`);
  else opts.out(`Accepted tokens: ${opts.tokens.map((t, i) => (t === DEMO_TOKEN ? `${DEMO_TOKEN} (demo)` : tokenLabel(t, i))).join(', ')}`);
  opts.out(`Projects: ${handle.state.projects().length}; endpoints under ${handle.url}/api/v1/`);
  if (opts.dialect !== undefined && opts.dialect !== 'classic') opts.out(`Dialect: ${opts.dialect}`);

  const { signal } = opts;
  // Without a signal the server runs for the life of the process.
  await new Promise<void>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close();
  opts.out('Simulator stopped');
}
