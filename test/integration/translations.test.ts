// The client's language from the service, and the agency's translations of the service's words, through the real
// batch on the simulator: with no language in the config, the project the service marks `fr` gets a French report,
// whose recommendation titles the agency translated read in French in the written HTML and PDF, marked lang="fr",
// while the titles it did not translate stay the service's English, marked lang="en". The mail, the site and the
// export ask the same function (reportAsMade, the export's language column). A wrong translations file stops the
// CLI before any request, naming its file and line.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { loadTranslations, readTranslations } from '../../src/config/translations.js';
import { writeExport } from '../../src/export/write.js';
import { reportAsMade } from '../../src/output/report-as-made.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { toMonth } from '../../src/period.js';
import { parsePeriodData } from '../../src/report/period-data.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';
import { ReportOne } from '../support/classic-schemas.js';
import { runCli } from '../support/cli.js';

const exec = promisify(execFile);
const TOKEN = 'tok-translations-5e8a1c3f9d2b7046';
const NOW = new Date('2026-11-04T06:00:00Z');
/** The agency's French for four of the service's titles; every other title stays the service's. */
const FRENCH: Record<string, string> = {
  'Remove noindex from category pages': 'Retirer la balise noindex des pages de catégorie',
  'Add Organization structured data': 'Ajouter les données structurées Organization',
  'Correct the brand description on Wikidata': 'Corriger la description de la marque sur Wikidata',
  'Create a comparison page against main competitors': 'Créer une page comparative face aux principaux concurrents',
};

let root: string;
let out: string;
let sim: SimulatorHandle;
let rig: BatchRig;
let config: Config;
let entries: ProjectEntry[];
let frenchId: number;
let englishId: number;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-translations-'));
  out = join(root, 'out');
  const folder = join(root, 'translations');
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'fr.json'), `${JSON.stringify(FRENCH, null, 2)}\n`);
  sim = await startSimulator({ projectCount: 6, tokens: [TOKEN], clock: () => NOW });
  const active = sim.state.projects().filter((p) => p.status === 'active');
  frenchId = active.find((p) => p.language === 'fr')?.id as number;
  englishId = active.find((p) => p.language === 'en')?.id as number;
  rig = await startBatchRig();
  // No report.language, no client language: each client's language is its project's, as the service marks it.
  config = ConfigSchema.parse({
    report: { maxScoreDrop: 100, translations: folder, sections: { keywords: false, pageExperience: false, aiAnswers: false } },
  });
  const result = await rig.run({ baseUrl: sim.url, tokens: [TOKEN], period: toMonth('2026-10'), outDir: out, config, clock: () => NOW });
  expect(result.summary.failed).toBe(0);
  entries = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8'))).projects.filter((p) => p.files.pdf !== null);
}, 300_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const entryOf = (id: number): ProjectEntry => {
  const entry = entries.find((e) => e.id === id);
  if (entry === undefined) throw new Error(`no report for project ${id}`);
  return entry;
};
const htmlOf = (entry: ProjectEntry): Promise<string> => readFile(join(out, '2026-10', entry.files.html as string), 'utf8');
const pdfText = async (entry: ProjectEntry): Promise<string> => {
  const { stdout } = await exec('pdftotext', [join(out, '2026-10', entry.files.pdf as string), '-']);
  return stdout.replace(/[\s\u00a0\u202f]+/g, ' ');
};
/** The recommendation titles the service sent for the project, as its saved answer holds them. */
const serviceTitles = async (entry: ProjectEntry): Promise<string[]> => {
  const data = parsePeriodData(JSON.parse(await readFile(join(out, '2026-10', entry.files.data as string), 'utf8')));
  const recommendations = ReportOne.parse(data?.report).sections?.recommendations ?? [];
  return recommendations.map((rec) => rec.title);
};

