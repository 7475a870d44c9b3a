// Without an agency template folder, the built-in report is the same bytes as before template folders existed:
// the hashes in the fixture were taken from the renderer before that change, on the same models. The report's
// narrow-screen rules (report.html on a phone) changed its bytes once: taken out, the old bytes come back.
// The fact table (a benchmark and the chart's points as whole figures) and the index's "left out" styles changed them again.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { loadTemplates } from '../../src/render/template-check/load.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { hostileIndexModel, hostileReportModel, indexModel, reportModel } from '../fixtures/report-model.js';
import { withoutNarrowScreenRules } from '../support/narrow-screen.js';

const EXPECTED = JSON.parse(readFileSync(new URL('../fixtures/builtin-html.sha256.json', import.meta.url), 'utf8')) as {
  models: Record<string, string>;
  withoutNarrowScreen: Record<string, string>;
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('built-in templates, no agency folder', () => {
  let renderer: HtmlRenderer;
  beforeAll(async () => {
    renderer = await createHtmlRenderer();
  });

  it.each([
    ['report en', () => renderer.renderReport(reportModel('en'))],
    ['report fr', () => renderer.renderReport(reportModel('fr'))],
    ['report hostile', () => renderer.renderReport(hostileReportModel())],
    ['report assembled from the API fixtures', () => renderer.renderReport(assembleReport(assembleInput()))],
    ['index en', () => renderer.renderIndex(indexModel('en'))],
    ['index fr', () => renderer.renderIndex(indexModel('fr'))],
    ['index hostile', () => renderer.renderIndex(hostileIndexModel())],
  ])('%s renders the same bytes as before', (name, render) => {
    expect(EXPECTED.models[name]).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256(render())).toBe(EXPECTED.models[name]);
  });
});

describe('built-in report without its narrow-screen rules', () => {
  let renderer: HtmlRenderer;
  beforeAll(async () => {
    renderer = await createHtmlRenderer({ templates: withoutNarrowScreenRules(await loadTemplates()) });
  });

  it.each([
    ['report en', () => renderer.renderReport(reportModel('en'))],
    ['report fr', () => renderer.renderReport(reportModel('fr'))],
    ['report hostile', () => renderer.renderReport(hostileReportModel())],
    ['report assembled from the API fixtures', () => renderer.renderReport(assembleReport(assembleInput()))],
  ])('%s renders the bytes of before those rules: they are the only change', (name, render) => {
    expect(EXPECTED.withoutNarrowScreen[name]).toMatch(/^[0-9a-f]{64}$/);
    expect(EXPECTED.withoutNarrowScreen[name]).not.toBe(EXPECTED.models[name]);
    expect(sha256(render())).toBe(EXPECTED.withoutNarrowScreen[name]);
  });
});
