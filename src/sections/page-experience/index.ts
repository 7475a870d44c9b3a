// The page experience section: the SEO audit's Lighthouse scores and Core Web Vitals against last period's.
import type { Language, Phrases } from '../../i18n/locales.js';
import { defineSection } from '../unit.js';
import { locatePageExperience, readPageExperience } from './read.js';
import { pageExperienceSummary, pageExperienceView, PageExperienceViewSchema } from './view.js';

const partial = `<section class="section page-experience" aria-labelledby="page-experience-title">
<h2 id="page-experience-title">{{title}}</h2>
<p class="section-intro">{{intro}}</p>
<table class="px-table">
<thead><tr><th scope="col">{{headers.measure}}</th><th scope="col">{{headers.value}}</th><th scope="col">{{headers.rating}}</th><th scope="col">{{headers.change}}</th></tr></thead>
<tbody>
{{#each scores}}
<tr><th scope="row">{{label}}</th><td class="num">{{valueText}}</td><td></td><td>{{changeText}}</td></tr>
{{/each}}
{{#each vitals}}
<tr class="px-{{rating}}"><th scope="row">{{label}}</th><td class="num">{{valueText}}</td><td><span class="px-cue" aria-hidden="true">{{cue}}</span> {{ratingText}} <span class="muted">({{thresholdText}})</span></td><td>{{changeText}}</td></tr>
{{/each}}
</tbody>
</table>
</section>
`;

const styles = `.px-table{width:100%;border-collapse:collapse;font-size:.9em}
.px-table th,.px-table td{text-align:left;padding:.3em .5em;border-bottom:1px solid #e5e7eb;vertical-align:top}
.px-table td.num{text-align:right;white-space:nowrap}
.px-table tr{break-inside:avoid}
.px-good .px-cue{color:#15803d}
.px-needs-improvement .px-cue{color:#b45309}
.px-poor .px-cue{color:#b91c1c}
`;

function sample(language: Language, phrases: Phrases) {
  return pageExperienceView({
    now: { scores: { performance: 72, accessibility: 91, best_practices: 83, seo: 88 }, vitals: { lcp: 2900, inp: 180, cls: 0.27 } },
    before: { scores: { performance: 66, accessibility: 91, best_practices: 80, seo: 85 }, vitals: { lcp: 3400, inp: 150, cls: 0.27 } },
    beforePeriod: null,
    language,
    phrases,
    site: { name: 'Sample', domain: null },
  });
}

export const pageExperience = defineSection({
  name: 'pageExperience',
  needs: { scan: ['seo_audit'], seoSteps: ['step1_lighthouse'] },
  defaultOn: true,
  read: readPageExperience,
  locate: locatePageExperience,
  schema: PageExperienceViewSchema,
  view: pageExperienceView,
  summary: pageExperienceSummary,
  // The four Lighthouse scores, and the vitals in the units the view holds (LCP and INP in ms, CLS unitless).
  facts: (view) => [
    ...view.scores.map((row) => ({ key: row.key, value: row.value, unit: 'score' as const })),
    ...view.vitals.map((row) => ({ key: row.key, value: row.value, unit: 'number' as const, direction: 'lower' as const })),
  ],
  partial,
  styles,
  sample,
});
