// Shared by the one-off API commands: a client that is always closed, comma lists, and cell formatting.
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config/schema.js';
import { UsageError, type ParsedArgs } from './args.js';
import { setupApi, type CommandContext } from './context.js';

/** Builds the client from flags and environment, runs `use`, and releases the connection pool afterwards. */
export async function withClient<T>(
  values: ParsedArgs['values'],
  ctx: CommandContext,
  use: (client: ApiClient, config: Config) => Promise<T>,
): Promise<T> {
  const { client, config } = await setupApi(values, ctx);
  try {
    return await use(client, config);
  } finally {
    await client.close();
  }
}

/** `a,b,c` → distinct values, each one of `allowed`; undefined when the flag is absent. */
export function commaList<T extends string>(
  value: string | boolean | string[] | undefined,
  allowed: readonly T[],
  flag: string,
): T[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter((item) => item !== '') : [];
  if (items.length === 0) throw new UsageError(`${flag} needs a comma-separated list of ${allowed.join(', ')}.`);
  const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
  if (unknown.length > 0) {
    throw new UsageError(`${flag}: unknown value${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${allowed.join(', ')}.`);
  }
  return [...new Set(items)] as T[];
}

/** A whole number of 0 or more from a flag, or a UsageError naming it. */
export function nonNegativeInt(value: string | boolean | string[] | undefined, name: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number of 0 or more${typeof value === 'string' ? ` (got "${value}")` : ''}.`);
  }
  return Number(value);
}

/** The flags among `names` that were given. */
export function givenFlags(values: ParsedArgs['values'], names: readonly string[]): string[] {
  return names.filter((name) => values[name] !== undefined);
}

/** Refuses flags that only make sense with another selector or subcommand. */
export function refuseFlags(values: ParsedArgs['values'], names: readonly string[], context: string): void {
  const given = givenFlags(values, names);
  if (given.length > 0) {
    throw new UsageError(`${given.map((n) => `--${n}`).join(', ')} cannot be used ${context}.`);
  }
}

/** A score or delta for a table cell: one decimal at most, `–` when unknown. */
export function formatNumber(value: unknown, options: { signed?: boolean } = {}): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return options.signed === true && value > 0 ? `+${text}` : text;
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM` (UTC) for tables; other values as they come. */
export function formatTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]}` : value;
}

/** Text of a loose field for a table cell. */
export function formatText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}
