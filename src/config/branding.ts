// The agency's branding as every page shows it (reports, the agency index), from the config; the logo read and
// inlined. Light: the commands that only rewrite the index (send, merge) need it without the printer.
import type { Branding } from '../report/model.js';
import { readLogo } from './load.js';
import type { Config } from './schema.js';

export async function brandingFrom(config: Config): Promise<Branding> {
  const logo = await readLogo(config.agency.logo);
  const { agency } = config;
  return {
    agencyName: agency.name,
    ...(logo !== undefined ? { logoDataUri: logo } : {}),
    colors: agency.colors,
    fontFamily: agency.font === 'Inter' ? "'Inter', 'Helvetica Neue', Arial, sans-serif" : "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif",
    footer: agency.footer,
    contact: {
      ...(agency.contact.email !== undefined ? { email: agency.contact.email } : {}),
      ...(agency.contact.phone !== undefined ? { phone: agency.contact.phone } : {}),
      ...(agency.contact.website !== undefined ? { website: agency.contact.website } : {}),
    },
  };
}
