// argv → command. The only module that reads process-wide state (env, signals, TTY) and turns errors into exit codes.
import { ApiError, AuthenticationError, TokensSpentError } from './api/errors.js';
import { COMMANDS, findCommand, nearestCommand, type CommandContext } from './commands/index.js';
import {
  ALERT_WEBHOOK_URL_ENV,
  BASE_URL_ENV,
  BROWSER_WS_ENDPOINT_ENV,
  CHROMIUM_SANDBOX_ENV,
  HISTORY_TOKEN_ENV,
  LINK_SECRET_ENV,
  SMTP_URL_ENV,
  TOKEN_ENV,
  WEBHOOK_SECRET_ENV,
} from './config/environment.js';
import { ConfigError, errorMessage, FileSystemError, isGeoReportsError, StopRequested, UsageError } from './errors.js';
import { describeExitCodes, EXIT } from './exit-codes.js';
import { helpTable, helpWidth, wrapHelp, wrapWords } from './help-layout.js';
import { outgoingStream } from './outgoing-text.js';

export { EXIT } from './exit-codes.js';

export interface MainOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  stdout?: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stderr?: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  /** Today, for the commands that ask (the period to report, the quota's day). @default () => new Date() */
  clock?: () => Date;
  /** Listen to SIGINT / SIGTERM. @default true */
  handleSignals?: boolean;
}

export async function main(options: MainOptions): Promise<number> {
  // Whatever a command prints (a project's name from the service among it) reaches the terminal cleaned.
  const stdout = outgoingStream(options.stdout ?? process.stdout);
  const stderr = outgoingStream(options.stderr ?? process.stderr);
  const controller = new AbortController();
  let signalExit: number | null = null;
  let quietStop = false;
  const onSignal = (name: NodeJS.Signals): void => {
    if (signalExit !== null) {
      stderr.write(`\nSecond ${name}: stopping now.\n`);
      stopNow(name);
    }
    signalExit = name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
    stderr.write(
      quietStop ? `\n${name} received: stopping.\n` : `\n${name} received: finishing work in flight and saving; press Ctrl-C again to stop at once.\n`,
    );
    controller.abort(new StopRequested(name === 'SIGTERM' ? 'SIGTERM' : 'SIGINT'));
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
    clock: options.clock ?? (() => new Date()),
  };
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      stdout.write(usage(helpWidth(stdout)));
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    if (name === '--version' || name === '-v') {
      stdout.write(`${await version()}\n`);
      return EXIT.ok;
    }
    const entry = findCommand(name);
    if (entry === undefined) {
      const nearest = nearestCommand(name);
      throw new UsageError(`Unknown command "${name}".${nearest === undefined ? '' : ` Did you mean "${nearest}"?`}`, {
        hint: 'Run `geo-reports --help` to list the commands.',
      });
    }
    // Only the command named is loaded, and what it imports; a module that cannot load is a broken install.
    const { default: command } = await entry.load().catch((error: unknown) => {
      throw new ConfigError(`Could not load the command "${name}": ${errorMessage(error)}`, {
        hint: 'The installation is incomplete or out of date: run `npm ci` (which builds dist/), or `npm run build` after changing the sources.',
        cause: error,
      });
    });
    quietStop = command.stopsOnSignal;
    const code = await command.run(rest, ctx);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by onSignal while the command ran
    return command.stopsOnSignal ? code : (signalExit ?? code);
  } catch (error) {
    // After a signal, an aborted call is the expected end, not an error to report.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by onSignal while the command ran
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

/**
 * Ends the process at once. process.exit waits for the file-system threads, and one blocked opening a FIFO (or a
 * dead network mount) never returns: the exit handlers run (a browser started by the run is closed by its own),
 * then the signal is raised again with its default action, which ends the process whatever its threads do.
 */
function stopNow(name: NodeJS.Signals): void {
  const code = name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  process.exitCode = code;
  process.emit('exit', code);
  process.removeAllListeners(name);
  process.kill(process.pid, name);
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof FileSystemError) return EXIT.usage;
  if (error instanceof TokensSpentError) return EXIT.quota;
  if (error instanceof AuthenticationError) return EXIT.usage;
  if (error instanceof ApiError && error.call.status === 429) return EXIT.quota;
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

function usage(width: number): string {
  const commands = helpTable(
    COMMANDS.map((c) => [c.synopsis, c.summary]),
    width,
  );
  const environment = helpTable(
    [
      [TOKEN_ENV, 'API token(s), comma-separated (1 to 10). Never put tokens in the config file.'],
      [BASE_URL_ENV, 'API base URL (or --base-url), e.g. https://app.example.com'],
      ['PUPPETEER_EXECUTABLE_PATH', 'Chromium to print PDFs with (default: system chromium)'],
      [BROWSER_WS_ENDPOINT_ENV, 'print on this remote browser (its DevTools WebSocket URL) instead of a local Chromium (or --browser-ws-endpoint)'],
      [CHROMIUM_SANDBOX_ENV, "off: start Chromium without its sandbox (a runner that cannot give it one; see the README's GitHub Actions section first)"],
      [SMTP_URL_ENV, 'SMTP server for `send`, e.g. smtp://user:password@host:587 (never in the config file)'],
      [HISTORY_TOKEN_ENV, "token for an HTTPS git remote of `history` (the job's token in GitHub Actions)"],
      [LINK_SECRET_ENV, 'the secret client links are made from (`publish`, `links`), e.g. from `openssl rand -base64 32`; the same one every month'],
      [WEBHOOK_SECRET_ENV, 'webhook signing secret(s) for `listen`, comma-separated while one is rotated'],
      [ALERT_WEBHOOK_URL_ENV, 'chat webhook (Slack, Mattermost, Teams…) that `listen` posts alerts to'],
    ],
    width,
  );
  return `${wrapHelp('geo-reports — monthly GEO & SEO client reports from Agency Integration API v1', width)}

Usage: geo-reports <command> [options]
       geo-reports <command> --help     (its options)

Commands:
${commands.join('\n')}

Environment:
${environment.join('\n')}

${wrapWords(`Exit codes: ${describeExitCodes()}`, width, 'Exit codes: '.length, 0).join('\n')}
`;
}