describe("the project's language when the config pins none", () => {
  it('gives the project the service marks fr a French report, and one it marks en an English one', async () => {
    expect(frenchId).toBeGreaterThan(0);
    expect(englishId).toBeGreaterThan(0);
    expect(entryOf(frenchId).language).toBe('fr');
    expect(entryOf(englishId).language).toBe('en');
    expect(await htmlOf(entryOf(frenchId))).toMatch(/^<!doctype html>\s*<html lang="fr">/i);
    expect(await pdfText(entryOf(frenchId))).toContain('Recommandations');
  });

  it('is the language the mail and the site speak (reportAsMade) and the export writes', async () => {
    expect(reportAsMade(entryOf(frenchId), config).language).toBe('fr');
    expect(reportAsMade(entryOf(frenchId), config, { name: 'email', dryRun: true }).notice).toBeNull();
    expect(reportAsMade(entryOf(englishId), config).language).toBe('en');
    const file = join(root, 'export.jsonl');
    await writeExport({ outDir: out, periods: [], config, clock: () => NOW, format: 'json', file, threads: 1 });
    const rows = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const languages = (id: number): Set<unknown> => new Set(rows.filter((row) => row['project_id'] === id).map((row) => row['language']));
    expect(languages(frenchId)).toEqual(new Set(['fr']));
    expect(languages(englishId)).toEqual(new Set(['en']));
  });
});

describe("the agency's translations of the service's words", () => {
  it('shows each translated title in French marked fr, every other title as the service wrote it, marked en', async () => {
    const entry = entryOf(frenchId);
    const titles = await serviceTitles(entry);
    const translated = titles.filter((title) => FRENCH[title] !== undefined);
    const untranslated = titles.filter((title) => FRENCH[title] === undefined);
    expect(translated.length).toBeGreaterThan(0);
    expect(untranslated.length).toBeGreaterThan(0);
    const html = await htmlOf(entry);
    const pdf = await pdfText(entry);
    for (const title of translated) {
      expect(html).toContain(`<h4 class="rec__title" lang="fr">${FRENCH[title]}</h4>`);
      expect(html).not.toContain(`>${title}</h4>`);
      expect(pdf).toContain(FRENCH[title]);
    }
    for (const title of untranslated) expect(html).toContain(`<h4 class="rec__title" lang="en">${title.replace(/"/g, '&quot;')}</h4>`);
  });

  it("leaves the English client's titles as the service wrote them, unmarked", async () => {
    const entry = entryOf(englishId);
    const html = await htmlOf(entry);
    const titles = await serviceTitles(entry);
    for (const title of titles) expect(html).toContain(`<h4 class="rec__title">${title.replace(/"/g, '&quot;')}</h4>`);
    expect(html).not.toContain('Retirer la balise noindex');
  });
});

describe('the translations folder', () => {
  it('is read file by file, a file named for no language and a missing folder refused', async () => {
    const dir = join(root, 'folder');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'fr.json'), '{ "Compress hero images": "Compresser les images d’accroche" }');
    await writeFile(join(dir, 'de.json'), '{ "Compress hero images": "Hero-Bilder komprimieren" }');
    const translations = await loadTranslations(dir);
    expect(translations.get('fr')?.get('Compress hero images')).toBe('Compresser les images d’accroche');
    expect(translations.get('de')?.get('Compress hero images')).toBe('Hero-Bilder komprimieren');
    await writeFile(join(dir, 'french.json'), '{}');
    await expect(readTranslations(dir)).rejects.toThrow(/french\.json is named for no language/);
    await expect(readTranslations(join(root, 'none'))).rejects.toThrow(/report\.translations: the folder .*none does not exist/);
  });

  it('with a wrong file stops the CLI before any request, exit 2, naming the file, the line and the key', async () => {
    const cwd = join(root, 'cli');
    await mkdir(join(cwd, 'translations'), { recursive: true });
    await writeFile(join(cwd, 'geo-reports.json'), JSON.stringify({ report: { translations: 'translations' } }));
    await writeFile(join(cwd, 'translations', 'fr.json'), '{\n  "Compress hero images": "Compresser les images",\n  "Add an llms.txt file": 3\n}\n');
    const before = sim.state.requests.length;
    const result = await runCli(['projects', '--config', 'geo-reports.json'], {
      cwd,
      env: { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `${join(cwd, 'translations', 'fr.json')} line 3, "Add an llms.txt file": expected the translation, a text in double quotes`,
    );
    expect(sim.state.requests.length).toBe(before);
  });
});
