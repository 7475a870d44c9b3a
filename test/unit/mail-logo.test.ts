// The logo as a mail carries it: an SVG drawn (once, by the browser it is handed), a raster logo as it is, the size
// the mail shows it at, and a message that never carries an SVG. The drawing is a fake here; the real browser's is
// in test/integration/email-readers.test.ts.
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { buildReportMessage, composeMime, inlineLogo } from '../../src/delivery/email/message.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import { MAIL_LOGO_SCALE, mailLogo, mailLogoFileName, mailLogoPage, mailLogoSize, type DrawPicture } from '../../src/render/mail-logo.js';

const renderer = await createHtmlRenderer({ pages: 'index' });
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="64"><rect width="240" height="64" fill="#1f3a5f"/></svg>');
const SVG_URI = `data:image/svg+xml;base64,${SVG.toString('base64')}`;

/** The first bytes of a PNG of `width`×`height`: its signature and IHDR, all mailLogoSize reads. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'ascii');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}
const pngUri = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;

describe('mailLogo', () => {
  it('draws an SVG logo as a PNG at twice the size, from a page that holds the SVG alone', async () => {
    const jobs: Array<Parameters<DrawPicture>[0]> = [];
    const drawn = pngHeader(300, 80);
    const logo = await mailLogo(SVG_URI, {
      cacheDir: null,
      draw: async () => async (job) => {
        jobs.push(job);
        return drawn;
      },
    });
    expect(logo).toEqual({ dataUri: pngUri(drawn), problem: null });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.scale).toBe(MAIL_LOGO_SCALE);
    expect(MAIL_LOGO_SCALE).toBe(2);
    expect(jobs[0]?.html).toBe(mailLogoPage(SVG_URI));
    expect(jobs[0]?.html).toContain(`src="${SVG_URI}"`);
    expect(jobs[0]?.html).not.toMatch(/<script|https?:/);
  });

  it('leaves a raster logo as it is, and starts no browser for it (nor for no logo)', async () => {
    let started = 0;
    const draw = async (): Promise<DrawPicture> => {
      started += 1;
      return async () => Buffer.alloc(0);
    };
    const png = pngUri(pngHeader(10, 10));
    expect(await mailLogo(png, { cacheDir: null, draw })).toEqual({ dataUri: png, problem: null });
    expect(await mailLogo(undefined, { cacheDir: null, draw })).toEqual({ dataUri: null, problem: null });
    expect(started).toBe(0);
  });

  it('gives no logo and says why, never the SVG, when the browser cannot draw it', async () => {
    const failed = await mailLogo(SVG_URI, {
      cacheDir: null,
      draw: () => Promise.reject(new Error('no Chromium found')),
    });
    expect(failed.dataUri).toBeNull();
    expect(failed.problem).toContain('no Chromium found');
    expect(failed.problem).toContain('give agency.logo as PNG');
    const notPng = await mailLogo(SVG_URI, { cacheDir: null, draw: async () => async () => Buffer.from('<svg/>') });
    expect(notPng.dataUri).toBeNull();
  });

  it('names the kept drawing by the SVG it was drawn from', () => {
    expect(mailLogoFileName(SVG)).toMatch(/^mail-logo-[0-9a-f]{32}@2x\.png$/);
    expect(mailLogoFileName(SVG)).toBe(mailLogoFileName(Buffer.from(SVG)));
    expect(mailLogoFileName(Buffer.concat([SVG, Buffer.from(' ')]))).not.toBe(mailLogoFileName(SVG));
  });
});

describe('mailLogoSize', () => {
  it("shows a PNG at the mail's 40 px height in its proportions, at most 220 px wide", () => {
    expect(mailLogoSize(pngUri(pngHeader(300, 80)))).toEqual({ width: 150, height: 40 });
    expect(mailLogoSize(pngUri(pngHeader(80, 80)))).toEqual({ width: 40, height: 40 });
    expect(mailLogoSize(pngUri(pngHeader(1000, 100)))).toEqual({ width: 220, height: 22 });
    expect(mailLogoSize('data:image/jpeg;base64,/9j/4AAQ')).toBeNull();
    expect(mailLogoSize(null)).toBeNull();
  });
});

describe('the message', () => {
  const build = (logoDataUri: string | undefined) =>
    buildReportMessage({
      period: '2026-10',
      periodLabel: 'octobre 2026',
      project: { id: 7, slug: '7-atelier' },
      clientName: 'Atelier Verdant',
      language: 'fr',
      messages: loadPhrases('fr'),
      recipients: { to: ['anne@atelier.example'], cc: [], bcc: [] },
      summary: [],
      agency: { name: 'Northwind Digital', contact: {}, bcc: [] },
      from: 'reports@northwind.example',
      figures: { geo: 62, geoChange: 4, seo: 55, seoChange: -2.5 },
      branding: {
        agencyName: 'Northwind Digital',
        ...(logoDataUri !== undefined ? { logoDataUri } : {}),
        colors: { primary: '#1f3a5f', accent: '#2a9d8f', text: '#1d2433', muted: '#5b6576', background: '#ffffff' },
        fontFamily: 'Inter',
        footer: '',
        contact: {},
      },
      renderHtml: (model, logo, logoSize) => renderer.renderEmail(model, logo, logoSize),
    });

  it('never carries an SVG: an SVG logo that reached it undrawn gives the agency name instead', () => {
    expect(inlineLogo(SVG_URI, 'reports@northwind.example')).toBeNull();
    const message = build(SVG_URI);
    expect(message.logo).toBeNull();
    expect(message.html).not.toContain('<img');
    expect(message.html).toContain('Northwind Digital');
  });

  it("gives a PNG logo its size as attributes, so Outlook shows a 2× drawing at the mail's size", () => {
    const message = build(pngUri(pngHeader(300, 80)));
    expect(message.logo?.contentType).toBe('image/png');
    expect(message.html).toMatch(/<img src="cid:logo@northwind\.example" alt="Northwind Digital" width="150" height="40"/);
  });

  it('says its language in a Content-Language header', async () => {
    const raw = await composeMime(build(undefined), null, new Date('2026-11-04T06:00:00Z'));
    expect((await simpleParser(raw)).headers.get('content-language')).toBe('fr');
  });
});
