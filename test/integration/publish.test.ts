// `geo-reports publish` for real: two months of reports made by the batch on the simulator, the real CLI publishing
// them, the site served by a static host on loopback and opened in Chromium at a phone's width; the whole site
// crawled and every file accounted for; a rotation that kills the old address, with the mail carrying the new one
// (a real SMTP server); the refusals; a second publish that writes nothing; a publish killed halfway. The API
// double counts every request: publish sends none.
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { linkToken, LinksRecord } from '../../src/output/links.js';
import { Manifest } from '../../src/output/store.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig } from '../support/batch.js';
import { runCli, spawnCli, type CliResult } from '../support/cli.js';
import { startSmtpServer, type SmtpTestServer } from '../support/email-fixtures.js';
import { serveSite, type StaticSite } from '../support/static-site.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'tok-publish-6c1e8b2f9a4d7035';
const SECRET = 'publish-suite-secret-3f9c1a7e5b2d8c4f6a0e9b1d';
const PERIODS = ['2026-09', '2026-10'] as const;
/** Screenshots of the site at 390 px, kept for a person to look at. */
const SCREENS = join(tmpdir(), 'geo-reports-publish-screens');
const SLOW_RENAMES = new URL('../support/slow-renames.mjs', import.meta.url).href;

let sim: SimulatorHandle;
let root: string;
let out: string;
let siteDir: string;
let site: StaticSite;
let smtp: SmtpTestServer;
let browser: Browser;
let config: Config;
let rawConfig: Record<string, unknown>;
/** Done, not held, in both months: each has a page listing both. */
let clients: Array<{ id: number; name: string }>;
let firstPublish: PublishRun;
let requestsBeforePublish: number;

interface PublishRun extends CliResult {
  events: Array<Record<string, unknown> & { type: string }>;
  summary: { written: number; removed: number; clients: number; urlsChanged: Array<{ projectId: number; from: string; to: string }> };
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, GEO_REPORTS_LINK_SECRET: SECRET, ...extra });

async function cli(args: string[], extra: NodeJS.ProcessEnv = {}, cwd = root): Promise<CliResult> {
  return runCli(args, { env: env(extra), cwd, timeoutMs: 120_000 });
}

async function publish(args: string[] = [], extra: NodeJS.ProcessEnv = {}, outDir = out): Promise<PublishRun> {
  const result = await cli(['publish', '--out', outDir, '--json', ...args], extra);
  const events = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PublishRun['events'][number]);
  const summary = (events.at(-1)?.['summary'] ?? null) as PublishRun['summary'];
  return { ...result, events, summary };
}

/** Every file of a folder, relative, with forward slashes. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

/** Each file's size, inode and modification time: a file written again changes at least one. */
async function fingerprints(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const file of await filesOf(dir)) {
    const info = await stat(join(dir, file));
    result[file] = `${info.size}:${info.ino}:${info.mtimeMs}`;
  }
  return result;
}

const folderOf = (id: number, generation = 0): string => `c/${linkToken(SECRET, id, generation)}/`;

