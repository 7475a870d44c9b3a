// The mail a client opens first, as received: two months of reports made by the batch on the simulator, published,
// then sent by the real CLI to a real SMTP server on loopback. Each message: the logo as an inline part its HTML
// shows by cid:, the brand colour, the report's own figures (read back from the PDF), the button to the client's
// page, nothing loaded from the network (the HTML part opened in Chromium, every request recorded), no sideways
// scroll at 600 and 375 px; the French client's mail in French; the agency's own email.hbs used and checked.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { simpleParser } from 'mailparser';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { linkToken } from '../../src/output/links.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { formatDelta } from '../../src/render/format.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig } from '../support/batch.js';
import { runCli, type CliResult } from '../support/cli.js';
import { startSmtpServer, type ReceivedMail, type SmtpTestServer } from '../support/email-fixtures.js';
import { serveSite, type StaticSite } from '../support/static-site.js';

const exec = promisify(execFile);
const TOKEN = 'tok-branded-mail-5b8e2c1f7a3d9046';
const SECRET = 'branded-mail-suite-secret-8d2f6a1c9e4b7305';
const BRAND = '#7b2d8e';
const SCREENS = join(tmpdir(), 'geo-reports-mail-screens');

let sim: SimulatorHandle;
let root: string;
let out: string;
let site: StaticSite;
let smtp: SmtpTestServer;
let browser: Browser;
let rawConfig: Record<string, unknown>;
let entries: ProjectEntry[];
let english: ProjectEntry;
let french: ProjectEntry;

/** A 2×2 PNG of the brand colour: a raster logo, as mail clients show everywhere. */
function pngLogo(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.from([0, 0x7b, 0x2d, 0x8e, 0x7b, 0x2d, 0x8e]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat([row, row]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, GEO_REPORTS_LINK_SECRET: SECRET, ...extra });
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, { env: env(extra), cwd: root, timeoutMs: 120_000 });
const pageOf = (id: number): string => `${site.url}c/${linkToken(SECRET, id, 0)}/`;
const mailTo = (id: number): ReceivedMail => {
  const mail = smtp.accepted.find((m) => m.envelope.to.includes(`client-${id}@inbox.example`));
  if (mail === undefined) throw new Error(`no mail reached client ${id}`);
  return mail;
};

/** The HTML part as sent: its cid: addresses kept (mailparser writes the inline parts into it otherwise). */
async function sentHtml(mail: ReceivedMail): Promise<string> {
  return String((await simpleParser(mail.raw, { keepCidLinks: true })).html);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-mail-'));
  out = join(root, 'out');
  await mkdir(SCREENS, { recursive: true });
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'logo.png'), pngLogo());
  site = await serveSite(join(out, 'site'));
  smtp = await startSmtpServer();
  let now = new Date('2026-10-04T06:00:00Z');
  sim = await startSimulator({ projectCount: 8, tokens: [TOKEN], clock: () => now });
  const active = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id)
    .sort((a, b) => a - b)
    .slice(0, 2);
  rawConfig = {
    agency: {
      name: 'Northwind Digital',
      logo: 'logo.png',
      colors: { primary: BRAND, accent: '#2a9d8f', text: '#1d2433', muted: '#5b6576', background: '#ffffff' },
      footer: { en: 'Confidential: prepared by Northwind Digital for its client.', fr: 'Confidentiel : préparé par Northwind Digital pour son client.' },
      contact: { email: 'hello@northwind.example', website: 'northwind.example' },
    },
    report: { maxScoreDrop: 100, requiredSections: [] },
    clients: Object.fromEntries(
      active.map((id, index) => [
        String(id),
        { email: { to: [`client-${id}@inbox.example`] }, ...(index === 1 ? { language: 'fr', note: 'La page FAQ est en ligne depuis le 12.' } : {}) },
      ]),
    ),
    site: { baseUrl: site.url },
    delivery: { email: { from: 'Northwind Digital <reports@northwind.example>', link: true } },
  };
  const configPath = join(root, 'config', 'geo-reports.json');
  await writeFile(configPath, JSON.stringify(rawConfig, null, 2));
  const config = (await loadConfig({ path: configPath, cwd: root })).config;
  const rig = await startBatchRig();
  try {
    await rig.runSeptemberThenOctober(
      { baseUrl: sim.url, tokens: [TOKEN], outDir: out, config, selection: { statuses: ['active'], projectIds: active } },
      (at) => (now = at),
    );
  } finally {
    await rig.close();
  }
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
  entries = manifest.projects.filter((e) => e.status === 'done').sort((a, b) => a.id - b.id);
  [english, french] = entries as [ProjectEntry, ProjectEntry];
  const published = await cli(['publish', '--out', out, '--config', configPath]);
  expect(published.code, published.stderr).toBe(0);
  const sent = await cli(['send', '--period', '2026-10', '--out', out, '--config', configPath, '--site', join(out, 'site')], {
    GEO_REPORTS_SMTP_URL: smtp.url,
  });
  expect(sent.code, sent.stderr).toBe(0);
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
}, 240_000);

