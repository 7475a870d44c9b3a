// Shared by the one-off API commands: a client that is always closed, and cell formatting for their tables.
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config/schema.js';
import type { ApiFlags } from './api-setup.js';
import type { CommandContext } from './context.js';

/** Builds the client from flags and environment, runs `use` (with the config, for its field map), and releases the connection pool afterwards. */
export async function withClient<T>(flags: ApiFlags, ctx: CommandContext, use: (client: ApiClient, config: Config) => Promise<T>): Promise<T> {
  const { setupApi } = await import('./api-setup.js');
  const { client, config } = await setupApi(flags, ctx);
  try {
    return await use(client, config);
  } finally {
    await client.close();
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
