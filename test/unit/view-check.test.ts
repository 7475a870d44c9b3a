// The self-check of the written views, on texts as the views write them: the PDF's text as pdftotext reads it (in
// content order), the mail's two parts and the index's marked cells.
import { describe, expect, it } from 'vitest';
import { loadPhrases } from '../../src/i18n/locales.js';
import { FactTableBuilder } from '../../src/report/facts.js';
import { disagreementMessage, disagreements, figureIn, shownInHtml, shownInMailText, shownInPdfText } from '../../src/report/view-check.js';

const en = loadPhrases('en');
const fr = loadPhrases('fr');

function table(language: string) {
  const facts = new FactTableBuilder(language);
  facts.add({ key: 'scores.geo', value: 76.6, unit: 'score', source: 'history', month: '2026-10' });
  facts.add({ key: 'scores.seo', value: 71.2, unit: 'score', source: 'history', month: '2026-10' });
  facts.add({ key: 'ai.gemini', value: 26.4, unit: 'score', source: 'scan', month: '2026-10' });
  return facts.table();
}

/** The score cards' page as pdftotext -raw reads it, with the summary's sentences before it. */
const PDF_EN = [
  'Your GEO score rose by 3 points to 77. Your strongest AI visibility is on Gemini, at 26 out of 100.',
  'Scores',
  'GEO score',
  "How visible and recommended the site is in AI assistants'",
  'answers.',
  '76out of 100',
  'Benchmark average 47',
  'SEO score',
  'Technical, content and authority health for search',
  'engines.',
  '71out of 100',
].join('\n');

describe('figureIn', () => {
  it('reads a figure with either decimal mark and either minus, and nothing from a dash', () => {
    expect(figureIn('77')).toBe(77);
    expect(figureIn('81,4')).toBe(81.4);
    expect(figureIn('76.6')).toBe(76.6);
    expect(figureIn('−4')).toBe(-4);
    expect(figureIn('—')).toBeNull();
  });
});

describe('the PDF', () => {
  it('finds each score after its label and before "out of 100", never a sentence of the summary', () => {
    expect(shownInPdfText(PDF_EN, en)).toEqual([
      { key: 'scores.geo', text: '76', project: null },
      { key: 'scores.seo', text: '71', project: null },
    ]);
  });

  it('holds a figure that is not the fact’s, and names it: label, view, shown form, the table’s form', () => {
    const facts = table('en');
    expect(disagreements('pdf', facts, shownInPdfText(PDF_EN, en)).map((d) => disagreementMessage(d, en))).toEqual([
      'GEO score: the PDF shows 76 where the fact table says 77.',
    ]);
    expect(disagreements('pdf', facts, shownInPdfText(PDF_EN.replace('76out', '77out'), en))).toEqual([]);
  });

  it('reads a French PDF with the French labels and decimal mark, the reason in the agency’s language', () => {
    const text = 'Score GEO\nVisibilité et recommandation du site dans les réponses des assistants IA.\n76,6 sur 100\nScore SEO\nSanté technique.\n71 sur 100';
    const found = disagreements('pdf', table('fr'), shownInPdfText(text, fr));
    expect(found.map((d) => disagreementMessage(d, en))).toEqual(['GEO score: the PDF shows 76,6 where the fact table says 77.']);
    expect(found.map((d) => disagreementMessage(d, fr))).toEqual(['Score GEO\u00a0: le PDF affiche 76,6 alors que la table des faits indique 77.']);
  });
});

describe('the HTML views', () => {
  it('reads the marked places with the row of their project, and checks each against its fact', () => {
    const html =
      '<table><tr data-project="12"><td data-fact="scores.geo">77</td></tr><tr data-project="13"><td data-fact="scores.geo">—</td></tr></table>' +
      '<p><span data-fact="ai.gemini">26</span> <span data-fact="not.a.fact">5</span></p>';
    const shown = shownInHtml(html);
    expect(shown).toEqual([
      { key: 'scores.geo', text: '77', project: 12 },
      { key: 'scores.geo', text: '—', project: 13 },
      { key: 'ai.gemini', text: '26', project: null },
      { key: 'not.a.fact', text: '5', project: null },
    ]);
    const facts = table('en');
    expect(
      disagreements(
        'index',
        facts,
        shown.filter((s) => s.project === 12),
      ),
    ).toEqual([]);
    expect(
      disagreements(
        'index',
        facts,
        shown.filter((s) => s.project === 13),
      ).map((d) => disagreementMessage(d, en)),
    ).toEqual(['GEO score: the agency index shows — where the fact table says 77.']);
  });

  it("reads the mail's text part: each figure after its label and the language's colon", () => {
    const figures = [
      { fact: 'scores.geo', label: 'Score GEO' },
      { fact: 'ai.gemini', label: 'Visibilité sur Gemini' },
    ];
    const text = 'Ce mois-ci en bref\n- Score GEO\u00a0: 76/100 (▲ +3)\n- Visibilité sur Gemini\u00a0: 26/100 (▼ −9)\n';
    const shown = shownInMailText(text, figures, fr['label.colon'] ?? ' :');
    expect(shown.map((s) => [s.key, s.text])).toEqual([
      ['scores.geo', '76'],
      ['ai.gemini', '26'],
    ]);
    expect(disagreements('mailText', table('fr'), shown).map((d) => disagreementMessage(d, en))).toEqual([
      "GEO score: the mail's text part shows 76 where the fact table says 77.",
    ]);
  });
});
