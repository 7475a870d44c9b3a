// The keyword rankings section: seo_audit.keyword_rankings of the period's scan against last period's.
import type { Language, Phrases } from '../../i18n/locales.js';
import { defineSection } from '../unit.js';
import { locateKeywordRankings, readKeywordRankings, type KeywordRead } from './read.js';
import { keywordsSummary, keywordsView, KeywordsViewSchema } from './view.js';

const partial = `<section class="section keywords" aria-labelledby="keywords-title">
<h2 id="keywords-title">{{title}}</h2>
<p class="section-intro">{{intro}}</p>
<p class="keywords-counts">{{countsText}}</p>
<table class="keywords-table">
<thead><tr><th scope="col">{{headers.keyword}}</th><th scope="col">{{headers.position}}</th><th scope="col">{{headers.presence}}</th><th scope="col">{{headers.change}}</th></tr></thead>
<tbody>
{{#each rows}}
<tr class="keyword-{{move}}"><th scope="row">{{keyword}}</th><td class="num">{{positionText}}</td><td>{{presenceText}}</td><td><span class="move-cue" aria-hidden="true">{{cue}}</span> {{moveText}}{{#if previousText}} <span class="muted">({{previousText}})</span>{{/if}}</td></tr>
{{/each}}
</tbody>
</table>
</section>
`;

const styles = `.keywords-table{width:100%;border-collapse:collapse;font-size:.9em}
.keywords-table th,.keywords-table td{text-align:left;padding:.3em .5em;border-bottom:1px solid #e5e7eb;vertical-align:top}
.keywords-table td.num{text-align:right;white-space:nowrap}
.keywords-table tr{break-inside:avoid}
.keywords-counts{font-weight:600}
.keyword-up .move-cue,.keyword-new .move-cue{color:#15803d}
.keyword-down .move-cue,.keyword-lost .move-cue{color:#b91c1c}
`;

function sample(language: Language, phrases: Phrases) {
  const row = (keyword: string, values: Array<number | null>): KeywordRead => {
    const found = values.filter((v): v is number => v !== null);
    const absent = values.length - found.length;
    return { keyword, position: (found.reduce((a, b) => a + b, 0) + absent * 11) / values.length, found, trials: values.length, absent, absentRank: 11 };
  };
  return keywordsView({
    now: [
      row('plumber lyon', [2, 3, 2, 2]),
      row('emergency plumber', [4, null, 5, 4, 6]),
      row('boiler repair', [8, 9, 7]),
      row('best plumber', [null, null, null]),
    ],
    before: [row('plumber lyon', [4, 5, 4, 6]), row('emergency plumber', [4, 4, 3, 5, 4]), row('best plumber', [9, null, 10])],
    beforePeriod: null,
    language,
    phrases,
    site: { name: 'Sample', domain: null },
  });
}

export const keywords = defineSection({
  name: 'keywords',
  needs: { scan: ['seo_audit'], seoSteps: ['step4_keywords'] },
  defaultOn: true,
  read: readKeywordRankings,
  locate: locateKeywordRankings,
  schema: KeywordsViewSchema,
  view: keywordsView,
  summary: keywordsSummary,
  // One figure per keyword, and the two counts drawn from the same figures.
  facts: (view) => [
    ...view.rows.map((row) => ({ key: row.keyword, value: row.position, unit: 'position' as const, direction: 'lower' as const })),
    { key: 'top3', value: view.top3.now, unit: 'count' as const },
    { key: 'top10', value: view.top10.now, unit: 'count' as const },
  ],
  partial,
  styles,
  sample,
});
