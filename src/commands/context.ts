// What every command gets: environment, output streams, a cancel signal and a clock; and the API client built from them.
import { ApiClient } from '../api/client.js';
import { TokenPool } from '../api/tokens.js';
import { BASE_URL_ENV, loadConfig, resolveBaseUrl, TOKEN_ENV } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { ParsedArgs } from './args.js';

export interface Output {
  write(s: string): boolean;
  isTTY?: boolean;
}

export interface CommandContext {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: Output;
  stderr: Output;
  signal: AbortSignal;
  clock: () => Date;
}

export interface Command {
  name: string;
  /** One line for the command list, e.g. `run [options]`. */
  usage: string;
  summary: string;
  /** A long-running command whose normal end is SIGINT / SIGTERM: exits with its own code, not 130/143. */
  stopsOnSignal?: boolean;
  run(argv: string[], ctx: CommandContext): Promise<number>;
}

export interface ApiSetup {
  client: ApiClient;
  config: Config;
  baseUrl: string;
}

/** Config file + AGENCY_API_TOKEN + base URL → a ready client. Errors are ConfigErrors naming the fix. */
export async function setupApi(values: ParsedArgs['values'], ctx: CommandContext): Promise<ApiSetup> {
  const { config } = await loadConfig({
    ...(typeof values['config'] === 'string' ? { path: values['config'] } : {}),
    cwd: ctx.cwd,
  });
  const baseUrl = resolveBaseUrl(
    [typeof values['base-url'] === 'string' ? values['base-url'] : undefined, ctx.env[BASE_URL_ENV], config.api.baseUrl],
    { allowInsecure: values['allow-insecure'] === true },
  );
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

/** Prints `data` as JSON with --json, otherwise as the table `render` makes. */
export function printResult(ctx: CommandContext, json: boolean, data: unknown, render: () => string): void {
  ctx.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${render()}\n`);
}

/** A plain text table: headers, aligned columns, numbers right-aligned. */
export function table(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((row) => row.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((h, i) => Math.min(60, Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length))));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d.,%]+$|^–$/.test(r[i] ?? '')));
  const fit = (text: string, i: number): string => {
    const w = widths[i] ?? 0;
    const clipped = text.length > w ? `${text.slice(0, w - 1)}…` : text;
    return numeric[i] ? clipped.padStart(w) : clipped.padEnd(w);
  };
  const line = (r: string[]): string => r.map(fit).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(headers), rule, ...cells.map(line)].join('\n') + (rows.length === 0 ? '\n(none)' : '');
}
