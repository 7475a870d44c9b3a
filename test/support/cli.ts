// The real CLI as a user runs it (bin/geo-reports.js → dist/, built by the global setup), spawned for a test. Every
// test that runs the CLI goes through spawnCli: to its end (runCli), as a server it stops (startCli), or acted on
// while it runs (its lines, a wait for a line or for its output, a signal).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/geo-reports.js', import.meta.url));

/** A POSIX shell script named `npx` that runs this checkout's CLI for `npx geo-reports …` (a runner's PATH). */
export const NPX_STAND_IN = `#!/bin/sh\nif [ "$1" != geo-reports ]; then echo "npx stand-in: only geo-reports runs here" >&2; exit 127; fi\nshift\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How a spawned CLI ended: its exit code, or the signal that ended it (code null). */
export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the timeout ended it. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The CLI's whole environment (spread process.env into it to keep the test's). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Arguments for node itself, before the script (e.g. --import). */
  nodeArgs?: string[];
  /** The CLI is killed (SIGTERM) after this long, unless it runs until stopped; waits for its output last this long too. @default 60 s */
  timeoutMs?: number;
  /** A server the test stops itself (stop()): never killed by the timeout. */
  untilStopped?: boolean;
}

export interface SpawnedCli {
  child: ChildProcess;
  /** Everything printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** stdout's complete lines so far (and the last one, unfinished, once the CLI has ended). */
  lines: string[];
  /** How it ended, once its output is closed. */
  done: Promise<CliExit>;
  /** The first line of stdout that matches; rejects, naming what was printed, if the CLI ends or the timeout passes first. */
  line(match?: RegExp | ((line: string) => boolean), timeoutMs?: number): Promise<string>;
  /** The first match of `pattern` in stdout so far (across lines), waited for like line(). */
  output(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` and resolves with how it ended; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `geo-reports <args>` and follows its output as it comes. */
export function spawnCli(args: string[], options: CliOptions): SpawnedCli {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env: options.env,
    cwd: options.cwd,
    // No command reads its standard input: it is closed.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const name = `geo-reports ${args.join(' ')}`;
  let stdout = '';
  let stderr = '';
  let closed = false;
  let timedOut = false;
  const lines: string[] = [];
  /** Called on every change of the output and at the end: each pending wait looks again. */
  const watchers = new Set<(ended: boolean) => void>();
  const changed = (ended: boolean): void => {
    for (const watcher of [...watchers]) watcher(ended);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    lines.splice(0, lines.length, ...stdout.split('\n').slice(0, -1).filter(Boolean));
    changed(false);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // Past its time the CLI gets SIGTERM (it closes its browser), then SIGKILL.
  const deadline =
    options.untilStopped === true
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
        }, timeoutMs);
  void exited.then(() => clearTimeout(deadline));
  const done = new Promise<CliExit>((resolve) => {
    child.on('close', (code, signal) => {
      closed = true;
      lines.splice(0, lines.length, ...stdout.split('\n').filter(Boolean));
      changed(true);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });

  function waitFor<T>(what: string, find: () => T | undefined, waitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fail = (why: string): void => {
        watchers.delete(watcher);
        clearTimeout(timer);
        reject(new Error(`${name} ${why} before printing ${what}:\n${stdout}\n${stderr}`));
      };
      const watcher = (ended: boolean): void => {
        const found = find();
        if (found !== undefined) {
          watchers.delete(watcher);
          clearTimeout(timer);
          resolve(found);
        } else if (ended) fail(`ended (${String(child.exitCode ?? child.signalCode)})`);
      };
      const timer = setTimeout(() => fail(`ran ${waitMs} ms`), waitMs);
      watchers.add(watcher);
      watcher(closed);
    });
  }

  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    lines,
    done,
    line(match = () => true, waitMs = timeoutMs) {
      const test = typeof match === 'function' ? match : (line: string) => match.test(line);
      return waitFor(`a line ${typeof match === 'function' ? '' : String(match)}`.trim(), () => lines.find(test), waitMs);
    },
    output(pattern, waitMs = timeoutMs) {
      return waitFor(String(pattern), () => pattern.exec(stdout) ?? undefined, waitMs);
    },
    async stop(signal = 'SIGINT', graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs `geo-reports <args>` to its end; a run ended by the timeout or a signal rejects. */
export async function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const { code, signal, timedOut, stdout, stderr } = await spawnCli(args, options).done;
  if (code === null || timedOut) {
    throw new Error(
      `geo-reports ${args.join(' ')} did not exit by itself (${timedOut ? `timeout of ${options.timeoutMs ?? 60_000} ms` : String(signal)}):\n${stderr}`,
    );
  }
  return { code, stdout, stderr };
}

export interface RunningCli extends SpawnedCli {
  /** The first line of stdout (a server's address), or a rejection naming what was printed instead. */
  firstLine: Promise<string>;
}

/** Starts `geo-reports <args>` that runs until stopped (a server). */
export function startCli(args: string[], options: CliOptions): RunningCli {
  const cli = spawnCli(args, { ...options, untilStopped: true });
  const firstLine = cli.line();
  firstLine.catch(() => undefined);
  return Object.assign(cli, { firstLine });
}
