// The "what AI assistants answer" section: the scan's geo questions, mentions per assistant and answers.
import type { Language, Phrases } from '../../i18n/locales.js';
import { defineSection } from '../unit.js';
import { locateAiAnswers, readAiAnswers } from './read.js';
import { aiAnswersSummary, aiAnswersView, AiAnswersViewSchema } from './view.js';
import { voiceFacts } from './voice-facts.js';

const partial = `<section class="section ai-answers" aria-labelledby="ai-answers-title">
<h2 id="ai-answers-title">{{title}}</h2>
<p class="section-intro">{{intro}}</p>
<p class="ai-answers-count">{{mentionsText}}</p>
{{#with voice}}
<h3 class="ai-voice-title">{{title}}</h3>
<p class="ai-voice-intro">{{intro}}</p>
<table class="ai-voice">
<thead><tr><th scope="col">{{headers.assistant}}</th><th scope="col">{{headers.named}}</th><th scope="col">{{headers.competitorNames}}</th><th scope="col">{{headers.mentionRate}}</th><th scope="col">{{headers.shareOfVoice}}</th><th scope="col">{{headers.position}}</th></tr></thead>
<tbody>
{{#each rows}}<tr><th scope="row">{{label}}</th><td>{{countsText}}</td><td>{{competitorNames}}</td><td>{{mentionRateText}}</td><td class="ai-voice-sov">{{shareOfVoiceText}}</td><td>{{positionText}}</td></tr>
{{/each}}{{#with overall}}<tr class="ai-voice-all"><th scope="row">{{label}}</th><td>{{countsText}}</td><td>{{competitorNames}}</td><td>{{mentionRateText}}</td><td class="ai-voice-sov">{{shareOfVoiceText}}</td><td>{{positionText}}</td></tr>{{/with}}
</tbody>
</table>
<p class="ai-voice-note">{{changeNote}}</p>
<h3 class="ai-grid-title">{{grid.title}}</h3>
<table class="ai-grid">
<thead><tr><th scope="col">{{grid.questionHeader}}</th>{{#each grid.assistants}}<th scope="col">{{this}}</th>{{/each}}</tr></thead>
<tbody>
{{#each grid.rows}}<tr><th scope="row">{{question}}</th>{{#each cells}}<td class="ai-grid-{{state}}">{{text}}</td>{{/each}}</tr>
{{/each}}</tbody>
</table>
<p class="ai-grid-legend">{{grid.legend}}</p>
<h3 class="ai-sources-title">{{sources.title}}</h3>
<div class="ai-sources">
{{#each sources.kinds}}<div class="ai-sources-kind ai-sources-{{kind}}"><h4>{{title}}</h4>{{#if emptyText}}<p>{{emptyText}}</p>{{else}}<ol>{{#each items}}<li>{{text}}</li>{{/each}}</ol>{{/if}}</div>
{{/each}}</div>
{{/with}}
{{#each questions}}
<div class="ai-question">
<h3{{#if @root.meta.sourceLang}} lang="{{@root.meta.sourceLang}}"{{/if}}>{{question}}</h3>
<ul class="ai-mentions">
{{#each answers}}<li class="ai-mention-{{#if mentioned}}yes{{else}}no{{/if}}"><span class="ai-cue" aria-hidden="true">{{cue}}</span> <strong>{{labelText}}</strong> {{text}}</li>{{/each}}
</ul>
{{#if quote}}<blockquote class="ai-quote"><p{{#if @root.meta.sourceLang}} lang="{{@root.meta.sourceLang}}"{{/if}}>“{{quote.text}}”</p><footer>— {{quote.label}}</footer></blockquote>{{/if}}
{{#if competitorsText}}<p class="ai-competitors">{{competitorsText}}</p>{{/if}}
</div>
{{/each}}
</section>
`;

