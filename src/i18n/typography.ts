// The typography of the report's language for the texts the agency writes itself (its note, footer and annotations):
// what its config holds was typed on a keyboard, with straight quotes and ordinary spaces, and is printed beside
// phrases set by the language's rules. The rules are data, one line per language; a language without one keeps its
// text as typed.

/** How one language sets quotation marks, apostrophes and the space before high punctuation. */
interface TypographyRules {
  /** The opening and closing marks a pair of straight double quotes becomes. */
  quotes: readonly [string, string];
  /** The marks of a quotation inside a quotation (English ‘ ’ inside “ ”). */
  inner: readonly [string, string];
  /** The space inside the quotation marks (French « … »); '' when none. */
  insideQuotes: string;
  /** The space before ; : ! ? (French); null when the language puts none there. */
  beforeHighPunctuation: string | null;
}

const NARROW_NBSP = '\u202f';

const RULES: Readonly<Record<string, TypographyRules>> = {
  en: { quotes: ['“', '”'], inner: ['‘', '’'], insideQuotes: '', beforeHighPunctuation: null },
  fr: { quotes: ['«', '»'], inner: ['“', '”'], insideQuotes: NARROW_NBSP, beforeHighPunctuation: NARROW_NBSP },
  de: { quotes: ['„', '“'], inner: ['‚', '‘'], insideQuotes: '', beforeHighPunctuation: null },
  es: { quotes: ['«', '»'], inner: ['“', '”'], insideQuotes: '', beforeHighPunctuation: null },
  it: { quotes: ['«', '»'], inner: ['“', '”'], insideQuotes: '', beforeHighPunctuation: null },
  nl: { quotes: ['“', '”'], inner: ['‘', '’'], insideQuotes: '', beforeHighPunctuation: null },
  pt: { quotes: ['“', '”'], inner: ['‘', '’'], insideQuotes: '', beforeHighPunctuation: null },
};

/**
 * `text` set by the rules of `language`: straight double quotes in pairs become the language's marks, an apostrophe
 * between letters the typographic one, and in French the space before ; : ! ? and inside « » a narrow no-break
 * space (an ordinary space there would let the sign start a line). A colon without a space before it (12:30,
 * https://) is left alone.
 */
export function typeset(text: string, language: string): string {
  const rules = RULES[language.split('-')[0] ?? language];
  if (rules === undefined) return text;
  const [open, close] = rules.quotes;
  let out = text.replace(/"([^"\n]+)"/g, (_whole, inner: string) => `${open}${rules.insideQuotes}${inner.trim()}${rules.insideQuotes}${close}`);
  out = out.replace(/(\p{L})'(\p{L})/gu, '$1’$2');
  if (rules.insideQuotes !== '') {
    out = out.replace(/«[ \u00a0\u202f]*/g, `«${rules.insideQuotes}`).replace(/[ \u00a0\u202f]*»/g, `${rules.insideQuotes}»`);
  }
  if (rules.beforeHighPunctuation !== null) {
    out = out.replace(/[ \u00a0\u202f]+([;:!?])/g, `${rules.beforeHighPunctuation}$1`);
    // "Bravo!" typed without the space: given one, unless the sign is inside a word or an address (page?id=1).
    out = out.replace(/(\p{L})([;!?])(?=\s|$)/gu, `$1${rules.beforeHighPunctuation}$2`);
  }
  return out;
}

const escapeForPattern = (mark: string): string => mark.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` made ready to be quoted in `language`: each quotation it holds in the language's own marks (the agency's
 * words, typeset) takes the marks of a quotation inside a quotation, so that “Titles “Summer” rewritten” reads
 * “Titles ‘Summer’ rewritten” in English and « Titres « Été » revus » reads « Titres “Été” revus » in French. Straight
 * quotes are left as written: the service's text is shown as it came.
 */
export function nestQuotes(text: string, language: string): string {
  const rules = RULES[language.split('-')[0] ?? language];
  if (rules === undefined) return text;
  const [open, close] = rules.quotes;
  const [innerOpen, innerClose] = rules.inner;
  const space = '[ \u00a0\u202f]*';
  const own = new RegExp(`${escapeForPattern(open)}${space}([^\n]*?)${space}${escapeForPattern(close)}`, 'g');
  return text.replace(own, (_whole, inner: string) => `${innerOpen}${inner}${innerClose}`);
}
