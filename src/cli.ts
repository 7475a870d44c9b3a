// argv → command. The only module that reads process-wide state (env, signals, TTY) and turns errors into exit codes.
import { ApiError, AuthenticationError, TokensSpentError } from './api/errors.js';
import { COMMANDS, findCommand, type CommandContext } from './commands/index.js';
import { UsageError } from './commands/args.js';
import { ConfigError, GeoReportsError, isGeoReportsError } from './errors.js';

/** Exit codes; documented in the README. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** Some reports are held by the pre-send check (rendered, not released). */
  held: 4,
  /** EX_TEMPFAIL: every token's daily quota is used up; run again tomorrow to finish. */
  quota: 75,
  sigint: 130,
  sigterm: 143,
} as const;

export interface MainOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  stdout?: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stderr?: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  /** Listen to SIGINT / SIGTERM. @default true */
  handleSignals?: boolean;
}

export async function main(options: MainOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const controller = new AbortController();
  let signalExit: number | null = null;
  let quietStop = false;
  const onSignal = (name: NodeJS.Signals): void => {
    if (signalExit !== null) {
      stderr.write(`\nSecond ${name}: stopping now.\n`);
      process.exit(name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm);
    }
    signalExit = name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
    stderr.write(
      quietStop
        ? `\n${name} received: stopping.\n`
        : `\n${name} received: finishing work in flight and saving; press Ctrl-C again to stop at once.\n`,
    );
    controller.abort(new GeoReportsError(`Stopped by ${name}.`));
  };
  if (options.handleSignals !== false) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  const [name, ...rest] = options.argv;
  const ctx: CommandContext = {
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
    stdout,
    stderr,
    signal: controller.signal,
    clock: () => new Date(),
  };
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      stdout.write(usage());
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    if (name === '--version' || name === '-v') {
      stdout.write(`${await version()}\n`);
      return EXIT.ok;
    }
    const command = findCommand(name);
    if (command === undefined) {
      throw new UsageError(`Unknown command "${name}".`, { hint: 'Run `geo-reports --help` to list the commands.' });
    }
    quietStop = command.stopsOnSignal === true;
    const code = await command.run(rest, ctx);
    return command.stopsOnSignal === true ? code : (signalExit ?? code);
  } catch (error) {
    // After a signal, an aborted call is the expected end, not an error to report.
    if (signalExit !== null) return signalExit;
    stderr.write(describeError(error));
    return exitCodeFor(error);
  } finally {
    if (options.handleSignals !== false) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) return EXIT.usage;
  if (error instanceof TokensSpentError) return EXIT.quota;
  if (error instanceof AuthenticationError) return EXIT.usage;
  if (error instanceof ApiError && error.status === 429) return EXIT.quota;
  return EXIT.failure;
}

function describeError(error: unknown): string {
  if (isGeoReportsError(error)) {
    return `Error: ${error.message}\n${error.hint !== undefined ? `Fix: ${error.hint}\n` : ''}`;
  }
  // An unexpected error is a bug: show the stack so it can be reported.
  return `Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return `geo-reports — monthly GEO & SEO client reports from Agency Integration API v1

Usage: geo-reports <command> [options]      (geo-reports <command> --help for its options)

Commands:
${lines.join('\n')}

Environment:
  AGENCY_API_TOKEN      API token(s), comma-separated (1 to 10). Never put tokens in the config file.
  AGENCY_API_BASE_URL   API base URL (or --base-url), e.g. https://app.example.com
  PUPPETEER_EXECUTABLE_PATH  Chromium to print PDFs with (default: system chromium)
  GEO_REPORTS_SMTP_URL  SMTP server for \`send\`, e.g. smtp://user:password@host:587 (never in the config file)

Exit codes: 0 ok, 1 failure, 2 usage or config error, 4 reports held by the pre-send check,
            75 daily quota used up (run again tomorrow), 130/143 stopped by SIGINT/SIGTERM.
`;
}
