// `geo-reports send` for real: the CLI spawned against 25 rendered reports and a real SMTP server on loopback with
// AUTH; every message parsed back with mailparser. Recipients, languages, bodies, the PDF byte for byte, once only,
// the review flow (--dry-run, --test-to), held reports, and the password in no output.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { unlinkedHosts } from '../../src/outgoing-text.js';
import { projectSlug } from '../../src/output/store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectEntry } from '../../src/output/store.js';
import { startSimulator } from '../../src/simulator/server.js';
import {
  activeProjectIds,
  addressesOf,
  copyPeriod,
  eventsOf,
  expectNoPassword,
  messageIdOf,
  PERIOD,
  readManifestOf,
  renderPeriod,
  SMTP_PASSWORD,
  SMTP_USER,
  startSmtpServer,
  writeConfig,
  type ReceivedMail,
  type RenderedPeriod,
  type SmtpTestServer,
} from '../support/email-fixtures.js';
import { spawnCli } from '../support/cli.js';

const exec = promisify(execFile);
let root: string;
let rendered: RenderedPeriod;
let ids: number[];
let rawConfig: Record<string, unknown>;
const servers: SmtpTestServer[] = [];
const logs: string[] = [];

const REFUSED = (id: number): string => `refused-${id}@client.example`;
const clientAddress = (id: number): string => `client-${id}@client.example`;
/** The 25 clients: #3 has no address, #5's address is refused by the server, every third one reads French. */
const NO_ADDRESS = 3;
const REFUSED_INDEX = 5;
const isFrench = (index: number): boolean => index % 3 === 1;

function clientsConfig(fixRefused: boolean): Record<string, unknown> {
  return Object.fromEntries(
    ids.map((id, index) => {
      const base = { ...(isFrench(index) ? { language: 'fr' } : {}), ...(index === 7 ? { displayName: 'Atelier Lumière' } : {}) };
      if (index === NO_ADDRESS) return [String(id), base];
      const to = index === REFUSED_INDEX && !fixRefused ? [REFUSED(id)] : [clientAddress(id)];
      const copies = index === 0 ? { cc: ['boss@client-zero.example'], bcc: ['owner@client-zero.example'] } : {};
      return [String(id), { ...base, email: { to, ...copies } }];
    }),
  );
}

function configFor(fixRefused: boolean): Record<string, unknown> {
  return {
    agency: {
      name: 'Northwind Digital',
      contact: { email: 'hello@northwind.example', phone: '+33 1 23 45 67 89', website: 'northwind.example' },
    },
    delivery: {
      email: { from: 'Northwind Reports <reports@northwind.example>', replyTo: 'accounts@northwind.example', bcc: ['archive@northwind.example'] },
    },
    // English unless the client says French: the simulator's own project languages stay out of this test.
    report: { language: 'en' },
    clients: clientsConfig(fixRefused),
  };
}

async function smtpServer(refuse = true): Promise<SmtpTestServer> {
  const server = await startSmtpServer({
    refuseRecipient: (address) => (refuse && address.startsWith('refused-') ? { code: 550, message: '5.1.1 No such user here' } : null),
  });
  servers.push(server);
  return server;
}

async function send(out: string, configPath: string, server: SmtpTestServer, extra: string[] = []) {
  const result = await spawnCli(['send', '--period', PERIOD, '--out', out, '--config', configPath, ...extra], {
    cwd: root,
    env: { ...process.env, GEO_REPORTS_SMTP_URL: server.url },
  }).done;
  logs.push(result.stdout, result.stderr);
  return { ...result, events: eventsOf(result.stdout) };
}

