// Our labels for the values the field commonly sends, in the report's language; the service's own words marked as such.
import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/report/assemble.js';
import type { ReportModel } from '../../src/report/model.js';
import { assembleInput, currentReport, PHRASES } from '../fixtures/api-fixtures.js';

function withLocalPresence(language: 'en' | 'fr'): ReportModel {
  const report = currentReport();
  const sections = report.sections as Record<string, unknown>;
  sections['local_presence'] = { google_business_profile: 'verified', nap_consistency: { value: 86.7, unit: '%' }, directory_citations: 12 };
  sections['crawl'] = { pages_crawled: 120, errors_4xx: 2 };
  return assembleReport(
    assembleInput({
      report,
      language,
      client: {
        sections: { scores: true, recommendations: true, history: true, metrics: true, trust: true },
        annotations: [{ date: '2026-10-03', text: 'Titres réécrits', kind: 'Technical' }],
      },
    }),
  );
}

const labelsOf = (model: ReportModel): string[] =>
  model.otherSections.flatMap((section) => [
    section.label,
    ...section.entries.flatMap((entry) => [entry.label, typeof entry.value === 'string' ? entry.value : '']),
  ]);

describe("the field's common values", () => {
  it('are labelled in French in a French report, with none of our English labels', () => {
    const labels = labelsOf(withLocalPresence('fr'));
    expect(labels).toEqual(
      expect.arrayContaining(['Présence locale', 'Fiche d’établissement Google', 'Validée', 'Cohérence nom, adresse, téléphone', 'Pages explorées']),
    );
    for (const english of ['Local presence', 'Google business profile', 'NAP consistency', 'Pages crawled', 'Verified', 'Directory citations']) {
      expect(labels).not.toContain(english);
    }
    expect(withLocalPresence('fr').annotations.map((a) => a.kind)).toEqual(['technique']);
  });

  it('keep their English labels in English, and a kind no locale names stays as the agency wrote it', () => {
    const labels = labelsOf(withLocalPresence('en'));
    expect(labels).toEqual(expect.arrayContaining(['Local presence', 'Google business profile', 'NAP consistency', 'Pages crawled', 'Verified']));
    expect(withLocalPresence('en').annotations.map((a) => a.kind)).toEqual(['technical']);
    const odd = assembleReport(
      assembleInput({
        client: {
          sections: { scores: true, recommendations: true, history: true, metrics: true, trust: true },
          annotations: [{ date: '2026-10-03', text: 'x', kind: 'Relaunch' }],
        },
      }),
    );
    expect(odd.annotations[0]?.kind).toBe('Relaunch');
  });

  it('has each label key in both locale files', () => {
    const keys = Object.keys(PHRASES.en).filter((key) =>
      /^(metric\.(pages_crawled|ai_citations|google_business_profile|nap_consistency|local_presence)|annotations\.kind\.)/.test(key),
    );
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(PHRASES.fr[key], key).toBeDefined();
  });
});

describe("the service's own words", () => {
  it('are marked English in a French report, and not marked in an English one', () => {
    expect(assembleReport(assembleInput({ language: 'fr' })).meta.sourceLang).toBe('en');
    expect(assembleReport(assembleInput({ language: 'en' })).meta.sourceLang).toBeNull();
    expect(assembleReport(assembleInput({ language: 'en', sourceLanguage: 'fr' })).meta.sourceLang).toBe('fr');
  });
});
