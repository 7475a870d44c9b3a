// Root of the one error hierarchy: every error the tool raises on purpose extends GeoReportsError,
// so the CLI can tell a known failure (clear message, exit code) from a bug (stack trace).
export class GeoReportsError extends Error {
  /** What the user can do about it, printed under the message. */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

export const isGeoReportsError = (e: unknown): e is GeoReportsError => e instanceof GeoReportsError;

/** The reason of the command's abort signal: the process was asked to stop by SIGINT or SIGTERM. */
export class StopRequested extends GeoReportsError {
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM') {
    super(`Stopped by ${signal}.`);
    this.signal = signal;
  }
}

/** Bad configuration, environment or command-line input: exit code 2. */
export class ConfigError extends GeoReportsError {}

/** A folder or file of the tool's cannot be written (a full or read-only disk): exit code 2, like bad config. */
export class FileSystemError extends GeoReportsError {}
