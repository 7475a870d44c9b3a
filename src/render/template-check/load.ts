// A template set made ready to compile: everything the folder brings is parsed and checked here, before any request
// is sent or Chromium starts (its names against the pages' values, its markup and CSS in the sandbox), each problem
// named with its file, line and column; then the images and fonts it references are inlined.
import { join } from 'node:path';
import { jsonErrorPosition, LANGUAGES, loadLocales, localeKeyReports, type Locales } from '../../i18n/locales.js';
import { BUILT_IN_HELPERS, HELPERS, type HelperResult } from '../helpers.js';
import { applyInlining, inlineReferences, MAX_INLINE_BYTES, type Replacement } from './inlining.js';
import { checkTemplateNames } from './names.js';
import { formatProblem, positionOf, problemRecorder, TemplateError, type ParsedTemplate, type TemplateFile, type TemplateProblem } from './problems.js';
import { checkSandbox, checkUnescapedOutput } from './sandbox.js';
import { BUILT_IN_TEMPLATES_DIR, readTemplateSet, styleFiles, TEMPLATE_LAYOUT, templateFiles, type ReadTemplateSetOptions, type TemplateSet } from './set.js';
import { parseTemplate, plainSyntaxError } from './syntax.js';

// What other modules import from here, wherever it now lives.
export { BUILT_IN_TEMPLATES_DIR, formatProblem, MAX_INLINE_BYTES, plainSyntaxError, readTemplateSet, TEMPLATE_LAYOUT, TemplateError };
export type { ReadTemplateSetOptions, TemplateFile, TemplateProblem, TemplateSet };

/** A template set ready to compile: images and fonts inlined, the phrases laid over the built-in ones. */
export interface PreparedTemplates {
  set: TemplateSet;
  /** Template text by file name (`report.hbs`, `partials/cover.hbs`…), after inlining. */
  texts: ReadonlyMap<string, string>;
  /** The report's, the index's and the site's stylesheet, built-in first, then extra.css / extra-index.css / extra-site.css. */
  css: { report: string; index: string; site: string };
  locales: Locales;
  /** What does not stop a run but deserves a look: unescaped output, files nothing reads… (a missing name or phrase is an error). */
  warnings: readonly TemplateProblem[];
}

/** The helpers a template may call, with what each gives back. */
function knownHelpers(): ReadonlyMap<string, HelperResult | 'built-in'> {
  const helpers = new Map<string, HelperResult | 'built-in'>(BUILT_IN_HELPERS.map((name) => [name, 'built-in']));
  for (const [name, helper] of Object.entries(HELPERS)) helpers.set(name, helper.result);
  return helpers;
}

/** An agency locale file must be a JSON object of strings; each fault is a problem at its place. */
function checkLocaleFile(file: TemplateFile, problems: TemplateProblem[]): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(file.text);
  } catch (error) {
    const at = jsonErrorPosition(file.text, error);
    problems.push({ severity: 'error', file: file.path, ...(at ?? {}), message: `not valid JSON: ${(error as Error).message}` });
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push({ severity: 'error', file: file.path, line: 1, column: 1, message: 'must be a JSON object of "key": "text" pairs' });
    return;
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') continue;
    const offset = file.text.indexOf(JSON.stringify(key));
    problems.push({
      severity: 'error',
      file: file.path,
      ...(offset >= 0 ? positionOf(file.text, offset) : {}),
      message: `the value of "${key}" must be a text`,
    });
  }
}

