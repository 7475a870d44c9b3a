// Two monthly periods of simulator data through the real batch: changes, recommendation tracking, the summary in
// English and French, the pre-send check (held reports, exit code 4) and the PDF's metadata.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportOne, type Recommendation } from '../support/classic-schemas.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { Manifest } from '../../src/output/store.js';
import { FLAT_THRESHOLD } from '../../src/report/deltas.js';
import { parsePeriodData, type PeriodData } from '../../src/report/period-data.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { toMonth } from '../../src/period.js';

const exec = promisify(execFile);
const TOKEN = 'tok-periods-4c9e1a7b3d5f2e80';

let sim: SimulatorHandle;
let rig: BatchRig;
let root: string;
let out: string;
let now = new Date('2026-10-04T06:00:00Z');
let frenchId: number;
let config: Config;

function batch(period: string, cfg: Config, acceptHeld = false) {
  return rig.run({ baseUrl: sim.url, tokens: [TOKEN], period: toMonth(period), outDir: out, config: cfg, clock: () => now, acceptHeld });
}

async function periodData(period: string, id: number): Promise<PeriodData> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8')));
  const entry = manifest.projects.find((p) => p.id === id);
  const data = parsePeriodData(JSON.parse(await readFile(join(out, period, entry?.files.data as string), 'utf8')));
  if (data === null) throw new Error(`no data for ${id}`);
  return data;
}

async function reportText(period: string, id: number): Promise<string> {
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, period, 'manifest.json'), 'utf8')));
  const entry = manifest.projects.find((p) => p.id === id);
  const html = await readFile(join(out, period, entry?.files.html as string), 'utf8');
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

/** The GEO score of `month` in the October answer's own history: the month a report shows a value for. */
function monthGeo(data: PeriodData, month: string): number {
  const point = (ReportOne.parse(data.report).sections?.history ?? []).filter((p) => p.date.startsWith(month)).at(-1);
  if (point === undefined) throw new Error(`no history point in ${month}`);
  return point.geo_score as number;
}

const recIds = (data: PeriodData): Set<string> =>
  new Set((ReportOne.parse(data.report).sections?.recommendations ?? []).map((r: Recommendation) => String(r.id)));

