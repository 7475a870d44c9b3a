// The language of a client's report, decided here and nowhere else: the report, its mail, the client's page on the
// site and the export each ask this function (through the manifest entry once the report is made).
import { LANGUAGES, type Language } from './locales.js';

export interface LanguageChoice {
  /** The language the config pins for this client (clients."<id>".language); absent: none. */
  pinned?: Language | undefined;
  /** The language the service gives the project (projects.php), as it wrote it ("fr", "fr-FR", "French"); absent: none. */
  service?: string | null | undefined;
  /**
   * Whether the service's language decides when the config pins none (report.followProjectLanguage as the config
   * resolves it: absent, true unless the agency gave report.language).
   */
  followService: boolean;
  /** The agency's language (report.language, English when absent): the default. */
  fallback: Language;
}

/** Names a service may give a language instead of its code. */
const LANGUAGE_NAMES: Readonly<Record<string, Language>> = {
  english: 'en',
  anglais: 'en',
  french: 'fr',
  francais: 'fr',
  français: 'fr',
  german: 'de',
  deutsch: 'de',
  spanish: 'es',
  español: 'es',
  espanol: 'es',
  italian: 'it',
  italiano: 'it',
  dutch: 'nl',
  nederlands: 'nl',
  portuguese: 'pt',
  português: 'pt',
  portugues: 'pt',
};

/** The report language a service's language tag or name stands for ("fr-CA" → fr); null for one we do not write in. */
export function languageOf(text: string | null | undefined): Language | null {
  if (typeof text !== 'string') return null;
  const word = text.trim().toLowerCase();
  const code = word.split(/[-_]/)[0] ?? '';
  if ((LANGUAGES as readonly string[]).includes(code)) return code;
  return LANGUAGE_NAMES[word] ?? null;
}

/**
 * The config's pin for the client; else (when followed) the service's language for the project when we write it;
 * else the agency's. With the config's defaults: clients."<id>".language, then report.language when the agency gave
 * one, then the project's language, then English.
 */
export function reportLanguage(choice: LanguageChoice): Language {
  if (choice.pinned !== undefined) return choice.pinned;
  const service = choice.followService ? languageOf(choice.service) : null;
  return service ?? choice.fallback;
}
