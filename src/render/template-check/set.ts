// An agency's template folder over the built-in templates/: one lookup order, the folder first and then the
// built-in file of the same relative path, so a folder holds only what it changes. Two additions only:
// assets/extra.css (and extra-index.css) after the built-in styles, and locale files holding only the keys they
// change. Nothing outside the folder is read: a link leading out of it is refused.
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLanguageCode, LANGUAGES } from '../../i18n/locales.js';
import { TemplateError, type TemplateFile } from './problems.js';

/** Where the built-in templates live (the package's templates/). */
export const BUILT_IN_TEMPLATES_DIR = fileURLToPath(new URL('../../../templates/', import.meta.url));

/** The files a template folder may hold, by their path inside it. */
export const TEMPLATE_LAYOUT = {
  report: 'report.hbs',
  index: 'index.hbs',
  /** The published site's pages (`geo-reports publish`): a client's page, and the root (also the 404 page). */
  client: 'site/client.hbs',
  root: 'site/root.hbs',
  /** The message that carries a report (`geo-reports send`). */
  email: 'email.hbs',
  partials: 'partials',
  assets: 'assets',
  locales: 'locales',
  /** The built-in stylesheets, each replaced by a file of the same name. */
  styles: ['common.css', 'report.css', 'index.css', 'site.css'],
  /** Added after the built-in styles of the report, of the agency index, and of the site's pages. */
  extraReport: 'extra.css',
  extraIndex: 'extra-index.css',
  extraSite: 'extra-site.css',
} as const;

/** The files a report and the agency index are made from, each looked up in the agency folder first. */
export interface TemplateSet {
  builtInDir: string;
  /** Absolute, real path of the agency folder; null for the built-in templates alone. */
  agencyDir: string | null;
  /** null in a set read for the agency index alone (`pages: 'index'`, no agency folder). */
  report: TemplateFile | null;
  index: TemplateFile;
  /** The published site's pages; null in a set read for the agency index alone. */
  site: { client: TemplateFile; root: TemplateFile } | null;
  /** The report's message (email.hbs): read by every set, `send` writes it. */
  email: TemplateFile;
  /** By partial name (the file name without .hbs). */
  partials: ReadonlyMap<string, TemplateFile>;
  styles: {
    common: TemplateFile;
    report: TemplateFile | null;
    index: TemplateFile;
    site: TemplateFile | null;
    extraReport: TemplateFile | null;
    extraIndex: TemplateFile | null;
    extraSite: TemplateFile | null;
  };
  /** The agency's locale files, by language. */
  locales: ReadonlyMap<string, TemplateFile>;
  /** Files of the agency folder nothing reads (a misplaced or misspelt name). */
  stray: readonly string[];
  /** Names in the agency folder that lead outside it (a link): not read. */
  outside: readonly string[];
}

/** What the folder is; a TemplateError (exit 2) naming `source` when it is not a folder that can be read. */
async function agencyFolder(dir: string, source: string): Promise<string> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TemplateError(
      missing ? `${source}: the template folder ${dir} does not exist.` : `${source}: cannot read the template folder ${dir} (${(error as Error).message}).`,
      [],
      { hint: missing ? `Create it with \`geo-reports template init ${dir}\`, or correct the path.` : 'Check its permissions.' },
    );
  }
  if (!info.isDirectory()) {
    throw new TemplateError(`${source}: ${dir} is a file, not a template folder.`, [], {
      hint: 'Give the folder that holds report.hbs, partials/, assets/ and locales/ (`geo-reports template init DIR` makes one).',
    });
  }
  return realpath(dir);
}

async function readText(path: string, name: string, fromAgency: boolean): Promise<TemplateFile> {
  try {
    return { name, path, text: await readFile(path, 'utf8'), fromAgency };
  } catch (error) {
    throw new TemplateError(`Cannot read the template file ${path} (${(error as Error).message}).`, [
      { severity: 'error', file: path, message: `cannot be read: ${(error as Error).message}` },
    ]);
  }
}

