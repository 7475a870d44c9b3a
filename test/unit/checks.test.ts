import { describe, expect, it } from 'vitest';
import type { ReportSection } from '../../src/api/schemas.js';
import { readReport } from '../../src/content/report.js';
import type { Report } from '../support/classic-schemas.js';
import { assembleReport } from '../../src/report/assemble.js';
import { runPreSendChecks, type PreSendCheckInput } from '../../src/report/checks.js';
import { ALL_SECTIONS, PHRASES, assembleInput, currentReport, previousPeriod } from '../fixtures/api-fixtures.js';

/** Raw reports (classic shapes) in, read like the batch reads them. */
type CheckOverrides = Omit<Partial<PreSendCheckInput>, 'report' | 'previousReport'> & { report?: Report; previousReport?: Report | null };

function checkInput(overrides: CheckOverrides = {}): PreSendCheckInput {
  const { report, previousReport, ...rest } = overrides;
  const previous = previousReport === undefined ? (previousPeriod().report as Report) : previousReport;
  return {
    language: 'en',
    phrases: PHRASES.en,
    sections: { ...ALL_SECTIONS },
    requiredSections: ['scores', 'recommendations'],
    maxScoreDrop: 20,
    ...rest,
    report: readReport(report ?? currentReport()),
    previousReport: previous === null ? null : readReport(previous),
  };
}

function withGeo(geo: number | null): Report {
  const report = currentReport();
  if (report.sections?.scores !== undefined) report.sections.scores.geo_score = geo;
  return report;
}

function without(section: ReportSection): Report {
  const report = currentReport();
  delete report.sections?.[section];
  return report;
}

const rules = (input: PreSendCheckInput): string[] => runPreSendChecks(input).map((r) => r.rule);

describe('pre-send checks', () => {
  it('passes a healthy report', () => {
    expect(runPreSendChecks(checkInput())).toEqual([]);
    expect(assembleReport(assembleInput()).held).toEqual([]);
  });

  it('holds a GEO score of 0', () => {
    const held = runPreSendChecks(checkInput({ report: withGeo(0), maxScoreDrop: 100 }));
    expect(held).toEqual([{ rule: 'geo-zero', message: 'The GEO score is 0, which usually means the scan failed.' }]);
  });

  it('holds a missing GEO score', () => {
    expect(rules(checkInput({ report: withGeo(null) }))).toEqual(['geo-missing']);
  });

  it('holds a GEO drop larger than the limit, in the client language', () => {
    const en = runPreSendChecks(checkInput({ report: withGeo(45) }));
    expect(en).toEqual([{ rule: 'geo-drop', message: 'The GEO score fell by 22.2 points (from 67.2 to 45), more than the 20-point limit.' }]);
    const fr = runPreSendChecks(checkInput({ report: withGeo(45), language: 'fr', phrases: PHRASES.fr }));
    expect(fr[0]?.message).toBe('Le score GEO a chuté de 22,2 points (de 67,2 à 45), au-delà de la limite de 20 points.');
  });

  it('does not hold a drop equal to the limit, nor a drop without a previous period', () => {
    expect(rules(checkInput({ report: withGeo(47.2) }))).toEqual([]);
    expect(rules(checkInput({ report: withGeo(47.1) }))).toEqual(['geo-drop']);
    expect(rules(checkInput({ report: withGeo(10), previousReport: null }))).toEqual([]);
    // 71.4 − 51.4 is 20.000000000000007 in floating point: still equal to the limit.
    const previous = previousPeriod().report as Report;
    if (previous.sections?.scores !== undefined) previous.sections.scores.geo_score = 71.4;
    expect(rules(checkInput({ report: withGeo(51.4), previousReport: previous }))).toEqual([]);
  });

  it('holds an empty history where the previous period had one', () => {
    const report = currentReport();
    if (report.sections !== undefined) report.sections.history = [];
    expect(runPreSendChecks(checkInput({ report }))).toEqual([
      { rule: 'history-empty', message: 'The score history is empty, although the previous report had one.' },
    ]);
    expect(rules(checkInput({ report: without('history') }))).toEqual(['history-empty']);
  });

  it('does not hold an empty history when the previous one was empty too', () => {
    const report = currentReport();
    if (report.sections !== undefined) report.sections.history = [];
    const previous = previousPeriod().report as Report;
    if (previous.sections !== undefined) previous.sections.history = [];
    expect(rules(checkInput({ report, previousReport: previous }))).toEqual([]);
  });

  it('holds a required section the API left out, once, without a second GEO reason', () => {
    const held = runPreSendChecks(checkInput({ report: without('scores') }));
    expect(held).toEqual([{ rule: 'section-missing', message: 'The scores section is missing from the API report.' }]);
    const fr = runPreSendChecks(checkInput({ report: without('recommendations'), language: 'fr', phrases: PHRASES.fr }));
    expect(fr[0]?.message).toBe('La section «\u00a0recommandations\u00a0» est absente du rapport de l’API.');
  });

  it('still holds a missing GEO score when scores are shown but not required', () => {
    expect(rules(checkInput({ report: without('scores'), requiredSections: ['recommendations'] }))).toEqual(['geo-missing']);
  });

  it('does not count sections the client switched off', () => {
    const report = currentReport();
    delete report.sections?.scores;
    delete report.sections?.trust;
    delete report.sections?.history;
    const held = runPreSendChecks(
      checkInput({
        report,
        sections: { ...ALL_SECTIONS, scores: false, trust: false, history: false },
        requiredSections: ['scores', 'trust', 'recommendations'],
      }),
    );
    expect(held).toEqual([]);
  });

  it('gives every reason at once, and the model carries them as localised strings', () => {
    const report = currentReport();
    if (report.sections !== undefined) {
      report.sections.history = [];
      delete report.sections.recommendations;
      if (report.sections.scores !== undefined) report.sections.scores.geo_score = 0;
    }
    const model = assembleReport(assembleInput({ report, language: 'fr' }));
    expect(model.held).toEqual([
      'La section «\u00a0recommandations\u00a0» est absente du rapport de l’API.',
      'Le score GEO vaut 0, ce qui signale en général un échec de l’analyse.',
      'Le score GEO a chuté de 67 points (de 67 à 0), au-delà de la limite de 20 points.',
      'L’historique des scores est vide, alors que le rapport précédent en contenait un.',
    ]);
  });

  it('writes the reasons in the agency’s language when it differs from the client’s: they are for the agency', () => {
    const report = currentReport();
    if (report.sections?.scores !== undefined) report.sections.scores.geo_score = 0;
    // The month's value is the history's October point: it reads 0 too.
    for (const point of report.sections?.history ?? []) if (point.date.startsWith('2026-10')) point.geo_score = 0;
    const model = assembleReport(assembleInput({ report, language: 'fr', agency: { language: 'en', phrases: PHRASES.en } }));
    expect(model.held[0]).toBe('The GEO score is 0, which usually means the scan failed.');
    expect(model.meta.language).toBe('fr');
  });

  it('holds a report that came with no sections at all', () => {
    const report = currentReport();
    delete report.sections;
    expect(rules(checkInput({ report, requiredSections: ['scores', 'recommendations', 'metrics'] }))).toEqual([
      'section-missing',
      'section-missing',
      'section-missing',
      'history-empty',
    ]);
  });
});
