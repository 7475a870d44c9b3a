// The pure parts of delivery: the SMTP URL and its TLS policy, what a send error means, who gets mailed, the record.
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { planDelivery, settle } from '../../src/delivery/email/index.js';
import { reportAsMade as madeAs, type ReportAsMade } from '../../src/output/report-as-made.js';
import { createRedactor, parseSmtpUrl } from '../../src/delivery/email/smtp-url.js';
import { classifyFailure } from '../../src/delivery/email/transport.js';
import { recordOf } from '../../src/delivery/once.js';
import { ConfigError } from '../../src/errors.js';
import type { Manifest, ProjectEntry } from '../../src/output/store.js';
import { pendingEntry } from '../support/manifest.js';
import { toMonth } from '../../src/period.js';

const PASSWORD = 'S3cr3t/p@ss:word';
const url = (rest: string): string => `smtp://mailer:${encodeURIComponent(PASSWORD)}@${rest}`;

describe('parseSmtpUrl', () => {
  it('reads host, port, TLS mode and the login, and prints the URL without the password', () => {
    const settings = parseSmtpUrl(url('smtp.example.com:587'), { allowInsecure: false });
    expect(settings).toMatchObject({ host: 'smtp.example.com', port: 587, secure: false, requireTLS: true, user: 'mailer', password: PASSWORD });
    expect(settings.display).toBe('smtp://mailer@smtp.example.com:587');
    const smtps = parseSmtpUrl(`smtps://mailer:${encodeURIComponent(PASSWORD)}@smtp.example.com`, { allowInsecure: false });
    expect(smtps).toMatchObject({ port: 465, secure: true, requireTLS: false });
    expect(parseSmtpUrl('smtp://relay.example.com', { allowInsecure: false })).toMatchObject({ port: 587, user: null, password: null });
  });

  it('requires STARTTLS away from loopback unless --allow-insecure; loopback may stay plain', () => {
    expect(parseSmtpUrl(url('10.0.0.5:25'), { allowInsecure: false }).requireTLS).toBe(true);
    expect(parseSmtpUrl(url('10.0.0.5:25'), { allowInsecure: true }).requireTLS).toBe(false);
    expect(parseSmtpUrl(url('127.0.0.1:2525'), { allowInsecure: false }).requireTLS).toBe(false);
    expect(parseSmtpUrl(url('localhost:2525'), { allowInsecure: false }).requireTLS).toBe(false);
    expect(parseSmtpUrl(url('[::1]:2525'), { allowInsecure: false })).toMatchObject({ host: '::1', requireTLS: false });
  });

  it('refuses a missing or bad URL with the fix, never repeating the password', () => {
    const attempts = [
      undefined,
      '',
      'not a url',
      `https://mailer:${PASSWORD}@smtp.example.com`,
      `${url('smtp.example.com')}/x`,
      `${url('smtp.example.com')}?secure=false`,
    ];
    for (const value of attempts) {
      const error = (() => {
        try {
          parseSmtpUrl(value, { allowInsecure: false });
          return null;
        } catch (e) {
          return e as ConfigError;
        }
      })();
      expect(error, String(value)).toBeInstanceOf(ConfigError);
      expect(error?.message).toContain('GEO_REPORTS_SMTP_URL');
      expect(`${error?.message} ${error?.hint}`).not.toContain(PASSWORD);
      expect(`${error?.message} ${error?.hint}`).not.toContain(encodeURIComponent(PASSWORD));
    }
  });

  it('redacts the password in every form it can take in a text', () => {
    const redact = createRedactor([PASSWORD, null]);
    const text = `a ${PASSWORD} b ${encodeURIComponent(PASSWORD)} c ${Buffer.from(PASSWORD).toString('base64')}`;
    expect(redact(text)).toBe('a *** b *** c ***');
  });
});

const error = (fields: Record<string, unknown>): Error => Object.assign(new Error(String(fields['message'] ?? 'error')), fields);

