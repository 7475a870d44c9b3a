// The built-in languages, in a module of their own that imports nothing: a command's declaration (`--language`'s
// choices) reads the list without loading the locale files' reader and its libraries.

/**
 * The built-in languages, each with its file in the locales folder: config, preview, template check, the demo and
 * the tests follow this list. An agency's template folder may add a language of its own with locales/<code>.json.
 */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt'] as const;
export type BuiltInLanguage = (typeof LANGUAGES)[number];
