// The narrow-screen block of the built-in report.css (its comment, then `@media screen and (max-width: 820px)`):
// taken out, the stylesheet is byte for byte the one before report.html was made to read on a phone.
import type { PreparedTemplates } from '../../src/render/template-check/load.js';

const NARROW_SCREEN_BLOCK = /\n\/\* A narrow screen[\s\S]*?\n@media screen and \(max-width: 820px\) \{[\s\S]*?\n\}\n/;

/** The templates with the report's narrow-screen rules taken out; throws when there are none to take out. */
export function withoutNarrowScreenRules(prepared: PreparedTemplates): PreparedTemplates {
  const report = prepared.css.report.replace(NARROW_SCREEN_BLOCK, '');
  if (report === prepared.css.report) throw new Error('The report stylesheet has no narrow-screen block to take out.');
  return { ...prepared, css: { ...prepared.css, report } };
}
