// Secrets through the real CLI: a link secret a guess away (keyboard walks, alphabet and digit runs, dictionary
// words, repeats, as zxcvbn finds them) is refused with exit 2 and the fix, never echoed; a webhook secret under 24
// characters, the service's own, is used with a warning on start and in doctor; and an
// error that is no Error (the WebSocket event of a remote browser that does not answer) prints its words.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMessage } from '../../src/errors.js';
import { BrowserConnectError, PdfPrinter } from '../../src/render/print/printer.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';
import { runCli, startCli } from '../support/cli.js';
import { post, scoreChange, signatureHeaders } from '../support/webhook-sender.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-secrets-floor-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the link secret', () => {
  // The five a guesser tries first (keyboard walks, alphabets, digit runs, words, repeats): each has 32 distinct-
  // enough characters to pass a count of characters, and each was accepted before zxcvbn judged them.
  it.each([
    ['a keyboard walk', 'qwertyuiopasdfghjklzxcvbnm123456', /common passwords or words/],
    ['a digit run then the alphabet', '0123456789abcdefghijklmnopqrstuv', /an alphabet or digit run/],
    ['the alphabet', 'abcdefghijklmnopqrstuvwxyzABCDEF', /an alphabet or digit run/],
    ['a zig-zag keyboard walk', '1q2w3e4r5t6y7u8i9o0pAZSXDCFVGBHN', /common passwords or words/],
    ['dictionary words repeated', 'correcthorsebatterystaplecorrect', /common passwords or words/],
    ['one character 32 times', 'a'.repeat(32), /a repeated piece/],
    ['a piece repeated', '0123456789abcdef'.repeat(2), /a repeated piece|an alphabet or digit run/],
  ])('%s: publish refuses it, exit 2, with openssl rand -base64 32, never echoing it', async (_name, secret, why) => {
    const out = join(root, `out-${secret.slice(0, 6)}`);
    await mkdir(out, { recursive: true });
    const result = await runCli(['publish', '--out', out], { env: { ...process.env, GEO_REPORTS_LINK_SECRET: secret }, cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/GEO_REPORTS_LINK_SECRET is too easy to guess: it is made of /);
    expect(result.stderr).toMatch(/about 10\^\d+ guesses, where a random one costs over 10\^26/);
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toContain('openssl rand -base64 32');
    expect(result.stderr).not.toContain(secret.slice(0, 10));
  });

  it('a random one passes the floor: links goes on to the next check (no links record), exit 2 for that alone', async () => {
    const out = join(root, 'out-random');
    await mkdir(out, { recursive: true });
    const secret = randomBytes(32).toString('base64');
    const result = await runCli(['links', '--out', out], { env: { ...process.env, GEO_REPORTS_LINK_SECRET: secret }, cwd: root });
    expect(result.stderr).toContain('has no links record');
    expect(result.stderr).not.toContain('too easy to guess');
    expect(result.stderr).not.toContain(secret);
  });
});

describe('the webhook secret', () => {
  // The service chooses it: a short one is used with a warning, where the listener refused to start on it.
  it('one under 24 characters is accepted by listen, with a warning on start naming its length, never its characters', async () => {
    const cwd = join(root, 'listen');
    await mkdir(cwd, { recursive: true });
    const secret = 'svc-sign-9f3k';
    const cli = startCli(['listen', '--port', '0', '--out', 'out'], { env: { ...process.env, GEO_REPORTS_WEBHOOK_SECRET: secret }, cwd, timeoutMs: 20_000 });
    const url = await cli.firstLine;
    expect(url, cli.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const body = scoreChange('evt_short_secret_1', 301, 10);
    const answer = await post(url, body, signatureHeaders(secret, body, 'sha256=hex'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: true, id: 'evt_short_secret_1' });
    // A delivery signed with another secret is still refused.
    expect((await post(url, body, signatureHeaders('svc-sign-9f3x', body, 'sha256=hex'))).status).toBe(401);
    const { code } = await cli.stop('SIGTERM');
    expect(code).toBe(143);
    expect(cli.stderr).toContain('Warning: GEO_REPORTS_WEBHOOK_SECRET: its signing secret has 13 characters, under 24');
    expect(cli.stderr).toContain('openssl rand -base64 32');
    expect(cli.stderr + cli.stdout).not.toContain(secret);
  });

  it('doctor warns of it too, and says nothing of a long one', async () => {
    const sim = await startSimulator({ seed: 5, projectCount: 2 });
    try {
      const env = { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url };
      const short = await runCli(['doctor'], {
        env: { ...env, GEO_REPORTS_WEBHOOK_SECRET: 'whsec_e2e5f1a9c3b7d20468ace13579bdf02468ace13579bdf02,svc-sign-9f3k' },
        cwd: root,
      });
      expect(short.code, short.stderr).toBe(0);
      expect(short.stdout).toContain('Warnings:\n  - GEO_REPORTS_WEBHOOK_SECRET: signing secret 2 of 2 has 13 characters, under 24');
      expect(short.stdout).not.toContain('svc-sign');
      const json = await runCli(['doctor', '--json'], { env: { ...env, GEO_REPORTS_WEBHOOK_SECRET: 'svc-sign-9f3k' }, cwd: root });
      expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toEqual([expect.stringContaining('its signing secret has 13 characters, under 24')]);
      const long = await runCli(['doctor'], {
        env: { ...env, GEO_REPORTS_WEBHOOK_SECRET: 'whsec_e2e5f1a9c3b7d20468ace13579bdf02468ace13579bdf02' },
        cwd: root,
      });
      expect(long.code).toBe(0);
      expect(long.stdout).not.toContain('Warnings:');
    } finally {
      await sim.close();
    }
  });
});

describe('an error that is no Error', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(404).end('not a browser'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a remote browser endpoint that is no browser: the connection error gives its words, never [object Object]', async () => {
    const { port } = server.address() as AddressInfo;
    const error = (await PdfPrinter.launch({ browserWSEndpoint: `ws://127.0.0.1:${port}/devtools/browser/none` })
      .then(async (printer) => {
        await printer.close();
        return null;
      })
      .catch((e: unknown) => e)) as Error | null;
    expect(error).toBeInstanceOf(BrowserConnectError);
    expect(error?.message).toMatch(/^Could not connect to the remote browser at .*: \S/);
    expect(error?.message).not.toContain('[object Object]');
  });

  it('errorMessage reads an event, a nested error, a plain object', () => {
    expect(errorMessage({ type: 'error', message: 'Unexpected server response: 404' })).toBe('Unexpected server response: 404');
    expect(errorMessage({ error: new Error('ECONNREFUSED') })).toBe('ECONNREFUSED');
    expect(errorMessage({ type: 'close' })).toBe('close (no message)');
    expect(errorMessage({ code: 7 })).toBe('{"code":7}');
    expect(errorMessage('plain')).toBe('plain');
  });
});