const oneDecimal = (value: number, locale: string): string =>
  new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(value).replace(/[\u00a0\u202f]/g, ' ');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-periods-'));
  out = join(root, 'out');
  sim = await startSimulator({ projectCount: 16, tokens: [TOKEN], clock: () => now });
  rig = await startBatchRig();
  frenchId = sim.state.projects().filter((p) => p.status === 'active')[1]?.id as number;
  // The agency states English, as a client without a language would otherwise follow its project's.
  config = ConfigSchema.parse({ report: { language: 'en' }, clients: { [String(frenchId)]: { language: 'fr', note: 'Merci pour ce mois.' } } });
  now = new Date('2026-10-04T06:00:00Z');
  expect((await batch('2026-09', config)).status).toBe('complete');
  now = new Date('2026-11-04T06:00:00Z');
  const october = await batch('2026-10', config);
  expect(['complete', 'held']).toContain(october.status);
}, 240_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('month over month', () => {
  it('shows the change of the GEO score with its sign and arrow, as the data says', async () => {
    const active = sim.state.projects().filter((p) => p.status === 'active');
    let checked = 0;
    for (const project of active.filter((p) => p.id !== frenchId).slice(0, 6)) {
      // The service's answer of 4 November holds November's scan: the report shows its history's October and September.
      const oct = await periodData('2026-10', project.id);
      const before = monthGeo(oct, '2026-09');
      const after = monthGeo(oct, '2026-10');
      const text = await reportText('2026-10', project.id);
      const delta = after - before;
      if (Math.abs(delta) < FLAT_THRESHOLD) {
        expect(text).toContain(`your GEO score held steady at ${oneDecimal(after, 'en')}`);
      } else {
        // The verb says the way and the size: "edged up" or "slipped" under 3 points, "sharply" from 8.
        const size = Math.abs(delta);
        const verb = delta > 0 ? (size < 3 ? 'edged up' : size < 8 ? 'rose' : 'rose sharply,') : size < 3 ? 'slipped' : size < 8 ? 'fell' : 'fell sharply,';
        const unit = Math.abs(delta) < 2 && oneDecimal(Math.abs(delta), 'en') === '1' ? 'point' : 'points';
        const to = size < 8 ? ' to' : ', to';
        expect(text).toContain(`your GEO score ${verb} by ${oneDecimal(size, 'en')} ${unit}${to} ${oneDecimal(after, 'en')}`);
        expect(text).toContain(delta > 0 ? '▲' : '▼');
        expect(text).toContain(`${delta > 0 ? '▲ +' : '▼ −'}${oneDecimal(Math.abs(delta), 'en')}`);
      }
      checked += 1;
    }
    expect(checked).toBe(6);
  });

  it('tracks recommendations by id: new, resolved, and carried forward with their first period', async () => {
    const active = sim.state.projects().filter((p) => p.status === 'active');
    let moved = 0;
    for (const project of active.filter((p) => p.id !== frenchId)) {
      const [sep, oct] = [await periodData('2026-09', project.id), await periodData('2026-10', project.id)];
      const [before, after] = [recIds(sep), recIds(oct)];
      const added = [...after].filter((id) => !before.has(id));
      const resolved = [...before].filter((id) => !after.has(id));
      for (const id of after) {
        expect(oct.recommendationsFirstSeen[id]).toBe(before.has(id) ? sep.recommendationsFirstSeen[id] : '2026-10');
      }
      if (added.length === 0 && resolved.length === 0) continue;
      moved += 1;
      const text = await reportText('2026-10', project.id);
      const resolvedPart = resolved.length === 0 ? 'No recommendation was' : `${resolved.length} recommendation${resolved.length === 1 ? ' was' : 's were'}`;
      const newPart = added.length === 0 ? 'none is' : `${added.length} ${added.length === 1 ? 'is' : 'are'}`;
      // Then a full stop, or a semicolon before the recommendation open longest.
      const resolvedText = `${resolvedPart} resolved since last month and ${newPart} new`;
      expect(text).toContain(resolvedText);
      expect(text).toContain('What changed since last month');
      const titleOf = (data: PeriodData, id: string) =>
        (ReportOne.parse(data.report).sections?.recommendations ?? []).find((r: Recommendation) => String(r.id) === id)?.title as string;
      for (const id of added) expect(text).toContain(titleOf(oct, id));
      for (const id of resolved) expect(text).toContain(titleOf(sep, id));
    }
    // The simulator moves some recommendations every month: the test must have seen movement.
    expect(moved).toBeGreaterThan(0);
  });

  it('writes the summary in French for a French client, with French numbers', async () => {
    const oct = await periodData('2026-10', frenchId);
    const text = await reportText('2026-10', frenchId);
    const delta = monthGeo(oct, '2026-10') - monthGeo(oct, '2026-09');
    expect(text).toContain('Merci pour ce mois.');
    expect(text).toMatch(/[Dd]epuis le mois dernier/);
    if (Math.abs(delta) >= FLAT_THRESHOLD) {
      // "a légèrement progressé, de 2", "a reculé de 4", "a nettement reculé, de 9": the way and the size of the move.
      const way = delta > 0 ? 'progressé' : 'reculé';
      const size = Math.abs(delta);
      const said = size < 3 ? `a légèrement ${way}, de` : size < 8 ? `a ${way} de` : `a nettement ${way}, de`;
      expect(text).toContain(`votre score GEO ${said} ${oneDecimal(size, 'fr')}`);
    } else {
      expect(text).toContain('votre score GEO est resté stable');
    }
    expect(text).toMatch(/recommandations? (a|ont) été traitées?|Aucune recommandation n’a été traitée/);
    expect(text).not.toMatch(/ rose by | fell by |resolved since/);
  });

  it('prints a PDF whose text holds the summary, with a title and the client language in its metadata', async () => {
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
    const entry = manifest.projects.find((p) => p.id === frenchId);
    const pdf = join(out, '2026-10', entry?.files.pdf as string);
    const { stdout: info } = await exec('pdfinfo', [pdf]);
    expect(info).toMatch(/Title:\s+\S.*Rapport GEO & SEO/);
    expect(info).toMatch(/Tagged:\s+yes/);
    // The catalog sits in an object stream since the PDF is finished with pdf-lib: read it, not the raw bytes.
    const catalog = (await PDFDocument.load(await readFile(pdf), { updateMetadata: false })).catalog;
    const lang = catalog.lookup(PDFName.of('Lang'));
    expect(lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText() : lang).toBe('fr');
    // Every font is embedded: the client's viewer needs none installed.
    const { stdout: fonts } = await exec('pdffonts', [pdf]);
    const rows = fonts
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split(/\s+/).at(-5), row).toBe('yes');
    expect(fonts).toMatch(/Inter/);
    const { stdout: text } = await exec('pdftotext', [pdf, '-']);
    expect(text.replace(/\s+/g, ' ')).toMatch(/votre score GEO (a (légèrement |nettement )?(progressé|reculé)|est resté stable)/);
  });
});

