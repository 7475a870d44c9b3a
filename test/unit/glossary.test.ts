// "What these words mean": GEO and SEO always, every other term only when the report writes it, in its language.
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { buildGlossary, GLOSSARY_TERMS } from '../../src/report/glossary.js';
import type { ReportModel } from '../../src/report/model.js';
import { reportModel } from '../fixtures/report-model.js';

const terms = (model: Omit<ReportModel, 'glossary'>, language: 'en' | 'fr'): string[] => buildGlossary(model, loadPhrases(language)).map((e) => e.term);

describe('buildGlossary', () => {
  it('explains GEO and SEO in every report, spelled out', () => {
    const bare = { ...reportModel('en'), scores: null, metrics: null, trust: null, recommendations: null, otherSections: [], goals: null, summary: [] };
    const entries = buildGlossary(bare, loadPhrases('en'));
    expect(entries.map((e) => e.term)).toEqual(['GEO', 'SEO']);
    expect(entries[0]?.meaning).toMatch(/^Generative Engine Optimisation/);
    expect(entries[1]?.meaning).toMatch(/^Search Engine Optimisation/);
    expect(buildGlossary(bare, loadPhrases('fr'))[0]?.meaning).toMatch(/^Generative Engine Optimization, ou optimisation pour les moteurs génératifs/);
  });

  it('adds a term only when the report writes it, as a word of its own', () => {
    const model = reportModel('en');
    const withSov = {
      ...model,
      metrics: [{ key: 'share_of_voice', label: 'Share of voice (service)', value: 14.2, unit: '%', change: null }],
      summary: ['Your LCP improved.'],
      recommendations: null,
      otherSections: [],
      trust: null,
    };
    const found = terms(withSov, 'en');
    expect(found).toContain('Share of voice (service)');
    // The service's share of voice is not the share of AI answers counted from the scan: that term only when written.
    expect(found).not.toContain('Share of AI answers');
    expect(terms({ ...withSov, summary: ['The share of AI answers on ChatGPT rose by 3 pts to 40%.'] }, 'en')).toContain('Share of AI answers');
    expect(found).toContain('LCP');
    expect(found).not.toContain('CLS');
    expect(found).not.toContain('E-E-A-T');
    // "inp" inside another word is not the term.
    expect(terms({ ...withSov, metrics: [], summary: ['Pinpoint the pages.'] }, 'en')).not.toContain('INP');
  });

  it('has every term in every language, with its meaning', () => {
    for (const language of ['en', 'fr'] as const) {
      const phrases = loadPhrases(language);
      for (const key of GLOSSARY_TERMS) {
        expect(phrases[`glossary.${key}.term`], `${language} ${key}`).toBeTruthy();
        expect(phrases[`glossary.${key}.meaning`], `${language} ${key}`).toBeTruthy();
      }
    }
  });
});

describe('the two shares of voice', () => {
  it('are named apart in every language, each with a meaning of its own in the glossary', () => {
    for (const language of ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt']) {
      const phrases = loadPhrases(language);
      const service = phrases['metric.share_of_voice'];
      const ours = phrases['aiAnswers.voice.shareOfVoice'];
      expect(service, language).toBeTruthy();
      expect(ours, language).toBeTruthy();
      expect(service?.toLowerCase(), language).not.toBe(ours?.toLowerCase());
      // The goals on our figure and the section's title speak of ours, never of the service's name.
      expect(phrases['goals.metric.sov'], language).toBe(ours);
      expect(phrases['aiAnswers.voice.title']?.startsWith(ours ?? '?'), language).toBe(true);
      expect(phrases['glossary.share_of_voice.term'], language).toBe(service);
      expect(phrases['glossary.ai_answer_share.term'], language).toBe(ours);
      expect(phrases['glossary.share_of_voice.meaning'], language).not.toBe(phrases['glossary.ai_answer_share.meaning']);
    }
  });
});
