// The real CLI as a user runs it (bin/geo-reports.js → dist/, built by the global setup), spawned for a test:
// to its end (runCli), or as a server stopped by a signal (startCli).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/geo-reports.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Arguments for node itself, before the script (e.g. --import). */
  nodeArgs?: string[];
  /** @default 60 s */
  timeoutMs?: number;
}

/** Runs `geo-reports <args>` to its end; a run killed by the timeout or a signal rejects. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...(options.nodeArgs ?? []), BIN, ...args],
      { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (code === null) reject(new Error(`geo-reports ${args.join(' ')} did not exit by itself: ${error?.message ?? ''}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface SpawnedCli {
  child: ChildProcess;
  /** stdout's complete lines so far. */
  lines: string[];
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/** Starts `geo-reports <args>` and follows its output line by line, for a test that acts while it runs. */
export function spawnCli(args: string[], options: CliOptions): SpawnedCli {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 60_000,
  });
  let stdout = '';
  let stderr = '';
  const lines: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    lines.splice(0, lines.length, ...stdout.split('\n').slice(0, -1).filter(Boolean));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
  return { child, lines, done };
}

export interface RunningCli {
  child: ChildProcess;
  /** Everything printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** The first line of stdout (a server's address), or a rejection naming what was printed instead. */
  firstLine: Promise<string>;
  /** Sends `signal` and resolves with how it ended; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `geo-reports <args>` that runs until stopped (a server): its output is read as it comes. */
export function startCli(args: string[], options: CliOptions): RunningCli {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`geo-reports ${args.join(' ')} printed no line within ${options.timeoutMs ?? 60_000} ms:\n${stdout}\n${stderr}`)),
      options.timeoutMs ?? 60_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const end = stdout.indexOf('\n');
      if (end !== -1) {
        clearTimeout(timer);
        resolve(stdout.slice(0, end));
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`geo-reports ${args.join(' ')} exited (${code}) before printing a line:\n${stdout}\n${stderr}`));
    });
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  firstLine.catch(() => undefined);
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    firstLine,
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
