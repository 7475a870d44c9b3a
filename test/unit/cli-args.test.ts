// Command-line checks of the one-off commands, through main() in process: --help and usage errors never reach the API.
import { describe, expect, test } from 'vitest';
import { main } from '../../src/cli.js';
import { formatNumber, integer, listOf, UsageError } from '../../src/commands/define.js';
import type { CommandContext } from '../../src/command-context.js';
import { defineCommand } from '../../src/commands/define.js';
import { COMMANDS } from '../../src/commands/index.js';
import { scanReadOptions } from '../../src/commands/scans.js';
import * as ENVIRONMENT from '../../src/config/environment.js';

async function run(
  argv: string[],
  env: Record<string, string | undefined> = {},
  terminal: { isTTY?: boolean; columns?: number } = {},
  clock?: () => Date,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env,
    cwd: '/nonexistent-geo-reports-dir',
    stdout: { write: (s: string) => ((stdout += s), true), ...terminal },
    stderr: { write: (s: string) => ((stderr += s), true) },
    handleSignals: false,
    ...(clock === undefined ? {} : { clock }),
  });
  return { code, stdout, stderr };
}

const HELP_MUST_LIST: Record<string, string[]> = {
  projects: ['--status S', '--limit N', '--offset N', '--all', '--id N', '--json', '--base-url'],
  analyze: ['--question-type', '--wait', '--timeout SECONDS', '--status ID', 'general, ecommerce, local, saas'],
  scores: ['--project N', '--last', '--limit N', '--scan N'],
  recommendations: ['--project N', '--scan N', '--priority P', '--category C', 'critical, high, medium, low', 'seo, content, technical, ai_visibility'],
  scans: ['--project N', '--id N', '--audit N', '--include LIST', '--exclude LIST', '--seo-steps LIST'],
  competitors: ['--project N'],
  stats: ['--json'],
  webhooks: ['list', 'create', 'test <webhook-id>', '--name NAME', '--url URL', '--events LIST', 'printed ONCE'],
  reports: ['create <project-id>', 'get <report-id>', 'list', '--include LIST'],
  usage: ['probed with one cheap request', 'never in full'],
  simulator: [
    '--port N',
    '--host H',
    '--projects N',
    '--seed N',
    '--tokens LIST',
    '--error-rate R',
    '--drop-rate R',
    '--latency MS',
    '--dialect NAME',
    'classic',
    'compact',
    'nested',
  ],
  demo: ['--dialect NAME', 'classic, compact, nested'],
  history: ['status', 'restore', 'save', '--storage GIT', '--period YYYY-MM', '--out DIR', '--before YYYY-MM', '--keep N', 'HISTORY_TOKEN'],
};

