// docs/templates.md is generated from the model's declarations, the helpers and the example folder: it must be
// what the generator makes now, and the declarations must describe the models the renderer really gets.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, regenerate } from '../../scripts/template-docs.js';
import { HELPERS } from '../../src/render/helpers.js';
import { IndexModelSchema, ReportModelSchema } from '../../src/report/model.js';
import { hostileIndexModel, hostileReportModel, indexModel, reportModel } from '../fixtures/report-model.js';

describe('docs/templates.md', () => {
  it('is up to date with the model, the helpers and the example folder (node --import tsx scripts/template-docs.ts)', async () => {
    const doc = await readFile(DOC_PATH, 'utf8');
    expect(await regenerate(doc)).toBe(doc);
  });

  it('lists every helper and every value of the report', async () => {
    const doc = await readFile(DOC_PATH, 'utf8');
    for (const name of Object.keys(HELPERS)) expect(doc).toContain(`| \`${name}\` |`);
    for (const path of [
      'meta.title',
      'client.note',
      'scores.geo.change.direction',
      'recommendations.groups[].items[].periodsOpen',
      'trust.platforms[].rating',
      'styles',
      'logo',
    ]) {
      expect(doc).toContain(`| \`${path}\` |`);
    }
    expect(doc).toContain('| `orders[].rows[].email.status` |');
  });

  it('describes the models the renderer gets', () => {
    for (const model of [reportModel('en'), reportModel('fr'), hostileReportModel()]) expect(ReportModelSchema.safeParse(model).error).toBeUndefined();
    for (const model of [indexModel('en'), hostileIndexModel()]) expect(IndexModelSchema.safeParse(model).error).toBeUndefined();
  });
});
