// The "what AI assistants answer" section: the scan's geo questions, mentions per assistant and answers.
import type { Language, Phrases } from '../../i18n/locales.js';
import { defineSection } from '../unit.js';
import { locateAiAnswers, readAiAnswers } from './read.js';
import { aiAnswersSummary, aiAnswersView, AiAnswersViewSchema } from './view.js';

const partial = `<section class="section ai-answers" aria-labelledby="ai-answers-title">
<h2 id="ai-answers-title">{{title}}</h2>
<p class="section-intro">{{intro}}</p>
<p class="ai-answers-count">{{mentionsText}}</p>
{{#each questions}}
<div class="ai-question">
<h3>{{question}}</h3>
<ul class="ai-mentions">
{{#each answers}}<li class="ai-mention-{{#if mentioned}}yes{{else}}no{{/if}}"><span class="ai-cue" aria-hidden="true">{{cue}}</span> <strong>{{labelText}}</strong> {{text}}</li>{{/each}}
</ul>
{{#if quote}}<blockquote class="ai-quote"><p>“{{quote.text}}”</p><footer>— {{quote.label}}</footer></blockquote>{{/if}}
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
  // Per question and assistant: 1 when the answer named the site, 0 when it did not (one way for every yes/no).
  facts: (view) =>
    view.questions.flatMap((question, index) =>
      question.answers.map((answer) => ({
        key: `${index + 1}.${answer.assistant}.mentioned`,
        value: answer.mentioned === null ? null : answer.mentioned ? 1 : 0,
        unit: 'count' as const,
      })),
    ),
  partial,
  styles,
  sample,
});