const projectOf = (mail: ReceivedMail): number => Number(/^<report-2026-10-(\d+)@northwind\.example>$/.exec(messageIdOf(mail))?.[1]);
/** Every (report, recipient) pair the server took: no pair may appear twice, ever. */
const deliveries = (mails: ReceivedMail[]): string[] => mails.flatMap((m) => m.envelope.to.map((to) => `${projectOf(m)} ${to}`));
const expectNoneTwice = (mails: ReceivedMail[]): void => {
  const pairs = deliveries(mails);
  expect(new Set(pairs).size).toBe(pairs.length);
};
const countBy = (mails: ReceivedMail[]): Map<number, number> => {
  const counts = new Map<number, number>();
  for (const mail of mails) counts.set(projectOf(mail), (counts.get(projectOf(mail)) ?? 0) + 1);
  return counts;
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-email-'));
  ids = await activeProjectIds();
  rawConfig = configFor(false);
  rendered = await renderPeriod(join(root, 'rendered'), await writeConfig(join(root, 'config.json'), rawConfig));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

describe('send to 25 clients through a real SMTP server (CLI)', () => {
  let out: string;
  let configPath: string;
  let server: SmtpTestServer;
  let first: Awaited<ReturnType<typeof send>>;
  let entries: Map<number, ProjectEntry>;

  beforeAll(async () => {
    expect(rendered.ids).toEqual(ids);
    expect(ids).toHaveLength(25);
    out = await copyPeriod(join(root, 'rendered'), join(root, 'main'));
    configPath = join(root, 'main-config.json');
    await writeConfig(configPath, configFor(false));
    server = await smtpServer();
    first = await send(out, configPath, server);
    entries = new Map((await readManifestOf(out)).projects.map((e) => [e.id, e]));
  }, 60_000);

  it('mails 23 clients once each, exits 1 and names the refused one and the one without an address', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(1);
    const refusedId = ids[REFUSED_INDEX] as number;
    const mailed = ids.filter((_, i) => i !== NO_ADDRESS && i !== REFUSED_INDEX);
    const pairs = deliveries(server.accepted);
    expect(mailed).toHaveLength(23);
    for (const id of mailed)
      expect(
        pairs.filter((p) => p === `${id} ${clientAddress(id)}`),
        String(id),
      ).toHaveLength(1);
    // The refused client got nothing; the agency's copy of its message went through (each recipient is its own).
    expect(pairs.filter((p) => p.startsWith(`${refusedId} `))).toEqual([`${refusedId} archive@northwind.example`]);
    expect(pairs.filter((p) => p.startsWith(`${ids[NO_ADDRESS]} `))).toEqual([]);
    expect(server.accepted).toHaveLength(24);
    expectNoneTwice(server.accepted);
    expect(server.logins).toBeGreaterThanOrEqual(1);
    expect(server.accepted.every((m) => m.user === SMTP_USER)).toBe(true);

    const failed = first.events.find((e) => e.type === 'email-failed');
    expect(failed).toMatchObject({ id: refusedId, name: rendered.names.get(refusedId) });
    expect(String(failed?.['reason'])).toContain(`${REFUSED(refusedId)} refused: 550 5.1.1 No such user here`);
    const skipped = first.events.find((e) => e.type === 'email-skipped');
    expect(skipped).toMatchObject({ id: ids[NO_ADDRESS], reason: 'no-address' });
    const summary = first.events.find((e) => e.type === 'email-summary')?.['summary'] as Record<string, unknown>;
    expect(summary).toMatchObject({ sent: 23, unknown: [], notAttempted: 0 });
    expect(summary['failed']).toEqual([{ id: refusedId, name: rendered.names.get(refusedId), reason: expect.stringContaining('550') }]);
  });

  it("attaches to each message its own client's PDF, byte for byte", async () => {
    for (const mail of server.accepted) {
      const entry = entries.get(projectOf(mail)) as ProjectEntry;
      const pdf = await readFile(join(out, PERIOD, entry.files.pdf as string));
      expect(mail.parsed.attachments).toHaveLength(1);
      const attachment = mail.parsed.attachments[0];
      // Named as the report and the mail name the client: the display name's slug where one is configured.
      const named = entry.displayName === undefined ? entry.slug : projectSlug(entry.id, entry.displayName);
      expect(attachment?.filename).toBe(`${named}-${PERIOD}.pdf`);
      expect(attachment?.contentType).toBe('application/pdf');
      expect(Buffer.compare(attachment?.content ?? Buffer.alloc(0), pdf), entry.slug).toBe(0);
    }
  });

  it('puts to, cc and reply-to in the headers, every bcc in the envelope only', () => {
    for (const mail of server.accepted) {
      const id = projectOf(mail);
      const index = ids.indexOf(id);
      if (index === REFUSED_INDEX) {
        expect(addressesOf(mail.parsed.to)).toEqual([REFUSED(id)]);
        expect(mail.envelope.to).toEqual(['archive@northwind.example']);
        continue;
      }
      expect(addressesOf(mail.parsed.to)).toEqual([clientAddress(id)]);
      expect(addressesOf(mail.parsed.from)).toEqual(['reports@northwind.example']);
      expect(mail.parsed.from?.value[0]?.name).toBe('Northwind Reports');
      expect(addressesOf(mail.parsed.replyTo)).toEqual(['accounts@northwind.example']);
      expect(mail.parsed.headers.has('bcc')).toBe(false);
      expect(mail.raw.toString('latin1')).not.toMatch(/^bcc:/im);
      expect(mail.raw.toString('latin1')).not.toContain('owner@client-zero.example');
      expect(mail.raw.toString('latin1')).not.toContain('archive@northwind.example');
      expect(mail.envelope.from).toBe('reports@northwind.example');
      if (index === 0) {
        expect(addressesOf(mail.parsed.cc)).toEqual(['boss@client-zero.example']);
        expect(mail.envelope.to).toEqual([clientAddress(id), 'boss@client-zero.example', 'owner@client-zero.example', 'archive@northwind.example']);
      } else {
        expect(mail.parsed.cc).toBeUndefined();
        expect(mail.envelope.to).toEqual([clientAddress(id), 'archive@northwind.example']);
      }
    }
  });

  it("writes subject and both bodies in the client's language, with the display name, the period, the summary and the agency", () => {
    let french = 0;
    for (const mail of server.accepted) {
      const id = projectOf(mail);
      const index = ids.indexOf(id);
      const entry = entries.get(id) as ProjectEntry;
      const name = index === 7 ? 'Atelier Lumière' : entry.name;
      const html = String(mail.parsed.html);
      if (isFrench(index)) {
        french += 1;
        expect(mail.parsed.subject).toBe(`Votre rapport GEO & SEO d’octobre 2026 – ${name}`);
        expect(mail.parsed.text).toContain('Veuillez trouver ci-joint votre rapport GEO & SEO d’octobre 2026, préparé par Northwind Digital.');
        expect(html).toContain('<html lang="fr">');
      } else {
        expect(mail.parsed.subject).toBe(`Your October 2026 GEO & SEO report – ${name}`);
        expect(mail.parsed.text).toContain('Please find attached your GEO & SEO report for October 2026, prepared by Northwind Digital.');
        expect(html).toContain('<html lang="en">');
      }
      expect(entry.summary?.length ?? 0).toBeGreaterThan(0);
      // The summary as the report has it, with the service's hostnames kept from turning into links.
      for (const sentence of (entry.summary ?? []).map(unlinkedHosts)) {
        expect(mail.parsed.text).toContain(`- ${sentence}`);
        expect(html).toContain(sentence.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'));
      }
      expect(mail.parsed.text).toContain('hello@northwind.example');
      expect(html).not.toMatch(/<img\b|https?:\/\//i);
      expect(mail.raw.toString('latin1')).not.toMatch(/^List-Unsubscribe:/im);
    }
    expect(french).toBeGreaterThanOrEqual(6);
  });

  it('records each message in the manifest and shows it in the index', async () => {
    const refusedId = ids[REFUSED_INDEX] as number;
    for (const id of ids) {
      const email = entries.get(id)?.deliveries?.email;
      if (id === ids[NO_ADDRESS]) {
        expect(email).toBeUndefined();
      } else if (id === refusedId) {
        expect(email).toMatchObject({ status: 'failed', messageId: `report-2026-10-${id}@northwind.example`, accepted: ['archive@northwind.example'] });
        expect(email?.rejected).toEqual([{ address: REFUSED(id), response: '550 5.1.1 No such user here' }]);
      } else {
        expect(email).toMatchObject({ status: 'sent', messageId: `report-2026-10-${id}@northwind.example`, attempts: 1 });
        expect(email?.response).toMatch(/^250 Queued as /);
        expect(email?.accepted).toContain(clientAddress(id));
      }
    }
    const index = await readFile(join(out, PERIOD, 'index.html'), 'utf8');
    const table = index.slice(index.indexOf('class="sorted sorted--name"'), index.indexOf('class="sorted sorted--geo"'));
    expect(table.match(/mail--sent">Sent</g)).toHaveLength(23);
    expect(table.match(/mail--failed">Failed</g)).toHaveLength(1);
    expect(table.match(/mail--not_sent">Not sent</g)).toHaveLength(1);
    expect(table).toContain(`${REFUSED(refusedId)} refused: 550 5.1.1 No such user here`);
  });

  it('after the address is fixed, mails exactly that client; a third send mails nobody', async () => {
    const refusedId = ids[REFUSED_INDEX] as number;
    // On a copy of the first send's folder, through a server of its own: the other tests read the first send alone.
    const copy = await copyPeriod(out, join(root, 'main-fixed'));
    const fixedConfig = join(root, 'main-fixed-config.json');
    await writeConfig(fixedConfig, configFor(true));
    const own = await smtpServer();
    const accepted = (): ReceivedMail[] => [...server.accepted, ...own.accepted];
    const second = await send(copy, fixedConfig, own);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(accepted()).toHaveLength(25);
    const latest = accepted()[24] as ReceivedMail;
    expect(projectOf(latest)).toBe(refusedId);
    // The agency copy went with the first transaction: the retry goes to the client only.
    expect(latest.envelope.to).toEqual([clientAddress(refusedId)]);
    expect(second.events.filter((e) => e.type === 'email-sent').map((e) => e['id'])).toEqual([refusedId]);
    expect((await readManifestOf(copy)).projects.find((e) => e.id === refusedId)?.deliveries?.email).toMatchObject({
      status: 'sent',
      attempts: 2,
      accepted: ['archive@northwind.example', clientAddress(refusedId)],
    });

    const third = await send(copy, fixedConfig, own);
    expect(third.code).toBe(0);
    expect(server.received.length + own.received.length).toBe(25);
    expect(third.events.find((e) => e.type === 'email-summary')?.['summary']).toMatchObject({ sent: 0, alreadySent: 24, failed: [] });
    expectNoneTwice(accepted());
    for (const id of ids.filter((_, i) => i !== NO_ADDRESS)) {
      expect(
        deliveries(accepted()).filter((p) => p === `${id} ${clientAddress(id)}`),
        String(id),
      ).toHaveLength(1);
    }
    expect(await expectNoPassword([copy], logs, expect)).toBeGreaterThan(0);
  }, 60_000);

  it('leaves the SMTP password in no output file, manifest, index or log', async () => {
    const checked = await expectNoPassword([out], logs, expect);
    expect(checked).toBeGreaterThan(75);
  });
});

describe('review before sending (CLI)', () => {
  it('--dry-run writes every message as email.eml and sends nothing', async () => {
    const out = await copyPeriod(join(root, 'rendered'), join(root, 'dry'));
    const configPath = join(root, 'dry-config.json');
    await writeConfig(configPath, configFor(false));
    const server = await smtpServer();
    const result = await send(out, configPath, server, ['--dry-run']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.received).toHaveLength(0);
    expect(server.logins).toBe(0);
    const manifest = await readManifestOf(out);
    const written = result.events.filter((e) => e.type === 'email-written');
    expect(written).toHaveLength(24);
    for (const entry of manifest.projects) {
      expect(entry.deliveries?.email).toBeUndefined();
      const path = join(out, PERIOD, entry.slug, 'email.eml');
      if (entry.id === ids[NO_ADDRESS]) {
        await expect(readFile(path)).rejects.toThrow(/ENOENT/);
        continue;
      }
      const parsed = await simpleParser(await readFile(path));
      expect(parsed.messageId).toBe(`<report-2026-10-${entry.id}@northwind.example>`);
      const pdf = await readFile(join(out, PERIOD, entry.files.pdf as string));
      expect(Buffer.compare(parsed.attachments[0]?.content ?? Buffer.alloc(0), pdf)).toBe(0);
      expect(parsed.headers.has('bcc')).toBe(false);
    }
    await expectNoPassword([out], [result.stdout, result.stderr], expect);
  }, 60_000);

  it('--test-to sends every message to the tester only, subject prefixed, and records nothing as sent', async () => {
    const out = await copyPeriod(join(root, 'rendered'), join(root, 'test-to'));
    const configPath = join(root, 'test-config.json');
    await writeConfig(configPath, configFor(false));
    const server = await smtpServer();
    const manifestBefore = await readFile(join(out, PERIOD, 'manifest.json'), 'utf8');
    const result = await send(out, configPath, server, ['--test-to', 'reviewer@northwind.example']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.accepted).toHaveLength(24);
    for (const mail of server.accepted) {
      expect(mail.envelope.to).toEqual(['reviewer@northwind.example']);
      expect(addressesOf(mail.parsed.to)).toEqual(['reviewer@northwind.example']);
      expect(mail.parsed.cc).toBeUndefined();
      expect(mail.parsed.subject).toMatch(/^\[TEST\] (Your October 2026 GEO & SEO report|Votre rapport GEO & SEO d’octobre 2026) – /);
      expect(mail.parsed.messageId).toMatch(/^<report-2026-10-\d+\.test-\w+@northwind\.example>$/);
    }
    const refused = server.accepted.find((m) => String(m.parsed.text).includes(REFUSED(ids[REFUSED_INDEX] as number)));
    expect(refused?.parsed.text).toContain('Test send: this message goes to you only. The real one goes to:');
    expect(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')).toBe(manifestBefore);
  }, 60_000);

  it('keeps a held report back (exit 4) and sends it once released with --accept-held', async () => {
    const out = await copyPeriod(join(root, 'rendered'), join(root, 'held'));
    const configPath = join(root, 'held-config.json');
    await writeConfig(configPath, configFor(true));
    const heldId = ids[10] as number;
    const manifestPath = join(out, PERIOD, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { projects: ProjectEntry[] };
    for (const entry of manifest.projects) if (entry.id === heldId) entry.held = ['The GEO score dropped by 31 points (more than 20).'];
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
    const server = await smtpServer(false);

    const first = await send(out, configPath, server);
    expect(first.code).toBe(4);
    expect(server.accepted).toHaveLength(23);
    expect(countBy(server.accepted).has(heldId)).toBe(false);
    expect(first.events.find((e) => e.type === 'email-skipped' && e['id'] === heldId)).toMatchObject({ reason: 'held' });

    const released = await send(out, configPath, server, ['--accept-held']);
    expect(released.code).toBe(0);
    expect(server.accepted).toHaveLength(24);
    expect(projectOf(server.accepted[23] as ReceivedMail)).toBe(heldId);
    const after = (await readManifestOf(out)).projects.find((e) => e.id === heldId);
    expect(after).toMatchObject({ released: true, deliveries: { email: { status: 'sent' } } });
    expect([...countBy(server.accepted).values()].every((n) => n === 1)).toBe(true);
  }, 60_000);
});

describe("the mail speaks the report's language (CLI)", () => {
  it('after the config changes language and name, sends each report as it was made, says so per client, and mixes no languages', async () => {
    const out = await copyPeriod(join(root, 'rendered'), join(root, 'changed'));
    const made = new Map((await readManifestOf(out)).projects.map((e) => [e.id, e]));
    // Made in English, now French with a new name; made in French, now English (and a subject written for it).
    const toFrench = ids[2] as number;
    const toEnglish = ids[4] as number;
    expect([isFrench(2), isFrench(4)]).toEqual([false, true]);
    expect([made.get(toFrench)?.language, made.get(toEnglish)?.language]).toEqual(['en', 'fr']);
    const clients = clientsConfig(true) as Record<string, { email?: Record<string, unknown> }>;
    const changed = {
      ...configFor(true),
      clients: {
        ...clients,
        [toFrench]: { ...clients[toFrench], language: 'fr', displayName: 'Garage Nouveau Nom' },
        [toEnglish]: { ...clients[toEnglish], language: 'en', email: { ...clients[toEnglish]?.email, subject: 'Your monthly report, {client}' } },
      },
    };
    const configPath = join(root, 'changed-config.json');
    await writeConfig(configPath, changed);
    const server = await smtpServer(false);

    const notices = (events: Array<{ type: string }>): string[] =>
      events.filter((e) => e.type === 'warning').map((e) => String((e as { message?: unknown }).message));
    const dry = await send(out, configPath, server, ['--dry-run']);
    expect(dry.code).toBe(0);
    const dryNotices = notices(dry.events);
    expect(dryNotices).toHaveLength(2);
    const englishName = made.get(toFrench)?.name as string;
    expect(dryNotices[0]).toBe(
      `Project ${toFrench} (${englishName}): its report was made in "en" as "${englishName}", but the config now says language "fr" and name "Garage Nouveau Nom". ` +
        `The email would go as the report is: in "en", as "${englishName}". ` +
        `Fix: \`geo-reports report ${toFrench}\` makes the report again with the config (then \`geo-reports send --resend --project ${toFrench}\` if this one was sent).`,
    );
    expect(dryNotices[1]).toContain(`Project ${toEnglish} (`);
    expect(dryNotices[1]).toContain(`without clients."${toEnglish}".email.subject, written for "en"`);

    const sent = await send(out, configPath, server);
    expect(sent.code).toBe(0);
    expect(notices(sent.events).map((n) => n.replace('The email goes', 'The email would go'))).toEqual(dryNotices);
    const mailOf = (id: number): ReceivedMail => server.accepted.find((m) => projectOf(m) === id) as ReceivedMail;
    const english = mailOf(toFrench);
    expect(english.parsed.subject).toBe(`Your October 2026 GEO & SEO report – ${englishName}`);
    expect(english.parsed.text).toContain('Please find attached your GEO & SEO report for October 2026');
    const french = mailOf(toEnglish);
    expect(french.parsed.subject).toBe(`Votre rapport GEO & SEO d’octobre 2026 – ${made.get(toEnglish)?.name as string}`);

    // Every mail in one language, the report's: its phrases, its summary, its PDF.
    const phrases = {
      en: JSON.parse(await readFile(join(import.meta.dirname, '../../templates/locales/en.json'), 'utf8')) as Record<string, string>,
      fr: JSON.parse(await readFile(join(import.meta.dirname, '../../templates/locales/fr.json'), 'utf8')) as Record<string, string>,
    };
    const words = (language: 'en' | 'fr'): string[] =>
      ['email.greeting', 'email.summaryTitle', 'email.questions', 'email.closing'].map((key) => phrases[language][key] as string);
    for (const mail of server.accepted) {
      const entry = made.get(projectOf(mail)) as ProjectEntry;
      const language = entry.language as 'en' | 'fr';
      const other = language === 'en' ? 'fr' : 'en';
      expect(String(mail.parsed.html)).toContain(`<html lang="${language}">`);
      for (const phrase of words(language)) expect(mail.parsed.text).toContain(phrase);
      for (const phrase of words(other)) expect(mail.parsed.text).not.toContain(phrase);
      for (const sentence of (entry.summary ?? []).map(unlinkedHosts)) expect(mail.parsed.text).toContain(`- ${sentence}`);
      const pdf = await readFile(join(out, PERIOD, entry.files.pdf as string));
      expect(Buffer.compare(mail.parsed.attachments[0]?.content ?? Buffer.alloc(0), pdf)).toBe(0);
    }
    const pdfWords = async (id: number): Promise<string> => (await exec('pdftotext', [join(out, PERIOD, made.get(id)?.files.pdf as string), '-'])).stdout;
    expect(await pdfWords(toFrench)).toMatch(/Page 1 of \d+/);
    expect(await pdfWords(toEnglish)).toMatch(/Page 1 sur \d+/);
  }, 60_000);
});

describe('configuration errors (CLI)', () => {
  it('exits 2 without GEO_REPORTS_SMTP_URL, without a sender, or when the login is refused, never echoing the password', async () => {
    const out = await copyPeriod(join(root, 'rendered'), join(root, 'errors'));
    const configPath = join(root, 'errors-config.json');
    await writeConfig(configPath, configFor(true));
    const server = await smtpServer(false);
    const args = ['send', '--period', PERIOD, '--out', out, '--config', configPath];

    const noUrl = await spawnCli(args, { cwd: root, env: { ...process.env, GEO_REPORTS_SMTP_URL: '' } }).done;
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('GEO_REPORTS_SMTP_URL is not set');

    const noSender = join(root, 'no-sender.json');
    await writeConfig(noSender, { ...configFor(true), delivery: { email: {} } });
    const noFrom = await spawnCli(['send', '--period', PERIOD, '--out', out, '--config', noSender], {
      cwd: root,
      env: { ...process.env, GEO_REPORTS_SMTP_URL: server.url },
    }).done;
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toContain('delivery.email.from is not set');

    const wrong = server.url.replace(encodeURIComponent(SMTP_PASSWORD), encodeURIComponent(`${SMTP_PASSWORD}-old`));
    const badLogin = await spawnCli(args, { cwd: root, env: { ...process.env, GEO_REPORTS_SMTP_URL: wrong } }).done;
    expect(badLogin.code).toBe(2);
    expect(badLogin.stderr).toContain('refused the login');
    expect(badLogin.stderr).toContain(`smtp://${SMTP_USER}@127.0.0.1:${server.port}`);
    expect(server.received).toHaveLength(0);
    expect((await readManifestOf(out)).projects.every((e) => e.deliveries?.email === undefined)).toBe(true);

    const inFile = join(root, 'password-in-file.json');
    await writeFile(inFile, JSON.stringify({ delivery: { email: { from: 'a@northwind.example', password: SMTP_PASSWORD } } }));
    const refused = await spawnCli(['send', '--period', PERIOD, '--out', out, '--config', inFile], {
      cwd: root,
      env: { ...process.env, GEO_REPORTS_SMTP_URL: server.url },
    }).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('delivery.email.password');
    expect(refused.stderr).toContain('GEO_REPORTS_SMTP_URL');

    const resendAll = await spawnCli([...args, '--resend'], { cwd: root, env: { ...process.env, GEO_REPORTS_SMTP_URL: server.url } }).done;
    expect(resendAll.code).toBe(2);
    expect(resendAll.stderr).toContain('--resend needs --project');

    const logsHere = [noUrl, noFrom, badLogin, refused, resendAll].flatMap((r) => [r.stdout, r.stderr]);
    await expectNoPassword([out], logsHere, expect);
  }, 60_000);
});

describe('run --send (CLI)', () => {
  it('runs the batch, then mails the finished reports once', async () => {
    const token = 'tok-email-run-send-3c5e7a9b1d2f4e6a';
    const sim = await startSimulator({ projectCount: 36, tokens: [token], clock: () => new Date('2026-11-04T06:00:00Z') });
    try {
      const out = join(root, 'run-send');
      const configPath = join(root, 'run-send-config.json');
      await writeConfig(configPath, configFor(true));
      const server = await smtpServer(false);
      const picked = [ids[0], ids[1]].map(String);
      const args = [
        'run',
        '--period',
        PERIOD,
        '--out',
        out,
        '--config',
        configPath,
        '--base-url',
        sim.url,
        '--send',
        '--json',
        ...picked.flatMap((p) => ['--project', p]),
      ];
      const env = { ...process.env, AGENCY_API_TOKEN: token, GEO_REPORTS_SMTP_URL: server.url };
      const result = await spawnCli(args, { cwd: root, env }).done;
      logs.push(result.stdout, result.stderr);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const types = eventsOf(result.stdout).map((e) => e.type);
      expect(types.indexOf('summary')).toBeLessThan(types.indexOf('email-plan'));
      expect([...countBy(server.accepted).keys()].sort((a, b) => a - b)).toEqual([ids[0], ids[1]]);
      const again = await spawnCli(args, { cwd: root, env }).done;
      expect(again.code).toBe(0);
      expect(server.accepted).toHaveLength(2);
      await expectNoPassword([out], [result.stdout, result.stderr, again.stdout, again.stderr], expect);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
