// The send after a run, the one path of `run --send` and `schedule`: the email settings checked before any run,
// nothing sent after a run stopped by a signal or a usage error, and otherwise the send of what the run finished.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/command-context.js';
import { sendAfterRuns } from '../../src/delivery/send.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError, GeoReportsError } from '../../src/errors.js';
import { EXIT } from '../../src/exit-codes.js';
import { commandRenderer } from '../../src/preview/command-templates.js';
import { toMonth } from '../../src/period.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-send-after-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function context(env: Record<string, string>, signal = new AbortController().signal): CommandContext {
  const sink = { write: () => true };
  return { env, cwd: root, stdout: sink, stderr: sink, signal, clock: () => new Date('2026-11-04T06:00:00Z') };
}

const SMTP = { GEO_REPORTS_SMTP_URL: 'smtp://mailer:pw@127.0.0.1:2525' };
const config = ConfigSchema.parse({ delivery: { email: { from: 'reports@northwind.example' } } });
// The messages and the index of the built-in templates, as `schedule` makes them for each send.
const options = { allowInsecure: false, json: true, renderer: () => commandRenderer(undefined, config, context({}), { pages: 'index' }) };

describe('sendAfterRuns', () => {
  it('refuses a missing sender or SMTP URL before any run, as a configuration error', () => {
    expect(() => sendAfterRuns(ConfigSchema.parse({}), context(SMTP), options)).toThrow(ConfigError);
    expect(() => sendAfterRuns(ConfigSchema.parse({}), context(SMTP), options)).toThrow(/delivery\.email\.from is not set/);
    expect(() => sendAfterRuns(config, context({}), options)).toThrow(/GEO_REPORTS_SMTP_URL is not set/);
  });

  it('sends nothing after a run stopped by a signal or a usage error, and keeps its exit code', async () => {
    // No period folder exists: a send would fail with "There are no reports".
    const after = sendAfterRuns(config, context(SMTP), options);
    for (const code of [EXIT.usage, EXIT.sigint, EXIT.sigterm]) {
      await expect(after({ code, period: toMonth('2026-10'), outDir: join(root, 'none') })).resolves.toBe(code);
    }
    const stopping = new AbortController();
    const afterSignal = sendAfterRuns(config, context(SMTP, stopping.signal), options);
    stopping.abort();
    await expect(afterSignal({ code: EXIT.ok, period: toMonth('2026-10'), outDir: join(root, 'none') })).resolves.toBe(EXIT.ok);
  });

  it('sends after any other run: a finished one, one with failed projects, one the quota stopped', async () => {
    const after = sendAfterRuns(config, context(SMTP), options);
    for (const code of [EXIT.ok, EXIT.held, EXIT.failure, EXIT.quota]) {
      const sent = after({ code, period: toMonth('2026-10'), outDir: join(root, 'none') });
      await expect(sent).rejects.toThrow(GeoReportsError);
      await expect(sent).rejects.toThrow(/There are no reports for 2026-10/);
    }
  });
});