describe('pre-send check', () => {
  it('holds reports whose GEO score dropped past the threshold: manifest, index, and exit code 4 until accepted', async () => {
    // The CLI against a copy of September, with a zero-point threshold: every drop holds its report.
    const cwd = join(root, 'held');
    await mkdir(join(cwd, 'config'), { recursive: true });
    await writeFile(join(cwd, 'config', 'geo-reports.json'), JSON.stringify({ report: { maxScoreDrop: 0 } }));
    await cp(join(out, '2026-09'), join(cwd, 'output', '2026-09'), { recursive: true });
    const run = (extra: string[]) =>
      runCli(['run', '--period', '2026-10', '--base-url', sim.url, '--json', ...extra], {
        cwd,
        env: { ...process.env, AGENCY_API_TOKEN: TOKEN },
        timeoutMs: 300_000,
      });

    const expectedHeld: number[] = [];
    for (const project of sim.state.projects().filter((p) => p.status === 'active')) {
      const oct = await periodData('2026-10', project.id);
      const drop = monthGeo(oct, '2026-09') - monthGeo(oct, '2026-10');
      if (Math.round(drop * 10) / 10 > 0) expectedHeld.push(project.id);
    }
    expect(expectedHeld.length).toBeGreaterThan(0);

    const first = await run([]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(4);
    const manifest = Manifest.parse(JSON.parse(await readFile(join(cwd, 'output', '2026-10', 'manifest.json'), 'utf8')));
    expect(manifest.status).toBe('held');
    const held = manifest.projects.filter((p) => p.held.length > 0);
    expect(held.map((p) => p.id).sort()).toEqual(expectedHeld.sort());
    for (const entry of held) {
      expect(entry.status).toBe('done');
      expect(entry.held.join(' ')).toMatch(/The GEO score fell by [\d.]+ points? \(from [\d.]+ to [\d.]+\)/);
    }
    const index = await readFile(join(cwd, 'output', '2026-10', 'index.html'), 'utf8');
    expect(index).toContain('Held');
    expect(index).toContain((held[0]?.held[0] ?? '').slice(0, 24));

    const released = await run(['--accept-held']);
    expect(released.code).toBe(0);
    // Releasing costs no report request: the reports were already made.
    expect(released.stdout).not.toContain('"type":"project-done"');
    const after = Manifest.parse(JSON.parse(await readFile(join(cwd, 'output', '2026-10', 'manifest.json'), 'utf8')));
    expect(after.status).toBe('complete');
    expect(after.projects.filter((p) => p.held.length > 0).every((p) => p.released)).toBe(true);
    expect(await readFile(join(cwd, 'output', '2026-10', 'index.html'), 'utf8')).not.toContain('class="state state--held"');
    // The release is kept: the next run (the schedule, say) does not hold them again.
    expect((await run([])).code).toBe(0);
  }, 180_000);
});
