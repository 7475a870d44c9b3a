// `geo-reports usage`: what each API token has left today, by label (a token itself is never shown).
import type { ApiClient } from '../api/client.js';
import { AuthenticationError, TokensSpentError } from '../api/errors.js';
import type { TokenStatus } from '../api/tokens.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, printResult, table } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

export interface TokenUsageRow {
  label: string;
  state: TokenStatus['state'];
  used: number | null;
  limit: number | null;
  remaining: number | null;
}

/** Probes the tokens whose state is unknown: the pool picks an unprobed token first, as it assumes it has the most left. */
async function probeUnknownTokens(client: ApiClient): Promise<Error | null> {
  for (let probe = 0; probe < client.tokens.size; probe += 1) {
    if (!client.tokens.status().some((t) => t.state === 'unknown')) return null;
    try {
      await client.listProjects({ limit: 1 });
    } catch (error) {
      // Every token is refused or spent: the table below says which.
      if (error instanceof AuthenticationError || error instanceof TokensSpentError) return error;
      throw error;
    }
  }
  return null;
}

export default defineCommand(
  {
    name: 'usage',
    description: `Shows what each token of AGENCY_API_TOKEN has left of its daily quota: label, state, requests used,
daily limit and remaining. Tokens are shown by label (position and last 4 characters), never in full.

Each token whose state is still unknown is probed with one cheap request (the first project,
\`projects?limit=1\`), which counts for one request of its quota.`,
    options: API_OPTIONS,
    epilog: `Exit code: ${EXIT.ok} when at least one token can still send requests, ${EXIT.quota} when every token has used its
quota, ${EXIT.usage} when every token is refused (401).`,
  },
  async ({ options }, ctx) => {
    const { statuses, failure, spent } = await withClient(options, ctx, async (client) => {
      const probeFailure = await probeUnknownTokens(client);
      return { statuses: client.tokens.status(), failure: probeFailure, spent: client.tokens.isSpent() };
    });
    const rows: TokenUsageRow[] = statuses.map((t) => ({
      label: t.label,
      state: t.state,
      used: t.usage?.daily_used ?? null,
      limit: t.usage?.daily_limit ?? null,
      remaining: t.usage?.daily_remaining ?? null,
    }));
    const remaining = rows.reduce((sum, r) => sum + (r.state === 'ok' ? (r.remaining ?? 0) : 0), 0);
    printResult(
      ctx,
      options.json,
      { tokens: rows, remaining },
      () =>
        `${table(
          ['Token', 'State', 'Used', 'Limit', 'Remaining'],
          rows.map((r) => [r.label, r.state, r.used, r.limit, r.remaining]),
        )}\n` + `${remaining} request(s) left today over the usable tokens`,
    );
    if (!spent) return EXIT.ok;
    throw failure ?? new TokensSpentError(statuses, null);
  },
);
