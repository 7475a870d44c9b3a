// Where the preview's reports come from when no request may be sent: the simulator's sample account read in
// process (the same data the demo's simulator answers over HTTP), or a finished period's saved data.json files.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/i18n/locales.js';
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { monthlyRunDay, toMonth } from '../../src/period.js';
import { openPreviewData, sampleData } from '../../src/preview/data.js';
import { MODEL_STEPS, runSteps } from '../../src/preview/render.js';
import { sampleIndexModels, sampleReportModels } from '../../src/preview/samples.js';
import { SECTIONS } from '../../src/sections/index.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { IndexModelSchema, ReportModelSchema } from '../../src/report/model.js';
import { sampleAccount } from '../../src/simulator/sample.js';
import { DEMO_TOKEN, startSimulator } from '../../src/simulator/server.js';

const PERIOD = toMonth('2026-10');
const config = ConfigSchema.parse({});
const clock = () => new Date('2026-11-04T06:00:00Z');
let renderer: HtmlRenderer;
let root: string;

beforeAll(async () => {
  renderer = await createHtmlRenderer();
  root = await mkdtemp(join(tmpdir(), 'geo-preview-data-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the sample account', () => {
  it('answers in process what the demo simulator answers over HTTP for the same period', async () => {
    let now = monthlyRunDay(toMonth('2026-09'));
    const sim = await startSimulator({ tokens: [DEMO_TOKEN], clock: () => now });
    try {
      now = monthlyRunDay(PERIOD);
      const client = new ApiClient({ baseUrl: sim.url, tokens: new TokenPool([DEMO_TOKEN], { clock: () => now }), clock: () => now });
      const account = sampleAccount({ period: PERIOD });
      const overHttp = await client.createReport({ projectId: 104, format: 'json' });
      const inProcess = account.answers(104).report;
      // The report ids differ (each store numbers its own); everything else is the same data.
      const withoutIds = (answer: unknown) => JSON.parse(JSON.stringify(answer).replace(/"id":\d+/g, '"id":0')) as unknown;
      expect(withoutIds(inProcess)).toEqual(withoutIds(overHttp));
      expect(account.answers(104).competitors).toEqual(await client.getCompetitors());
      await client.close();
    } finally {
      await sim.close();
    }
  });

  it('is what the preview shows when the period has no saved data', async () => {
    const data = await openPreviewData({ outDir: root, period: PERIOD, clock });
    expect(data.kind).toBe('sample');
    expect(data.projects.length).toBeGreaterThan(10);
    const work = await runSteps(
      await data.load(data.projects[0]?.id ?? 0, config),
      {
        config,
        period: PERIOD,
        periodDir: root,
        renderer,
        printer: () => Promise.reject(new Error('no printing here')),
        branding: await brandingFrom(config),
        clock,
      },
      MODEL_STEPS,
    );
    expect(work.model?.client.name).toBe(data.projects[0]?.name);
    // Last month's sample data is there for the comparisons.
    expect(work.model?.scores?.geo.change).not.toBeNull();
    expect(work.model?.recommendations?.tracking).not.toBeNull();
    await expect(data.load(99_999, config)).rejects.toThrow(/Project 99999 is not in the sample data/);
  });
});

describe('the sample pages templates are tried on', () => {
  it('are full reports and bare ones in every language, and an index with every state, all as the model declares', async () => {
    const setting = { renderer, config, branding: await brandingFrom(config), clock, period: PERIOD };
    const reports = await sampleReportModels(setting);
    expect(reports.map((m) => [m.meta.language, m.scores === null])).toEqual(
      LANGUAGES.flatMap((language) => [
        [language, false],
        [language, true],
      ]),
    );
    const full = reports[0];
    expect(full?.otherSections.length).toBeGreaterThan(0);
    // Every scan section (src/sections) in the full samples, drawn by its partial, in both languages; none in the bare.
    expect(Object.keys(full?.sections ?? {})).toEqual(SECTIONS.map((s) => s.name));
    expect(reports[1]?.sections).toBeUndefined();
    const [en, , fr] = reports.map((m) => renderer.renderReport(m));
    expect(en).toContain('Keyword rankings');
    expect(en).toContain('not in the top 10 in any of 3 trials');
    expect(en).toContain('Largest Contentful Paint (LCP)');
    expect(fr).toContain('Positions sur les mots-clés');
    expect(fr).toContain('Expérience de la page');
    expect(full?.trust?.platforms.length).toBeGreaterThan(0);
    for (const model of reports) expect(ReportModelSchema.safeParse(model).error).toBeUndefined();
    const indexes = sampleIndexModels(setting, reports);
    expect(indexes.map((m) => m.language)).toEqual([...LANGUAGES]);
    expect(new Set(indexes[0]?.rows.map((r) => r.status))).toEqual(new Set(['done', 'failed', 'pending', 'skipped']));
    for (const model of indexes) expect(IndexModelSchema.safeParse(model).error).toBeUndefined();
    for (const model of reports) expect(renderer.renderReport(model)).toContain('<!doctype html>');
  });

  it('an output folder without the period falls back to the sample account', async () => {
    expect(sampleData(PERIOD, clock).projects).toEqual((await openPreviewData({ outDir: join(root, 'nothing'), period: PERIOD, clock })).projects);
  });
});
