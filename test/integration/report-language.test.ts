// The client's language, all of it: a French report made by the real batch on the simulator, in each of its
// dialects, holds no English word of the tool's own vocabulary in its PDF's text (what the API writes itself,
// titles and descriptions, is the API's); the agency index is in the agency's language, whatever the client's.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { knowsField, readableKey } from '../../src/i18n/format.js';
import { loadLocales, loadPhrases, type Phrases } from '../../src/i18n/locales.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { DIALECT_NAMES, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const exec = promisify(execFile);
const TOKEN = 'tok-language-4c1f9e7a2b6d3e08';
const GOALS = [
  { metric: 'geo', target: 99, by: '2027-03' },
  { metric: 'trust', target: 100, by: '2026-09' },
];

/** Words of the English phrases that no French phrase uses: the tool's own English, for this test. */
function englishOnlyWords(): Set<string> {
  const locales = loadLocales();
  const words = (language: string): Set<string> =>
    new Set(
      Object.values(locales.phrases(language))
        .join(' ')
        .replace(/\{\w+\}/g, ' ')
        .toLowerCase()
        .match(/\p{L}{2,}/gu),
    );
  const french = words('fr');
  return new Set([...words('en')].filter((word) => !french.has(word)));
}

/**
 * Words the API writes itself: its free text (titles, descriptions, names, addresses: any string with a space or a
 * slash), and the keys no locale names with everything under them (shown as the API names them).
 */
function apiTextWords(value: unknown, phrases: Phrases, into = new Set<string>(), unknown = false): Set<string> {
  const add = (text: string): void => {
    for (const word of text.toLowerCase().match(/\p{L}{2,}/gu) ?? []) into.add(word);
  };
  if (typeof value === 'string') {
    if (unknown || /[\s/]/.test(value.trim())) add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) apiTextWords(item, phrases, into, unknown);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const named = knowsField(phrases, key);
      if (!named) add(readableKey(key));
      apiTextWords(item, phrases, into, unknown || !named);
    }
  }
  return into;
}

/** Every word of the scan's texts (its values, never its key names): the keywords and questions, as the service wrote them. */
function scanTextWords(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') {
    if (/\s/.test(value.trim())) for (const word of value.toLowerCase().match(/\p{L}{2,}/gu) ?? []) into.add(word);
  } else if (Array.isArray(value)) {
    for (const item of value) scanTextWords(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) scanTextWords(item, into);
  }
  return into;
}

async function pdfText(path: string): Promise<string> {
  const { stdout } = await exec('pdftotext', [path, '-']);
  return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
}

let rig: BatchRig;
let root: string;
const sims: SimulatorHandle[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-language-'));
  rig = await startBatchRig();
}, 60_000);

