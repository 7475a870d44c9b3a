// Share of voice through the real batch on every reading of the simulator, two months: for every client, the export
// has one share-of-voice figure per assistant equal to the rule computed here from the answers the simulator serves
// (asked again of a classic twin with the same seed: named ÷ (named + competitor names, each once per answer)),
// with its change since September; the PDF's AI answers section shows the same figures, the grid and the sources
// by kind, in English and French; a `sov:chatgpt` goal shows its status. The strict reading sends no competitor
// field: there the competitors are found in the answers' text, and the rule here reads the text too.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMonth } from '../../src/period.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { writeExport } from '../../src/export/write.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { DIALECT_NAMES } from '../../src/simulator/dialects.js';
import { THIRD_PARTY_SOURCES } from '../../src/simulator/sections.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const exec = promisify(execFile);
const TOKEN = 'tok-voice-7d2c9e41b8a3f065';
const PROJECTS = 3;
const MONTHS = [
  [toMonth('2026-09'), '2026-10-04T06:00:00Z'],
  [toMonth('2026-10'), '2026-11-04T06:00:00Z'],
] as const;
const LABELS: Record<string, string> = { chatgpt: 'ChatGPT', perplexity: 'Perplexity', gemini: 'Gemini', claude: 'Claude', copilot: 'Copilot' };

let rig: BatchRig;
/** The classic reading of the dialect's world: made at the same moment, since a world is anchored on its first day. */
let twin: SimulatorHandle;
let root: string;
let now = new Date(MONTHS[0][1]);

interface ServedGeo {
  positions: Array<{ question_id: number; ai: string; mentioned: boolean; position: number | null; competitors: string[] }>;
  raw_responses: Array<{ question_id: number; ai: string; response: string }>;
}

/** The period's scan as the simulator serves it in its classic reading (every reading is a transform of it). */
async function served(scanId: number): Promise<ServedGeo> {
  const res = await fetch(`${twin.url}/api/v1/scans.php?id=${scanId}&include=geo`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { scan: { geo: ServedGeo } } }).data.scan.geo;
}

/** The rule, counted here: per assistant, answers naming the site and competitor names (each once per answer). */
function counted(geo: ServedGeo, ownDomain: string, fromText: boolean): Map<string, { named: number; names: number }> {
  const out = new Map<string, { named: number; names: number }>();
  for (const p of geo.positions) {
    const text = geo.raw_responses.find((r) => r.question_id === p.question_id && r.ai === p.ai)?.response ?? '';
    // Without the field: every domain of the text that is neither the client's nor a directory's, once.
    const inText = new Set([...text.matchAll(/\b((?:[a-z0-9-]+\.)+[a-z]{2,})\b/g)].map((m) => m[1] as string));
    const names = fromText
      ? [...inText].filter((d) => d !== ownDomain && !(THIRD_PARTY_SOURCES as readonly string[]).includes(d)).length
      : p.competitors.length;
    for (const key of [p.ai, 'all']) {
      const seen = out.get(key) ?? { named: 0, names: 0 };
      out.set(key, { named: seen.named + (p.mentioned ? 1 : 0), names: seen.names + names });
    }
  }
  return out;
}

const share = (c: { named: number; names: number }): number => Math.round((c.named / (c.named + c.names)) * 1000) / 10;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-voice-'));
  rig = await startBatchRig();
}, 120_000);

afterAll(async () => {
  await rig.close();
  await rm(root, { recursive: true, force: true });
});

