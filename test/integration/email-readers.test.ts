// The mail as every mail client gets it: an agency whose logo is an SVG (Gmail and Outlook show none) sends two
// months of reports through the real CLI to a real SMTP server on loopback. Each message carries its logo as a PNG
// drawn at twice the mail's size (kept by content hash, read back by the next send), says its language in a
// Content-Language header, stays under Gmail's 102 KB clip, and, opened in Chromium at 600 and 375 px in light and
// in dark mode, has no axe-core violation of any impact. Screenshots of each go to SHOTS for a person to look at.
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { simpleParser } from 'mailparser';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { chromiumArgs, findBrowser } from '../../src/render/print/browser.js';
import { mailLogoFileName } from '../../src/render/mail-logo.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig } from '../support/batch.js';
import { textSmallerThan } from '../support/screen-measure.js';
import { runCli, type CliResult } from '../support/cli.js';
import { startSmtpServer, type ReceivedMail, type SmtpTestServer } from '../support/email-fixtures.js';
import { serveSite, type StaticSite } from '../support/static-site.js';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TOKEN = 'tok-mail-readers-3c7a9e1d5b2f8046';
const SECRET = 'mail-readers-suite-secret-6e1b9d3a7c5f2084';
const SHOTS = '/tmp/shots-44a';
const LOGO_SVG = join(import.meta.dirname, '..', '..', 'config', 'logo.svg');

let sim: SimulatorHandle;
let root: string;
let out: string;
let configPath: string;
let site: StaticSite;
let smtp: SmtpTestServer;
let browser: Browser;
let entries: ProjectEntry[];

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, GEO_REPORTS_LINK_SECRET: SECRET, ...extra });
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, { env: env(extra), cwd: root, timeoutMs: 120_000 });
const send = (...extra: string[]): Promise<CliResult> =>
  cli(['send', '--period', '2026-10', '--out', out, '--config', configPath, '--site', join(out, 'site'), ...extra], { GEO_REPORTS_SMTP_URL: smtp.url });
const mailTo = (id: number): ReceivedMail => {
  const mail = smtp.accepted.find((m) => m.envelope.to.includes(`client-${id}@inbox.example`));
  if (mail === undefined) throw new Error(`no mail reached client ${id}`);
  return mail;
};

/** A 2×1 PNG of one colour: what the test puts in the cache in place of a drawing. */
function tinyPng(): Buffer {
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
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 0x12, 0x34, 0x56, 0x12, 0x34, 0x56]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-mail-readers-'));
  out = join(root, 'out');
  await mkdir(SHOTS, { recursive: true });
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'logo.svg'), await readFile(LOGO_SVG));
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
  const rawConfig = {
    agency: {
      name: 'Northwind Digital',
      logo: 'logo.svg',
      colors: { primary: '#1f3a5f', accent: '#2a9d8f', text: '#1d2433', muted: '#5b6576', background: '#ffffff' },
      footer: 'Confidential: prepared by Northwind Digital for its client.',
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
  configPath = join(root, 'config', 'geo-reports.json');
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
  expect(entries).toHaveLength(2);
  // No run drew the logo (the batch here is called in process): the send draws it.
  const sent = await send();
  expect(sent.code, sent.stderr).toBe(0);
  const { executablePath, headless } = findBrowser();
  browser = await puppeteer.launch({ executablePath, headless, args: chromiumArgs(), pipe: true });
}, 240_000);

afterAll(async () => {
  /* eslint-disable @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before reaching them */
  await browser?.close();
  await smtp?.close();
  await site?.close();
  await sim?.close();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
});

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: string[];
}

/** The HTML part as sent, its cid: address replaced by the inline part (as a mail client shows it). */
async function shownHtml(mail: ReceivedMail): Promise<string> {
  const html = String((await simpleParser(mail.raw, { keepCidLinks: true })).html);
  const logo = mail.parsed.attachments.find((a) => a.contentId !== undefined);
  if (logo === undefined) return html;
  return html.replaceAll(`cid:${logo.contentId?.replace(/^<|>$/g, '') ?? ''}`, `data:${logo.contentType};base64,${logo.content.toString('base64')}`);
}

/** The message opened offline in Chromium at `width`, light or dark: axe's violations, and a screenshot in SHOTS. */
async function axeOn(html: string, width: number, scheme: 'light' | 'dark', shot: string | null): Promise<AxeViolation[]> {
  const page = await browser.newPage();
  try {
    await page.setRequestInterception(true);
    page.on('request', (request) => void (request.url().startsWith('data:') || request.url() === 'about:blank' ? request.continue() : request.abort()));
    await page.setViewport({ width, height: 900 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.setContent(html, { waitUntil: 'load' });
    if (shot !== null) await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
    await page.addScriptTag({ path: AXE_PATH });
    return await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as {
          axe: {
            run: (
              context: unknown,
              options: unknown,
            ) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }>;
          };
        }
      ).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
    });
  } finally {
    await page.close();
  }
}

