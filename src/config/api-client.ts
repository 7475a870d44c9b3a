// Config file + AGENCY_API_TOKEN + base URL → a ready API client, for every command that talks to the API.
import { ApiClient } from '../api/client.js';
import { TokenPool } from '../api/tokens.js';
import type { CommandContext } from '../command-context.js';
import { BASE_URL_ENV, loadConfig, resolveBaseUrl, TOKEN_ENV } from './load.js';
import type { Config } from './schema.js';

/** The flags of API_OPTIONS that choose the config and the service. */
export interface ApiFlags {
  'base-url'?: string | undefined;
  config?: string | undefined;
  'allow-insecure'?: boolean;
}

export interface ApiSetup {
  client: ApiClient;
  config: Config;
  baseUrl: string;
}

type ApiContext = Pick<CommandContext, 'env' | 'cwd' | 'clock' | 'signal'>;

/** Errors are ConfigErrors naming the fix: a missing token, a refused base URL, a bad config key. */
export async function setupApi(flags: ApiFlags, ctx: ApiContext): Promise<ApiSetup> {
  const { config } = await loadConfig({ ...(flags.config !== undefined ? { path: flags.config } : {}), cwd: ctx.cwd });
  const baseUrl = resolveBaseUrl([flags['base-url'], ctx.env[BASE_URL_ENV], config.api.baseUrl], {
    allowInsecure: flags['allow-insecure'] === true,
  });
  const tokens = new TokenPool(TokenPool.parse(ctx.env[TOKEN_ENV]), { clock: ctx.clock });
  const client = new ApiClient({
    baseUrl,
    tokens,
    timeouts: { totalMs: config.api.timeoutMs },
    retry: { maxRetries: config.api.maxRetries },
    clock: ctx.clock,
    signal: ctx.signal,
  });
  return { client, config, baseUrl };
}

/** Builds the client from flags and environment, runs `use` (with the config, for its field map), and releases the connection pool afterwards. */
export async function withClient<T>(flags: ApiFlags, ctx: ApiContext, use: (client: ApiClient, config: Config) => Promise<T>): Promise<T> {
  const { client, config } = await setupApi(flags, ctx);
  try {
    return await use(client, config);
  } finally {
    await client.close();
  }
}