const styles = `.ai-question{break-inside:avoid;margin:0 0 .9em}
.ai-question h3{font-size:1em;margin:.4em 0 .3em}
.ai-mentions{list-style:none;padding:0;margin:0 0 .3em;display:flex;flex-wrap:wrap;gap:.2em 1.2em;font-size:.88em}
.ai-mention-yes .ai-cue{color:#15803d}
.ai-mention-no .ai-cue{color:#b91c1c}
.ai-quote{margin:.2em 0;padding:.2em .8em;border-left:3px solid #d1d5db;font-size:.85em;color:#374151}
.ai-quote p{margin:0}
.ai-quote footer{font-size:.9em;color:#6b7280}
.ai-competitors{font-size:.85em;margin:.2em 0}
.ai-answers-count{font-weight:600}
.ai-voice,.ai-grid{border-collapse:collapse;width:100%;font-size:.82em;margin:.3em 0 .6em;break-inside:avoid}
.ai-grid{font-size:.74em;table-layout:fixed}
.ai-grid thead th:first-child{width:34%}
.ai-grid td{overflow-wrap:anywhere}
.ai-voice th,.ai-voice td,.ai-grid th,.ai-grid td{border-bottom:1px solid #e5e7eb;padding:.25em .4em;text-align:left;vertical-align:top}
.ai-voice thead th,.ai-grid thead th{font-weight:600;color:#374151}
.ai-voice td,.ai-voice tbody th{white-space:nowrap}
.ai-voice-note{font-size:.78em;color:#6b7280;margin:0 0 .6em}
.ai-voice-sov{font-weight:600}
.ai-voice-all th,.ai-voice-all td{border-top:2px solid #d1d5db}
.ai-grid tbody th{font-weight:400}
.ai-grid-named{color:#15803d}
.ai-grid-not{color:#b91c1c}
.ai-grid-none{color:#6b7280}
.ai-grid-legend{font-size:.78em;color:#6b7280;margin:0 0 .6em}
.ai-sources{display:flex;gap:1.2em;font-size:.82em;break-inside:avoid}
.ai-sources-kind{flex:1}
.ai-sources-kind h4{margin:.2em 0;font-size:1em}
.ai-sources-kind ol{margin:0;padding-left:1.2em}
.ai-sources-kind p{margin:0;color:#6b7280}
`;

function sample(language: Language, phrases: Phrases) {
  const positions = (id: string, mentions: Array<number | null>) =>
    ['chatgpt', 'perplexity', 'gemini'].map((assistant, i) => ({ questionId: id, assistant, mentioned: mentions[i] !== null, position: mentions[i] ?? null }));
  return aiAnswersView({
    now: {
      questions: [
        { id: '1', text: 'What is the best plumber near Lyon?' },
        { id: '2', text: 'Which plumber do you recommend for an emergency?' },
      ],
      positions: [...positions('1', [2, null, 1]), ...positions('2', [null, null, 4])],
      responses: [
        { questionId: '1', assistant: 'chatgpt', text: 'Sample Plumbing is often recommended in Lyon for fast work. It has good reviews.' },
        { questionId: '2', assistant: 'perplexity', text: 'Popular choices include rapid-plumbers.example and lyon-pipes.example.' },
      ],
    },
    before: { questions: [{ id: '1', text: 'What is the best plumber near Lyon?' }], positions: positions('1', [3, null, null]), responses: [] },
    beforePeriod: null,
    language,
    phrases,
    site: { name: 'Sample Plumbing', domain: 'sample-plumbing.example' },
  });
}

export const aiAnswers = defineSection({
  name: 'aiAnswers',
  needs: { scan: ['geo'], seoSteps: [] },
  defaultOn: true,
  read: readAiAnswers,
  locate: locateAiAnswers,
  schema: AiAnswersViewSchema,
  view: aiAnswersView,
  summary: aiAnswersSummary,
  facts: (view) => [
    // Per question and assistant: 1 when the answer named the site, 0 when it did not (one way for every yes/no).
    ...view.questions.flatMap((question, index) =>
      question.answers.map((answer) => ({
        key: `${index + 1}.${answer.assistant}.mentioned`,
        value: answer.mentioned === null ? null : answer.mentioned ? 1 : 0,
        unit: 'count' as const,
      })),
    ),
    ...(view.voice === undefined ? [] : voiceFacts(view.voice)),
  ],
  partial,
  styles,
  sample,
});
