// What a period's scan costs a report: a list and a read, since the scan sections are on by default; nothing with every
// scan section off, nothing when the period's data.json holds a scan read with what the sections on need; the
// switches per client over the global ones.
import { describe, expect, it } from 'vitest';
import { scanReads, SCAN_READ_REQUESTS } from '../../src/batch/scan-reads.js';
import { scanSectionsOn } from '../../src/batch/sections.js';
import { ConfigSchema } from '../../src/config/schema.js';
import type { SavedScan } from '../../src/report/period-data.js';

const saved = (include: string[], seoSteps: string[]): SavedScan => ({ id: 1, date: '2026-10-01', include, seoSteps, data: {} });

describe('the scan requests of a report', () => {
  it('are a list and a read by default (every scan section is on), and none when the agency switches them all off', () => {
    expect(scanReads(ConfigSchema.parse({}), 7, null)).toBe(SCAN_READ_REQUESTS);
    expect(scanSectionsOn(ConfigSchema.parse({}), 7).map((s) => s.name)).toEqual(['keywords', 'pageExperience', 'aiAnswers']);
    const off = { keywords: false, pageExperience: false, aiAnswers: false };
    expect(scanReads(ConfigSchema.parse({ report: { sections: off } }), 7, null)).toBe(0);
    expect(scanReads(ConfigSchema.parse({ report: { sections: { ...off, keywords: true } } }), 7, null)).toBe(SCAN_READ_REQUESTS);
    expect(scanReads(ConfigSchema.parse({ clients: { '7': { sections: off } } }), 7, null)).toBe(0);
  });

  it('follow the client’s switches over the global ones', () => {
    const config = ConfigSchema.parse({
      report: { sections: { keywords: true, pageExperience: false, aiAnswers: true } },
      clients: { '7': { sections: { keywords: false } }, '8': { sections: { aiAnswers: false, keywords: false } } },
    });
    expect(scanSectionsOn(config, 6).map((s) => s.name)).toEqual(['keywords', 'aiAnswers']);
    expect(scanSectionsOn(config, 7).map((s) => s.name)).toEqual(['aiAnswers']);
    expect(scanReads(config, 8, null)).toBe(0);
  });

  it('are none when the period’s saved scan was read with every section and step needed; else it is read again', () => {
    const config = ConfigSchema.parse({ report: { sections: { keywords: true, pageExperience: true, aiAnswers: false } } });
    expect(scanReads(config, 7, saved(['seo_audit'], ['step1_lighthouse', 'step4_keywords']))).toBe(0);
    expect(scanReads(config, 7, saved(['geo', 'seo_audit'], ['step1_lighthouse', 'step3_serp', 'step4_keywords']))).toBe(0);
    expect(scanReads(config, 7, saved(['seo_audit'], ['step4_keywords']))).toBe(SCAN_READ_REQUESTS);
    expect(scanReads(config, 7, saved(['geo'], []))).toBe(SCAN_READ_REQUESTS);
  });

  it('a misspelt section switch is refused, naming the key', () => {
    const parsed = ConfigSchema.safeParse({ report: { sections: { keyword: true } } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('keyword');
  });
});