describe('classifyFailure', () => {
  it('a refusal at RCPT TO or MAIL FROM is a failure, temporary for 4xx', () => {
    const refused = classifyFailure(
      error({
        message: "Can't send mail - all recipients were rejected: 550 5.1.1 No such user",
        code: 'EENVELOPE',
        command: 'RCPT TO',
        responseCode: 550,
        rejectedErrors: [{ recipient: 'x@client.example', response: '550 5.1.1 No such user' }],
      }),
    );
    expect(refused).toEqual({
      status: 'failed',
      reason: "Can't send mail - all recipients were rejected: 550 5.1.1 No such user",
      temporary: false,
      rejected: [{ address: 'x@client.example', response: '550 5.1.1 No such user' }],
      stop: null,
    });
    const greylisted = classifyFailure(
      error({ message: 'Mail command failed: 451 4.7.1 Try later', code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 451 }),
    );
    expect(greylisted).toMatchObject({ status: 'failed', temporary: true });
  });

  it("the server's no to the end of the message is a failure, even with the whole body sent", () => {
    const outcome = classifyFailure(error({ message: 'Message failed: 554 5.6.0 Rejected', code: 'EMESSAGE', command: 'DATA', responseCode: 554 }), {
      started: true,
      handedOver: true,
    });
    expect(outcome).toMatchObject({ status: 'failed', temporary: false });
  });

  it('a broken connection is a failure before the last byte of the body, unknown after it', () => {
    const dropped = error({ message: 'Connection closed unexpectedly', code: 'ECONNECTION', command: 'CONN' });
    expect(classifyFailure(dropped, { started: false, handedOver: false })).toMatchObject({ status: 'failed', stop: null });
    expect(classifyFailure(dropped, { started: true, handedOver: false })).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('while the message was being transferred'),
    });
    expect(classifyFailure(dropped, { started: true, handedOver: true })).toMatchObject({
      status: 'unknown',
      reason: expect.stringContaining('may have arrived'),
    });
    const timedOut = error({ message: 'Message sending aborted', code: 'EABORT' });
    expect(classifyFailure(timedOut, { started: true, handedOver: true }).status).toBe('unknown');
    expect(classifyFailure(timedOut, { started: false, handedOver: false }).status).toBe('failed');
  });

  it('a refused connection, a refused login or a missing TLS stop the run', () => {
    const refused = error({ message: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' });
    expect(classifyFailure(refused)).toMatchObject({ status: 'failed', stop: 'connection' });
    expect(classifyFailure(error({ message: 'Invalid login: 535 no', code: 'EAUTH', responseCode: 535 }))).toMatchObject({ stop: 'auth' });
    expect(classifyFailure(error({ message: 'STARTTLS missing', code: 'ETLS' }))).toMatchObject({ stop: 'tls' });
  });
});

function entry(id: number, fields: Partial<ProjectEntry> = {}): ProjectEntry {
  return {
    id,
    name: `Client ${id}`,
    slug: `${id}-client`,
    status: 'done',
    files: { html: `${id}-client/report.html`, pdf: `${id}-client/report.pdf`, data: `${id}-client/data.json` },
    held: [],
    released: false,
    reportId: null,
    geo: 50,
    geoChange: null,
    percentile: null,
    openCritical: 0,
    notes: [],
    updatedAt: '2026-11-04T06:00:00.000Z',
    ...fields,
  };
}

const manifest = (projects: ProjectEntry[]): Manifest => ({
  period: toMonth('2026-10'),
  status: 'complete',
  startedAt: '2026-11-04T06:00:00.000Z',
  updatedAt: '2026-11-04T06:00:00.000Z',
  runs: 1,
  projects,
  requests: { total: 0, byToken: {} },
});

const state = (status: 'sending' | 'sent' | 'failed' | 'unknown', accepted: string[] = []) => ({
  status,
  messageId: 'm',
  at: '2026-11-04T07:00:00.000Z',
  accepted,
  rejected: [],
  attempts: 1,
});

describe('planDelivery', () => {
  const config: Config = ConfigSchema.parse({
    clients: Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((id) => [String(id), { email: { to: [`c${id}@client.example`] } }])),
  });
  config.clients['2'] = { email: { to: [], cc: ['cc@client.example'], bcc: [] } };
  config.clients['3'] = { displayName: 'Trois', language: 'fr', email: { to: ['c3@client.example'], cc: [], bcc: [], subject: 'S' } };
  const periodManifest = manifest([
    entry(1),
    entry(2),
    entry(3, { deliveries: { email: state('failed', ['c3@client.example']) } }),
    entry(4, { deliveries: { email: state('sent') } }),
    entry(5, { deliveries: { email: state('unknown') } }),
    entry(6, { held: ['GEO score is 0'] }),
    entry(7, { status: 'failed', files: { html: null, pdf: null, data: null } }),
    entry(8, { deliveries: { email: state('sending') } }),
  ]);

  it('mails done, released reports with a to address that are not sent or unknown; says why for the others', () => {
    const plan = planDelivery(periodManifest, config, { mode: 'send', projectIds: [], resend: false, acceptHeld: false });
    expect(plan.candidates.map((c) => c.entry.id)).toEqual([1, 3]);
    const three = plan.candidates[1];
    expect(three).toMatchObject({ clientName: 'Trois', language: 'fr', subject: 'S', alreadyAccepted: ['c3@client.example'] });
    expect(plan.skipped.map((s) => [s.id, s.reason])).toEqual([
      [2, 'no-address'],
      [4, 'sent'],
      [5, 'unknown'],
      [6, 'held'],
      [7, 'not-ready'],
      [8, 'unknown'],
    ]);
    expect(plan.skipped.find((s) => s.id === 5)?.detail).toContain('--resend --project 5');
  });

  it('releases held reports with --accept-held, resends sent or unknown ones with --resend, previews everything in a test', () => {
    const held = planDelivery(periodManifest, config, { mode: 'send', projectIds: [6], resend: false, acceptHeld: true });
    expect(held.candidates.map((c) => c.entry.id)).toEqual([6]);
    const resend = planDelivery(periodManifest, config, { mode: 'send', projectIds: [4, 5, 99], resend: true, acceptHeld: false });
    expect(resend.candidates.map((c) => [c.entry.id, c.alreadyAccepted])).toEqual([
      [4, []],
      [5, []],
    ]);
    expect(resend.unknownIds).toEqual([99]);
    const test = planDelivery(periodManifest, config, { mode: 'test', projectIds: [], resend: false, acceptHeld: false });
    expect(test.candidates.map((c) => c.entry.id)).toEqual([1, 3, 4, 5, 8]);
  });
});

