// A run made 40 days after the period (September made on its day before it), on every dialect of the simulator, the
// scan sections on, three clients in French and two with a display name: each client's GEO and SEO are written the
// same in the headline, the history table, the printed PDF, the summary, the mail (sent to a real SMTP server on
// loopback), the manifest, the agency index, the export and the fact table; no report is held by the self-check of
// its views; every keyword row's arrow, word and places follow from its two shown figures; the export holds every
// section's facts with its unit and one type per column; no value read after the period is shown (the ranking, the
// service's undated AI visibility); the AI visibility is the period's scan's; French reports carry none of our
// English labels; the index, the mail's subject and its attachment name clients by their display name.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { deliverPeriod } from '../../src/delivery/email/index.js';
import { parseSmtpUrl } from '../../src/delivery/email/smtp-url.js';
import { createSmtpTransport } from '../../src/delivery/email/transport.js';
import { writeExport } from '../../src/export/write.js';
import { STEADY_WITHIN } from '../../src/sections/keywords/view.js';
import { publishSite } from '../../src/site/publish.js';
import { loadPhrases } from '../../src/i18n/locales.js';
import { toMonth } from '../../src/period.js';
import { Manifest, projectSlug, type ProjectEntry } from '../../src/output/store.js';
import type { Fact } from '../../src/report/facts.js';
import { DIALECT_NAMES, startSimulator, type DialectName } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { startSmtpServer, type SmtpTestServer } from '../support/email-fixtures.js';

const TOKEN = 'tok-late-run-5d1c7a93e2b8';
const PERIOD = toMonth('2026-10');
/** 40 days after the last day of October. */
const LATE = new Date('2026-12-10T06:00:00Z');
/** September's report, made on the monthly run's day. */
const SEPTEMBER_RUN = new Date('2026-10-04T06:00:00Z');
const DISPLAY_NAMES = ['Boulangerie Martin', 'Garage du Centre'];
/** Our labels in English: none may stand in a French report (the service's own words, marked lang="en", aside). */
const ENGLISH_LABELS = [
  'GEO score',
  'SEO score',
  'Pages crawled',
  'AI citations',
  'Google business profile',
  'NAP consistency',
  'Local presence',
  'Directory citations',
  '(technical)',
  'As of',
  'Recommendations',
  'Visibility in AI assistants',
  'out of 100',
  'Last month',
];

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const isElement = (node: Node): node is Element => 'tagName' in node;
const attr = (node: Element, name: string): string | undefined => node.attrs.find((a) => a.name === name)?.value;
const hasClass = (node: Element, name: string): boolean => (attr(node, 'class') ?? '').split(/\s+/).includes(name);

function* elements(node: Node): Generator<Element> {
  if (isElement(node)) yield node;
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* elements(child);
  if (isElement(node) && node.tagName === 'template') yield* elements((node as DefaultTreeAdapterMap['template']).content);
}

/** The text of a node; with `ownOnly`, what is in the page's language (an element with another lang is left out). */
function textOf(node: Node, pageLang?: string): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  if (isElement(node)) {
    if (['script', 'style'].includes(node.tagName)) return '';
    const lang = attr(node, 'lang');
    if (pageLang !== undefined && lang !== undefined && lang !== pageLang) return '';
  }
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.map((child) => textOf(child, pageLang)).join(' ');
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** Text with its no-break spaces as spaces: the French colon and thousands separators. */
const spaced = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ');
/** A figure as a view writes it, read back as a number (either decimal mark, either minus). */
const figureOf = (text: string): number | null => {
  const match = /[-−]?\d+(?:[.,]\d+)?/.exec(spaced(text));
  return match === null ? null : Number(match[0].replace('−', '-').replace(',', '.'));
};
/** What the self-check of the views writes when a view disagrees with the fact table. */
const VIEW_REASON = /: the (PDF|agency index|mail|mail's text part) shows /;
/** The sections whose facts the export takes from the fact table. */
const TABLE_SECTIONS = ['keywords', 'pageExperience', 'aiAnswers', 'goals'];

interface DialectRun {
  out: string;
  clients: Array<{ id: number; name: string; language: 'en' | 'fr'; displayName: string | null }>;
  /** The mails the send delivered to the SMTP server on loopback, by project. */
  mails: Map<number, ParsedMail>;
  /** The published site's client pages, each page's HTML. */
  sitePages: string[];
  /** The export of the period (CSV), as records by column. */
  csv: Array<Record<string, string>>;
}

/** RFC 4180 → records by column: quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF. */
function parseCsv(text: string): Array<Record<string, string>> {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else field += c;
  }
  const [header, ...body] = records;
  return body.map((r) => Object.fromEntries((header ?? []).map((name, i) => [name, r[i] ?? ''])));
}

