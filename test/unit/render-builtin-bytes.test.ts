// Without an agency template folder, the built-in report is the same bytes as before template folders existed:
// the hashes in the fixture were taken from the renderer before that change, on the same models.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { assembleReport } from '../../src/report/assemble.js';
import { assembleInput } from '../fixtures/api-fixtures.js';
import { hostileIndexModel, hostileReportModel, indexModel, reportModel } from '../fixtures/report-model.js';

const EXPECTED = JSON.parse(readFileSync(new URL('../fixtures/builtin-html.sha256.json', import.meta.url), 'utf8')) as {
  models: Record<string, string>;
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
