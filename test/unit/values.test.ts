// The table of the values the tool knows: each has a unit and a direction, a name in every language with its
// article, and every metric the simulated service sends is in it; a change reads as good or bad news by it.
import { describe, expect, it } from 'vitest';
import { changeMeaning, KNOWN_VALUES, knownValue, VALUE_UNITS } from '../../src/content/values.js';
import { LANGUAGES, loadPhrases } from '../../src/i18n/locales.js';
import { createDataset, metricsAt, monthNumber } from '../../src/simulator/data.js';

describe('the values the tool knows', () => {
  it('gives each a unit, a direction and a grammatical number', () => {
    for (const [key, value] of Object.entries(KNOWN_VALUES)) {
      expect(VALUE_UNITS, key).toContain(value.unit);
      expect([true, false, null], key).toContain(value.higherIsBetter);
      expect(typeof value.plural, key).toBe('boolean');
    }
  });

  it('names each in every language, alone and inside a sentence with its article', () => {
    for (const language of LANGUAGES) {
      const phrases = loadPhrases(language);
      for (const key of Object.keys(KNOWN_VALUES)) {
        expect(phrases[`metric.${key}`], `${language}: metric.${key}`).toBeTypeOf('string');
        expect(phrases[`metric.${key}.the`], `${language}: metric.${key}.the`).toBeTypeOf('string');
      }
    }
  });

  it('holds every metric the simulated service sends: a new one without its unit and direction fails here', () => {
    const now = new Date('2026-11-04T06:00:00Z');
    const dataset = createDataset({ seed: 42, projectCount: 6, hostileNames: false, now });
    const keys = new Set(dataset.projects.flatMap((project) => Object.keys(metricsAt(dataset, project, monthNumber(now)))));
    expect(keys.size).toBeGreaterThan(5);
    for (const key of keys) expect(knownValue(key), key).not.toBeNull();
  });

  it('reads a change as good or bad news by the direction of the value, neutrally for one it does not know', () => {
    expect(changeMeaning('avg_ai_position', 0.5)).toBe('worse');
    expect(changeMeaning('avg_ai_position', -0.6)).toBe('better');
    expect(changeMeaning('lcp_ms', 120)).toBe('worse');
    expect(changeMeaning('citations', 3)).toBe('better');
    expect(changeMeaning('questions_tracked', 3)).toBe('changed');
    expect(changeMeaning('widgets_sold', 3)).toBe('changed');
    expect(changeMeaning('citations', 0)).toBe('changed');
  });
});