/** Sends the period's reports to the SMTP server and returns the mails it received, by project. */
async function sendAll(out: string, config: Config, server: SmtpTestServer): Promise<Map<number, ParsedMail>> {
  const settings = parseSmtpUrl(server.url, { allowInsecure: false });
  const first = server.accepted.length;
  const summary = await deliverPeriod({
    config,
    period: PERIOD,
    outDir: out,
    mode: 'send',
    transport: () => createSmtpTransport(settings, { messageTimeoutMs: 10_000 }),
    serverLabel: settings.display,
    renderer: rig.renderer,
    branding: await brandingFrom(config),
    clock: () => LATE,
    sleep: async () => {},
  });
  expect(summary.failed).toEqual([]);
  const mails = new Map<number, ParsedMail>();
  for (const mail of server.accepted.slice(first)) {
    const id = Number(/^<report-2026-10-(\d+)@/.exec(mail.parsed.messageId ?? '')?.[1]);
    mails.set(id, mail.parsed);
  }
  return mails;
}

let rig: BatchRig;
let root: string;
let smtp: SmtpTestServer;
const runs = new Map<DialectName, DialectRun>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-late-views-'));
  rig = await startBatchRig();
  smtp = await startSmtpServer();
  for (const dialect of DIALECT_NAMES) {
    // September made on its monthly day first, so October's keyword rows have last month's figures to move from.
    let now = SEPTEMBER_RUN;
    const sim = await startSimulator({ seed: 38, projectCount: 6, tokens: [TOKEN], clock: () => now, dialect });
    try {
      const active = sim.state
        .projects()
        .filter((p) => p.status === 'active')
        .slice(0, 4);
      // Three in French (two of them with a display name), one in English.
      const clients = active.map((project, index) => ({
        id: project.id,
        name: project.name,
        language: index < 3 ? ('fr' as const) : ('en' as const),
        displayName: DISPLAY_NAMES[index] ?? null,
      }));
      const config = ConfigSchema.parse({
        agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
        report: { maxScoreDrop: 100 },
        delivery: { email: { from: 'reports@northwind.example' } },
        clients: Object.fromEntries(
          clients.map((c) => [
            String(c.id),
            {
              language: c.language,
              email: { to: [`client-${c.id}@client.example`] },
              ...(c.displayName === null ? {} : { displayName: c.displayName }),
              annotations: [{ date: '2026-10-03', text: 'Titles rewritten', kind: 'technical' }],
            },
          ]),
        ),
      });
      const out = join(root, dialect);
      const september = await rig.run({
        baseUrl: sim.url,
        tokens: [TOKEN],
        outDir: out,
        config,
        period: toMonth('2026-09'),
        clock: () => now,
        selection: { statuses: ['active'], projectIds: clients.map((c) => c.id) },
      });
      expect(september.summary.failed, dialect).toBe(0);
      now = LATE;
      const result = await rig.run({
        baseUrl: sim.url,
        tokens: [TOKEN],
        outDir: out,
        config,
        period: PERIOD,
        clock: () => LATE,
        selection: { statuses: ['active'], projectIds: clients.map((c) => c.id) },
      });
      expect(result.summary.failed, dialect).toBe(0);
      const mails = await sendAll(out, config, smtp);
      const file = join(root, `${dialect}.csv`);
      await writeExport({ outDir: out, periods: [PERIOD], config, clock: () => LATE, format: 'csv', file, threads: 1 });
      const siteDir = join(root, `${dialect}-site`);
      await publishSite({
        outDir: out,
        siteDir,
        secret: 'f3Jq9ZkX2vLw8RtY6pBn4MhC7sDe1GaU5oIy0TxV',
        baseUrl: null,
        prune: false,
        dryRun: false,
        keepMonths: 12,
        config,
        branding: await brandingFrom(config),
        renderer: rig.renderer,
        clock: () => LATE,
      });
      // Each client's page, c/<token>/index.html (its months' folders beside it).
      const pages = (await readdir(join(siteDir, 'c'), { recursive: true })).filter((f) => /^[^/]+\/index\.html$/.test(f));
      const sitePages = await Promise.all(pages.map((f) => readFile(join(siteDir, 'c', f), 'utf8')));
      runs.set(dialect, { out, clients, mails, sitePages, csv: parseCsv(await readFile(file, 'utf8')) });
    } finally {
      await sim.close();
    }
  }
}, 400_000);

