// The self-check reads the written views back: the printed PDF (poppler), the agency index and the mail (sent to a
// real SMTP server on loopback). A run with the built-in templates holds no report for its views; an agency's template
// folder whose score card prints another figure than the report's fact, and whose index prints another GEO, gets each
// such report held with the fact named; a mail template that writes another figure has that mail refused, the fact
// named, while the mail the built-in template writes goes out.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { deliverPeriod } from '../../src/delivery/email/index.js';
import { parseSmtpUrl } from '../../src/delivery/email/smtp-url.js';
import { createSmtpTransport } from '../../src/delivery/email/transport.js';
import { loadLocales } from '../../src/i18n/locales.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { toMonth } from '../../src/period.js';
import type { Fact } from '../../src/report/facts.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { BUILT_IN_TEMPLATES_DIR, loadTemplates } from '../../src/render/template-check/load.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { startSmtpServer, type SmtpTestServer } from '../support/email-fixtures.js';

const TOKEN = 'tok-view-check-7a2e91c4d8b3';
const PERIOD = toMonth('2026-10');
const CLOCK = (): Date => new Date('2026-11-04T06:00:00Z');
/** What the self-check of the views writes, in English (the agency's language here). */
const VIEW_REASON = /: the (PDF|agency index|mail|mail's text part) shows /;

let root: string;
let sim: SimulatorHandle;
let rig: BatchRig;
let config: Config;
let ids: number[];
let agencyDir: string;

async function agencyFolder(dir: string): Promise<string> {
  const builtIn = (name: string): Promise<string> => readFile(join(BUILT_IN_TEMPLATES_DIR, name), 'utf8');
  const files: Record<string, string> = {
    // The score card prints the benchmark's figure where the score's goes.
    'partials/score-card.hbs': (await builtIn('partials/score-card.hbs')).replace(
      '<span class="score-card__number" data-fact="scores.{{kind}}">{{score card.value}}</span>',
      '<span class="score-card__number" data-fact="scores.{{kind}}">{{score card.benchmarkAverage}}</span>',
    ),
    // The index prints the percentile in the GEO column.
    'index.hbs': (await builtIn('index.hbs')).replace('data-fact="scores.geo">{{score geo}}', 'data-fact="scores.geo">{{score percentile}}'),
    // The mail prints last month's figure where this month's goes.
    'email.hbs': (await builtIn('email.hbs')).replace(
      '<span data-fact="{{fact}}">{{score value}}</span>',
      '<span data-fact="{{fact}}">{{score change.previous}}</span>',
    ),
  };
  for (const [name, text] of Object.entries(files)) {
    expect(text, name).not.toBe(await builtIn(name));
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

async function rendererOf(dir: string | null): Promise<HtmlRenderer> {
  return dir === null ? createHtmlRenderer({ locales: loadLocales() }) : createHtmlRenderer({ templates: await loadTemplates({ agencyDir: dir }) });
}

async function run(out: string, renderer: HtmlRenderer): Promise<ProjectEntry[]> {
  const result = await rig.run({
    baseUrl: sim.url,
    tokens: [TOKEN],
    outDir: out,
    config,
    period: PERIOD,
    clock: CLOCK,
    renderer,
    selection: { statuses: ['active'], projectIds: ids },
  });
  expect(result.summary.failed).toBe(0);
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
  return manifest.projects.filter((p) => p.status === 'done').sort((a, b) => a.id - b.id);
}

async function factsOf(out: string, entry: ProjectEntry): Promise<Map<string, Fact>> {
  const data = JSON.parse(await readFile(join(out, PERIOD, entry.files.data as string), 'utf8')) as { facts: Fact[] };
  return new Map(data.facts.map((fact) => [fact.key, fact]));
}

async function send(out: string, renderer: HtmlRenderer, server: SmtpTestServer, acceptHeld = false) {
  const settings = parseSmtpUrl(server.url, { allowInsecure: false });
  return deliverPeriod({
    config,
    period: PERIOD,
    outDir: out,
    mode: 'send',
    transport: () => createSmtpTransport(settings, { messageTimeoutMs: 5000 }),
    serverLabel: settings.display,
    renderer,
    branding: await brandingFrom(config),
    sleep: async () => {},
    acceptHeld,
  });
}

let builtInOut: string;
let agencyOut: string;
let builtInEntries: ProjectEntry[];
let agencyEntries: ProjectEntry[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-view-check-'));
  sim = await startSimulator({ projectCount: 8, tokens: [TOKEN], clock: CLOCK });
  ids = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .slice(0, 4)
    .map((p) => p.id);
  config = ConfigSchema.parse({
    agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
    report: { maxScoreDrop: 100 },
    delivery: { email: { from: 'reports@northwind.example' } },
    // Two clients in French: their PDFs are read with the French labels.
    clients: Object.fromEntries(ids.map((id, i) => [String(id), { language: i < 2 ? 'fr' : 'en', email: { to: [`client-${id}@client.example`] } }])),
  });
  rig = await startBatchRig();
  agencyDir = await agencyFolder(join(root, 'templates'));
  builtInOut = join(root, 'built-in');
  agencyOut = join(root, 'agency');
  builtInEntries = await run(builtInOut, await rendererOf(null));
  agencyEntries = await run(agencyOut, await rendererOf(agencyDir));
}, 300_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('the self-check of the written views', () => {
  it('holds no report made with the built-in templates', () => {
    expect(builtInEntries.map((e) => e.id)).toEqual([...ids].sort((a, b) => a - b));
    for (const entry of builtInEntries)
      expect(
        entry.held.filter((reason) => VIEW_REASON.test(reason)),
        entry.name,
      ).toEqual([]);
  });

  it("holds each report whose PDF prints another score than its fact, naming the fact, the PDF's figure and the table's", async () => {
    let held = 0;
    for (const entry of agencyEntries) {
      const facts = await factsOf(agencyOut, entry);
      for (const kind of ['geo', 'seo'] as const) {
        const score = facts.get(`scores.${kind}`) as Fact;
        const benchmark = facts.get(`benchmark.${kind}`);
        // The PDF is in the client's language; the reason in the agency's (English), with the figures as printed.
        if (benchmark === undefined || benchmark.figure === score.figure) {
          expect(
            entry.held.filter((reason) => reason.startsWith(`${kind.toUpperCase()} score: the PDF shows`)),
            entry.name,
          ).toEqual([]);
        } else {
          const reason = `${kind.toUpperCase()} score: the PDF shows ${benchmark.shown} where the fact table says ${score.shown}.`;
          expect(entry.held, entry.name).toContain(reason);
          held += 1;
        }
      }
    }
    expect(held).toBeGreaterThan(0);
  });

  it('holds each report whose row of the agency index prints another GEO score, and the index shows it held', async () => {
    const index = await readFile(join(agencyOut, PERIOD, 'index.html'), 'utf8');
    let held = 0;
    for (const entry of agencyEntries) {
      const geo = (await factsOf(agencyOut, entry)).get('scores.geo') as Fact;
      const shown = entry.percentile === null ? '—' : String(entry.percentile);
      const reason = `GEO score: the agency index shows ${shown} where the fact table says ${geo.shown}.`;
      if (entry.percentile === geo.figure) continue;
      expect(entry.held, entry.name).toContain(reason);
      expect(index).toContain(reason);
      held += 1;
    }
    expect(held).toBeGreaterThan(0);
  });

  it('sends the mails the built-in template writes, and refuses one that writes another figure, naming the fact', async () => {
    const server = await startSmtpServer();
    try {
      const builtIn = await send(builtInOut, await rendererOf(null), server);
      expect(builtIn.failed).toEqual([]);
      expect(builtIn.sent).toBe(ids.length);
      expect(server.accepted).toHaveLength(ids.length);

      // The agency's reports are held by their PDF and index: released here, so the mail's own check is the one met.
      const agency = await send(agencyOut, await rendererOf(agencyDir), server, true);
      const refusedIds = new Set(agency.failed.map((f) => f.id));
      expect(refusedIds.size).toBeGreaterThan(0);
      expect(server.accepted.length).toBe(ids.length + agency.sent);
      for (const entry of agencyEntries) {
        const geo = (await factsOf(agencyOut, entry)).get('scores.geo') as Fact;
        if (entry.geoChange === 0) continue;
        expect(refusedIds.has(entry.id), entry.name).toBe(true);
        const reason = agency.failed.find((f) => f.id === entry.id)?.reason ?? '';
        expect(reason).toContain(`the fact table says ${geo.shown}.`);
        expect(reason).toMatch(/GEO score: the mail shows /);
      }
    } finally {
      await server.close();
    }
  });
});
