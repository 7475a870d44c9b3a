// The report email as built from fixtures: recipients, subject per language, both bodies, test sends, the MIME bytes.
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { buildReportMessage, composeMime, messageIdFor, parseMailbox, uniqueAddresses, type MessageInput } from '../../src/delivery/email/message.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { createHtmlRenderer } from '../../src/render/html.js';

const renderer = await createHtmlRenderer({ pages: 'index' });
const BRANDING = {
  agencyName: 'Northwind Digital',
  colors: { primary: '#1f3a5f', accent: '#2a9d8f', text: '#1d2433', muted: '#5b6576', background: '#ffffff' },
  fontFamily: 'Inter',
  footer: 'Confidential: prepared by Northwind Digital.',
  contact: {},
};

function input(overrides: Partial<MessageInput> = {}): MessageInput {
  return {
    period: '2026-10',
    periodLabel: 'October 2026',
    project: { id: 4212, slug: '4212-boulangerie-martin' },
    clientName: 'Boulangerie Martin',
    language: 'en',
    messages: loadPhrases('en'),
    recipients: { to: ['anne@martin.example'], cc: ['compta@martin.example'], bcc: ['owner@martin.example'] },
    summary: ['The GEO score rose by 4 points to 62.', 'Three actions matter most: <fix the "canonical" tags> & more.'],
    agency: {
      name: 'Northwind Digital',
      contact: { email: 'hello@northwind.example', phone: '+33 1 23 45 67 89', website: 'northwind.example' },
      bcc: ['archive@northwind.example', 'OWNER@martin.example'],
    },
    from: 'reports@northwind.example',
    figures: { geo: 62, geoChange: 4, seo: 55, seoChange: -2.5, aiMover: { assistant: 'gemini', label: 'Gemini', value: 66, change: -11 } },
    branding: BRANDING,
    renderHtml: (model, logo, logoSize) => renderer.renderEmail(model, logo, logoSize),
    ...overrides,
  };
}

