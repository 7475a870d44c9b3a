// Hostile text from the service, followed out of the tool through every channel, on real processes: a project whose
// name carries NUL, ESC, CR, U+202E, U+FFFF/U+FFFE, Slack markup and a mention is run by the spawned CLI against the
// simulator (its AI answers naming competitors' hostnames), then listed (`projects`, `links`), exported (CSV and a
// workbook whose sharedStrings.xml is parsed as XML), mailed through a real SMTP server, and alerted through the
// `listen` CLI to a chat double on loopback. Beside it, the SMTP URL with a "#" in its password, and an email.hbs
// with a tracker in an Outlook conditional comment and in VML.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/output/store.js';
import { COMPETITOR_DOMAINS } from '../../src/simulator/catalog.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, startCli, type CliResult } from '../support/cli.js';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type SmtpTestServer } from '../support/email-fixtures.js';
import { waitFor } from '../support/wait.js';
import { post, scoreChange, signatureHeaders, startChatDouble, type ChatDouble } from '../support/webhook-sender.js';

const exec = promisify(execFile);
const TOKEN = 'tok-hostile-output-7d3e9b1c5a2f4e60';
const PERIOD = '2026-10';
const WEBHOOK_SECRET = 'whsec_hostile_output_5c1e9a7d3b2f4e6a8c0d';
const LINK_SECRET = randomBytes(32).toString('base64');
/** What the service may put in a project's name: controls, a reversal, non-characters, Slack markup, a mention. */
const HOSTILE = 'Evil\u0000 \u001b[31mRed\u001b[0m\r \u202Eenil @here <!channel> <https://evil.example/login|Open the October report> & \uFFFF\uFFFE end';
/** What must never leave the tool: C0 controls but tab and line feed, DEL, C1, bidi overrides and isolates, U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\uFFFE\uFFFF]/;
const unsafeIn = (text: string): string | null => {
  const found = UNSAFE.exec(text);
  return found === null
    ? null
    : `U+${found[0].codePointAt(0)?.toString(16).padStart(4, '0')} at ${found.index}: ${JSON.stringify(text.slice(Math.max(0, found.index - 30), found.index + 10))}`;
};

let sim: SimulatorHandle;
let smtp: SmtpTestServer;
let chat: ChatDouble;
let root: string;
let hostileId: number;
let run: CliResult;
const clientAddress = (id: number): string => `client-${id}@client.example`;

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  AGENCY_API_TOKEN: TOKEN,
  AGENCY_API_BASE_URL: sim.url,
  GEO_REPORTS_LINK_SECRET: LINK_SECRET,
  GEO_REPORTS_SMTP_URL: smtp.url,
  ...extra,
});
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, { env: env(extra), cwd: root, timeoutMs: 180_000 });

/** Every string of the classic answer with the project's name replaced by the hostile one. */
function renamed(value: unknown, from: string): unknown {
  if (typeof value === 'string') return from === '' ? value : value.replaceAll(from, HOSTILE);
  if (Array.isArray(value)) return value.map((item) => renamed(item, from));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, from)]));
  return value;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-hostile-output-'));
  let original = '';
  sim = await startSimulator({
    tokens: [TOKEN],
    projectCount: 6,
    clock: () => new Date('2026-11-04T06:00:00Z'),
    dialect: (answer) => renamed(answer.data, original),
  });
  const active = sim.state.projects().filter((p) => p.status === 'active');
  hostileId = active[0]?.id as number;
  original = active[0]?.name as string;
  smtp = await startSmtpServer();
  chat = await startChatDouble();
  const config = {
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
    report: { maxScoreDrop: 100, sections: { aiAnswers: true } },
    delivery: { email: { from: 'Northwind Reports <reports@northwind.example>' } },
    site: { baseUrl: 'https://reports.northwind.example' },
    alerts: { minDrop: 5, cooldownMinutes: 60, email: { to: ['alerts@northwind.example'] } },
    output: { dir: '../out' },
    clients: Object.fromEntries(active.map((p) => [String(p.id), { email: { to: [clientAddress(p.id)] } }])),
  };
  await mkdir(join(root, 'config'), { recursive: true });
  await writeFile(join(root, 'config', 'geo-reports.json'), JSON.stringify(config));
  run = await cli(['run', '--period', PERIOD, '--out', 'out']);
  expect(run.code, run.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  await sim.close();
  await smtp.close();
  await chat.close();
  await rm(root, { recursive: true, force: true });
});

