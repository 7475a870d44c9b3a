// The same month last year on the scores card, through the real batch on the simulator: a client whose report history
// reaches back thirteen months shows "October 2025: 64 (▲ +7)" in the HTML and in the printed PDF, in its own
// language, from the figures of its fact table; a client with twelve months shows no such line; and a month saved a
// year before wins over the history: what its report showed stays what the client was told.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { Manifest } from '../../src/output/store.js';
import { toMonth } from '../../src/period.js';
import { parsePeriodData, type PeriodData } from '../../src/report/period-data.js';
import { createDataset, historyMonthsOf, monthNumber } from '../../src/simulator/data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const exec = promisify(execFile);
const TOKEN = 'tok-year-ago-8d2f4a6c1e3b5a70';

let sim: SimulatorHandle;
let rig: BatchRig;
let root: string;
let now = new Date('2026-11-04T06:00:00Z');
/** Followed long enough that October 2025 is in its October 2026 report's history (English and French). */
let longEnglish: number;
let longFrench: number;
/** Twelve months of history only. */
let shortId: number;
let config: Config;

function batch(period: string, outDir: string, projectIds: number[]) {
  return rig.run({
    baseUrl: sim.url,
    tokens: [TOKEN],
    period: toMonth(period),
    outDir,
    config,
    clock: () => now,
    selection: { statuses: ['active'], projectIds },
  });
}

async function entryOf(out: string, period: string, id: number) {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8')));
  const entry = manifest.projects.find((p) => p.id === id);
  if (entry === undefined) throw new Error(`no entry for ${id} in ${period}`);
  return entry;
}

async function periodData(out: string, period: string, id: number): Promise<PeriodData> {
  const data = parsePeriodData(JSON.parse(await readFile(join(out, period, (await entryOf(out, period, id)).files.data as string), 'utf8')));
  if (data === null) throw new Error(`no data for ${id}`);
  return data;
}

/** The HTML's text, tags and styles out, spaces made plain. */
async function htmlText(out: string, period: string, id: number): Promise<string> {
  const html = await readFile(join(out, period, (await entryOf(out, period, id)).files.html as string), 'utf8');
  return html
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/[\s\u00a0\u202f]+/g, ' ');
}

/** The written PDF's text, as Poppler extracts it. */
async function pdfText(out: string, period: string, id: number): Promise<string> {
  const file = join(out, period, (await entryOf(out, period, id)).files.pdf as string);
  const { stdout } = await exec('pdftotext', ['-enc', 'UTF-8', file, '-']);
  return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
}

const figure = (data: PeriodData, key: string): number => {
  const fact = data.facts?.find((f) => f.key === key);
  if (fact === undefined) throw new Error(`no fact ${key}`);
  return fact.figure;
};

const signed = (value: number, locale: string): string =>
  new Intl.NumberFormat(locale, { maximumFractionDigits: 1, signDisplay: 'exceptZero' })
    .format(value)
    .replace(/[\u00a0\u202f]/g, ' ')
    // The report writes a minus sign, not a hyphen.
    .replace('-', '\u2212');