afterAll(async () => {
  // Unset when beforeAll failed before reaching them.
  /* eslint-disable @typescript-eslint/no-unnecessary-condition -- see above */
  await browser?.close();
  await smtp?.close();
  await site?.close();
  await sim?.close();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
});

/** The message's HTML opened in Chromium at `width`: what it asked of the network, and how wide it is. */
async function openMail(mail: ReceivedMail, width: number, name: string): Promise<{ requests: string[]; scrollWidth: number; logoShown: boolean }> {
  const page = await browser.newPage();
  try {
    const requests: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      requests.push(request.url());
      void request.abort();
    });
    await page.setViewport({ width, height: 900 });
    // The inline part stands in for its cid: address, as a mail client shows it.
    const logo = mail.parsed.attachments.find((a) => a.contentId !== undefined);
    const html = (await sentHtml(mail)).replaceAll(
      `cid:${(logo?.contentId ?? '').replace(/^<|>$/g, '')}`,
      `data:${logo?.contentType};base64,${logo?.content.toString('base64')}`,
    );
    await page.setContent(html, { waitUntil: 'load' });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    const logoShown = await page.evaluate(() => {
      const image = document.querySelector('img');
      return image !== null && image.complete && image.naturalWidth > 0;
    });
    await page.screenshot({ path: join(SCREENS, `${name}-${width}.png`), fullPage: true });
    return { requests, scrollWidth, logoShown };
  } finally {
    await page.close();
  }
}