describe('the terminal', () => {
  it('run, projects and links print the name without its controls, reversal or non-characters', async () => {
    expect(`${run.stdout}${run.stderr}`).toContain('Evil');
    expect(unsafeIn(run.stdout)).toBeNull();
    expect(unsafeIn(run.stderr)).toBeNull();
    const projects = await cli(['projects']);
    expect(projects.code, projects.stderr).toBe(0);
    expect(projects.stdout).toContain('Evil [31mRed[0m enil');
    expect(unsafeIn(projects.stdout)).toBeNull();
    const published = await cli(['publish', '--out', 'out']);
    expect(published.code, published.stderr).toBe(0);
    const links = await cli(['links', '--out', 'out']);
    expect(links.code, links.stderr).toBe(0);
    expect(links.stdout).toContain('Evil');
    expect(unsafeIn(links.stdout)).toBeNull();
    expect(unsafeIn(links.stderr)).toBeNull();
  });
});

describe('the report', () => {
  it("the client's page holds no reversal, control or non-character of the name", async () => {
    const manifest = Manifest.parse(JSON.parse(await readFile(join(root, 'out', PERIOD, 'manifest.json'), 'utf8')));
    const entry = manifest.projects.find((p) => p.id === hostileId);
    const html = await readFile(join(root, 'out', PERIOD, entry?.files.html as string), 'utf8');
    expect(html).toContain('enil');
    expect(unsafeIn(html.replace(/\r\n/g, '\n'))).toBeNull();
  });
});

describe('the export', () => {
  it('the CSV holds none of them; the workbook is well-formed XML (U+FFFF and U+FFFE dropped)', async () => {
    const csv = join(root, 'values.csv');
    const xlsx = join(root, 'values.xlsx');
    expect((await cli(['export', '--out', 'out', '--file', csv])).code).toBe(0);
    expect((await cli(['export', '--format', 'xlsx', '--out', 'out', '--file', xlsx])).code).toBe(0);
    const text = await readFile(csv, 'utf8');
    expect(text).toContain('Evil');
    // RFC 4180 ends each record with CRLF: the only CR the file may hold.
    expect(unsafeIn(text.replace(/\r\n/g, '\n'))).toBeNull();
    for (const part of ['xl/sharedStrings.xml', 'xl/worksheets/sheet1.xml']) {
      const xml = (await exec('unzip', ['-p', xlsx, part], { maxBuffer: 64 * 1024 * 1024 })).stdout;
      const errors: string[] = [];
      const parser = new SaxesParser();
      parser.on('error', (error) => errors.push(error.message));
      parser.write(xml).close();
      expect(errors, part).toEqual([]);
      if (part.includes('sharedStrings')) expect(xml).toContain('Evil');
    }
  });
});