/** The real path of `name` inside `root`, or null when it is not a file there (a link leading out of it is not). */
export async function fileInside(root: string, name: string): Promise<string | null> {
  const path = resolve(root, name);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return null;
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  try {
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() || e.isSymbolicLink())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

export interface ReadTemplateSetOptions {
  /** The agency's folder; null or absent for the built-in templates alone. */
  agencyDir?: string | null;
  /** Says where the folder was given, for errors: `--templates`, `report.templates`. @default 'the template folder' */
  source?: string;
  /** @default the package's templates/ */
  builtInDir?: string;
  /**
   * `index` for a command that only writes the agency index (send, merge): without an agency folder, no report
   * template, partial, site page or their stylesheets are read. An agency folder is read whole, so it is checked
   * whole. @default 'all'
   */
  pages?: 'all' | 'index';
}

/** Reads every file of the set: the agency's where it has one, the built-in one otherwise. */
export async function readTemplateSet(options: ReadTemplateSetOptions = {}): Promise<TemplateSet> {
  const builtInDir = options.builtInDir ?? BUILT_IN_TEMPLATES_DIR;
  const agencyDir = options.agencyDir == null ? null : await agencyFolder(options.agencyDir, options.source ?? 'the template folder');
  const used = new Set<string>();
  const outside: string[] = [];

  /** The agency's file of that name when it has one, else the built-in one; null when neither has it. */
  const lookUp = async (name: string, builtIn: boolean): Promise<TemplateFile | null> => {
    if (agencyDir !== null) {
      const own = await fileInside(agencyDir, name);
      if (own !== null) {
        used.add(name);
        return readText(own, name, true);
      }
      // There, but not a file inside the folder (a link out of it): refused, never read.
      if (
        await lstat(join(agencyDir, name)).then(
          () => true,
          () => false,
        )
      ) {
        used.add(name);
        outside.push(name);
      }
    }
    return builtIn ? readText(join(builtInDir, name), name, false) : null;
  };
  const required = async (name: string): Promise<TemplateFile> => (await lookUp(name, true)) as TemplateFile;

  const reports = options.pages !== 'index' || agencyDir !== null;
  const partials = new Map<string, TemplateFile>();
  const isTemplate = (file: string): boolean => extname(file) === '.hbs';
  // The built-in index uses no partial: a set for the index alone reads none.
  const builtInPartials = new Set(reports ? (await listFiles(join(builtInDir, TEMPLATE_LAYOUT.partials))).filter(isTemplate) : []);
  const agencyPartials = agencyDir === null ? [] : (await listFiles(join(agencyDir, TEMPLATE_LAYOUT.partials))).filter(isTemplate);
  for (const file of [...new Set([...builtInPartials, ...agencyPartials])].sort()) {
    const partial = await lookUp(`${TEMPLATE_LAYOUT.partials}/${file}`, builtInPartials.has(file));
    if (partial !== null) partials.set(file.slice(0, -'.hbs'.length), partial);
  }
  const asset = (file: string): string => `${TEMPLATE_LAYOUT.assets}/${file}`;
  const styles = {
    common: await required(asset('common.css')),
    report: reports ? await required(asset('report.css')) : null,
    index: await required(asset('index.css')),
    site: reports ? await required(asset('site.css')) : null,
    extraReport: await lookUp(asset(TEMPLATE_LAYOUT.extraReport), false),
    extraIndex: await lookUp(asset(TEMPLATE_LAYOUT.extraIndex), false),
    extraSite: await lookUp(asset(TEMPLATE_LAYOUT.extraSite), false),
  };
  const locales = new Map<string, TemplateFile>();
  if (agencyDir !== null) {
    // Each built-in language the folder changes, and each language it adds with a file of its own (locales/eo.json).
    const own = (await listFiles(join(agencyDir, TEMPLATE_LAYOUT.locales))).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5));
    for (const language of new Set([...LANGUAGES, ...own.filter(isLanguageCode)])) {
      const file = await lookUp(`${TEMPLATE_LAYOUT.locales}/${language}.json`, false);
      if (file !== null) locales.set(language, file);
    }
  }
  const set: TemplateSet = {
    builtInDir,
    agencyDir,
    report: reports ? await required(TEMPLATE_LAYOUT.report) : null,
    index: await required(TEMPLATE_LAYOUT.index),
    site: reports ? { client: await required(TEMPLATE_LAYOUT.client), root: await required(TEMPLATE_LAYOUT.root) } : null,
    email: await required(TEMPLATE_LAYOUT.email),
    partials,
    styles,
    locales,
    stray: agencyDir === null ? [] : await strayFiles(agencyDir, used),
    outside,
  };
  return set;
}

/** Templates, styles and locale files of the folder that nothing reads: a file in the wrong place, a misspelt name. */
async function strayFiles(agencyDir: string, used: ReadonlySet<string>): Promise<string[]> {
  const stray: string[] = [];
  const look = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(agencyDir, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const name = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory() && depth < 3 && !entry.name.startsWith('.') && entry.name !== 'node_modules') await look(name, depth + 1);
      else if (/\.(hbs|handlebars|css|json)$/.test(entry.name) && !used.has(name)) stray.push(name);
    }
  };
  await look('', 0);
  return stray.sort();
}

/** Every template of the set, in a stable order. */
export function templateFiles(set: TemplateSet): TemplateFile[] {
  return [
    ...(set.report === null ? [] : [set.report]),
    set.index,
    ...(set.site === null ? [] : [set.site.client, set.site.root]),
    set.email,
    ...set.partials.values(),
  ];
}

/** Every stylesheet of the set, in a stable order. */
export function styleFiles(set: TemplateSet): TemplateFile[] {
  const { common, report, index, site, extraReport, extraIndex, extraSite } = set.styles;
  return [common, report, index, site, extraReport, extraIndex, extraSite].filter((file): file is TemplateFile => file !== null);
}