async function fetchStatus(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

/** The addresses a page points at (href, src, url()), resolved against it; mail and phone links left out. */
function linksOf(html: string, base: string): string[] {
  const found = [...html.matchAll(/\b(?:href|src)\s*=\s*"([^"]*)"|url\(\s*['"]?([^'")]*)['"]?\s*\)/gi)].map((m) => (m[1] ?? m[2] ?? '').trim());
  return found.filter((link) => link !== '' && !/^(#|mailto:|tel:|data:)/i.test(link)).map((link) => new URL(link, base).href);
}

/** Follows every link from `start`, on the site only; what it reached, with the status and type of each. */
async function crawl(start: string): Promise<Map<string, { status: number; type: string | null }>> {
  const seen = new Map<string, { status: number; type: string | null }>();
  const queue = [start];
  while (queue.length > 0) {
    const url = queue.shift() as string;
    if (seen.has(url)) continue;
    expect(url.startsWith(site.url), `${url} leads off the site`).toBe(true);
    const { status, type, body } = await fetchStatus(url);
    seen.set(url, { status, type });
    if (type?.startsWith('text/html') === true) queue.push(...linksOf(body.toString('utf8'), url).filter((link) => !seen.has(link)));
  }
  return seen;
}

/** Opens `url` at 390 px in Chromium, JavaScript off; its sideways scroll (0 = none), with a full-page screenshot. */
async function atPhoneWidth(url: string, screenshot: string): Promise<{ scroll: number; text: string }> {
  const page = await browser.newPage();
  try {
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
    const response = await page.goto(url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.screenshot({ path: join(SCREENS, screenshot), fullPage: true });
    return await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth, text: document.body.innerText }));
  } finally {
    await page.close();
  }
}

async function record(outDir = out): Promise<LinksRecord> {
  return LinksRecord.parse(JSON.parse(await readFile(join(outDir, 'links.json'), 'utf8')));
}

/** A copy of the output folder (periods, links record, site) for a test that changes it: the others read the first publish. */
async function copyOfOutput(name: string): Promise<string> {
  const copy = join(root, name);
  await cp(out, copy, { recursive: true });
  return copy;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-publish-'));
  out = join(root, 'out');
  siteDir = join(out, 'site');
  await mkdir(SCREENS, { recursive: true });
  site = await serveSite(siteDir);
  smtp = await startSmtpServer();
  let now = new Date('2026-10-04T06:00:00Z');
  sim = await startSimulator({ projectCount: 12, tokens: [TOKEN], clock: () => now });
  const active = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id)
    .sort((a, b) => a - b);
  rawConfig = {
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example', phone: '+33 1 23 45 67 89', website: 'northwind.example' } },
    report: { maxScoreDrop: 100, requiredSections: [] },
    clients: Object.fromEntries(
      active.map((id, index) => [String(id), { email: { to: [`client-${id}@inbox-${id}.example`] }, ...(index % 2 === 1 ? { language: 'fr' } : {}) }]),
    ),
    site: { baseUrl: site.url },
    delivery: { email: { from: 'Northwind Digital <reports@northwind.example>', link: true } },
  };
  config = ConfigSchema.parse(rawConfig);
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'geo-reports.json'), JSON.stringify(rawConfig, null, 2));
  const rig = await startBatchRig();
  try {
    await rig.runSeptemberThenOctober({ baseUrl: sim.url, tokens: [TOKEN], outDir: out, config }, (at) => (now = at));
  } finally {
    await rig.close();
  }
  const manifests = await Promise.all(PERIODS.map(async (p) => Manifest.parse(JSON.parse(await readFile(join(out, p, 'manifest.json'), 'utf8')))));
  const published = manifests.map((m) => new Set(m.projects.filter((e) => e.status === 'done' && (e.held.length === 0 || e.released)).map((e) => e.id)));
  clients = (manifests[1] as Manifest).projects
    .filter((e) => published.every((ids) => ids.has(e.id)))
    .map((e) => ({ id: e.id, name: e.displayName ?? e.name }))
    .sort((a, b) => a.id - b.id);
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
  requestsBeforePublish = sim.state.requests.length;
  firstPublish = await publish();
}, 300_000);