describe.each(DIALECT_NAMES)('share of voice from the %s reading', (dialect) => {
  let sim: SimulatorHandle;
  let out: string;
  let config: Config;
  let frenchId: number;
  let goalId: number;
  let rows: Array<Record<string, unknown>>;

  beforeAll(async () => {
    out = join(root, dialect);
    now = new Date(MONTHS[0][1]);
    sim = await startSimulator({ projectCount: PROJECTS, tokens: [TOKEN], clock: () => now, dialect });
    twin = await startSimulator({ projectCount: PROJECTS, tokens: [TOKEN], clock: () => now });
    const active = sim.state.projects().filter((p) => p.status === 'active');
    frenchId = active[0]?.id as number;
    goalId = active[1]?.id as number;
    config = ConfigSchema.parse({
      report: { language: 'en', maxScoreDrop: 100 },
      clients: {
        [String(frenchId)]: { language: 'fr', competitors: ['Example Rival = example-rival.com'] },
        [String(goalId)]: { goals: [{ metric: 'sov:chatgpt', target: 100, by: '2027-06' }] },
      },
    });
    for (const [period, day] of MONTHS) {
      now = new Date(day);
      const result = await rig.run({ baseUrl: sim.url, tokens: [TOKEN], period, outDir: out, config, clock: () => now });
      expect(result.summary.failed).toBe(0);
      expect(result.summary.sectionsLeftOut).toEqual([]);
    }
    const file = join(root, `${dialect}.jsonl`);
    await writeExport({ outDir: out, periods: [], config, clock: () => now, format: 'json', file, threads: 1 });
    rows = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }, 400_000);

  afterAll(async () => {
    await sim.close();
    await twin.close();
  });

  const manifestOf = async (period: string): Promise<Manifest> => Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8')));
  const scanOf = async (period: string, entry: ProjectEntry): Promise<number> => {
    const saved = parsePeriodData(JSON.parse(await readFile(join(out, period, entry.files.data as string), 'utf8')));
    return saved?.scan?.id as number;
  };
  const pdfText = async (entry: ProjectEntry): Promise<string> => {
    const { stdout } = await exec('pdftotext', [join(out, '2026-10', entry.files.pdf as string), '-']);
    return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
  };
  /** The PDF's lines as laid out on the page (a table row is one line), spaces collapsed. */
  const pdfLines = async (entry: ProjectEntry): Promise<string[]> => {
    const { stdout } = await exec('pdftotext', ['-layout', join(out, '2026-10', entry.files.pdf as string), '-']);
    return stdout.split('\n').map((line) => line.replace(/[\s\u00a0\u202f]+/g, ' ').trim());
  };

  it('exports one share of voice per assistant, equal to the rule counted from the served answers, with its change; the PDF shows it', async () => {
    const october = (await manifestOf('2026-10')).projects.filter((p) => p.status === 'done');
    const september = await manifestOf('2026-09');
    expect(october.length).toBeGreaterThanOrEqual(2);
    const fromText = dialect === 'strict';
    let compared = 0;
    for (const entry of october) {
      const before = september.projects.find((p) => p.id === entry.id) as ProjectEntry;
      const domain = String(rows.find((r) => r['project_id'] === entry.id)?.['domain'] ?? '');
      const nowCounts = counted(await served(await scanOf('2026-10', entry)), domain, fromText);
      const beforeCounts = counted(await served(await scanOf('2026-09', before)), domain, fromText);
      const voiceRows = rows.filter(
        (r) => r['project_id'] === entry.id && r['period'] === '2026-10' && r['section'] === 'aiAnswers' && /^sov\./.test(String(r['key'])),
      );
      // One per assistant, and no other.
      expect(voiceRows.map((r) => r['key']).sort()).toEqual(
        [...nowCounts.keys()]
          .filter((k) => k !== 'all')
          .map((k) => `sov.${k}`)
          .sort(),
      );
      const french = entry.id === frenchId;
      const text = await pdfText(entry);
      const lines = await pdfLines(entry);
      for (const [assistant, c] of nowCounts) {
        const expected = share(c);
        const change = Math.round((expected - share(beforeCounts.get(assistant) as { named: number; names: number })) * 10) / 10;
        const exported = rows.find(
          (r) => r['project_id'] === entry.id && r['period'] === '2026-10' && r['key'] === (assistant === 'all' ? 'sov' : `sov.${assistant}`),
        );
        expect(exported?.['value'], `${dialect} ${entry.id} ${assistant}`).toBe(expected);
        expect(exported?.['unit']).toBe('%');
        expect(exported?.['change']).toBeCloseTo(change, 5);
        // The PDF's row of that assistant: its label, the answers naming the site, the competitor names, the mention
        // rate, then the share of voice with its change in points.
        const written = (n: number) => Math.abs(n).toLocaleString(french ? 'fr-FR' : 'en-US', { maximumFractionDigits: 1 });
        const shown = french ? `${written(expected)} %` : `${written(expected)}%`;
        const moved = change === 0 ? '\\(=\\)' : `\\(${change > 0 ? '\\+' : '−'}${written(change).replace('.', '\\.')} pts?\\)`;
        const label = assistant === 'all' ? (french ? 'Tous les assistants' : 'All assistants') : LABELS[assistant];
        const row = new RegExp(`^${label} ${c.named} (of|sur) \\d+ ${c.names} \\d+(?:[.,]\\d)? ?% \\([^)]*\\) ${shown.replace('.', '\\.')} ${moved}`);
        expect(
          lines.filter((line) => row.test(line)),
          `${dialect} ${entry.id} ${assistant}: ${lines.filter((line) => line.startsWith(label as string)).join(' | ')}`,
        ).toHaveLength(1);
        compared += 1;
      }
      expect(text).toContain(french ? 'Part des réponses IA par assistant' : 'Share of AI answers per assistant');
      expect(text).toContain(french ? 'Chaque question, chaque assistant' : 'Each question, each assistant');
      expect(text).toMatch(/✓ \d|✕/);
      expect(text).toContain(french ? 'Sources citées par les réponses' : 'Sources the answers name');
      expect(text).toMatch(
        french
          ? /Autres \(annuaires, médias, places de marché\) .*(yelp\.com|wikipedia\.org|reddit\.com|tripadvisor\.com|pagesjaunes\.fr) : \d+ réponses?/
          : /Others \(directories, media, marketplaces\) .*(yelp\.com|wikipedia\.org|reddit\.com|tripadvisor\.com|pagesjaunes\.fr): \d+ answers?/,
      );
      expect(text).toMatch(
        french ? /Celles des concurrents .*\.(com|net|org|example) : \d+ réponses?/ : /Competitors' .*\.(com|net|org|example): \d+ answers?/,
      );
    }
    expect(compared).toBeGreaterThanOrEqual(2 * 6);
  });

  it('shows a sov:chatgpt goal with its value and status', async () => {
    const entry = (await manifestOf('2026-10')).projects.find((p) => p.id === goalId) as ProjectEntry;
    const expected = share(
      counted(await served(await scanOf('2026-10', entry)), String(rows.find((r) => r['project_id'] === goalId)?.['domain'] ?? ''), dialect === 'strict').get(
        'chatgpt',
      ) as { named: number; names: number },
    );
    const goal = rows.find((r) => r['project_id'] === goalId && r['period'] === '2026-10' && r['key'] === 'sov:chatgpt.value');
    expect(goal?.['value']).toBe(expected);
    const text = await pdfText(entry);
    // The goal's card: its label beside this month's value (pdftotext reads the columns in either order), and its status.
    const value = `${String(expected).replace('.', '\\.')}%`;
    const label = 'Share of AI answers on ChatGPT: 100% or more';
    expect(text).toMatch(new RegExp(`${value}.{0,80}${label}|${label}.{0,80}${value}`));
    expect(text.slice(text.indexOf(label))).toMatch(/^.{0,200}No trend yet/);
  });
});