describe('settle', () => {
  it('records sent with the answer, and a partial refusal as failed keeping who already has the message', () => {
    const sent = settle({ status: 'sent', accepted: ['a@x.example'], rejected: [], response: '250 OK id=1' }, []);
    expect(sent.kind).toBe('sent');
    expect(recordOf(sent, 'm', 't', 1)).toEqual({
      status: 'sent',
      messageId: 'm',
      at: 't',
      accepted: ['a@x.example'],
      rejected: [],
      response: '250 OK id=1',
      attempts: 1,
    });
    const partial = settle(
      { status: 'sent', accepted: ['a@x.example'], rejected: [{ address: 'b@x.example', response: '550 5.1.1 unknown' }], response: '250 OK' },
      ['c@x.example'],
    );
    expect(partial).toMatchObject({
      kind: 'failed',
      temporary: false,
      accepted: ['c@x.example', 'a@x.example'],
      reason: 'b@x.example refused: 550 5.1.1 unknown',
    });
    const deferred = settle(
      { status: 'sent', accepted: ['a@x.example'], rejected: [{ address: 'b@x.example', response: '451 4.2.1 later' }], response: '250 OK' },
      [],
    );
    expect(deferred).toMatchObject({ kind: 'failed', temporary: true });
    const unknown = settle({ status: 'unknown', reason: 'dropped' }, ['c@x.example']);
    expect(recordOf(unknown, 'm', 't', 2)).toMatchObject({ status: 'unknown', error: 'dropped', accepted: ['c@x.example'], attempts: 2 });
  });
});

describe('reportAsMade, for the email channel', () => {
  const reportAsMade = (entry: ProjectEntry, config: Config, mode: 'send' | 'dry-run'): ReportAsMade =>
    madeAs(entry, config, { name: 'email', dryRun: mode === 'dry-run' });
  const made = (fields: Partial<ProjectEntry>): ProjectEntry => ({ ...pendingEntry(102, 'Boulangerie Martin'), status: 'done', ...fields });
  const config = (client: Record<string, unknown>): Config => ConfigSchema.parse({ clients: { '102': client } });

  it('speaks the language and name the report was made with, and says nothing when the config still says so', () => {
    expect(reportAsMade(made({ language: 'fr', displayName: 'Martin & Fils' }), config({ language: 'fr', displayName: ' Martin & Fils ' }), 'send')).toEqual({
      language: 'fr',
      clientName: 'Martin & Fils',
      configuredLanguage: 'fr',
      notice: null,
    });
  });

  it('names a display name added or removed since, and keeps the one the report shows', () => {
    const added = reportAsMade(made({ language: 'en' }), config({ displayName: 'Martin & Fils' }), 'send');
    expect(added).toMatchObject({ language: 'en', clientName: 'Boulangerie Martin' });
    expect(added.notice).toContain('the config now says name "Martin & Fils". The email goes as the report is: in "en", as "Boulangerie Martin".');
    const removed = reportAsMade(made({ language: 'en', displayName: 'Martin & Fils' }), config({}), 'dry-run');
    expect(removed).toMatchObject({ clientName: 'Martin & Fils' });
    expect(removed.notice).toContain('now says name "Boulangerie Martin". The email would go as the report is');
    expect(removed.notice).toContain('`geo-reports report 102`');
  });

  it('lets the config decide for a manifest of an earlier version, which records neither', () => {
    expect(reportAsMade(made({}), config({ language: 'fr', displayName: 'Martin & Fils' }), 'send')).toEqual({
      language: 'fr',
      clientName: 'Martin & Fils',
      configuredLanguage: 'fr',
      notice: null,
    });
  });
});
