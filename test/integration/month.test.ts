// One value per month, on the printed page: against a simulator whose latest scan is already in the month after
// the period (a run weeks after the period's end), the PDF's headline and its history agree, its last period is
// the history's month before, and no month after the period appears in it (pdftotext, in English and French).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { linkToken } from '../../src/output/links.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { ReportOne } from '../support/classic-schemas.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const TOKEN = 'tok-month-7d2e9a4c1b6f3e05';
const SECRET = 'month-suite-secret-8e2b4d6f1a3c5e7b9d0f2a4c';

let sim: SimulatorHandle;
let rig: BatchRig;
let root: string;
let out: string;
let now = new Date('2026-10-18T09:00:00Z');
let frenchId: number;
let config: Config;
let entries: ProjectEntry[] = [];

const number = (value: number, locale: string): string => new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(value);
const squeeze = (text: string): string => text.replace(/[\s\u00a0\u202f]+/g, ' ');
/** The words of an HTML page: its stylesheet (inlined fonts) and tags left out. */
const pageText = (html: string): string => squeeze(html.replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]+>/g, ' '));

/** The classic history of the report answer the batch kept: month → GEO score. */
async function answeredHistory(entry: ProjectEntry): Promise<Map<string, number>> {
  const data = parsePeriodData(JSON.parse(await readFile(join(out, '2026-10', entry.files.data as string), 'utf8')));
  const history = ReportOne.parse(data?.report).sections?.history ?? [];
  return new Map(history.map((point) => [point.date.slice(0, 7), point.geo_score as number]));
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-month-'));
  out = join(root, 'out');
  sim = await startSimulator({ projectCount: 8, tokens: [TOKEN], clock: () => now });
  rig = await startBatchRig();
  frenchId = sim.state.projects().filter((p) => p.status === 'active')[1]?.id as number;
  config = ConfigSchema.parse({ report: { language: 'en' }, clients: { [String(frenchId)]: { language: 'fr' } } });
  const batch = (period: string) =>
    rig.run({ baseUrl: sim.url, tokens: [TOKEN], period: toMonth(period), outDir: out, config, clock: () => now, acceptHeld: true });
  // September run late, on 18 October; October run later still, on 20 November: both services hold next month's scan.
  expect(['complete', 'held']).toContain((await batch('2026-09')).status);
  now = new Date('2026-11-20T09:00:00Z');
  expect(['complete', 'held']).toContain((await batch('2026-10')).status);
  entries = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8'))).projects.filter((p) => p.files.pdf !== null);
}, 300_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a report run weeks after its period, the service already in the next month', () => {
  it('is held by no consistency check: the headline is the history of the period', () => {
    expect(entries.length).toBeGreaterThan(1);
    for (const entry of entries)
      expect(
        entry.held.filter((reason) => /history|historique|difference|écart|goal|objectif/.test(reason)),
        entry.name,
      ).toEqual([]);
  });

  it("prints the history's October value as the headline and September's as the last period, in English and French", async () => {
    for (const entry of entries) {
      const history = await answeredHistory(entry);
      // The service's answer holds November's scan: the batch must not have shown it.
      expect(history.has('2026-11'), entry.name).toBe(true);
      const october = history.get('2026-10');
      const september = history.get('2026-09');
      if (october === undefined) continue;
      expect(entry.geo, entry.name).toBe(october);
      const french = entry.id === frenchId;
      const locale = french ? 'fr' : 'en';
      const { stdout } = await exec('pdftotext', [join(out, '2026-10', entry.files.pdf as string), '-']);
      const text = squeeze(stdout);
      // The history table's row of GEO scores ends with October's value (the chart's legend reads "GEO SEO").
      const table = text.slice(text.indexOf(french ? 'Historique des scores' : 'Score history'));
      const row = /GEO ((?:[\d,.]+ )+)SEO/.exec(table);
      expect(row, entry.name).not.toBeNull();
      expect((row?.[1] ?? '').trim().split(' ').at(-1), entry.name).toBe(number(october, locale));
      // The summary's GEO score is October's too.
      expect(text, entry.name).toMatch(
        new RegExp(`(the GEO score|le score GEO|GEO score of|score GEO de)[^.]*? ${number(october, locale).replace('.', '\\.')}\\b`),
      );
      if (september !== undefined)
        expect(text, entry.name).toContain(french ? `mois dernier : ${number(september, locale)}` : `last month: ${number(september, locale)}`);
    }
  });

  it('shows no month after the period: only the run day, as the date of the run', async () => {
    for (const entry of entries) {
      const french = entry.id === frenchId;
      const { stdout } = await exec('pdftotext', [join(out, '2026-10', entry.files.pdf as string), '-']);
      const runDay = french ? '20 novembre 2026' : 'November 20, 2026';
      const text = squeeze(stdout);
      expect(text, entry.name).toContain(runDay);
      const rest = text.split(runDay).join(' ');
      expect(rest, entry.name).not.toMatch(/\b(nov|novembre|november|déc|dec|décembre|december)\.? 2026\b|2026-1[12]/i);
      expect(rest, entry.name).toMatch(french ? /oct\.? 2026/i : /Oct 2026/);
    }
  });

  it("gives the client site's October the report's value, and the agency index no later month", async () => {
    const publish = await runCli(['publish', '--out', out, '--json'], {
      env: { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET },
      cwd: root,
      timeoutMs: 120_000,
    });
    expect(publish.code, publish.stderr).toBe(0);
    for (const entry of entries) {
      const october = (await answeredHistory(entry)).get('2026-10');
      const page = pageText(await readFile(join(out, 'site', 'c', linkToken(SECRET, entry.id, 0), 'index.html'), 'utf8'));
      // The page's date is its newest report's, the run's day: the one later date it may name.
      expect(page.split(entry.id === frenchId ? '20 novembre 2026' : 'November 20, 2026').join(' '), entry.name).not.toMatch(
        /\b(nov|novembre|november)\.? 2026\b|2026-11/i,
      );
      if (october !== undefined) expect(page, entry.name).toContain(number(october, entry.id === frenchId ? 'fr' : 'en'));
    }
    const index = pageText(await readFile(join(out, '2026-10', 'index.html'), 'utf8'));
    // The account's average by month stops at the period, though the service's evolution holds November.
    expect(index).toMatch(/2026-09 [\d.,]+ · 2026-10 [\d.,]+/);
    expect(index).not.toMatch(/2026-11|\bNov(ember)? 2026/);
  });
});