describe('the mail of an agency whose logo is an SVG', () => {
  it('carries the logo as a PNG drawn at twice its size, shown at its size, and no SVG', async () => {
    for (const entry of entries) {
      const mail = mailTo(entry.id);
      const inline = mail.parsed.attachments.filter((a) => a.contentDisposition === 'inline');
      expect(inline).toHaveLength(1);
      const [logo] = inline as [(typeof inline)[number]];
      expect(logo.contentType).toBe('image/png');
      expect(logo.content.subarray(1, 4).toString('ascii')).toBe('PNG');
      // The SVG is 240×64: at the mail's 40 px height it is 150 px wide, drawn at 2×.
      expect(pngSize(logo.content)).toEqual({ width: 300, height: 80 });
      const html = String((await simpleParser(mail.raw, { keepCidLinks: true })).html);
      expect(html).toMatch(/<img src="cid:[^"]+" alt="Northwind Digital" width="150" height="40"/);
      expect(mail.raw.toString('latin1')).not.toMatch(/image\/svg/i);
    }
    // Kept by the hash of the SVG in the output folder.
    expect(await readdir(join(out, '.cache'))).toEqual([mailLogoFileName(await readFile(LOGO_SVG))]);
  });

  it('says its language in a Content-Language header and stays under 102 KB of HTML', async () => {
    for (const entry of entries) {
      const mail = mailTo(entry.id);
      expect(mail.parsed.headers.get('content-language')).toBe(entry.language ?? 'en');
      const html = String(mail.parsed.html);
      expect(Buffer.byteLength(html)).toBeLessThan(102 * 1024);
    }
  });

  it('has no axe-core violation of any impact at 600 and 375 px, in light and in dark mode', async () => {
    for (const [index, entry] of entries.entries()) {
      const html = await shownHtml(mailTo(entry.id));
      for (const width of [600, 375]) {
        for (const scheme of ['light', 'dark'] as const) {
          const violations = await axeOn(html, width, scheme, `mail-${index === 0 ? 'en' : 'fr'}-${scheme}-${width}`);
          expect(violations, `${entry.language ?? 'en'} at ${width} px, ${scheme}`).toEqual([]);
        }
      }
    }
  }, 120_000);

  it('sees dark mode as a reader does: the heading in the brand colour on the dark card fails, in dark mode only', async () => {
    const html = await shownHtml(mailTo((entries[0] as ProjectEntry).id));
    const rule = '.mail-text, .mail-heading { color: #e6e9ee !important; }';
    expect(html).toContain(rule);
    const brandHeading = html.replace(rule, '.mail-text { color: #e6e9ee !important; }');
    expect((await axeOn(brandHeading, 600, 'dark', null)).map((v) => v.id)).toContain('color-contrast');
    expect(await axeOn(brandHeading, 600, 'light', null)).toEqual([]);
  }, 60_000);

  it('reads the drawing back from the output folder on the next send', async () => {
    // The kept drawing stands in for the SVG: a send that drew it again would carry 300×80 pixels.
    await writeFile(join(out, '.cache', mailLogoFileName(await readFile(LOGO_SVG))), tinyPng());
    const before = smtp.accepted.length;
    const test = await send('--project', String(entries[0]?.id), '--test-to', 'am@northwind.example');
    expect(test.code, test.stderr).toBe(0);
    expect(smtp.accepted.length).toBe(before + 1);
    const logo = smtp.accepted.at(-1)?.parsed.attachments.find((a) => a.contentDisposition === 'inline');
    expect(logo?.content.equals(tinyPng())).toBe(true);
  }, 60_000);
});

describe('the run', () => {
  it('draws the SVG logo with the browser it prints with, and keeps it for the send', async () => {
    const runOut = join(root, 'out-run');
    const made = await cli(['report', String(entries[0]?.id), '--period', '2026-10', '--out', runOut, '--config', configPath, '--json'], {
      AGENCY_API_BASE_URL: sim.url,
      AGENCY_API_TOKEN: TOKEN,
    });
    expect(made.code, made.stderr).toBe(0);
    const kept = await readFile(join(runOut, '.cache', mailLogoFileName(await readFile(LOGO_SVG))));
    expect(kept.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(pngSize(kept)).toEqual({ width: 300, height: 80 });
  }, 120_000);
});

/** `url` opened at 375 px as on a phone, JavaScript off; a full-page screenshot in SHOTS. */
async function onPhone(url: string, shot: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 375, height: 812, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
  const response = await page.goto(url, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
  return page;
}

/** Every link of the page with the height a thumb has to hit, text links inside a sentence left out. */
function linkHeights(page: Page): Promise<Array<{ text: string; href: string; height: number }>> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('a'))
      .filter((a) => getComputedStyle(a).display !== 'inline')
      .map((a) => ({ text: a.textContent.trim(), href: a.href, height: a.getBoundingClientRect().height })),
  );
}

describe('the pages the mail leads to, on a 375 px phone', () => {
  it("the client's page and each report: no text under 12 px, buttons 48 px tall, a 48 px link from the report back to the page", async () => {
    const [entry] = entries as [ProjectEntry];
    const html = String((await simpleParser(mailTo(entry.id).raw, { keepCidLinks: true })).html);
    const clientPage = /<a href="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(clientPage.startsWith(site.url)).toBe(true);
    const client = await onPhone(clientPage, 'client-page-phone-375');
    let reportUrl: string;
    try {
      const links = await linkHeights(client);
      expect(links.length).toBeGreaterThanOrEqual(3);
      for (const link of links) expect(link.height, `"${link.text}"`).toBeGreaterThanOrEqual(48);
      expect(await textSmallerThan(client, 'body', 12)).toEqual([]);
      reportUrl = links.find((link) => link.href.endsWith('/2026-10/report.html'))?.href ?? '';
      expect(reportUrl).not.toBe('');
    } finally {
      await client.close();
    }
    // The report as the batch made it (scan sections and all) and the site serves it.
    const report = await onPhone(reportUrl, 'report-phone-375');
    try {
      const back = await report.evaluate(() => {
        const link = document.querySelector<HTMLAnchorElement>('nav.site-back a');
        return link === null ? null : { href: link.href, text: link.textContent, height: link.getBoundingClientRect().height };
      });
      expect(back).toEqual({ href: clientPage, text: '← All your reports', height: 48 });
      expect(await textSmallerThan(report, 'body', 12)).toEqual([]);
      expect(await report.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    } finally {
      await report.close();
    }
  }, 60_000);
});