afterAll(async () => {
  await rig.close();
  for (const sim of sims) await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a French report speaks French', () => {
  const english = englishOnlyWords();

  it.each(DIALECT_NAMES)(
    'holds no English word of the tool in its PDF, on the %s dialect',
    async (dialect) => {
      let now = new Date('2026-10-04T06:00:00Z');
      const sim = await startSimulator({ projectCount: 12, tokens: [TOKEN], clock: () => now, dialect });
      sims.push(sim);
      // A client whose report carries what the API names beyond the spec (local presence), and one with trust signals.
      const active = sim.state.projects().filter((p) => p.status === 'active');
      const ids = active.slice(0, 3).map((p) => p.id);
      // The agency's name is its own words, not the tool's: one with no English in it.
      const config = ConfigSchema.parse({ agency: { name: 'Northwind Digital' }, report: { language: 'fr', goals: GOALS } });
      const out = join(root, dialect);
      const results = await rig.runSeptemberThenOctober(
        { baseUrl: sim.url, tokens: [TOKEN], outDir: out, config, selection: { statuses: ['active'], projectIds: ids } },
        (at) => (now = at),
      );
      for (const result of results) expect(result.summary.failed, `${dialect} ${result.summary.period}`).toBe(0);
      const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
      const done = manifest.projects.filter((p) => p.status === 'done');
      expect(done.length).toBe(3);
      for (const entry of done) {
        const text = await pdfText(join(out, '2026-10', entry.files.pdf as string));
        const data = JSON.parse(await readFile(join(out, '2026-10', entry.files.data as string), 'utf8')) as { report: unknown; scan?: unknown };
        // The service's own words: the report's texts, and the scan's (its keywords and the questions put to the AI assistants).
        const theirs = scanTextWords(data.scan, apiTextWords(data.report, loadPhrases('fr')));
        const found = [...new Set(text.toLowerCase().match(/\p{L}{2,}/gu))].filter((word) => english.has(word) && !theirs.has(word));
        expect(found, `${entry.name} (${dialect})`).toEqual([]);
        expect(text).toContain('Signaux');
        expect(text).not.toMatch(/Contact page|Legal notice|Author pages|Years in business/);
        expect(text).toMatch(/Impact (Élevé|Moyen|Faible)/);
        // A percentage changes in points wherever its change is written; no bare relative per cent.
        const percentChanges = [...text.matchAll(/\d %\s+[▲▼▶]\s+[+\-−]?[\d,]+( pts?)?/g)];
        expect(percentChanges.length, entry.name).toBeGreaterThan(0);
        for (const change of percentChanges) expect(change[1], change[0]).toBeDefined();
        expect(text).not.toMatch(/\([+\-−][\d,]+ ?%\)/);
        // French typography: the typographic minus on every negative number, no breakable space before : ; ? ! (read
        // in the page's text, since pdftotext writes no-break spaces as spaces), none inside « ».
        expect(text).not.toMatch(/(^|\s)-\d/);
        const html = await readFile(join(out, '2026-10', entry.files.html as string), 'utf8');
        // A sign hidden from screen readers (the page experience's ✓ ! ✕ in a cell of its own) is no punctuation.
        const body = html
          .slice(html.indexOf('<body'))
          .replace(/<span[^>]*aria-hidden="true"[^>]*>[^<]*<\/span>/g, ' ')
          .replace(/<[^>]+>/g, ' ')
          .replace(/&#x27;/g, "'");
        expect(body.match(/\S {1,}[:;?!](\s|$)|« |\S »/g) ?? []).toEqual([]);
      }
    },
    240_000,
  );
});

describe('the agency index speaks the agency’s language', () => {
  async function indexOf(agency: 'en' | 'fr', client: 'en' | 'fr'): Promise<{ html: string; entry: ProjectEntry }> {
    let now = new Date('2026-10-04T06:00:00Z');
    const sim = await startSimulator({ projectCount: 6, tokens: [TOKEN], clock: () => now });
    sims.push(sim);
    const id = sim.state.projects().filter((p) => p.status === 'active')[0]?.id as number;
    const config = ConfigSchema.parse({ report: { language: agency, goals: GOALS }, clients: { [String(id)]: { language: client } } });
    const out = join(root, `index-${agency}-${client}`);
    await rig.runSeptemberThenOctober(
      { baseUrl: sim.url, tokens: [TOKEN], outDir: out, config, selection: { statuses: ['active'], projectIds: [id] } },
      (at) => (now = at),
    );
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
    return { html: await readFile(join(out, '2026-10', 'index.html'), 'utf8'), entry: manifest.projects[0] as ProjectEntry };
  }

  it('writes a French client’s goals in English on an English index', async () => {
    const { html, entry } = await indexOf('en', 'fr');
    expect(entry.language).toBe('fr');
    expect(html).toContain('Trust score: 100 points or more: missed');
    expect(html).not.toContain('Score de confiance');
  }, 120_000);

  it('writes an English client’s goals in French on a French index', async () => {
    const { html, entry } = await indexOf('fr', 'en');
    expect(entry.language).toBe('en');
    expect(html).toContain('Score de confiance\u00a0: 100 points ou plus\u00a0: manqué');
    expect(html).not.toMatch(/Trust score|: missed/);
  }, 120_000);
});