const arrow = (value: number): string => (value > 0 ? '▲' : value < 0 ? '▼' : '■');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-year-ago-'));
  // The simulator's projects as its seed makes them (42, the default), to pick clients by how long they were followed.
  const dataset = createDataset({ seed: 42, projectCount: 16, hostileNames: false, now });
  sim = await startSimulator({ projectCount: 16, tokens: [TOKEN], clock: () => now });
  rig = await startBatchRig();
  const october2025 = monthNumber(new Date('2025-10-15T00:00:00Z'));
  const active = dataset.projects.filter((p) => p.status === 'active');
  // A scan in October 2025 exists for a project created before it.
  const long = active.filter((p) => historyMonthsOf(p) > 13 && p.createdMonth < october2025);
  const short = active.filter((p) => historyMonthsOf(p) === 12 && p.createdMonth < october2025 - 2);
  longEnglish = long.find((p) => p.language === 'en')?.id ?? (long[0]?.id as number);
  longFrench = long.find((p) => p.id !== longEnglish)?.id as number;
  shortId = short[0]?.id as number;
  expect([longEnglish, longFrench, shortId].every((id) => typeof id === 'number')).toBe(true);
  config = ConfigSchema.parse({
    clients: { [String(longEnglish)]: { language: 'en' }, [String(longFrench)]: { language: 'fr' }, [String(shortId)]: { language: 'en' } },
  });
}, 60_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('the same month last year, from the history', () => {
  let out: string;
  beforeAll(async () => {
    out = join(root, 'history-only');
    now = new Date('2026-11-04T06:00:00Z');
    expect(['complete', 'held']).toContain((await batch('2026-10', out, [longEnglish, longFrench, shortId])).status);
  }, 240_000);

  it('shows October 2025 and the change on the card of a client with thirteen months, in the HTML and the PDF, from its facts', async () => {
    const data = await periodData(out, '2026-10', longEnglish);
    for (const kind of ['geo', 'seo'] as const) {
      const before = figure(data, `scores.${kind}.yearAgo`);
      const change = figure(data, `scores.${kind}.yearChange`);
      // The change is that of the two figures shown, never of the raw values.
      expect(change).toBe(Math.round((figure(data, `scores.${kind}`) - before) * 10) / 10);
      expect(data.facts?.find((f) => f.key === `scores.${kind}.yearAgo`)?.month).toBe('2025-10');
      const line = `October 2025: ${before} (${arrow(change)} ${signed(change, 'en')})`;
      expect(await htmlText(out, '2026-10', longEnglish)).toContain(`Same month last year ${line}`);
      expect(await pdfText(out, '2026-10', longEnglish)).toContain(line);
    }
  });

  it("writes the line in the client's language", async () => {
    const data = await periodData(out, '2026-10', longFrench);
    const before = figure(data, 'scores.geo.yearAgo');
    const change = figure(data, 'scores.geo.yearChange');
    const line = `octobre 2025 : ${new Intl.NumberFormat('fr', { maximumFractionDigits: 1 }).format(before)} (${arrow(change)} ${signed(change, 'fr')})`;
    expect(await htmlText(out, '2026-10', longFrench)).toContain(`Même mois l’an dernier ${line}`);
    expect(await pdfText(out, '2026-10', longFrench)).toContain(line);
  });

  it('shows no such line for a client whose history holds twelve months', async () => {
    const data = await periodData(out, '2026-10', shortId);
    expect(data.facts?.some((f) => f.key.endsWith('.yearAgo'))).toBe(false);
    expect(await htmlText(out, '2026-10', shortId)).not.toContain('Same month last year');
    expect(await pdfText(out, '2026-10', shortId)).not.toContain('October 2025');
  });
});

describe('the same month last year, as its saved report showed it', () => {
  let out: string;
  let told: number;
  beforeAll(async () => {
    out = join(root, 'saved');
    now = new Date('2025-11-04T06:00:00Z');
    expect(['complete', 'held']).toContain((await batch('2025-10', out, [longEnglish])).status);
    // The service revised October 2025 since: the saved report's figure is what the client was told, and stays.
    const entry = await entryOf(out, '2025-10', longEnglish);
    const file = join(out, '2025-10', entry.files.data as string);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { facts: Array<{ key: string; value: number; figure: number; shown: string }> };
    const fact = saved.facts.find((f) => f.key === 'scores.geo');
    if (fact === undefined) throw new Error('no GEO fact in October 2025');
    told = fact.figure >= 50 ? fact.figure - 9 : fact.figure + 9;
    Object.assign(fact, { value: told, figure: told, shown: String(told) });
    await writeFile(file, JSON.stringify(saved));
    now = new Date('2026-11-04T06:00:00Z');
    expect(['complete', 'held']).toContain((await batch('2026-10', out, [longEnglish])).status);
  }, 240_000);

  it('compares with the figure October 2025 showed, not the history of today', async () => {
    const data = await periodData(out, '2026-10', longEnglish);
    const fact = data.facts?.find((f) => f.key === 'scores.geo.yearAgo');
    expect(fact?.figure).toBe(told);
    expect(fact?.source).toBe('told');
    const change = figure(data, 'scores.geo.yearChange');
    expect(change).toBe(Math.round((figure(data, 'scores.geo') - told) * 10) / 10);
    expect(await pdfText(out, '2026-10', longEnglish)).toContain(`October 2025: ${told} (${arrow(change)} ${signed(change, 'en')})`);
  });
});