describe('buildReportMessage', () => {
  it('addresses the client, copies cc in the headers and every bcc in the envelope only, once each', () => {
    const message = buildReportMessage(input());
    expect(message.from).toEqual({ name: 'Northwind Digital', address: 'reports@northwind.example' });
    expect(message.replyTo).toEqual({ name: 'Northwind Digital', address: 'hello@northwind.example' });
    expect(message.to).toEqual(['anne@martin.example']);
    expect(message.cc).toEqual(['compta@martin.example']);
    expect(message.envelope).toEqual({
      from: 'reports@northwind.example',
      to: ['anne@martin.example', 'compta@martin.example', 'owner@martin.example', 'archive@northwind.example'],
    });
  });

  it('writes the subject and both bodies in English with the client, the period and the agency', () => {
    const message = buildReportMessage(input());
    expect(message.subject).toBe('Your October 2026 GEO & SEO report – Boulangerie Martin');
    expect(message.text).toContain('Please find attached your GEO & SEO report for October 2026, prepared by Northwind Digital.');
    expect(message.text).toContain('- The GEO score rose by 4 points to 62.');
    expect(message.text).toContain('4212-boulangerie-martin-2026-10.pdf');
    expect(message.text).toContain('Email: hello@northwind.example');
    expect(message.text).toMatch(/Best regards,\nNorthwind Digital\n$/);
    expect(message.html).toContain('<html lang="en">');
    expect(message.html).toContain('<li style="margin:0 0 6px;">The GEO score rose by 4 points to 62.</li>');
    expect(message.attachment?.filename).toBe('4212-boulangerie-martin-2026-10.pdf');
  });

  it('writes them in French for a French client', () => {
    const message = buildReportMessage(input({ language: 'fr', messages: loadPhrases('fr'), periodLabel: 'octobre 2026' }));
    expect(message.subject).toBe('Votre rapport GEO & SEO d’octobre 2026 – Boulangerie Martin');
    expect(message.text).toContain('Bonjour,');
    expect(message.text).toContain('Veuillez trouver ci-joint votre rapport GEO & SEO d’octobre 2026');
    // French typography: a no-break space before the colon, in the phrases and in the contact lines.
    expect(message.text).toContain('En bref\u00a0:');
    expect(message.text).toContain('E-mail\u00a0: hello@northwind.example');
    expect(message.text).not.toMatch(/ [:;?!]/);
    expect(message.html).toContain('<html lang="fr">');
    expect(message.html).toContain('Bien cordialement,');
  });

  it('escapes the HTML body and keeps it free of images, links and scripts', () => {
    const message = buildReportMessage(input({ clientName: '<script>alert(1)</script>' }));
    expect(message.html).toContain('&lt;fix the &quot;canonical&quot; tags&gt; &amp; more.');
    expect(message.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(message.html).not.toMatch(/<(img|a|script|link)\b/i);
    expect(message.html).not.toMatch(/https?:\/\//);
  });

  it("greets the client's contact by name and is signed by the account manager, in both languages", () => {
    const english = buildReportMessage(input({ contactName: 'Anne', accountManager: 'Julie Moreau' }));
    expect(english.text).toMatch(/^Hello Anne,\n/);
    expect(english.text).toMatch(/Best regards,\nJulie Moreau\nNorthwind Digital\n$/);
    expect(english.html).toContain('Julie Moreau<br>Northwind Digital');
    const french = buildReportMessage(
      input({ language: 'fr', messages: loadPhrases('fr'), periodLabel: 'mars 2027', contactName: 'Anne', accountManager: 'Julie Moreau' }),
    );
    expect(french.text).toMatch(/^Bonjour Anne,\n/);
    expect(french.subject).toBe('Votre rapport GEO & SEO de mars 2027 – Boulangerie Martin');
    expect(french.text).toContain('votre rapport GEO & SEO de mars 2027, préparé par Northwind Digital.');
    expect(french.text).toContain('E-mail\u00a0: hello@northwind.example');
    expect(buildReportMessage(input()).text).toMatch(/^Hello,\n/);
  });

  it('uses the per-client subject when the config gives one', () => {
    const message = buildReportMessage(input({ subject: '{agency} × {client}: {period}' }));
    expect(message.subject).toBe('Northwind Digital × Boulangerie Martin: October 2026');
  });

  it('leaves the summary block out when the report has no summary', () => {
    const message = buildReportMessage(input({ summary: [] }));
    expect(message.text).not.toContain('In short:');
    expect(message.html).not.toContain('<ul');
  });

  it('gives a stable Message-ID per period and project, and another one to a test send', () => {
    const first = buildReportMessage(input());
    expect(first.messageId).toBe('report-2026-10-4212@northwind.example');
    expect(buildReportMessage(input()).messageId).toBe(first.messageId);
    const test = buildReportMessage(input({ testTo: 'me@northwind.example', testStamp: '2026-11-04T06:00:00.000Z' }));
    expect(test.messageId).toBe('report-2026-10-4212.test-20261104T060000000Z@northwind.example');
  });

  it('sends a test to the tester only, subject prefixed, with the real recipients named in the body', () => {
    const message = buildReportMessage(input({ testTo: 'me@northwind.example', testStamp: 'x' }));
    expect(message.to).toEqual(['me@northwind.example']);
    expect(message.cc).toEqual([]);
    expect(message.envelope.to).toEqual(['me@northwind.example']);
    expect(message.subject).toBe('[TEST] Your October 2026 GEO & SEO report – Boulangerie Martin');
    expect(message.text).toContain(
      'The real one goes to: anne@martin.example, cc compta@martin.example, bcc owner@martin.example, bcc archive@northwind.example.',
    );
  });

  it('keeps the display name of a "Name <address>" sender and reply-to', () => {
    const message = buildReportMessage(input({ from: '"Northwind Reports" <reports@northwind.example>', replyTo: 'Anne <anne@northwind.example>' }));
    expect(message.from).toEqual({ name: 'Northwind Reports', address: 'reports@northwind.example' });
    expect(message.replyTo).toEqual({ name: 'Anne', address: 'anne@northwind.example' });
  });
});

describe('composeMime', () => {
  it('produces a message that parses back with both bodies, the PDF byte for byte, and no Bcc header', async () => {
    const message = buildReportMessage(input());
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256))]);
    const raw = await composeMime(message, pdf, new Date('2026-11-04T06:00:00Z'));
    expect(raw.toString('latin1')).not.toMatch(/^bcc:/im);
    expect(raw.toString('latin1')).not.toMatch(/^List-Unsubscribe:/im);
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe('<report-2026-10-4212@northwind.example>');
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.text).toBe(message.text);
    expect(parsed.html).toBe(message.html);
    expect(parsed.date?.toISOString()).toBe('2026-11-04T06:00:00.000Z');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]?.filename).toBe('4212-boulangerie-martin-2026-10.pdf');
    expect(parsed.attachments[0]?.contentType).toBe('application/pdf');
    expect(Buffer.compare(parsed.attachments[0]?.content ?? Buffer.alloc(0), pdf)).toBe(0);
  });
});

describe('addresses', () => {
  it('parses mailboxes and drops duplicate addresses whatever their case', () => {
    expect(parseMailbox('reports@a.example', 'Agency')).toEqual({ name: 'Agency', address: 'reports@a.example' });
    expect(parseMailbox('Reports Team <reports@a.example>', 'Agency')).toEqual({ name: 'Reports Team', address: 'reports@a.example' });
    expect(uniqueAddresses(['A@x.example', 'b@x.example'], ['a@X.example', ' c@x.example '])).toEqual(['A@x.example', 'b@x.example', 'c@x.example']);
    expect(messageIdFor('2026-10', 7, 'no-domain')).toBe('report-2026-10-7@geo-reports.invalid');
  });
});