afterAll(async () => {
  await smtp.close();
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

async function entriesOf(run: DialectRun): Promise<ProjectEntry[]> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(run.out, PERIOD, 'manifest.json'), 'utf8')));
  return manifest.projects.filter((p) => p.status === 'done');
}

async function factsOf(run: DialectRun, entry: ProjectEntry): Promise<Fact[]> {
  return (JSON.parse(await readFile(join(run.out, PERIOD, entry.files.data as string), 'utf8')) as { facts?: Fact[] }).facts ?? [];
}

async function pdfText(path: string): Promise<string> {
  const { stdout } = await promisify(execFile)('pdftotext', ['-layout', path, '-'], { maxBuffer: 8 * 1024 * 1024 });
  return stdout;
}

describe.each(DIALECT_NAMES)('a run 40 days after the period, %s dialect', (dialect) => {
  it('writes GEO and SEO the same in the headline, the history table, the PDF, the manifest and the index', async () => {
    const run = runs.get(dialect) as DialectRun;
    const entries = await entriesOf(run);
    expect(entries.map((e) => e.id).sort()).toEqual(run.clients.map((c) => c.id).sort());
    const index = parse(await readFile(join(run.out, PERIOD, 'index.html'), 'utf8'));
    const indexText = squash(textOf(index));
    for (const entry of entries) {
      const client = run.clients.find((c) => c.id === entry.id);
      const facts = await factsOf(run, entry);
      const html = parse(await readFile(join(run.out, PERIOD, entry.files.html as string), 'utf8'));
      const all = [...elements(html)];
      const pdf = squash(await pdfText(join(run.out, PERIOD, entry.files.pdf as string)));
      for (const kind of ['geo', 'seo'] as const) {
        const fact = facts.find((f) => f.key === `scores.${kind}`);
        expect(fact, `${dialect} ${entry.name} ${kind}`).toMatchObject({ month: PERIOD });
        const shown = fact?.shown as string;
        // The headline.
        const card = all.find((e) => hasClass(e, `score-card--${kind}`));
        const number = card === undefined ? undefined : [...elements(card)].find((e) => hasClass(e, 'score-card__number'));
        expect(squash(number === undefined ? '' : textOf(number)), `${dialect} ${entry.name} ${kind} headline`).toBe(shown);
        // The history table's October column (the last).
        const table = all.find((e) => hasClass(e, 'history-table'));
        const rows = table === undefined ? [] : [...elements(table)].filter((e) => e.tagName === 'tr');
        const row = rows[kind === 'geo' ? 1 : 2];
        const cells = row === undefined ? [] : [...elements(row)].filter((e) => e.tagName === 'td');
        expect(squash(textOf(cells.at(-1) as Node)), `${dialect} ${entry.name} ${kind} history`).toBe(shown);
        // The manifest: what the mail, the client's page and the index write.
        expect(entry[kind], `${dialect} ${entry.name} ${kind} manifest`).toBe(fact?.figure);
        // The printed PDF holds the figure as shown beside its label.
        expect(pdf, `${dialect} ${entry.name} ${kind} pdf`).toContain(shown);
      }
      // The agency index names the client by its display name, and writes its GEO figure in its row.
      const name = client?.displayName ?? client?.name ?? '';
      expect(indexText, `${dialect} index`).toContain(name);
      const indexRow = [...elements(index)].find((e) => e.tagName === 'tr' && textOf(e).includes(name));
      expect(squash(textOf(indexRow as Node)), `${dialect} ${name} index row`).toContain(String(entry.geo));
      expect(pdf, `${dialect} ${name} pdf`).toContain(name);
      if (client?.displayName !== null && client?.displayName !== undefined) {
        expect(entry.displayName).toBe(client.displayName);
        expect(indexText).not.toContain(client.name);
      }
    }
  });

  it('holds no report for its views; mails each client its figures as the report writes them, under its display name', async () => {
    const run = runs.get(dialect) as DialectRun;
    for (const entry of await entriesOf(run)) {
      const client = run.clients.find((c) => c.id === entry.id);
      const phrases = loadPhrases(client?.language ?? 'en');
      const facts = await factsOf(run, entry);
      expect(
        entry.held.filter((reason) => VIEW_REASON.test(reason)),
        `${dialect} ${entry.name}`,
      ).toEqual([]);
      const mail = run.mails.get(entry.id);
      expect(mail, `${dialect} ${entry.name}: its mail`).toBeDefined();
      const html = [...elements(parse(String(mail?.html)))];
      const text = spaced(mail?.text ?? '');
      for (const kind of ['geo', 'seo'] as const) {
        const shown = facts.find((f) => f.key === `scores.${kind}`)?.shown as string;
        const marked = html.find((e) => attr(e, 'data-fact') === `scores.${kind}`);
        expect(squash(marked === undefined ? '' : textOf(marked)), `${dialect} ${entry.name} ${kind} mail`).toBe(shown);
        const label = `- ${phrases[`email.figure.${kind}`] ?? ''}${spaced(phrases['label.colon'] ?? ':')} ${shown}/100`;
        expect(text, `${dialect} ${entry.name} ${kind} mail text`).toContain(label);
      }
      const name = client?.displayName ?? client?.name ?? '';
      expect(mail?.subject, `${dialect} subject`).toContain(name);
      const pdfs = (mail?.attachments ?? []).filter((a) => a.contentType === 'application/pdf').map((a) => a.filename);
      expect(pdfs, `${dialect} ${entry.name} attachment`).toEqual([`${projectSlug(entry.id, name)}-${PERIOD}.pdf`]);
    }
  });

  it("writes GEO and SEO on each client's page of the published site as its report does, under its display name", async () => {
    const run = runs.get(dialect) as DialectRun;
    const entries = await entriesOf(run);
    expect(run.sitePages).toHaveLength(entries.length);
    for (const entry of entries) {
      const client = run.clients.find((c) => c.id === entry.id);
      const name = client?.displayName ?? client?.name ?? '';
      const page = run.sitePages
        .map((html) => [...elements(parse(html))])
        .find((all) => all.some((e) => e.tagName === 'h1' && squash(textOf(e)).includes(name)));
      expect(page, `${dialect} ${name}: its page`).toBeDefined();
      const facts = await factsOf(run, entry);
      for (const kind of ['geo', 'seo'] as const) {
        const marked = page?.find((e) => attr(e, 'data-fact') === `scores.${kind}`);
        expect(squash(marked === undefined ? '' : textOf(marked)), `${dialect} ${name} ${kind} site`).toBe(
          facts.find((f) => f.key === `scores.${kind}`)?.shown,
        );
      }
    }
  });

  it('writes GEO and SEO in the summary as the headline does', async () => {
    const run = runs.get(dialect) as DialectRun;
    for (const entry of await entriesOf(run)) {
      const client = run.clients.find((c) => c.id === entry.id);
      const phrases = loadPhrases(client?.language ?? 'en');
      const facts = await factsOf(run, entry);
      for (const kind of ['geo', 'seo'] as const) {
        const shown = facts.find((f) => f.key === `scores.${kind}`)?.shown as string;
        const label = (phrases[`scores.${kind}`] ?? '').toLowerCase();
        for (const sentence of (entry.summary ?? []).map(spaced)) {
          const at = sentence.toLowerCase().indexOf(label);
          if (at < 0) continue;
          // The first figure after the score's name that is not its change: "rose by 3 points to 77", "stayed at 77".
          const after = sentence.slice(at + label.length);
          const figures = [...after.matchAll(/[-−]?\d+(?:[.,]\d+)?/g)].map((m) => m[0]);
          expect(figures.length > 0 ? figures : [shown], `${dialect} ${entry.name} ${kind}: ${sentence}`).toContain(shown);
        }
      }
    }
  });

  it('exports every section’s facts as the report shows them: one row each, the unit filled, one type per column', async () => {
    const run = runs.get(dialect) as DialectRun;
    const entries = await entriesOf(run);
    expect(new Set(run.csv.map((r) => r['project_id'])).size).toBe(entries.length);
    const kinds = new Map<string, Set<string>>();
    for (const row of run.csv) {
      expect(row['unit'], `${dialect} ${row['section']} ${row['key']}: its unit`).not.toBe('');
      const value = row['value'] ?? '';
      const kind = /^(true|false)$/.test(value) ? 'boolean' : value !== '' && Number.isFinite(Number(value)) ? 'number' : 'text';
      const seen = kinds.get(`${row['section']}.${row['key']}`) ?? new Set<string>();
      seen.add(kind);
      kinds.set(`${row['section']}.${row['key']}`, seen);
      expect(value, `${dialect} ${row['key']}: booleans are written true or false`).not.toMatch(/^(TRUE|FALSE)$/);
      if (row['unit'] === '%') expect(kind, `${dialect} ${row['key']}: a percentage is a number`).toBe('number');
    }
    for (const [key, seen] of kinds) expect([...seen], `${dialect} ${key}: one type`).toHaveLength(1);
    for (const entry of entries) {
      const client = run.clients.find((c) => c.id === entry.id);
      const facts = await factsOf(run, entry);
      const rows = run.csv.filter((r) => r['project_id'] === String(entry.id));
      expect(new Set(rows.map((r) => r['client'])), `${dialect} ${entry.name}`).toEqual(new Set([client?.displayName ?? client?.name]));
      for (const kind of ['geo', 'seo'] as const) {
        const fact = facts.find((f) => f.key === `scores.${kind}`);
        const row = rows.find((r) => r['section'] === 'scores' && r['key'] === `${kind}_score`);
        expect(Number(row?.['value']), `${dialect} ${entry.name} ${kind} export`).toBe(fact?.figure);
      }
      const sections = new Set<string>();
      for (const fact of facts) {
        const dot = fact.key.indexOf('.');
        const section = fact.key.slice(0, dot);
        if (!TABLE_SECTIONS.includes(section)) continue;
        if (fact.key.endsWith('.change') && facts.some((f) => f.key === fact.key.slice(0, -'.change'.length))) continue;
        sections.add(section);
        const row = rows.find((r) => r['section'] === section && r['key'] === fact.key.slice(dot + 1));
        expect(Number(row?.['value']), `${dialect} ${entry.name} ${fact.key} export`).toBe(fact.figure);
      }
      // The scan sections are on: keywords, page experience and AI answers each reach the export.
      for (const section of ['keywords', 'pageExperience', 'aiAnswers']) expect([...sections], `${dialect} ${entry.name}`).toContain(section);
    }
  });

  it("writes each keyword row's arrow, word and places from its two shown figures", async () => {
    const run = runs.get(dialect) as DialectRun;
    let compared = 0;
    for (const entry of await entriesOf(run)) {
      const client = run.clients.find((c) => c.id === entry.id);
      const language = client?.language ?? 'en';
      const phrases = loadPhrases(language);
      const html = parse(await readFile(join(run.out, PERIOD, entry.files.html as string), 'utf8'));
      const rows = [...elements(html)].filter((e) => e.tagName === 'tr' && (attr(e, 'class') ?? '').startsWith('keyword-'));
      for (const row of rows) {
        const cells = [...elements(row)].filter((e) => e.tagName === 'td');
        // A figure only: "out of the top 10" is no position.
        const strict = (text: string): number | null => (/^[-−]?\d+(?:[.,]\d+)?$/.test(squash(spaced(text))) ? figureOf(text) : null);
        const now = strict(textOf(cells[0] as Node));
        const change = squash(textOf(cells.at(-1) as Node));
        const before = /\(([^)]*)\)\s*$/.exec(change)?.[1];
        const previous = before === undefined ? null : strict(before);
        if (now === null || previous === null) continue;
        const places = Math.round(Math.abs(previous - now) * 10) / 10;
        // A move of less than STEADY_WITHIN places (averages of a few trials move by fractions) is steady.
        const move = places < STEADY_WITHIN ? 'steady' : now < previous ? 'up' : 'down';
        const where = `${dialect} ${entry.name}: ${change}`;
        expect(attr(row, 'class'), where).toBe(`keyword-${move}`);
        expect(change.startsWith({ up: '▲', down: '▼', steady: '=' }[move]), where).toBe(true);
        if (move !== 'steady') {
          const count = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(places);
          const word = phrases[`keywords.places.${new Intl.PluralRules(language).select(places) === 'one' ? 'one' : 'other'}`]?.replace('{count}', count) ?? '';
          expect(spaced(change), where).toContain(spaced(word));
        }
        compared += 1;
      }
    }
    expect(compared, `${dialect}: keyword rows with two figures`).toBeGreaterThan(0);
  });

  it('shows no value read after the period: no ranking, no undated AI visibility; the AI visibility is the scan’s', async () => {
    const run = runs.get(dialect) as DialectRun;
    for (const entry of await entriesOf(run)) {
      const facts = await factsOf(run, entry);
      expect(entry.percentile, `${dialect} ${entry.name}`).toBeNull();
      expect(
        facts.filter((f) => f.key === 'percentile' || f.key.startsWith('benchmark.')),
        `${dialect} ${entry.name}`,
      ).toEqual([]);
      const ai = facts.filter((f) => f.key.startsWith('ai.'));
      expect(ai.length, `${dialect} ${entry.name}: the period's scan holds the visibility`).toBeGreaterThan(0);
      for (const fact of ai) expect(fact, `${dialect} ${entry.name}`).toMatchObject({ source: 'scan', month: PERIOD });
      expect(
        facts.filter((f) => f.source === 'snapshot' && f.key.startsWith('ai.')),
        `${dialect} ${entry.name}`,
      ).toEqual([]);
    }
  });

  it('writes French reports with none of our English labels, the service’s own words marked as English', async () => {
    const run = runs.get(dialect) as DialectRun;
    for (const entry of await entriesOf(run)) {
      if (entry.language !== 'fr') continue;
      const html = parse(await readFile(join(run.out, PERIOD, entry.files.html as string), 'utf8'));
      const ours = squash(textOf(html, 'fr'));
      const found = ENGLISH_LABELS.filter((label) => ours.includes(label));
      expect(found, `${dialect} ${entry.name}`).toEqual([]);
      // The annotation's kind in French, and recommendation titles marked as the service's English.
      expect(ours).toContain('(technique)');
      const titles = [...elements(html)].filter((e) => hasClass(e, 'rec__title'));
      for (const title of titles) expect(attr(title, 'lang'), `${dialect} ${entry.name} ${textOf(title)}`).toBe('en');
    }
  });
});
