// An agency's month with six clients of its own in an account of 25 projects, `report.clients: "listed"` and the
// client's link in every mail, through the real CLI, a simulator, Chromium, a static host and an SMTP server on
// loopback: the run reports the six alone; one client is sent its report; a template change is named by the plan
// and `run --remake` makes the six again without a request, the sent one as a new version beside it; `report` of
// the sent client writes another version and leaves the sent PDF alone; `run --send` publishes before it sends, so
// that every link works on the first try.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, type Manifest, type ProjectEntry } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { SMTP_PASSWORD, startSmtpServer, type ReceivedMail, type SmtpTestServer } from '../support/email-fixtures.js';
import { serveSite, type StaticSite } from '../support/static-site.js';

const PERIOD = '2026-10';
const TOKEN = 'tok-listed-month-5c1e9b7d3a2f4e68';
const LINK_SECRET = 'listed-month-link-secret-2f7a9c4e1b6d8a0c';

let root: string;
let out: string;
let periodDir: string;
let sim: SimulatorHandle;
let smtp: SmtpTestServer;
let site: StaticSite;
let listed: number[];
let env: NodeJS.ProcessEnv;
const logs: string[] = [];

const cli = async (args: string[]): Promise<CliResult> => {
  const result = await runCli([...args, '--config', 'geo-reports.json', '--json'], { cwd: root, env, timeoutMs: 180_000 });
  logs.push(result.stdout, result.stderr);
  return result;
};
const events = (stdout: string): Array<Record<string, unknown> & { type: string }> =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
const reportRequests = (from: number): number => sim.state.requests.slice(from).filter((r) => r.endpoint === 'reports.php').length;
const manifest = async (): Promise<Manifest> => (await readManifest(periodDir)) as Manifest;
const entryOf = async (id: number): Promise<ProjectEntry> => (await manifest()).projects.find((e) => e.id === id) as ProjectEntry;
const addressOf = (id: number): string => `client-${id}@clients.example`;
/** The client's link in a mail's text: the address of its page on the site. */
const linkIn = (mail: ReceivedMail): string => {
  const found = new RegExp(`${site.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}c/[\\w-]+/`).exec(String(mail.parsed.text));
  expect(found, String(mail.parsed.text)).not.toBeNull();
  return (found as RegExpExecArray)[0];
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-listed-month-'));
  out = join(root, 'out');
  periodDir = join(out, PERIOD);
  sim = await startSimulator({ projectCount: 25, tokens: [TOKEN], clock: () => new Date('2026-11-04T06:00:00Z') });
  smtp = await startSmtpServer();
  site = await serveSite(join(out, 'site'));
  listed = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id)
    .slice(0, 6);
  expect(listed).toHaveLength(6);
  await mkdir(join(root, 'templates', 'assets'), { recursive: true });
  await writeFile(join(root, 'templates', 'assets', 'extra.css'), '/* the agency look, first version */\n');
  const config = {
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
    report: { clients: 'listed', templates: 'templates' },
    clients: Object.fromEntries(listed.map((id) => [String(id), { email: { to: [addressOf(id)] } }])),
    output: { dir: 'out' },
    site: { baseUrl: site.url },
    delivery: { email: { from: 'reports@northwind.example', link: true } },
  };
  await writeFile(join(root, 'geo-reports.json'), `${JSON.stringify(config, null, 2)}\n`);
  env = {
    ...process.env,
    AGENCY_API_BASE_URL: sim.url,
    AGENCY_API_TOKEN: TOKEN,
    GEO_REPORTS_SMTP_URL: smtp.url,
    GEO_REPORTS_LINK_SECRET: LINK_SECRET,
  };
}, 60_000);