describe('the mail', () => {
  it("subject and text part carry the name cleaned; the AI answers' hostnames are no link in the text or HTML", async () => {
    const sent = await cli(['send', '--period', PERIOD, '--out', 'out']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(unsafeIn(sent.stdout)).toBeNull();
    const mail = smtp.accepted.find((m) => m.envelope.to.includes(clientAddress(hostileId)));
    expect(mail).toBeDefined();
    const subject = mail?.parsed.subject ?? '';
    expect(subject).toContain('Evil');
    expect(unsafeIn(subject)).toBeNull();
    expect(unsafeIn(String(mail?.parsed.text))).toBeNull();
    expect(unsafeIn(String(mail?.parsed.html).replace(/\r\n/g, '\n'))).toBeNull();
    // The AI answers name competitors: a mail client would make each a link. Each is held apart at its last dot.
    const texts = smtp.accepted.flatMap((m) => [String(m.parsed.text), String(m.parsed.html)]);
    const named = COMPETITOR_DOMAINS.filter((domain) => texts.some((t) => t.includes(domain.replace(/\.([a-z]+)$/, '.\u200D$1'))));
    expect(named.length).toBeGreaterThan(0);
    for (const domain of COMPETITOR_DOMAINS) for (const t of texts) expect(t).not.toContain(domain);
  });
});

describe('the chat alert', () => {
  it('shows the markup, mentions no one and links nowhere; the alert mail is clean too', async () => {
    const listener = startCli(['listen', '--port', '0'], {
      env: env({ GEO_REPORTS_WEBHOOK_SECRET: WEBHOOK_SECRET, GEO_REPORTS_ALERT_WEBHOOK_URL: chat.url }),
      cwd: root,
      timeoutMs: 30_000,
    });
    try {
      const url = await listener.firstLine;
      const body = scoreChange('evt_hostile_drop', hostileId, 10);
      expect((await post(url, body, signatureHeaders(WEBHOOK_SECRET, body, 'sha256=hex'))).status).toBe(200);
      await waitFor(
        'the chat post and the alert mail',
        () => chat.received.length >= 1 && smtp.accepted.some((m) => m.envelope.to.includes('alerts@northwind.example')),
        {
          timeoutMs: 20_000,
        },
      );
    } finally {
      await listener.stop('SIGINT');
    }
    const text = chat.received[0]?.text ?? '';
    expect(text).toContain('Evil');
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toMatch(/<https?:/);
    expect(text).not.toContain('@here');
    expect(text).toContain('@\u2060here');
    expect(text).toContain('&amp;');
    expect(text).not.toMatch(/ & /);
    expect(unsafeIn(text)).toBeNull();
    const alert = smtp.accepted.find((m) => m.envelope.to.includes('alerts@northwind.example'));
    expect(unsafeIn(alert?.parsed.subject ?? '')).toBeNull();
    expect(unsafeIn(String(alert?.parsed.text))).toBeNull();
  });
});

describe('GEO_REPORTS_SMTP_URL with a "#" or "?" in its password', () => {
  it.each([
    ['#', `smtp://agency:4821#rest@127.0.0.1:PORT`],
    ['?', `smtp://agency:4821?rest@127.0.0.1:PORT`],
    ['# with no @ after it', `smtp://agency:4821#rest`],
  ])('%s: exit 2 naming the percent-encoding, no digit of the password printed, no mail sent', async (_name, shape) => {
    const before = smtp.received.length;
    const result = await cli(['send', '--period', PERIOD, '--out', 'out', '--resend', '--project', String(hostileId)], {
      GEO_REPORTS_SMTP_URL: shape.replace('PORT', String(smtp.port)),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GEO_REPORTS_SMTP_URL');
    expect(result.stderr).toContain('%23');
    expect(`${result.stdout}${result.stderr}`).not.toContain('4821');
    expect(smtp.received.length).toBe(before);
  });

  it('the same password percent-encoded logs in (the fix works)', async () => {
    const url = `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${smtp.port}`;
    const result = await cli(['send', '--period', PERIOD, '--out', 'out', '--resend', '--project', String(hostileId)], { GEO_REPORTS_SMTP_URL: url });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('a tracker in an Outlook conditional comment or in VML', () => {
  it.each([
    ['an <img> in <!--[if mso]>', '<!--[if mso]><img src="https://tracker.example/open.gif?c={{client.name}}"><![endif]-->'],
    [
      'a v:fill in <!--[if gte mso 9]>',
      '<!--[if gte mso 9]><v:rect xmlns:v="urn:schemas-microsoft-com:vml" fill="true" stroke="false" style="width:600px;"><v:fill type="tile" src="https://tracker.example/bg.png" color="#ffffff" /></v:rect><![endif]-->',
    ],
    ['a background= in <!--[if mso]>', '<!--[if mso]><table><tr><td background="https://tracker.example/td.png">x</td></tr></table><![endif]-->'],
    ['a v:image', '<!--[if mso]><v:image src="//tracker.example/i.png" /><![endif]-->'],
  ])('%s: template check refuses it (exit 2) and send mails nothing', async (name, markup) => {
    const folder = join(root, `mail-${name.replace(/\W+/g, '-')}`);
    expect((await cli(['template', 'init', folder])).code).toBe(0);
    const template = await readFile(join(folder, 'email.hbs'), 'utf8');
    expect(template).toContain('{{greeting}}');
    await writeFile(join(folder, 'email.hbs'), template.replace('{{greeting}}', `${markup}{{greeting}}`));
    const check = await cli(['template', 'check', '--templates', folder]);
    expect(check.code).toBe(2);
    expect(`${check.stdout}${check.stderr}`).toMatch(/email\.hbs[\s\S]*tracker\.example/);
    const before = smtp.received.length;
    const sent = await cli(['send', '--period', PERIOD, '--out', 'out', '--templates', folder, '--resend', '--project', String(hostileId)]);
    expect(sent.code).not.toBe(0);
    expect(`${sent.stdout}${sent.stderr}`).toMatch(/tracker\.example/);
    expect(smtp.received.length).toBe(before);
  });
});
