// A run made 40 days after the period, on every dialect of the simulator, the scan sections on, three clients in
// French and two with a display name: each client's GEO and SEO are written the same in the headline, the history
// table, the printed PDF, the manifest (what the mail and the site read), the agency index and the fact table; no
// value read after the period is shown (the ranking, the service's undated AI visibility); the AI visibility is the
// period's scan's; French reports carry none of our English labels; the index names clients by their display name.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { toMonth } from '../../src/period.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import type { Fact } from '../../src/report/facts.js';
import { DIALECT_NAMES, startSimulator, type DialectName } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const TOKEN = 'tok-late-run-5d1c7a93e2b8';
const PERIOD = toMonth('2026-10');
/** 40 days after the last day of October. */
const LATE = new Date('2026-12-10T06:00:00Z');
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

interface DialectRun {
  out: string;
  clients: Array<{ id: number; name: string; language: 'en' | 'fr'; displayName: string | null }>;
}

let rig: BatchRig;
let root: string;
const runs = new Map<DialectName, DialectRun>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-late-views-'));
  rig = await startBatchRig();
  for (const dialect of DIALECT_NAMES) {
    const sim = await startSimulator({ seed: 38, projectCount: 6, tokens: [TOKEN], clock: () => LATE, dialect });
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
        agency: { name: 'Northwind Digital' },
        report: { maxScoreDrop: 100 },
        clients: Object.fromEntries(
          clients.map((c) => [
            String(c.id),
            {
              language: c.language,
              ...(c.displayName === null ? {} : { displayName: c.displayName }),
              annotations: [{ date: '2026-10-03', text: 'Titles rewritten', kind: 'technical' }],
            },
          ]),
        ),
      });
      const out = join(root, dialect);
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
      runs.set(dialect, { out, clients });
    } finally {
      await sim.close();
    }
  }
}, 400_000);

afterAll(async () => {
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