afterAll(async () => {
  await site.close();
  await smtp.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a month of six listed clients out of 25 projects', () => {
  let sentId: number;
  let sentPdf: Buffer;

  it('dry run: says the listed rule chose six and left 19 out, and names no file as written', async () => {
    const dry = await cli(['run', '--period', PERIOD, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = events(dry.stdout).find((e) => e.type === 'plan')?.['plan'] as Record<string, unknown>;
    expect(plan).toMatchObject({ selected: 6, toDo: 6, leftOut: 19, chosenBy: { rule: 'listed', listed: 6 } });
    const summary = events(dry.stdout).find((e) => e.type === 'summary')?.['summary'] as Record<string, unknown>;
    expect(summary).toMatchObject({ dryRun: true, pending: 6 });
    const all = await cli(['run', '--period', PERIOD, '--dry-run', '--all']);
    expect(events(all.stdout).find((e) => e.type === 'plan')?.['plan']).toMatchObject({ chosenBy: { rule: 'statuses' } });
  }, 180_000);

  it('run: reports the six listed clients, and no other project', async () => {
    const from = sim.state.requests.length;
    const run = await cli(['run', '--period', PERIOD]);
    expect(run.code, run.stderr).toBe(0);
    expect(reportRequests(from)).toBe(6);
    const { projects } = await manifest();
    expect(projects.map((e) => e.id).sort((a, b) => a - b)).toEqual([...listed].sort((a, b) => a - b));
    expect(projects.every((e) => e.status === 'done' && e.madeWith !== undefined)).toBe(true);
  }, 180_000);

  it('send of one client, links on: the site is published first, and the mail links to its report', async () => {
    sentId = listed[0] as number;
    const send = await cli(['send', '--period', PERIOD, '--project', String(sentId)]);
    expect(send.code, send.stderr).toBe(0);
    expect(smtp.accepted).toHaveLength(1);
    const page = await fetch(linkIn(smtp.accepted[0] as ReceivedMail));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`${PERIOD}/report.pdf`);
    const entry = await entryOf(sentId);
    expect(entry.deliveries?.email?.status).toBe('sent');
    sentPdf = await readFile(join(periodDir, entry.files.pdf as string));
    // What the client received is the PDF attached to the mail.
    expect(smtp.accepted[0]?.parsed.attachments[0]?.content.equals(sentPdf)).toBe(true);
  }, 120_000);

  it('a template change: the plan names the six reports made with the old templates', async () => {
    await writeFile(join(root, 'templates', 'assets', 'extra.css'), '.agency-look-two { color: #123456; }\n');
    const from = sim.state.requests.length;
    const run = await cli(['run', '--period', PERIOD]);
    expect(run.code, run.stderr).toBe(0);
    expect(events(run.stdout).find((e) => e.type === 'plan')?.['plan']).toMatchObject({ alreadyDone: 6, toDo: 0, outdated: 6 });
    expect(reportRequests(from)).toBe(0);
  }, 120_000);

  it('run --remake: the six made again at 0 requests with the new templates; the sent one kept, its new version beside it', async () => {
    const from = sim.state.requests.length;
    const remake = await cli(['run', '--period', PERIOD, '--remake']);
    expect(remake.code, remake.stderr).toBe(0);
    expect(sim.state.requests.slice(from)).toEqual([]);
    expect(events(remake.stdout).find((e) => e.type === 'plan')?.['plan']).toMatchObject({ remake: 6 });
    const after = await manifest();
    for (const entry of after.projects) {
      const current = entry.versions?.at(-1)?.files.html ?? entry.files.html;
      expect(await readFile(join(periodDir, current as string), 'utf8'), entry.name).toContain('agency-look-two');
    }
    const sent = after.projects.find((e) => e.id === sentId) as ProjectEntry;
    expect(sent.files.pdf).toBe(`${sent.slug}/report.pdf`);
    expect(sent.deliveries?.email?.status).toBe('sent');
    expect(sent.versions?.map((v) => [v.version, v.reason, v.files.pdf])).toEqual([[2, 'remake', `${sent.slug}/report-v2.pdf`]]);
    expect((await readFile(join(periodDir, sent.files.pdf as string))).equals(sentPdf)).toBe(true);
    expect((await readFile(join(periodDir, `${sent.slug}/report-v2.pdf`))).subarray(0, 5).toString()).toBe('%PDF-');
    expect(after.projects.filter((e) => e.id !== sentId).every((e) => e.versions === undefined)).toBe(true);
    // The plan no longer finds a report made with other templates.
    const again = await cli(['run', '--period', PERIOD, '--dry-run']);
    expect(events(again.stdout).find((e) => e.type === 'plan')?.['plan']).toMatchObject({ outdated: 0 });
  }, 180_000);

  it('report of the sent client: a new version beside it, said so; the sent PDF untouched', async () => {
    const from = sim.state.requests.length;
    const report = await cli(['report', String(sentId), '--period', PERIOD]);
    expect(report.code, report.stderr).toBe(0);
    expect(reportRequests(from)).toBeGreaterThan(0);
    const sent = await entryOf(sentId);
    expect(sent.versions?.map((v) => [v.version, v.reason])).toEqual([
      [2, 'remake'],
      [3, 'report'],
    ]);
    expect(report.stdout).toContain(`${sent.slug}/report-v3.pdf; the sent ${sent.slug}/report.pdf is kept`);
    expect((await readFile(join(periodDir, sent.files.pdf as string))).equals(sentPdf)).toBe(true);
    expect(sent.files).toEqual({ html: `${sent.slug}/report.html`, pdf: `${sent.slug}/report.pdf`, data: `${sent.slug}/data.json` });
    // An unlisted project is refused before any request, unless --all.
    const other = sim.state.projects().find((p) => p.status === 'active' && !listed.includes(p.id))?.id as number;
    const refused = await cli(['report', String(other), '--period', PERIOD]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--all');
  }, 180_000);

  it('run --send, links on: the five others mailed once, each link working on the first try; the sent one not again', async () => {
    const run = await cli(['run', '--period', PERIOD, '--send']);
    expect(run.code, run.stderr).toBe(0);
    const mails = smtp.accepted.slice(1);
    expect(mails.map((m) => m.envelope.to).sort()).toEqual(
      listed
        .filter((id) => id !== sentId)
        .map((id) => [addressOf(id)])
        .sort(),
    );
    for (const mail of mails) {
      const page = await fetch(linkIn(mail));
      expect(page.status, linkIn(mail)).toBe(200);
      const html = await page.text();
      expect(html).toContain(`${PERIOD}/report.pdf`);
      const pdf = await fetch(new URL(`${PERIOD}/report.pdf`, linkIn(mail)));
      expect(pdf.status).toBe(200);
      expect(Buffer.from(await pdf.arrayBuffer()).equals(mail.parsed.attachments[0]?.content as Buffer)).toBe(true);
    }
    // The sent client's page still shows what it received.
    const sentPage = await fetch(new URL(`${PERIOD}/report.pdf`, linkIn(smtp.accepted[0] as ReceivedMail)));
    expect(Buffer.from(await sentPage.arrayBuffer()).equals(sentPdf)).toBe(true);
    for (const text of logs) expect(text).not.toContain(SMTP_PASSWORD);
    for (const text of logs) expect(text).not.toContain(LINK_SECRET);
  }, 240_000);
});