describe('--help', () => {
  test.each(Object.keys(HELP_MUST_LIST))('%s --help lists its options and exits 0', async (command) => {
    const result = await run([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`Usage: geo-reports ${command}`);
    // Wrapped to the width, a phrase may span two lines.
    const words = result.stdout.replace(/\s+/g, ' ');
    for (const text of HELP_MUST_LIST[command] ?? []) expect(words).toContain(text);
  });

  const longest = (text: string): number => Math.max(...text.split('\n').map((line) => line.length));

  test.each([[], ...COMMANDS.map((entry) => [entry.name])])('%s --help fits 80 columns when not a terminal', async (...command: string[]) => {
    const result = await run([...command, '--help']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(longest(result.stdout)).toBeLessThanOrEqual(80);
  });

  test("--help follows a terminal's width, its options' descriptions in one column", async () => {
    for (const columns of [60, 132]) {
      const [top, run_] = await Promise.all([run(['--help'], {}, { isTTY: true, columns }), run(['run', '--help'], {}, { isTTY: true, columns })]);
      expect(longest(top.stdout)).toBeLessThanOrEqual(columns);
      expect(longest(run_.stdout)).toBeLessThanOrEqual(columns);
      // Wider than 80 where the terminal is: the width is the terminal's, not a fixed one.
      if (columns > 80) expect(longest(run_.stdout)).toBeGreaterThan(80);
      const options = run_.stdout.slice(run_.stdout.indexOf('Options:\n') + 'Options:\n'.length).split('\n\n')[0] ?? '';
      // Where each line's description starts: after a label and its gap, or after the indent of a line it goes on; a
      // label too long for the column sits alone on its line (no description there).
      const starts = options
        .split('\n')
        .map((line) => (/^ {2}\S.*? {2,}(?=\S)/.exec(line) ?? /^ {3,}/.exec(line))?.[0].length)
        .filter((start) => start !== undefined);
      expect(new Set(starts).size).toBe(1);
    }
  });

  test('every one-off command appears in the command list', async () => {
    const result = await run(['--help']);
    for (const command of Object.keys(HELP_MUST_LIST)) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  test('every command of the registry loads, under the name it is listed with', async () => {
    const loaded = await Promise.all(COMMANDS.map(async (entry) => (await entry.load()).default.name));
    expect(loaded).toEqual(COMMANDS.map((entry) => entry.name));
  });

  test('the command list names every environment variable the tool reads', async () => {
    const result = await run(['--help']);
    const environment = result.stdout.slice(result.stdout.indexOf('Environment:'));
    for (const name of Object.values(ENVIRONMENT)) expect(environment).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
  });
});

describe('usage errors exit 2 before any request', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['unknown flag', ['stats', '--verbose'], /stats: Unknown option '--verbose'\n/],
    ['misspelt flag', ['projects', '--limt', '5'], /projects: Unknown option '--limt'\. Did you mean --limit\?\n/],
    ['unknown command', ['frobnicate'], /^Error: Unknown command "frobnicate"\.\nFix: Run `geo-reports --help` to list the commands\.\n$/],
    ['misspelt command', ['sned', '--period', '2026-10'], /^Error: Unknown command "sned"\. Did you mean "send"\?\nFix: Run `geo-reports --help`/],
    ['command begun', ['recommend', '--project', '1'], /Unknown command "recommend"\. Did you mean "recommendations"\?/],
    ['bad project status', ['projects', '--status', 'deleted'], /--status must be one of active, paused, archived \(got "deleted"\)/],
    ['limit above 100', ['projects', '--limit', '500'], /--limit must be 100 or less/],
    ['--id with paging', ['projects', '--id', '3', '--offset', '2'], /--offset cannot be used with --id/],
    ['bad question type', ['analyze', '12', '--question-type', 'retail'], /--question-type must be one of general, ecommerce, local, saas/],
    ['analyze without project', ['analyze'], /analyze: missing <project-id>/],
    ['analyze project and --status', ['analyze', '12', '--status', '5001'], /not both/],
    ['--timeout without --wait', ['analyze', '12', '--timeout', '30'], /--timeout applies only with --wait/],
    ['scores without selector', ['scores'], /give exactly one of --project N or --scan N\./],
    ['scores with two selectors', ['scores', '--project', '1', '--scan', '2'], /--project N or --scan N, not both/],
    ['scores --last with --scan', ['scores', '--scan', '2', '--last'], /--last cannot be used with --scan/],
    ['recommendations without selector', ['recommendations', '--priority', 'high'], /give exactly one of --project N or --scan N/],
    ['bad category', ['recommendations', '--scan', '3', '--category', 'links'], /--category must be one of seo, content, technical, ai_visibility/],
    ['scans without selector', ['scans'], /give exactly one of --project N, --id N or --audit N\./],
    ['scans two selectors', ['scans', '--project', '1', '--audit', '9'], /got --project and --audit/],
    ['sections with --project', ['scans', '--project', '1', '--include', 'geo'], /--include cannot be used with --project/],
    ['unknown section', ['scans', '--id', '1', '--include', 'geo,links'], /--include: unknown value "links"/],
    ['seo steps without seo_audit', ['scans', '--id', '1', '--include', 'geo', '--seo-steps', 'step3_serp'], /--seo-steps needs --include seo_audit/],
    ['bad project id', ['competitors', '--project', '0'], /--project must be a positive whole number \(got "0"\)/],
    ['webhooks without subcommand', ['webhooks'], /missing subcommand \(list, create or test\)/],
    ['webhooks create without url', ['webhooks', 'create', '--name', 'CRM', '--events', 'scan.completed'], /--url is required/],
    ['webhooks create with a ftp url', ['webhooks', 'create', '--name', 'CRM', '--url', 'ftp://x', '--events', 'scan.failed'], /--url must use http or https/],
    ['webhooks bad event', ['webhooks', 'create', '--name', 'CRM', '--url', 'https://crm.example/h', '--events', 'scan.done'], /unknown value "scan.done"/],
    ['webhooks test without id', ['webhooks', 'test'], /webhooks test: missing <webhook-id>/],
    ['reports unknown subcommand', ['reports', 'delete', '3'], /unknown subcommand "delete" \(expected create, get or list\)\.\n/],
    ['misspelt subcommand', ['webhooks', 'crate'], /webhooks: unknown subcommand "crate" \(expected list, create or test\)\. Did you mean "create"\?\n/],
    ['reports bad section', ['reports', 'create', '3', '--include', 'scores,graphs'], /--include: unknown value "graphs"/],
    ['reports extra argument', ['reports', 'list', '3'], /reports list: unexpected argument "3"/],
    ['simulator non-loopback host', ['simulator', '--host', '0.0.0.0'], /--host must be a loopback address/],
    ['simulator error rate above 1', ['simulator', '--error-rate', '1.5'], /--error-rate must be a number from 0 to 1 \(got "1.5"\)/],
    ['simulator port out of range', ['simulator', '--port', '70000'], /--port must be 65535 or less/],
    ['simulator unknown dialect', ['simulator', '--dialect', 'fancy'], /--dialect must be one of classic, compact, nested, strict \(got "fancy"\)/],
    ['demo unknown dialect', ['demo', '--dialect', 'fancy'], /--dialect must be one of classic, compact, nested, strict \(got "fancy"\)/],
  ];

  test.each(cases)('%s', async (_name, argv, message) => {
    // No token and no base URL: a command that got as far as the API would fail with another message.
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  test('November refused on 27 November: the first day it can run named, --partial offered', async () => {
    const on27November = (): Date => new Date('2026-11-27T10:00:00Z');
    for (const argv of [
      ['run', '--period', '2026-11'],
      ['report', '101', '--period', '2026-11'],
    ]) {
      const result = await run(argv, {}, {}, on27November);
      expect([result.code, result.stdout]).toEqual([2, '']);
      expect(result.stderr).toMatch(/^Error: 2026-11 has not ended yet: it can be reported from 2026-12-01 \(UTC\) on\.\nFix: .*--partial/);
    }
    // October, or November once it has ended, or with --partial: past the check, to the missing token.
    for (const [argv, clock] of [
      [['run'], on27November],
      [['run', '--period', '2026-11', '--partial'], on27November],
      [['report', '101', '--period', '2026-11'], (): Date => new Date('2026-12-01T00:00:00Z')],
    ] as const) {
      const result = await run([...argv], { AGENCY_API_BASE_URL: 'http://127.0.0.1:9' }, {}, clock);
      expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(/AGENCY_API_TOKEN is not set or empty/)]);
    }
  });

  test('a missing token is a configuration error naming the variable', async () => {
    const result = await run(['stats'], { AGENCY_API_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/AGENCY_API_TOKEN is not set or empty/);
  });
});

describe('argument helpers', () => {
  test('listOf keeps order, drops repeats and names unknown values', () => {
    const sections = listOf(['geo', 'trust', 'seo_audit'] as const);
    expect(sections('geo, trust,geo', '--include')).toEqual(['geo', 'trust']);
    expect(() => sections(',', '--include')).toThrow(UsageError);
    expect(() => listOf(['geo'] as const)('geo,a,b', '--include')).toThrow(/--include: unknown values "a", "b"/);
  });

  test('scanReadOptions maps the flags to the client options', () => {
    expect(scanReadOptions({ include: ['seo_audit', 'geo'], exclude: ['html'], 'seo-steps': ['step3_serp', 'step6_report'] })).toEqual({
      include: ['seo_audit', 'geo'],
      exclude: ['html'],
      seoSteps: ['step3_serp', 'step6_report'],
    });
    expect(scanReadOptions({ include: ['all'], 'seo-steps': ['step3_serp'] })).toEqual({ include: ['all'], seoSteps: ['step3_serp'] });
    expect(() => scanReadOptions({ include: ['geo'], 'seo-steps': ['step3_serp'] })).toThrow(/--seo-steps needs --include seo_audit/);
  });

  test('integer and formatNumber', () => {
    expect(integer()('0', '--port')).toBe(0);
    expect(() => integer()('-1', '--port')).toThrow(/--port must be a whole number of 0 or more \(got "-1"\)/);
    expect(() => integer({ min: 1, max: 64 })('65', '--concurrency')).toThrow(/--concurrency must be 64 or less \(got "65"\)/);
    expect(formatNumber(3.14159)).toBe('3.1');
    expect(formatNumber(2, { signed: true })).toBe('+2');
    expect(formatNumber(-2.25, { signed: true })).toBe('-2.3');
    expect(formatNumber(null)).toBeNull();
  });
});

describe('defineCommand', () => {
  function context(): { ctx: CommandContext; out: () => string } {
    let out = '';
    const ctx: CommandContext = {
      env: {},
      cwd: '/nonexistent-geo-reports-dir',
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: () => true },
      signal: new AbortController().signal,
      clock: () => new Date('2026-11-04T06:00:00Z'),
    };
    return { ctx, out: () => out };
  }

  const seen: unknown[] = [];
  const send = defineCommand(
    {
      name: 'send',
      description: 'Sends every released report of the period by email.',
      args: { period: { help: 'the period to send', required: true } },
      options: {
        to: { type: 'string', value: 'EMAIL', multiple: true, help: 'extra recipient, repeatable' },
        retries: { type: 'string', value: 'N', parse: integer({ max: 5 }), default: 2, help: 'attempts per email' },
        'dry-run': { type: 'boolean', short: 'n', help: 'say what would be sent' },
      },
    },
    async (input) => {
      seen.push(input);
      return 0;
    },
  );

  test('hands the work typed values, defaults applied, and the flags that were written', async () => {
    seen.length = 0;
    const { ctx } = context();
    expect(await send.run(['2026-10', '--to', 'a@x.example', '-n', '--to', 'b@x.example'], ctx)).toBe(0);
    expect(seen[0]).toEqual({
      args: { period: '2026-10' },
      options: { to: ['a@x.example', 'b@x.example'], retries: 2, 'dry-run': true },
      given: new Set(['to', 'dry-run']),
    });
  });

  test('generates --help from the declaration and runs nothing', async () => {
    seen.length = 0;
    const { ctx, out } = context();
    expect(await send.run(['--help'], ctx)).toBe(0);
    expect(seen).toEqual([]);
    expect(out()).toBe(send.help());
    expect(out()).toBe(`Usage: geo-reports send <period> [options]

Sends every released report of the period by email.

Arguments:
  <period>       the period to send

Options:
  --to EMAIL     extra recipient, repeatable
  --retries N    attempts per email (default 2)
  -n, --dry-run  say what would be sent
  -h, --help     print this help
`);
  });

  test('refuses unknown flags, missing or extra arguments and bad values with the command named', async () => {
    const { ctx } = context();
    await expect(send.run(['2026-10', '--bcc', 'x'], ctx)).rejects.toThrow(/send: Unknown option '--bcc'\.$/);
    await expect(send.run(['2026-10', '--dryrun'], ctx)).rejects.toThrow(/send: Unknown option '--dryrun'\. Did you mean --dry-run\?$/);
    await expect(send.run(['2026-10', '--retrys=3'], ctx)).rejects.toThrow(/Did you mean --retries\?$/);
    await expect(send.run([], ctx)).rejects.toThrow(/send: missing <period>/);
    await expect(send.run(['2026-10', 'extra'], ctx)).rejects.toThrow(/send: unexpected argument "extra"/);
    await expect(send.run(['2026-10', '--retries', '9'], ctx)).rejects.toThrow(/--retries must be 5 or less \(got "9"\)/);
  });
});
