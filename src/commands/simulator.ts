// `geo-reports simulator`: serves the API v1 double on loopback until SIGINT or SIGTERM.
import { runSimulatorCommand } from '../simulator/main.js';
import { DIALECT_NAMES, DIALECT_SUMMARIES, type DialectName, type FaultOptions } from '../simulator/server.js';
import { parseCommandArgs, positiveInt, stringValue, UsageError } from './args.js';
import { nonNegativeInt } from './api-command.js';
import type { Command } from './context.js';

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  projects: { type: 'string' },
  seed: { type: 'string' },
  tokens: { type: 'string' },
  'error-rate': { type: 'string' },
  'drop-rate': { type: 'string' },
  latency: { type: 'string' },
  dialect: { type: 'string' },
} as const;

export const DEFAULT_SIMULATOR_PORT = 8787;
const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'];

const HELP = `Usage: geo-reports simulator [--port ${DEFAULT_SIMULATOR_PORT}] [--host 127.0.0.1] [--projects N] [--seed N]
                             [--tokens t1,t2] [--error-rate R] [--drop-rate R] [--latency MS]
                             [--dialect ${DIALECT_NAMES.join('|')}]

Runs a simulator of Agency Integration API v1 on this machine (seeded data, quotas, analyses, webhooks
with signed deliveries), until Ctrl-C or SIGTERM. Prints its URL and the token to use:
  AGENCY_API_BASE_URL=<url> AGENCY_API_TOKEN=<token> geo-reports projects

Options:
  --port N             port to listen on, 0 for any free port (default ${DEFAULT_SIMULATOR_PORT})
  --host H             loopback address to listen on: ${LOOPBACK_HOSTS.join(', ')} (default 127.0.0.1)
  --projects N         number of projects (default 36)
  --seed N             seed of the generated data: same seed, same data (default 42)
  --tokens LIST        accepted tokens, comma-separated (default: the demo token, printed at start)
  --error-rate R       share of requests answered with a 5xx, 0 to 1 (default 0)
  --drop-rate R        share of connections dropped without an answer, 0 to 1 (default 0)
  --latency MS         delay added to every answer, in milliseconds (default 0)
  --dialect NAME       wire form of what the spec leaves "not shown" (default classic):
${DIALECT_NAMES.map((name) => `                         ${name.padEnd(9)} ${DIALECT_SUMMARIES[name]}`).join('\n')}
`;

/** --dialect NAME, checked against the known dialects. */
export function dialectOption(value: string | boolean | string[] | undefined): DialectName | undefined {
  if (value === undefined) return undefined;
  const name = typeof value === 'string' ? value.trim() : '';
  const known = DIALECT_NAMES as readonly string[];
  if (!known.includes(name)) {
    throw new UsageError(`--dialect must be one of ${DIALECT_NAMES.join(', ')}${typeof value === 'string' ? ` (got "${value}")` : ''}.`);
  }
  return name as DialectName;
}

function rate(value: string | boolean | string[] | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d*\.?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= 0 && number <= 1)) throw new UsageError(`${name} must be a number from 0 to 1${typeof value === 'string' ? ` (got "${value}")` : ''}.`);
  return number;
}

function tokenList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const tokens = value.split(',').map((t) => t.trim());
  if (tokens.some((t) => t === '' || /\s/.test(t))) throw new UsageError('--tokens needs tokens separated by commas, without spaces or empty entries.');
  if (new Set(tokens).size !== tokens.length) throw new UsageError('--tokens lists the same token twice.');
  return tokens;
}

export const simulatorCommand: Command = {
  name: 'simulator',
  usage: 'simulator [--port 8787] [--projects N] …',
  summary: 'run the API v1 simulator on loopback (demo backend)',
  stopsOnSignal: true,
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'simulator' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const port = values['port'] === undefined ? DEFAULT_SIMULATOR_PORT : nonNegativeInt(values['port'], '--port');
    if (port > 65_535) throw new UsageError(`--port must be 65535 or less (got ${port}).`);
    const host = stringValue(values['host']) ?? '127.0.0.1';
    if (!LOOPBACK_HOSTS.includes(host)) {
      throw new UsageError(`--host must be a loopback address (${LOOPBACK_HOSTS.join(', ')}); got "${host}".`, {
        hint: 'The simulator is a local demo backend and is never exposed to the network.',
      });
    }
    const projectCount = values['projects'] === undefined ? undefined : positiveInt(values['projects'], '--projects');
    const seed = values['seed'] === undefined ? undefined : nonNegativeInt(values['seed'], '--seed');
    const tokens = tokenList(stringValue(values['tokens']));
    const errorRate = rate(values['error-rate'], '--error-rate');
    const dropRate = rate(values['drop-rate'], '--drop-rate');
    const latencyMs = values['latency'] === undefined ? undefined : nonNegativeInt(values['latency'], '--latency');
    const dialect = dialectOption(values['dialect']);
    const faults: FaultOptions = {
      ...(errorRate === undefined ? {} : { errorRate }),
      ...(dropRate === undefined ? {} : { dropRate }),
      ...(latencyMs === undefined ? {} : { latencyMs }),
      ...(seed === undefined ? {} : { seed }),
    };
    await runSimulatorCommand({
      port,
      host,
      ...(tokens === undefined ? {} : { tokens }),
      ...(seed === undefined ? {} : { seed }),
      ...(projectCount === undefined ? {} : { projectCount }),
      ...(Object.keys(faults).length === 0 ? {} : { faults }),
      ...(dialect === undefined ? {} : { dialect }),
      out: (line) => {
        ctx.stdout.write(`${line}\n`);
      },
      signal: ctx.signal,
    });
    return 0;
  },
};