afterAll(async () => {
  await browser.close();
  await site.close();
  await smtp.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('publish after two months', () => {
  it('gives every done client a page at an unguessable address listing both months, and asks the API nothing', async () => {
    expect(firstPublish.code, firstPublish.stderr).toBe(0);
    expect(clients.length).toBeGreaterThanOrEqual(5);
    expect(sim.state.requests.length).toBe(requestsBeforePublish);
    expect(firstPublish.summary.clients).toBe(clients.length);
    const listed = await cli(['links', '--out', out, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const links = JSON.parse(listed.stdout) as Array<{ projectId: number; name: string; url: string; path: string; months: string[] }>;
    expect(links.map((l) => l.projectId)).toEqual(clients.map((c) => c.id));
    for (const link of links) {
      expect(link.path).toBe(folderOf(link.projectId));
      expect(link.path).toMatch(/^c\/[A-Za-z0-9_-]{43}\/$/);
      expect(link.url).toBe(`${site.url}${link.path}`);
      expect(link.months).toEqual(['2026-10', '2026-09']);
      expect(link.name).toBe(clients.find((c) => c.id === link.projectId)?.name);
      const page = await fetchStatus(link.url);
      expect(page.status).toBe(200);
      const html = page.body.toString('utf8');
      for (const period of PERIODS) {
        expect(html).toContain(`href="${period}/report.html"`);
        expect(html).toContain(`href="${period}/report.pdf"`);
        const report = await fetchStatus(`${link.url}${period}/report.html`);
        expect([report.status, report.type]).toEqual([200, 'text/html; charset=utf-8']);
        const pdf = await fetchStatus(`${link.url}${period}/report.pdf`);
        expect([pdf.status, pdf.type]).toEqual([200, 'application/pdf']);
        expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
        // The site's PDF is the period's, byte for byte.
        const entry = Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8'))).projects.find((e) => e.id === link.projectId);
        expect(pdf.body.equals(await readFile(join(out, period, entry?.files.pdf as string)))).toBe(true);
        // The run recorded the page it wrote as checked: publish need not parse those bytes again.
        const written = await readFile(join(out, period, entry?.files.html as string));
        expect(entry?.checkedPage).toBe(createHash('sha256').update(written).digest('hex'));
      }
    }
    // No request went to the API while publishing, listing, or serving.
    expect(sim.state.requests.length).toBe(requestsBeforePublish);
  });

  it('shows a client page and a report at 390 px with no sideways scroll, in the client’s language', async () => {
    const english = clients[0] as { id: number };
    const french = clients.find((c) => config.clients[String(c.id)]?.language === 'fr') as { id: number };
    const page = await atPhoneWidth(`${site.url}${folderOf(english.id)}`, 'client-page-en.png');
    expect(page.scroll).toBe(0);
    expect(page.text).toContain('October 2026');
    expect(page.text).toContain('September 2026');
    expect(page.text).toMatch(/Read online/);
    const pageFr = await atPhoneWidth(`${site.url}${folderOf(french.id)}`, 'client-page-fr.png');
    expect(pageFr.scroll).toBe(0);
    expect(pageFr.text).toContain('octobre 2026');
    expect(pageFr.text).toMatch(/Lire en ligne/);
    const report = await atPhoneWidth(`${site.url}${folderOf(english.id)}2026-10/report.html`, 'report-en.png');
    expect(report.scroll).toBe(0);
    const reportFr = await atPhoneWidth(`${site.url}${folderOf(french.id)}2026-10/report.html`, 'report-fr.png');
    expect(reportFr.scroll).toBe(0);
    const rootPage = await atPhoneWidth(site.url, 'root.png');
    expect(rootPage.scroll).toBe(0);
    expect(rootPage.text).toContain('Northwind Digital');
    const missing = await fetchStatus(`${site.url}c/not-a-client/`);
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('Page not found');
  });

  it('holds nothing private: the crawl from the root and from each page stays within it, and every file is accounted for', async () => {
    // The root links to no client, nor to anything else.
    const fromRoot = await crawl(site.url);
    expect([...fromRoot.keys()]).toEqual([site.url]);
    const rootHtml = (await fetchStatus(site.url)).body.toString();
    expect(rootHtml).not.toMatch(/href="[^"]*c\//);
    for (const client of clients) {
      const start = `${site.url}${folderOf(client.id)}`;
      const reached = await crawl(start);
      // The page and its four files: nothing of another client, nothing above its folder.
      expect([...reached.keys()].sort()).toEqual([start, ...PERIODS.flatMap((p) => [`${start}${p}/report.html`, `${start}${p}/report.pdf`])].sort());
      for (const [url, { status }] of reached) expect(status, url).toBe(200);
    }
    const tokens = new Map(clients.map((c) => [linkToken(SECRET, c.id, 0), c]));
    const why = (file: string): string | null => {
      const fixed: Record<string, string> = {
        '.geo-reports-site': 'marker: written by publish; publish refuses a non-empty folder without it',
        'index.html': "root page: the agency's name, logo and contact, no client",
        '404.html': 'the page a static host serves for an address that leads nowhere (a revoked link)',
        'robots.txt': 'asks every crawler to stay out (Disallow: /)',
        _headers: 'Netlify / Cloudflare Pages: X-Robots-Tag noindex and no referrer on every file, PDFs included',
        '.nojekyll': 'GitHub Pages: no Jekyll, which would drop the folders whose token starts with "_"',
        'c/index.html': "the 404 page, so that no static host lists the clients' folders",
      };
      if (fixed[file] !== undefined) return fixed[file];
      const match = /^c\/([A-Za-z0-9_-]{43})\/(index\.html|(\d{4}-\d{2})\/(?:report\.(html|pdf)|index\.html))$/.exec(file);
      const client = match === null ? undefined : tokens.get(match[1] as string);
      if (match === null || client === undefined) return null;
      if (match[2] === 'index.html') return `page of project ${client.id} (${client.name})`;
      if (match[4] === undefined) return `blank page of the folder of ${match[3]}, so that no static host lists it`;
      return `${match[4] === 'pdf' ? 'PDF' : 'online report'} of project ${client.id} for ${match[3]}`;
    };
    const files = await filesOf(siteDir);
    const listing = files.map((file) => `${file}  ←  ${why(file) ?? 'UNEXPLAINED'}`);
    process.stdout.write(`Every file of the site (${files.length}):\n${listing.join('\n')}\n`);
    expect(files.filter((file) => why(file) === null)).toEqual([]);
    expect(files).toHaveLength(7 + clients.length * 7);

    const addresses = Object.values(config.clients).flatMap((c) => c.email?.to ?? []);
    const secrets = [SECRET, TOKEN, ...addresses, 'data.json', 'manifest', 'links.json', '.journal', 'email.eml'];
    for (const file of files) {
      const text = (await readFile(join(siteDir, file))).toString('latin1');
      for (const secret of secrets) expect(text.includes(secret), `${file} holds ${secret}`).toBe(false);
      // A client's files name no other client's address; the site's own files name none.
      const own = /^c\/([^/]+)\//.exec(file)?.[1] ?? null;
      for (const token of tokens.keys()) if (token !== own) expect(text.includes(token), `${file} holds another client's token`).toBe(false);
      if (!file.endsWith('.html')) continue;
      expect(text, file).toContain('<meta name="robots" content="noindex, nofollow">');
      expect(text, file).toContain('<meta name="referrer" content="no-referrer">');
      expect(text, file).not.toMatch(/<script\b/i);
      // Self-contained: nothing fetched from anywhere (links to its own months only, checked by the crawl).
      expect(text, file).not.toMatch(/\b(?:src|srcset)\s*=\s*"(?!data:)/i);
      expect(text, file).not.toMatch(/url\(\s*['"]?(?:https?:)?\/\//i);
    }
    expect(await readFile(join(siteDir, 'robots.txt'), 'utf8')).toBe('User-agent: *\nDisallow: /\n');
  });

  it('writes nothing when published again with nothing new', async () => {
    const before = await fingerprints(siteDir);
    const again = await publish();
    expect(again.code, again.stderr).toBe(0);
    expect(again.summary.written).toBe(0);
    expect(again.summary.removed).toBe(0);
    expect(again.events.filter((e) => e.type === 'site-written')).toEqual([]);
    expect(await fingerprints(siteDir)).toEqual(before);
  });

  it('writes only the new month and the pages that change when a month comes', async () => {
    // The same output folder, published one month at a time into a new site: September, then everything.
    const copy = join(root, 'out-by-month');
    await mkdir(copy);
    for (const period of PERIODS) await cp(join(out, period), join(copy, period), { recursive: true });
    const september = await cli(['publish', '--out', copy, '--period', '2026-09', '--json']);
    expect(september.code, september.stderr).toBe(0);
    const october = await cli(['publish', '--out', copy, '--json']);
    expect(october.code, october.stderr).toBe(0);
    const written = october.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; path?: string })
      .filter((e) => e.type === 'site-written')
      .map((e) => e.path as string);
    const expected = clients.flatMap((c) => [
      `${folderOf(c.id)}2026-10/report.pdf`,
      `${folderOf(c.id)}2026-10/report.html`,
      `${folderOf(c.id)}2026-10/index.html`,
      `${folderOf(c.id)}index.html`,
    ]);
    expect(written.sort()).toEqual(expected.sort());
  });
});

describe('rotation', () => {
  it('moves a client to a new address: the old one answers 404, the new one 200, and the mail carries the new one', async () => {
    const client = clients[1] as { id: number; name: string };
    // On a copy of the output, served apart: the site of the first publish stays as the other tests read it.
    const copy = await copyOfOutput('out-rotated');
    const served = await serveSite(join(copy, 'site'));
    try {
      // The addresses as published (site.baseUrl), and where the copy answers them.
      const oldUrl = `${site.url}${folderOf(client.id, 0)}`;
      const newUrl = `${site.url}${folderOf(client.id, 1)}`;
      const oldServed = `${served.url}${folderOf(client.id, 0)}`;
      const newServed = `${served.url}${folderOf(client.id, 1)}`;
      const rotated = await cli(['links', 'rotate', String(client.id), '--out', copy]);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stdout).toContain('new address at the next publish');
      // Until the next publish, the current address keeps working.
      expect((await fetchStatus(oldServed)).status).toBe(200);
      const moved = await publish([], {}, copy);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.summary.urlsChanged).toEqual([{ projectId: client.id, name: client.name, from: oldUrl, to: newUrl }]);
      expect(moved.events.filter((e) => e.type === 'url-changed')).toHaveLength(1);
      expect((await fetchStatus(oldServed)).status).toBe(404);
      expect((await fetchStatus(`${oldServed}2026-10/report.pdf`)).status).toBe(404);
      expect((await fetchStatus(newServed)).status).toBe(200);
      for (const period of PERIODS) expect((await fetchStatus(`${newServed}${period}/report.pdf`)).status).toBe(200);
      expect((await record(copy)).clients[String(client.id)]).toMatchObject({ generation: 1, site: { generation: 1 } });
      // The other clients did not move.
      const others = moved.events.filter((e) => e.type === 'client-published').map((e) => e['id']);
      expect(others).toEqual([client.id]);

      const sent = await cli(['send', '--period', '2026-10', '--out', copy, '--project', String(client.id), '--json'], { GEO_REPORTS_SMTP_URL: smtp.url });
      expect(sent.code, sent.stderr).toBe(0);
      const mail = smtp.accepted.at(-1);
      expect(mail?.envelope.to).toEqual([`client-${client.id}@inbox-${client.id}.example`]);
      expect(mail?.parsed.text).toContain(newUrl);
      expect(mail?.parsed.text).not.toContain(oldUrl);
      expect(mail?.parsed.html).toContain(`href="${newUrl}"`);
      expect(mail?.parsed.attachments).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it('sends the link without the PDF with attach: false, and publishes first a site that is not there yet', async () => {
    const client = clients[2] as { id: number };
    const url = `${site.url}${folderOf(client.id)}`;
    // A send records its delivery in the period's manifest: on a copy of the output.
    const copy = await copyOfOutput('out-link-only');
    const linkOnly = join(root, 'config', 'link-only.json');
    await writeFile(linkOnly, JSON.stringify({ ...rawConfig, delivery: { email: { from: 'reports@northwind.example', attach: false } } }));
    const sent = await cli(['send', '--config', linkOnly, '--period', '2026-10', '--out', copy, '--project', String(client.id), '--json'], {
      GEO_REPORTS_SMTP_URL: smtp.url,
    });
    expect(sent.code, sent.stderr).toBe(0);
    const mail = smtp.accepted.at(-1);
    expect(mail?.parsed.attachments).toHaveLength(0);
    expect(mail?.parsed.text).toContain(url);
    expect(mail?.parsed.text).not.toContain('attached');

    // A site that is not there yet is published by the send itself, before the message: nobody has to run publish first.
    const elsewhere = join(root, 'config', 'elsewhere.json');
    const newSite = join(root, 'no-site-here');
    await writeFile(elsewhere, JSON.stringify({ ...rawConfig, site: { baseUrl: site.url, dir: newSite } }));
    const count = smtp.received.length;
    const other = (clients[3] as { id: number }).id;
    const published = await cli(['send', '--config', elsewhere, '--period', '2026-10', '--out', copy, '--project', String(other), '--json'], {
      GEO_REPORTS_SMTP_URL: smtp.url,
    });
    expect(published.code, published.stderr).toBe(0);
    expect(smtp.received.length).toBe(count + 1);
    expect(smtp.accepted.at(-1)?.parsed.text).toContain(`${site.url}${folderOf(other)}`);
    const entry = Manifest.parse(JSON.parse(await readFile(join(copy, '2026-10', 'manifest.json'), 'utf8'))).projects.find((e) => e.id === other);
    const mailed = await readFile(join(copy, '2026-10', entry?.files.pdf as string));
    expect(Buffer.compare(await readFile(join(newSite, folderOf(other), '2026-10', 'report.pdf')), mailed)).toBe(0);
  });
});

describe('refusals', () => {
  it('refuses without the secret, naming the fix, before writing anything', async () => {
    const before = await fingerprints(siteDir);
    const result = await cli(['publish', '--out', out], { GEO_REPORTS_LINK_SECRET: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GEO_REPORTS_LINK_SECRET is not set');
    expect(result.stderr).toContain('openssl rand -base64 32');
    const short = await cli(['links', '--out', out], { GEO_REPORTS_LINK_SECRET: 'too-short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('too short');
    expect(await fingerprints(siteDir)).toEqual(before);
  });

  it('writes into no folder that is not its own: a non-empty folder without the marker, a period folder, the output folder', async () => {
    const foreign = join(root, 'somebody-else');
    await mkdir(foreign);
    await writeFile(join(foreign, 'notes.txt'), 'mine');
    const refused = await cli(['publish', '--out', out, '--site', foreign]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not empty and was not written by `geo-reports publish`');
    expect(await readdir(foreign)).toEqual(['notes.txt']);

    const inPeriod = await cli(['publish', '--out', out, '--site', join(out, '2026-10', 'site')]);
    expect(inPeriod.code).toBe(2);
    expect(inPeriod.stderr).toContain('the period folder');
    await expect(stat(join(out, '2026-10', 'site'))).rejects.toMatchObject({ code: 'ENOENT' });

    const isOut = await cli(['publish', '--out', out, '--site', out]);
    expect(isOut.code).toBe(2);
    expect(isOut.stderr).toContain('the site is public, the output is not');
  });

  it('refuses a site with client folders and no links record: it would bring back revoked addresses', async () => {
    const copy = join(root, 'out-without-record');
    await mkdir(copy);
    await cp(join(out, '2026-10'), join(copy, '2026-10'), { recursive: true });
    await cp(siteDir, join(copy, 'site'), { recursive: true });
    const before = await fingerprints(join(copy, 'site'));
    const result = await cli(['publish', '--out', copy]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no links record');
    expect(result.stderr).toContain('history restore');
    expect(await fingerprints(join(copy, 'site'))).toEqual(before);
    await expect(stat(join(copy, 'links.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('needs site.baseUrl for a link in the mail, and says which key', async () => {
    const noBase = join(root, 'config', 'no-base.json');
    await writeFile(noBase, JSON.stringify({ ...rawConfig, site: {} }));
    const result = await cli(['send', '--config', noBase, '--period', '2026-10', '--out', out, '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('delivery.email.link');
    expect(result.stderr).toContain('site.baseUrl');
  });
});

describe('a publish killed halfway', () => {
  it('leaves every page it wrote working, and the next publish finishes the site', async () => {
    const copy = join(root, 'out-killed');
    await mkdir(copy);
    for (const period of PERIODS) await cp(join(out, period), join(copy, period), { recursive: true });
    // Every atomic write's rename is slowed down: the publish is surely still writing when it is killed.
    const running = spawnCli(['publish', '--out', copy, '--json'], { env: env(), cwd: root, nodeArgs: ['--import', SLOW_RENAMES] });
    await waitFor('the first client page written', () => running.lines.some((line) => line.includes('"client-published"')), { timeoutMs: 60_000 });
    running.child.kill('SIGKILL');
    const ended = await running.done;
    expect(ended.signal).toBe('SIGKILL');
    const killedSite = join(copy, 'site');
    const pages = (await filesOf(killedSite)).filter((file) => /^c\/[^/]+\/index\.html$/.test(file));
    expect(pages.length).toBeGreaterThan(0);
    // Every page on disk links to files that are there, whole.
    for (const page of pages) {
      const html = await readFile(join(killedSite, page), 'utf8');
      for (const href of [...html.matchAll(/href="(\d{4}-\d{2}\/report\.(?:html|pdf))"/g)].map((m) => m[1] as string)) {
        const file = join(killedSite, page.replace(/index\.html$/, ''), href);
        expect((await stat(file)).size, file).toBeGreaterThan(1000);
        if (href.endsWith('.pdf')) expect((await readFile(file)).subarray(0, 5).toString()).toBe('%PDF-');
      }
    }
    const finished = await cli(['publish', '--out', copy, '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    const files = await filesOf(killedSite);
    expect(files.filter((file) => file.includes('.partial'))).toEqual([]);
    expect(files).toEqual(
      await filesOf(siteDir).then((all) =>
        all.map((f) => f.replace(folderOf((clients[1] as { id: number }).id, 1), folderOf((clients[1] as { id: number }).id, 0))).sort(),
      ),
    );
  });
});