/** The phrase keys the agency's own templates ask for by name ({{t "my" "key"}}): their literal parts joined. */
function keysAskedBy(set: TemplateSet): string[] {
  const asked: string[] = [];
  for (const file of templateFiles(set).filter((f) => f.fromAgency)) {
    for (const match of file.text.matchAll(/\(?\{?\{?~?\s*t((?:\s+"[^"]*")+)/g)) {
      asked.push([...(match[1] ?? '').matchAll(/"([^"]*)"/g)].map((part) => part[1]).join('.'));
    }
  }
  return asked;
}

/**
 * A key a language lacks (its reports show the English) or a key of the agency's file nothing asks for (a typo):
 * one warning per file, naming the keys, for `template check`, `doctor` and every run that loads the folder.
 */
export function localeKeyProblems(set: TemplateSet): TemplateProblem[] {
  const asked = keysAskedBy(set);
  const used = (key: string): boolean => asked.some((name) => key === name || key.startsWith(`${name}.`));
  const list = (keys: readonly string[]): string => `${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ` and ${keys.length - 8} more` : ''}`;
  const problems: TemplateProblem[] = [];
  for (const report of localeKeyReports({ dir: join(set.builtInDir, TEMPLATE_LAYOUT.locales), overlay: set.locales, used })) {
    const { missing, unused, language } = report;
    if (missing.length > 0) {
      const them = missing.length === 1 ? 'it' : 'them';
      problems.push({
        severity: 'warning',
        file: report.file,
        message: `${missing.length} phrase${missing.length === 1 ? '' : 's'} of en.json missing for "${language}" (its reports show ${them} in English): ${list(missing)}; add ${them} to locales/${language}.json`,
      });
    }
    if (unused.length > 0) {
      problems.push({
        severity: 'warning',
        file: report.file,
        message: `${unused.length} phrase${unused.length === 1 ? '' : 's'} nothing uses (no English phrase has the key, no template asks for it): ${list(unused)}; check the spelling against locales/en.json`,
      });
    }
  }
  return problems;
}

/**
 * Parses and checks the whole set and inlines what the agency's files reference. Every error of the set is
 * collected before a TemplateError is thrown, so one run shows them all; warnings come back with the result.
 */
export async function prepareTemplates(set: TemplateSet): Promise<PreparedTemplates> {
  const problems: TemplateProblem[] = [];
  for (const file of set.locales.values()) checkLocaleFile(file, problems);
  let locales: Locales | null = null;
  if (!problems.some((p) => p.severity === 'error')) {
    // The agency's files as read here, inside the folder: the locales never open a path of the folder themselves.
    locales = loadLocales({ dir: join(set.builtInDir, TEMPLATE_LAYOUT.locales), overlay: set.locales });
    problems.push(...localeKeyProblems(set));
  }

  const parsed = new Map<string, ParsedTemplate>();
  for (const file of templateFiles(set)) {
    const template = parseTemplate(file, problems);
    if (template !== null) parsed.set(file.name, template);
  }
  const parsedOrNull = (file: TemplateFile | null | undefined): ParsedTemplate | null => (file == null ? null : (parsed.get(file.name) ?? null));
  const templates = [...parsed.values()];
  const helpers = knownHelpers();
  // Unescaped output first: of two problems at one place, it is the one listed first.
  const record = problemRecorder(problems);
  checkUnescapedOutput(templates, helpers, record);
  checkTemplateNames(
    {
      report: parsedOrNull(set.report),
      index: parsedOrNull(set.index),
      client: parsedOrNull(set.site?.client),
      root: parsedOrNull(set.site?.root),
      email: parsedOrNull(set.email),
      partials: new Map(
        [...set.partials].flatMap(([name, file]) => {
          const template = parsed.get(file.name);
          return template === undefined ? [] : [[name, template] as const];
        }),
      ),
      partialNames: new Set(set.partials.keys()),
      helpers,
      phrases: locales,
    },
    record,
  );
  const references = checkSandbox(templates, styleFiles(set), record);
  for (const name of set.outside) {
    problems.push({
      severity: 'error',
      file: join(set.agencyDir ?? '', name),
      message: `leads outside the template folder (a link, or not a file): nothing outside ${set.agencyDir ?? ''} is read`,
    });
  }
  for (const name of set.stray) {
    problems.push({
      severity: 'warning',
      file: join(set.agencyDir ?? '', name),
      message: `nothing reads this file: templates are ${TEMPLATE_LAYOUT.report}, ${TEMPLATE_LAYOUT.index}, ${TEMPLATE_LAYOUT.client}, ${TEMPLATE_LAYOUT.root}, ${TEMPLATE_LAYOUT.email} and partials/*.hbs, styles assets/${TEMPLATE_LAYOUT.styles.join(', assets/')}, assets/${TEMPLATE_LAYOUT.extraReport}, assets/${TEMPLATE_LAYOUT.extraIndex} and assets/${TEMPLATE_LAYOUT.extraSite}, phrases locales/${LANGUAGES.join('.json, locales/')}.json`,
    });
  }

  const replacements = set.agencyDir === null ? new Map<TemplateFile, Replacement[]>() : await inlineReferences(set.agencyDir, references, problems);

  problems.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0 || locales === null) {
    throw new TemplateError(
      `The template folder ${set.agencyDir ?? set.builtInDir} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      problems,
      {
        hint: `Fix ${errors.length === 1 ? 'it' : 'them'}; \`geo-reports template check --templates ${set.agencyDir ?? set.builtInDir}\` lists every problem, warnings too.`,
      },
    );
  }
  const textOf = (file: TemplateFile): string => {
    const list = replacements.get(file);
    return list === undefined ? file.text : applyInlining(file.text, list);
  };
  const texts = new Map(templateFiles(set).map((file) => [file.name, textOf(file)]));
  const { common, report, index, site, extraReport, extraIndex, extraSite } = set.styles;
  // Without an extra file the stylesheet is exactly the built-in one.
  const stylesheet = (own: TemplateFile | null, extra: TemplateFile | null): string =>
    own === null ? '' : `${textOf(common)}\n${textOf(own)}${extra === null ? '' : `\n${textOf(extra)}`}`;
  const css = { report: stylesheet(report, extraReport), index: stylesheet(index, extraIndex), site: stylesheet(site, extraSite) };
  return { set, texts, css, locales, warnings: problems.filter((p) => p.severity === 'warning') };
}

/** Reads, checks and prepares the templates: the built-in set alone, or an agency's folder over it. */
export async function loadTemplates(options: ReadTemplateSetOptions = {}): Promise<PreparedTemplates> {
  return prepareTemplates(await readTemplateSet(options));
}
