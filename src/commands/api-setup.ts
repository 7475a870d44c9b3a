// Config file + AGENCY_API_TOKEN + base URL → a ready API client. Loaded only when a command talks to the API,
// so `--help` never pays for the HTTP client and the schemas.
import { ApiClient } from '../api/client.js';
import { TokenPool } from '../api/tokens.js';
import { BASE_URL_ENV, loadConfig, resolveBaseUrl, TOKEN_ENV } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { CommandContext } from './context.js';

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

/** Errors are ConfigErrors naming the fix: a missing token, a refused base URL, a bad config key. */
export async function setupApi(flags: ApiFlags, ctx: CommandContext): Promise<ApiSetup> {
  const config = await loadCommandConfig(flags, ctx);
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

/** The config of --config, or config/geo-reports.json under the working folder when present. */
export async function loadCommandConfig(flags: Pick<ApiFlags, 'config'>, ctx: CommandContext): Promise<Config> {
  const { config } = await loadConfig({ ...(flags.config !== undefined ? { path: flags.config } : {}), cwd: ctx.cwd });
  return config;
}
