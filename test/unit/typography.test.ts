// The agency's own words set by the report's language: a French note, footer and annotation typed with ordinary
// spaces and straight quotes get the narrow no-break space and « »; each other language its own quotation marks.
import { describe, expect, it } from 'vitest';
import { toMonth } from '../../src/period.js';
import { footerIn } from '../../src/config/branding.js';
import { nestQuotes, typeset } from '../../src/i18n/typography.js';
import { ALL_SECTIONS, assembleInput } from '../fixtures/api-fixtures.js';
import { assembleReport } from '../../src/report/assemble.js';

const NNBSP = '\u202f';

describe('typography of the texts the agency writes', () => {
  it('gives a French note, footer and annotation the narrow no-break space before : ; ! ? and inside « »', () => {
    const model = assembleReport(
      assembleInput({
        language: 'fr',
        period: toMonth('2026-10'),
        client: {
          sections: { ...ALL_SECTIONS },
          note: 'Merci pour ce mois : la page "FAQ" est en ligne ; bravo !',
          annotations: [{ date: '2026-10-12', text: "Refonte de l'accueil : 12 pages réécrites", kind: 'content' }],
        },
      }),
    );
    expect(model.client.note).toBe(`Merci pour ce mois${NNBSP}: la page «${NNBSP}FAQ${NNBSP}» est en ligne${NNBSP}; bravo${NNBSP}!`);
    expect(model.annotations.map((a) => a.text)).toEqual([`Refonte de l’accueil${NNBSP}: 12 pages réécrites`]);
    expect(footerIn({ fr: 'Confidentiel : préparé pour « Boulangerie Dubois »' }, 'fr')).toBe(
      `Confidentiel${NNBSP}: préparé pour «${NNBSP}Boulangerie Dubois${NNBSP}»`,
    );
  });

  it('leaves a time, an address and an English text as typed', () => {
    expect(typeset('Appel à 12:30, voir https://exemple.fr/page?id=1', 'fr')).toBe('Appel à 12:30, voir https://exemple.fr/page?id=1');
    expect(typeset('Thanks for this month: the "FAQ" page is live!', 'en')).toBe('Thanks for this month: the “FAQ” page is live!');
  });

  it('sets each language its own quotation marks', () => {
    expect(typeset('Die Seite "Preise" ist online.', 'de')).toBe('Die Seite „Preise“ ist online.');
    expect(typeset('La página "Precios" ya está publicada.', 'es')).toBe('La página «Precios» ya está publicada.');
    expect(typeset('La pagina "Prezzi" è online: l\'abbiamo rifatta.', 'it')).toBe('La pagina «Prezzi» è online: l’abbiamo rifatta.');
    expect(typeset('De pagina "Prijzen" staat online.', 'nl')).toBe('De pagina “Prijzen” staat online.');
    expect(typeset('A página "Preços" está no ar.', 'pt')).toBe('A página “Preços” está no ar.');
    expect(typeset('Unchanged "as typed"', 'xx')).toBe('Unchanged "as typed"');
  });
});

describe('a quotation inside a quotation', () => {
  it("takes the language's inner marks in place of its own; straight quotes stay as written", () => {
    expect(nestQuotes('“Summer” titles', 'en')).toBe('‘Summer’ titles');
    expect(nestQuotes('alert("x")', 'en')).toBe('alert("x")');
    expect(nestQuotes('« Été » revu', 'fr')).toBe('“Été” revu');
    expect(nestQuotes('„Sommer“ neu', 'de')).toBe('‚Sommer‘ neu');
    expect(nestQuotes('«Verano» nuevo', 'es')).toBe('“Verano” nuevo');
    expect(nestQuotes('Titles rewritten', 'nl')).toBe('Titles rewritten');
    // Two quotations in one text: each its own pair.
    expect(nestQuotes('“A” and “B”', 'en')).toBe('‘A’ and ‘B’');
    // A language without rules keeps its text.
    expect(nestQuotes('“A”', 'sv')).toBe('“A”');
  });
});
