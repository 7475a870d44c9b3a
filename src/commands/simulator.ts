// `geo-reports simulator`: serves the API v1 double on loopback until SIGINT or SIGTERM.
import { EXIT } from '../exit-codes.js';
import { DIALECT_NAMES, DIALECT_SUMMARIES } from '../simulator/dialects.js';
import { choice, defineCommand, integer, positiveInteger, ratio, UsageError, type ValueParser } from './define.js';

const DEFAULT_SIMULATOR_PORT = 8787;
const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/** --dialect NAME: the wire form the simulator answers in where the spec says "not shown". */
const DIALECT_OPTION = {
  type: 'string',
  value: 'NAME',
  parse: choice(DIALECT_NAMES),
  help: `wire form of what the spec leaves "not shown" (default classic):\n${DIALECT_NAMES.map((name) => `  ${name.padEnd(9)} ${DIALECT_SUMMARIES[name]}`).join('\n')}`,
} as const;

const loopbackHost: ValueParser<string> = (text, name) => {
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(text)) {
    throw new UsageError(`${name} must be a loopback address (${LOOPBACK_HOSTS.join(', ')}); got "${text}".`, {
      hint: 'The simulator is a local demo backend and is never exposed to the network.',
    });
  }
  return text;
};

const tokenList: ValueParser<string[]> = (text, name) => {
  const tokens = text.split(',').map((t) => t.trim());
  if (tokens.some((t) => t === '' || /\s/.test(t))) throw new UsageError(`${name} needs tokens separated by commas, without spaces or empty entries.`);
  if (new Set(tokens).size !== tokens.length) throw new UsageError(`${name} lists the same token twice.`);
  return tokens;
};

export default defineCommand(
  {
    name: 'simulator',
    description: `Runs a simulator of Agency Integration API v1 on this machine (seeded data, quotas, analyses, webhooks
with signed deliveries), until Ctrl-C or SIGTERM. Prints its URL and the token to use:
  AGENCY_API_BASE_URL=<url> AGENCY_API_TOKEN=<token> geo-reports projects`,
    options: {
      port: { type: 'string', value: 'N', parse: integer({ max: 65_535 }), default: DEFAULT_SIMULATOR_PORT, help: 'port to listen on, 0 for any free port' },
      host: { type: 'string', value: 'H', parse: loopbackHost, default: '127.0.0.1', help: `loopback address to listen on: ${LOOPBACK_HOSTS.join(', ')}` },
      projects: { type: 'string', value: 'N', parse: positiveInteger, help: 'number of projects (default 36)' },
      seed: { type: 'string', value: 'N', parse: integer(), help: 'seed of the generated data: same seed, same data (default 42)' },
      tokens: { type: 'string', value: 'LIST', parse: tokenList, help: 'accepted tokens, comma-separated (default: the demo token, printed at start)' },
      'error-rate': { type: 'string', value: 'R', parse: ratio, help: 'share of requests answered with a 5xx, 0 to 1 (default 0)' },
      'drop-rate': { type: 'string', value: 'R', parse: ratio, help: 'share of connections dropped without an answer, 0 to 1 (default 0)' },
      latency: { type: 'string', value: 'MS', parse: integer(), help: 'delay added to every answer, in milliseconds (default 0)' },
      dialect: DIALECT_OPTION,
    },
    stopsOnSignal: true,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const { runSimulatorCommand } = await import('../simulator/main.js');
    const { port, host, projects, seed, tokens, latency, dialect } = options;
    const faults = {
      ...(options['error-rate'] === undefined ? {} : { errorRate: options['error-rate'] }),
      ...(options['drop-rate'] === undefined ? {} : { dropRate: options['drop-rate'] }),
      ...(latency === undefined ? {} : { latencyMs: latency }),
      ...(seed === undefined ? {} : { seed }),
    };
    await runSimulatorCommand({
      port,
      host,
      ...(tokens === undefined ? {} : { tokens }),
      ...(seed === undefined ? {} : { seed }),
      ...(projects === undefined ? {} : { projectCount: projects }),
      ...(Object.keys(faults).length === 0 ? {} : { faults }),
      ...(dialect === undefined ? {} : { dialect }),
      out: (line) => {
        ctx.stdout.write(`${line}\n`);
      },
      signal: ctx.signal,
    });
    return EXIT.ok;
  },
);