describe('the branded mail', () => {
  it('carries the logo as an inline part its HTML shows by cid:, and the brand colour', async () => {
    for (const entry of entries) {
      const mail = mailTo(entry.id);
      const inline = mail.parsed.attachments.filter((a) => a.contentDisposition === 'inline' && a.contentId !== undefined);
      expect(inline).toHaveLength(1);
      const [logo] = inline as [(typeof inline)[number]];
      expect(logo.contentType).toBe('image/png');
      expect(logo.content.equals(pngLogo())).toBe(true);
      const html = await sentHtml(mail);
      expect(html).toContain(`src="cid:${String(logo.contentId).replace(/^<|>$/g, '')}"`);
      expect(html.toLowerCase()).toContain(`background:${BRAND}`);
      // The PDF still goes with it.
      expect(mail.parsed.attachments.filter((a) => a.contentType === 'application/pdf')).toHaveLength(1);
    }
  });

  it("shows the report's own figures: the same values and changes as the PDF", async () => {
    for (const entry of entries) {
      const mail = mailTo(entry.id);
      const language = entry.language ?? 'en';
      const { stdout: pdfText } = await exec('pdftotext', ['-layout', join(out, '2026-10', entry.files.pdf as string), '-']);
      const text = mail.parsed.text ?? '';
      const geoLine = text.split('\n').find((line) => line.startsWith(language === 'fr' ? '- Score GEO' : '- GEO score')) ?? '';
      expect(geoLine).toContain(`${entry.geo}/100`);
      expect(pdfText).toContain(String(entry.geo));
      if (entry.geoChange !== null) {
        const change = formatDelta(
          { value: entry.geoChange, direction: entry.geoChange > 0 ? 'up' : entry.geoChange < 0 ? 'down' : 'flat', previous: 0 },
          language,
        );
        expect(geoLine).toContain(change);
        expect(pdfText).toContain(change);
      }
      expect(String(mail.parsed.html)).toContain(`>${entry.geo}<`);
      expect(String(mail.parsed.html)).toContain(`>${entry.seo}<`);
      // The third figure: the assistant whose visibility moved the most, as the manifest kept it from the model.
      expect(entry.aiMover).toBeDefined();
      expect(text).toContain(`${entry.aiMover?.label}: ${entry.aiMover?.value}/100`.replace(': ', language === 'fr' ? '\u00a0: ' : ': '));
    }
  });

  it("has one link, the button to the client's page, and loads nothing from the network at 600 and 375 px", async () => {
    for (const entry of entries) {
      const mail = mailTo(entry.id);
      const hrefs = [...(await sentHtml(mail)).matchAll(/\bhref="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs).toEqual([pageOf(entry.id)]);
      expect(String(mail.parsed.html)).not.toMatch(/<(script|link|iframe|object)\b/i);
      for (const width of [600, 375]) {
        const seen = await openMail(mail, width, `mail-${entry.id}`);
        expect(seen.requests.filter((url) => !url.startsWith('data:') && url !== 'about:blank')).toEqual([]);
        expect(seen.scrollWidth).toBeLessThanOrEqual(width);
        expect(seen.logoShown).toBe(true);
      }
    }
  });

  it("writes the French client's mail in French, with the account manager's note", () => {
    const mail = mailTo(french.id);
    const html = String(mail.parsed.html);
    expect(html).toContain('<html lang="fr">');
    expect(mail.parsed.subject).toContain('octobre 2026');
    for (const words of ['Le mois en un coup d’œil', 'Score GEO', 'Ouvrir votre rapport', 'Bonjour', 'La page FAQ est en ligne depuis le 12.']) {
      expect(html).toContain(words);
      expect(mail.parsed.text).toContain(words === 'Ouvrir votre rapport' ? 'Lisez-le en ligne' : words);
    }
    for (const english of ['This month at a glance', 'GEO score', 'Open your report', 'Hello', 'Best regards']) expect(html).not.toContain(english);
    // The agency's footer in the mail's language too: the config gives one per language, set in French
    // typography (a narrow no-break space before the colon, src/i18n/typography.ts).
    expect(html).toContain('Confidentiel\u202f: préparé par Northwind Digital pour son client.');
    expect(html).not.toContain('Confidential: prepared');
    expect(String(mailTo(english.id).parsed.html)).toContain('This month at a glance');
    expect(String(mailTo(english.id).parsed.html)).toContain('Confidential: prepared by Northwind Digital for its client.');
  });
});

describe("the agency's own mail", () => {
  it('is read from the template folder, and template check checks it', async () => {
    const folder = join(root, 'mail-templates');
    const init = await cli(['template', 'init', folder]);
    expect(init.code, init.stderr).toBe(0);
    const template = await readFile(join(folder, 'email.hbs'), 'utf8');
    await writeFile(join(folder, 'email.hbs'), template.replace('{{closing}}', 'Your account team at {{branding.agencyName}} · {{closing}}'));
    const folderConfig = join(root, 'config', 'with-folder.json');
    await writeFile(folderConfig, JSON.stringify({ ...rawConfig, report: { ...(rawConfig['report'] as object), templates: '../mail-templates' } }));
    const before = smtp.accepted.length;
    // The English client's message, sent to the account manager alone, as a review before the real send.
    const testSend = (): Promise<CliResult> =>
      cli(
        [
          'send',
          '--period',
          '2026-10',
          '--out',
          out,
          '--config',
          folderConfig,
          '--site',
          join(out, 'site'),
          '--project',
          String(english.id),
          '--test-to',
          'am@northwind.example',
        ],
        {
          GEO_REPORTS_SMTP_URL: smtp.url,
        },
      );
    const test = await testSend();
    expect(test.code, test.stderr).toBe(0);
    expect(smtp.accepted.length).toBe(before + 1);
    expect(String(smtp.accepted.at(-1)?.parsed.html)).toContain('Your account team at Northwind Digital');

    await writeFile(join(folder, 'email.hbs'), template.replace('{{greeting}}', '{{greting}}<img src="https://tracker.example/p.gif">'));
    const check = await cli(['template', 'check', '--templates', folder, '--config', folderConfig]);
    expect(check.code).toBe(2);
    const problems = `${check.stdout}${check.stderr}`;
    expect(problems).toContain('email.hbs');
    expect(problems).toMatch(/greting/);
    expect(problems).toMatch(/tracker\.example/);

    // A Handlebars comment that splits a tag passes a check of the template: the printed message is judged too.
    await writeFile(join(folder, 'email.hbs'), template.replace('{{greeting}}', '<scr{{!-- x --}}ipt>alert(1)</script>{{greeting}}'));
    const split = await cli(['template', 'check', '--templates', folder, '--config', folderConfig]);
    expect(split.code).toBe(2);
    expect(`${split.stdout}${split.stderr}`).toMatch(/email\.hbs.*sample message.*<script> is not allowed/s);
    const refused = await testSend();
    expect(refused.code).toBe(2);
    expect(smtp.accepted.length).toBe(before + 1);
  });
});
