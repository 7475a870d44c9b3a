// The config file and what it names, read from a temporary folder: defaults, refusals with their line, paths relative to it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, readLogo } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('loadConfig', () => {
  it('gives a complete default config when there is no file at the default path', async () => {
    const { config, path } = await loadConfig({ cwd: dir });
    expect(path).toBeNull();
    expect(config.agency.name).toBe('Your Agency');
    expect(config.agency.colors.primary).toMatch(/^#[0-9a-f]{6}$/i);
    expect(config.report.language).toBe('en');
    expect(config.report.statuses).toEqual(['active']);
    // The monthly report on the 2nd (schedule.cron unset: 06:00 on report.day), no review.
    expect(config.schedule.cron).toBeUndefined();
    expect(config.report.day).toBe(2);
    expect(config.report.reviews).toEqual([]);
  });

  it('refuses a report.day no month has, and a review it cannot make, naming the key and the fix', async () => {
    const path = await configFile('schedule-days.json', JSON.stringify({ report: { day: 31, reviews: ['quarter', 'month'] } }));
    const error = (await loadConfig({ cwd: dir, path }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('report.day: expected a day of the month from 1 to 28 (every month has it), e.g. 2 (the default)');
    expect(error.message).toContain('report.reviews[1]: expected a list of "quarter" and "year"');
  });

  it('refuses a missing file given explicitly', async () => {
    await expect(loadConfig({ cwd: dir, path: 'nope.json' })).rejects.toThrow(/Cannot read the config file/);
    // The fix names a file that exists: the example config of the repository.
    const missing = (await loadConfig({ cwd: dir, path: 'nope.json' }).catch((e: unknown) => e)) as ConfigError;
    expect(missing.hint).toContain('config/geo-reports.json');
    expect(missing.hint).not.toContain('example.json');
  });

  it('names the key and what it expects', async () => {
    const path = await configFile('bad.json', JSON.stringify({ agency: { colors: { primary: 'blue' } }, report: { language: 'German' }, extra: 1 }));
    const error = await loadConfig({ cwd: dir, path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('agency.colors.primary: expected a colour like "#1f4e79"');
    expect(message).toContain('report.language');
    expect(message).toContain('unknown key "extra"');
  });

  it('reads api.fields as lists of paths, and names an unknown value or a bad path', async () => {
    const good = await configFile(
      'fields.json',
      JSON.stringify({ api: { fields: { 'scores.geo': 'content.kpi.visibility', 'platform.name': ['site', 'source.name'] } } }),
    );
    const { config } = await loadConfig({ cwd: dir, path: good });
    expect(config.api.fields).toEqual({ 'scores.geo': ['content.kpi.visibility'], 'platform.name': ['site', 'source.name'] });
    const bad = await configFile('bad-fields.json', JSON.stringify({ api: { fields: { 'scores.geoo': 'a', 'scores.seo': 'a..b' } } }));
    const message = ((await loadConfig({ cwd: dir, path: bad }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain('api.fields."scores.geoo": unknown value name; expected one of');
    expect(message).toMatch(/api\.fields\."scores\.seo".*dot path/);
  });

  it('reads comments and a trailing comma; says where the JSON is broken, at its line and column, in words', async () => {
    const commented = await configFile('commented.json', '{\n  // the agency\n  "agency": { "name": "X", }, /* the end */\n}\n');
    expect((await loadConfig({ cwd: dir, path: commented })).config.agency.name).toBe('X');
    const path = await configFile('broken.json', '{\n  "agency": { "name": "X" }\n  "report": { "language": "fr }\n}\n');
    const message = ((await loadConfig({ cwd: dir, path }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain(`The config file ${path} cannot be read as JSON:\n  - line 3, column 3: a comma "," is missing before this entry`);
    expect(message).toMatch(/line 3, column \d+: a text is never closed/);
  });

  it('reads output.dir and site.dir relative to the config file; output/ of the working folder when left out', async () => {
    const base = await mkdtemp(join(dir, 'paths-'));
    await mkdir(join(base, 'config'));
    await writeFile(join(base, 'config', 'a.json'), JSON.stringify({ output: { dir: '../reports' }, site: { dir: 'site' } }));
    const { config } = await loadConfig({ cwd: base, path: 'config/a.json' });
    expect(config.output.dir).toBe(join(base, 'reports'));
    expect(config.site.dir).toBe(join(base, 'config', 'site'));
    await writeFile(join(base, 'config', 'b.json'), JSON.stringify({ agency: { name: 'X' } }));
    expect((await loadConfig({ cwd: base, path: 'config/b.json' })).config.output.dir).toBe('output');
  });

  it('tells a config that relied on output.dir being read from the working folder what to write', async () => {
    const base = await mkdtemp(join(dir, 'old-base-'));
    await mkdir(join(base, 'config'));
    await mkdir(join(base, 'output', '2026-10'), { recursive: true });
    await writeFile(join(base, 'config', 'geo-reports.json'), JSON.stringify({ output: { dir: 'output' } }));
    const error = (await loadConfig({ cwd: base, path: 'config/geo-reports.json' }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(
      `output.dir: "output" is read relative to the config file, so it names ${join(base, 'config', 'output')}, which does not exist`,
    );
    expect(error.hint).toBe('Write "../output" for output.dir: every path in the config is relative to the config file.');
  });

  it('refuses a token written into the file, says where it goes, and never echoes it', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const path = await configFile('secret.json', JSON.stringify({ api: { token: secret } }));
    const error = (await loadConfig({ cwd: dir, path }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('api.token');
    expect(error.hint).toContain('AGENCY_API_TOKEN');
    expect(`${error.message} ${error.hint}`).not.toContain(secret);
  });

  it('refuses an SMTP password or a URL with a login in the file, and says to use GEO_REPORTS_SMTP_URL', async () => {
    const secret = 'smtp-pw-9f8e7d6c5b4a';
    for (const [name, raw, key] of [
      ['smtp-pass.json', { delivery: { email: { from: 'a@agency.example', password: secret } } }, 'delivery.email.password'],
      ['smtp-pass2.json', { delivery: { email: { smtpPass: secret } } }, 'delivery.email.smtpPass'],
      ['smtp-url.json', { delivery: { email: { server: `smtp://mailer:${secret}@smtp.example.com:587` } } }, 'delivery.email.server'],
    ] as const) {
      const path = await configFile(name, JSON.stringify(raw));
      const error = (await loadConfig({ cwd: dir, path }).catch((e: unknown) => e)) as ConfigError;
      expect(error, name).toBeInstanceOf(ConfigError);
      expect(error.message).toContain(key);
      expect(error.hint).toContain('GEO_REPORTS_SMTP_URL');
      expect(`${error.message} ${error.hint}`).not.toContain(secret);
    }
  });

  it('reads the email settings and names the key of a bad address', async () => {
    const good = await configFile(
      'mail.json',
      JSON.stringify({
        delivery: { email: { from: 'Northwind <reports@northwind.example>', bcc: ['archive@northwind.example'], auto: true } },
        clients: { '101': { email: { to: ['anne@client.example'], cc: ['b@client.example'], subject: 'Report {period}' } } },
      }),
    );
    const { config } = await loadConfig({ cwd: dir, path: good });
    expect(config.delivery.email).toMatchObject({
      from: 'Northwind <reports@northwind.example>',
      bcc: ['archive@northwind.example'],
      auto: true,
      messageTimeoutMs: 120_000,
    });
    expect(config.clients['101']?.email).toEqual({ to: ['anne@client.example'], cc: ['b@client.example'], bcc: [], subject: 'Report {period}' });
    expect((await loadConfig({ cwd: dir })).config.delivery.email).toMatchObject({ bcc: [], auto: false });

    const bad = await configFile(
      'bad-mail.json',
      JSON.stringify({ delivery: { email: { from: 'not an address' } }, clients: { '101': { email: { to: ['anne at client'], bcc: 'x@y.example' } } } }),
    );
    const message = ((await loadConfig({ cwd: dir, path: bad }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain('delivery.email.from: expected an address like');
    expect(message).toContain('clients."101".email.to[0]: expected an email address');
    expect(message).toContain('clients."101".email.bcc:');
  });

  it('reads goals, the direction defaulting to up, and names the key of every bad one', async () => {
    const good = await configFile(
      'goals.json',
      JSON.stringify({
        report: { goals: [{ metric: 'geo', target: 70, by: '2027-03' }] },
        clients: { '109': { goals: [{ metric: 'metric:avg_ai_position', target: 2.5, by: '2027-06', direction: 'down', label: 'Top 3 in answers' }] } },
      }),
    );
    const { config } = await loadConfig({ cwd: dir, path: good });
    expect(config.report.goals).toEqual([{ metric: 'geo', target: 70, by: '2027-03', direction: 'up' }]);
    expect(config.clients['109']?.goals?.[0]).toMatchObject({ direction: 'down', label: 'Top 3 in answers' });
    expect((await loadConfig({ cwd: dir })).config.report.goals).toEqual([]);

    const bad = await configFile(
      'bad-goals.json',
      JSON.stringify({
        report: { goals: [{ metric: 'score', target: 70, by: '2027-03' }] },
        clients: {
          '109': {
            goals: [
              { metric: 'geo', target: 70, by: 'March 2027' },
              { metric: 'ai:chatgpt', target: '60', by: '2027-03' },
              { metric: 'seo', target: 70, by: '2027-13', direction: 'sideways' },
            ],
          },
        },
      }),
    );
    const message = ((await loadConfig({ cwd: dir, path: bad }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain('report.goals[0].metric: unknown metric; expected one of geo, seo, trust, ai:<assistant>, metric:<key>');
    expect(message).toContain('clients."109".goals[0].by: expected a month like "2027-03"');
    expect(message).toContain('clients."109".goals[1].target: expected a number');
    expect(message).toContain('clients."109".goals[2].by: expected a month like "2027-03"');
    expect(message).toContain('clients."109".goals[2].direction:');
  });

  it('reads goals on the scan’s data, lower is better unless stated, and names the key of a malformed one', async () => {
    const good = await configFile(
      'scan-goals.json',
      JSON.stringify({
        report: {
          goals: [
            { metric: 'keyword:plumber lyon', target: 3, by: '2027-03' },
            { metric: 'cwv:lcp', target: 2.5, by: '2027-03' },
            { metric: 'cwv:cls', target: 0.1, by: '2027-03', direction: 'up' },
          ],
        },
      }),
    );
    const { config } = await loadConfig({ cwd: dir, path: good });
    expect(config.report.goals.map((g) => g.direction)).toEqual(['down', 'down', 'up']);

    const bad = await configFile(
      'bad-scan-goals.json',
      JSON.stringify({
        report: { goals: [{ metric: 'keyword:', target: 3, by: '2027-03' }] },
        clients: { '109': { goals: [{ metric: 'cwv:fid', target: 100, by: '2027-03' }] } },
      }),
    );
    const message = ((await loadConfig({ cwd: dir, path: bad }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain('report.goals[0].metric: a keyword goal names its keyword after "keyword:", e.g. "keyword:plumber lyon"');
    expect(message).toContain('clients."109".goals[0].metric: unknown Core Web Vital "fid"; expected cwv:lcp, cwv:inp or cwv:cls');
  });

  it('resolves the logo next to the config file and inlines it', async () => {
    await writeFile(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const path = await configFile('logo.json', JSON.stringify({ agency: { logo: 'logo.svg' } }));
    const { config } = await loadConfig({ cwd: '/', path });
    expect(config.agency.logo).toBe(join(dir, 'logo.svg'));
    expect(await readLogo(config.agency.logo)).toMatch(/^data:image\/svg\+xml;base64,/);
    await expect(readLogo(join(dir, 'logo.gif'))).rejects.toThrow(/unsupported file type/);
    await expect(readLogo(join(dir, 'missing.png'))).rejects.toThrow(/cannot read/);
  });
});

describe('the remote browser endpoint', () => {
  const endpoint = 'ws://127.0.0.1:9222/devtools/browser/0d4c2a5e-1b7f-4a51-9f7e-3c2d1e0f9a8b';

  it('reads render.browserWSEndpoint from the file when it is a DevTools WebSocket URL', async () => {
    const path = await configFile('remote.json', JSON.stringify({ render: { browserWSEndpoint: endpoint } }));
    const { config } = await loadConfig({ cwd: dir, path });
    expect(config.render.browserWSEndpoint).toBe(endpoint);
    expect((await loadConfig({ cwd: dir })).config.render.browserWSEndpoint).toBeUndefined();
  });

  it('names the key when the file holds something else, or a URL carrying a token', async () => {
    for (const [value, expected] of [
      ['http://127.0.0.1:9222', 'render.browserWSEndpoint: must start with ws:// or wss:// (got http://)'],
      ['not a url', 'render.browserWSEndpoint: not a URL'],
      [`wss://pool.example/chrome?token=s3cret`, 'set it in GEO_REPORTS_BROWSER_WS_ENDPOINT instead'],
      [`wss://user:s3cret@pool.example/chrome`, 'set it in GEO_REPORTS_BROWSER_WS_ENDPOINT instead'],
    ] as const) {
      const path = await configFile('bad-remote.json', JSON.stringify({ render: { browserWSEndpoint: value } }));
      const error = await loadConfig({ cwd: dir, path }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(expected);
      expect((error as Error).message).not.toContain('s3cret');
    }
  });
});
