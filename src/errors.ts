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

/** Bad command-line input: exit code 2. */
export class UsageError extends GeoReportsError {}

/** A folder or file of the tool's cannot be written (a full or read-only disk): exit code 2, like bad config. */
export class FileSystemError extends GeoReportsError {}

/**
 * What went wrong, in words, whatever was thrown: an Error's message, or the message of an event or object that is
 * no Error (a WebSocket's ErrorEvent), never `[object Object]`.
 */
export function errorMessage(error: unknown, depth = 0): string {
  if (error instanceof Error) return error.message !== '' ? error.message : error.name;
  if (typeof error === 'string') return error;
  if (error === null || typeof error !== 'object') return String(error);
  const { message, error: inner, type } = error as { message?: unknown; error?: unknown; type?: unknown };
  if (typeof message === 'string' && message !== '') return message;
  if (inner !== undefined && inner !== error && depth < 3) return errorMessage(inner, depth + 1);
  if (typeof type === 'string' && type !== '') return `${type} (no message)`;
  try {
    const json = JSON.stringify(error);
    if (json !== '{}') return json.slice(0, 300);
  } catch {
    // A cycle: fall through to the plain words.
  }
  return 'an error with no message';
}
