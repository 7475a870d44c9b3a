// The period's scan into the report model: each section's view, which the summary speaks of; a section whose input the
// scan lacks, or whose reading fails, left out with one note; no scan in the period, one note for them all.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { readScanSections, withScanSections } from '../../src/report/scan-sections.js';
import { buildSummary } from '../../src/report/summary.js';
import { keywords } from '../../src/sections/keywords/index.js';
import { pageExperience } from '../../src/sections/page-experience/index.js';
import { defineSection } from '../../src/sections/unit.js';
import { reportModel } from '../fixtures/report-model.js';
import { toMonth } from '../../src/period.js';

const scan = (data: Record<string, unknown>) => ({ id: 42, date: '2026-10-01', include: ['seo_audit'], seoSteps: [], data });
const rankings = { seo_audit: { keyword_rankings: [{ keyword: 'a', position: 2, values: [2], counted_as: [2] }] } };

const broken = defineSection({
  name: 'broken',
  needs: { scan: ['geo'], seoSteps: [] },
  defaultOn: false,
  read: (): number => {
    throw new Error('unexpected shape');
  },
  schema: z.number(),
  view: ({ now }) => now,
  summary: () => null,
  partial: '',
  styles: '',
  sample: () => 0,
  facts: () => [],
});

describe('scan sections in the report model', () => {
  it('adds each view; one without its input is left out with a note, never the report', () => {
    const model = reportModel('en');
    const { model: out, notes } = withScanSections(model, {
      sections: [keywords, pageExperience],
      scan: scan(rankings),
      before: null,
      language: 'en',
      phrases: loadPhrases('en'),
    });
    expect(out.sections?.['keywords']).toMatchObject({ title: 'Keyword rankings' });
    expect(out.sections?.['pageExperience']).toBeNull();
    expect(notes).toEqual(['Section "pageExperience" left out: scan 42 has none of its input (seo_audit).']);
  });

  it('reads the views before the report is assembled, so that its summary speaks of them in agreement', () => {
    const read = readScanSections({
      sections: [keywords, pageExperience],
      scan: scan(rankings),
      before: null,
      language: 'en',
      phrases: loadPhrases('en'),
      period: toMonth('2026-10'),
      site: { name: 'Boulangerie Martin', domain: null },
    });
    const summary = buildSummary({
      language: 'en',
      phrases: loadPhrases('en'),
      clientName: 'Boulangerie Martin',
      period: toMonth('2026-10'),
      previousPeriod: null,
      scores: null,
      metrics: null,
      recommendations: null,
      sections: read.views,
    });
    // One keyword of one: never "1 of 1 tracked keywords are".
    expect(summary).toEqual(['Your tracked keyword is in the top 10 of search results.']);
    expect(read.facts.map((f) => f.key)).toContain('keywords.top10');
  });

  it('keeps a failing reader to its section', () => {
    const { model, notes } = withScanSections(reportModel('en'), {
      sections: [broken, keywords],
      scan: scan(rankings),
      before: null,
      language: 'en',
      phrases: loadPhrases('en'),
    });
    expect(model.sections?.['broken']).toBeNull();
    expect(model.sections?.['keywords']).not.toBeNull();
    expect(notes).toEqual(['Section "broken" left out: reading scan 42 failed (unexpected shape).']);
  });

  it('says once when the period has no scan, and changes nothing when no section is on', () => {
    const model = reportModel('en');
    const none = withScanSections(model, { sections: [keywords, pageExperience], scan: null, before: null, language: 'en', phrases: loadPhrases('en') });
    expect(none.model.sections).toEqual({ keywords: null, pageExperience: null });
    expect(none.notes).toEqual([`Sections "keywords", "pageExperience" left out: no completed scan dated in ${model.meta.period}.`]);
    // Each named for the agency, with why.
    expect(none.leftOut).toEqual([
      { section: 'keywords', reason: `no completed scan dated in ${model.meta.period}` },
      { section: 'pageExperience', reason: `no completed scan dated in ${model.meta.period}` },
    ]);
    expect(none.model.held).toEqual(model.held);
    expect(withScanSections(model, { sections: [], scan: null, before: null, language: 'en', phrases: loadPhrases('en') })).toEqual({
      model,
      notes: [],
      leftOut: [],
    });
  });
});
