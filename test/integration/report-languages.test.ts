// Every language of the list, each in a report of its own: one batch on the simulator with a client in each of the
// seven languages makes seven reports whose page says its language and whose PDF holds the language's own month
// name and none of the tool's English (what the service writes itself, its titles and questions, is the service's).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { knowsField, readableKey } from '../../src/i18n/format.js';
import { LANGUAGES, loadLocales, type BuiltInLanguage, type Language, type Phrases } from '../../src/i18n/locales.js';
import { Manifest, type ProjectEntry } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const exec = promisify(execFile);
const TOKEN = 'tok-languages-7d2e91b04c5a6f18';
const locales = loadLocales();

/** The period as each language names it in the PDF, and English phrases of the report it must not hold. */
const EXPECTED: Record<BuiltInLanguage, { month: string; notEnglish: readonly string[] }> = {
  en: { month: 'October 2026', notEnglish: [] },
  fr: {
    month: 'octobre 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean'],
  },
  de: {
    month: 'Oktober 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean', 'Page 1 of'],
  },
  es: {
    month: 'octubre de 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean', 'Page 1 of'],
  },
  it: {
    month: 'ottobre 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean', 'Page 1 of'],
  },
  nl: {
    month: 'oktober 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean', 'Page 1 of'],
  },
  pt: {
    month: 'outubro de 2026',
    notEnglish: ['October', 'Summary', 'Recommendations', 'Prepared for', 'since last month', 'out of 100', 'What these words mean', 'Page 1 of'],
  },
};

const wordsOf = (text: string): string[] => text.toLowerCase().match(/\p{L}{2,}/gu) ?? [];

/** Words of the English phrases that no phrase of `language` uses: the tool's own English, for that language. */
function englishOnlyWords(language: Language): Set<string> {
  const words = (of: Language): Set<string> =>
    new Set(
      wordsOf(
        Object.values(locales.phrases(of))
          .join(' ')
          .replace(/\{\w+\}/g, ' '),
      ),
    );
  const own = words(language);
  return new Set([...words('en')].filter((word) => !own.has(word)));
}

/** The month names Intl writes in `language`, long and short (the chart's axis): "may" is Spanish for May. */
function monthWords(language: Language): Set<string> {
  const months = Array.from({ length: 12 }, (_, month) => new Date(Date.UTC(2026, month, 15)));
  const names = (style: 'long' | 'short'): string =>
    months.map((d) => new Intl.DateTimeFormat(language, { month: style, timeZone: 'UTC' }).format(d)).join(' ');
  return new Set(wordsOf(`${names('long')} ${names('short')}`));
}

/** Words the service writes itself: free text (anything with a space or a slash), and what is under keys no locale names. */
function serviceWords(value: unknown, phrases: Phrases, into = new Set<string>(), unknown = false): Set<string> {
  if (typeof value === 'string') {
    if (unknown || /[\s/]/.test(value.trim())) for (const word of wordsOf(value)) into.add(word);
  } else if (Array.isArray(value)) {
    for (const item of value) serviceWords(item, phrases, into, unknown);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const named = knowsField(phrases, key);
      if (!named) for (const word of wordsOf(readableKey(key))) into.add(word);
      serviceWords(item, phrases, into, unknown || !named);
    }
  }
  return into;
}

let rig: BatchRig;
let root: string;
let sim: SimulatorHandle;
const reports = new Map<string, { entry: ProjectEntry; pdfText: string; html: string; theirs: Set<string> }>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-languages-'));
  rig = await startBatchRig();
  let now = new Date('2026-10-04T06:00:00Z');
  sim = await startSimulator({ projectCount: 12, tokens: [TOKEN], clock: () => now });
  const active = sim.state.projects().filter((p) => p.status === 'active');
  expect(active.length).toBeGreaterThanOrEqual(LANGUAGES.length);
  const clients = Object.fromEntries(LANGUAGES.map((language, index) => [String(active[index]?.id), { language }]));
  const config = ConfigSchema.parse({
    agency: { name: 'Northwind Digital' },
    report: { language: 'en', goals: [{ metric: 'geo', target: 99, by: '2027-03' }] },
    clients,
  });
  const out = join(root, 'out');
  const results = await rig.runSeptemberThenOctober(
    { baseUrl: sim.url, tokens: [TOKEN], outDir: out, config, selection: { statuses: ['active'], projectIds: Object.keys(clients).map(Number) } },
    (at) => (now = at),
  );
  for (const result of results) expect(result.summary.failed, result.summary.period).toBe(0);
  const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
  for (const entry of manifest.projects.filter((p) => p.status === 'done')) {
    const { stdout } = await exec('pdftotext', [join(out, '2026-10', entry.files.pdf as string), '-']);
    const language = entry.language ?? 'en';
    // The service's words of both months: the changes since September list last month's recommendations too.
    const theirs = new Set<string>();
    for (const period of ['2026-09', '2026-10']) {
      const data = JSON.parse(await readFile(join(out, period, entry.files.data as string), 'utf8')) as { report: unknown; scan?: unknown };
      serviceWords(data.scan, locales.phrases(language), serviceWords(data.report, locales.phrases(language), theirs));
    }
    reports.set(language, {
      entry,
      pdfText: stdout.replace(/[\s\u00a0\u202f]+/g, ' '),
      html: await readFile(join(out, '2026-10', entry.files.html as string), 'utf8'),
      theirs,
    });
  }
}, 420_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a report in each language of the list', () => {
  it('makes one report per language', () => {
    expect([...reports.keys()].sort()).toEqual([...LANGUAGES].sort());
  });

  it.each(LANGUAGES)('writes the %s report in its language: <html lang>, its month name, none of our English words', (language) => {
    const report = reports.get(language);
    expect(report, language).toBeDefined();
    if (report === undefined) return;
    expect(report.html).toMatch(new RegExp(`^<!DOCTYPE html>\\s*<html lang="${language}">`, 'i'));
    const { month, notEnglish } = EXPECTED[language];
    expect(report.pdfText).toContain(month);
    for (const phrase of notEnglish) expect(report.pdfText, `${language}: "${phrase}"`).not.toContain(phrase);
    if (language === 'en') return;
    const english = englishOnlyWords(language);
    for (const word of monthWords(language)) english.delete(word);
    const found = [...new Set(wordsOf(report.pdfText))].filter((word) => english.has(word) && !report.theirs.has(word));
    expect(found, `${language}: English words of the tool in the PDF`).toEqual([]);
  });
});
