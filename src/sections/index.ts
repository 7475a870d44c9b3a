// Every report section made from a scan, in the order the report shows them. A new section: its folder, one line here.
import { aiAnswers } from './ai-answers/index.js';
import { keywords } from './keywords/index.js';
import { pageExperience } from './page-experience/index.js';
import type { Section } from './unit.js';

export const SECTIONS: readonly Section[] = [
  keywords, // seo_audit.keyword_rankings
  pageExperience, // seo_audit's Lighthouse and Core Web Vitals
  aiAnswers, // geo: questions, mentions per assistant, answers
];

export type { Section } from './unit.js';
