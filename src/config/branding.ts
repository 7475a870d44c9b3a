// The agency's branding as every page shows it (reports, the agency index), from the config; the logo read and
// inlined. Light: the commands that only rewrite the index (send, merge) need it without the printer.
import type { Language } from '../i18n/locales.js';
import { typeset } from '../i18n/typography.js';
import type { Branding } from '../report/model.js';
import { readLogo } from './load.js';
import type { Config } from './schema.js';

/**
 * agency.footer in `language`: the one text, or that language's ('' when it has none: the footer made for it), set
 * by the language's typography.
 */
export function footerIn(footer: Config['agency']['footer'], language: Language): string {
  return typeset(typeof footer === 'string' ? footer : (footer[language] ?? ''), language);
}

/** The agency's branding; its footer in the agency's language until a report's language picks its own (footerIn). */
export async function brandingFrom(config: Config): Promise<Branding> {
  const logo = await readLogo(config.agency.logo);
  const { agency } = config;
  return {
    agencyName: agency.name,
    ...(logo !== undefined ? { logoDataUri: logo } : {}),
    colors: agency.colors,
    fontFamily: agency.font === 'Inter' ? "'Inter', 'Helvetica Neue', Arial, sans-serif" : "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif",
    footer: footerIn(agency.footer, config.report.language),
    contact: {
      ...(agency.contact.email !== undefined ? { email: agency.contact.email } : {}),
      ...(agency.contact.phone !== undefined ? { phone: agency.contact.phone } : {}),
      ...(agency.contact.website !== undefined ? { website: agency.contact.website } : {}),
    },
  };
}
