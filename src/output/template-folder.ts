// `geo-reports template init`: a copy of the built-in templates an agency can edit, with a README that says what
// each file is and how the folder is read. Files are written whole (atomically): an interrupted init leaves no
// half-written template.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir, writeFileAtomic } from './store.js';
import { BUILT_IN_TEMPLATES_DIR, TEMPLATE_LAYOUT, TemplateError } from '../render/template-check/load.js';

/** The reference of every value and helper a template can use, shipped with the package. */
const TEMPLATES_DOC = fileURLToPath(new URL('../../docs/templates.md', import.meta.url));

const EXTRA_CSS = `/*
 * Added after the built-in styles of every client report: most restyling is a few rules here, and the
 * built-in templates and styles keep their updates. The page's colours are custom properties:
 * --brand-primary, --brand-accent, --brand-text, --brand-muted, --brand-background, --brand-font.
 * Example: .score-card { background: #f4f8fb; }
 * Images and fonts: url(../images/photo.png) (relative to this file, inside the folder) is inlined.
 */
`;

function readme(docs: string): string {
  return `# Report templates

This folder is laid over the built-in templates of geo-reports: a file here replaces the built-in file of the
same path; every file that is not here comes from the built-in set. \`geo-reports template init\` copied all of
them: **delete the ones you do not change**, so that they keep the built-in ones' updates.

| file | what |
|---|---|
| \`report.hbs\` | the client report: the order of its sections (each one a partial) |
| \`partials/*.hbs\` | one part of the report each: cover, summary, scores, history, metrics, trust, recommendations… A new file here, \`partials/about-us.hbs\`, is used as \`{{> about-us}}\` |
| \`index.hbs\` | the agency's overview of a period (\`index.html\`), not sent to clients |
| \`email.hbs\` | the message that carries each report (\`geo-reports send\`): a table layout with inline styles, as mail clients need; its phrases are the \`email.*\` keys of the locale files |
| \`site/client.hbs\`, \`site/root.hbs\` | the published site (\`geo-reports publish\`): a client's page, listing its reports; the site's root and 404 page |
| \`assets/common.css\`, \`assets/report.css\`, \`assets/index.css\`, \`assets/site.css\` | the built-in styles |
| \`assets/extra.css\` | added after the report's styles: most restyling is a few rules here. \`assets/extra-index.css\` does the same for the index, \`assets/extra-site.css\` for the site's pages |
| \`locales/en.json\`, \`locales/fr.json\` | the words of the report. Keep only the keys you change or add: the built-in file of the language is underneath, then English |

Templates are [Handlebars](https://handlebarsjs.com/guide/). Every value from the API is escaped (\`{{value}}\`);
a report runs no script and loads nothing from the network: an image is written with its path in this folder
(\`<img src="images/team.png">\`, relative to the folder; in a stylesheet, relative to the stylesheet) and is
inlined into the report.

- Every value and helper a template can use, with worked examples: ${docs}
- \`geo-reports template check --templates <this folder>\`: every problem, with its file and line.
- \`geo-reports preview --templates <this folder>\`: the report in your browser, reloaded at every save, with
  no request to the API.
- To use it for the monthly run: \`"report": { "templates": "<this folder, relative to the config file>",
  "clients": "listed" }\` in the config (\`"listed"\`: only the projects in \`clients\` are reported), or
  \`--templates DIR\` on \`run\`, \`report\`, \`demo\`, \`send\`.
- After a change here, \`geo-reports run --remake\` makes the month's reports again from their saved data,
  without a request (a report already sent is kept, the new one written beside it as \`report-v2.pdf\`).
`;
}

async function listing(dir: string, sub: string, extension: string): Promise<string[]> {
  return (await readdir(join(dir, sub))).filter((file) => file.endsWith(extension)).sort().map((file) => `${sub}/${file}`);
}

/** What init writes: every built-in template, style and locale file, a starter extra.css and the README. */
async function initFiles(builtInDir: string): Promise<Array<{ name: string; text: string }>> {
  const copied = [
    TEMPLATE_LAYOUT.report,
    TEMPLATE_LAYOUT.index,
    TEMPLATE_LAYOUT.client,
    TEMPLATE_LAYOUT.root,
    TEMPLATE_LAYOUT.email,
    ...(await listing(builtInDir, TEMPLATE_LAYOUT.partials, '.hbs')),
    ...TEMPLATE_LAYOUT.styles.map((file) => `${TEMPLATE_LAYOUT.assets}/${file}`),
    ...(await listing(builtInDir, TEMPLATE_LAYOUT.locales, '.json')),
  ];
  const files = await Promise.all(copied.map(async (name) => ({ name, text: await readFile(join(builtInDir, name), 'utf8') })));
  return [...files, { name: `${TEMPLATE_LAYOUT.assets}/${TEMPLATE_LAYOUT.extraReport}`, text: EXTRA_CSS }, { name: 'README.md', text: readme(TEMPLATES_DOC) }];
}

export interface InitOptions {
  /** Overwrite the files of a folder that is not empty. */
  force: boolean;
  /** @default the package's templates/ */
  builtInDir?: string;
}

/** Writes the folder; refuses a non-empty one without `force`. Resolves to the files written, by their path inside it. */
export async function initTemplateFolder(dir: string, options: InitOptions): Promise<string[]> {
  const target = resolve(dir);
  let entries: string[] | null = null;
  try {
    if (!(await stat(target)).isDirectory()) {
      throw new TemplateError(`${target} is a file, not a folder.`, [], { hint: 'Give the path of a new or empty folder.' });
    }
    entries = await readdir(target);
  } catch (error) {
    if (error instanceof TemplateError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new TemplateError(`Cannot read ${target}: ${(error as Error).message}`, [], { hint: 'Check the path and its permissions.' });
    }
  }
  if (entries !== null && entries.length > 0 && !options.force) {
    throw new TemplateError(`${target} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}): nothing was written.`, [], {
      hint: 'Choose a new folder, or add --force to write the built-in templates over the files of the same name (others are kept).',
    });
  }
  const files = await initFiles(options.builtInDir ?? BUILT_IN_TEMPLATES_DIR);
  for (const file of files) {
    const path = join(target, file.name);
    try {
      await ensureDir(join(path, '..'));
      await writeFileAtomic(path, file.text);
    } catch (error) {
      throw new TemplateError(`Cannot write ${path}: ${(error as Error).message}`, [], {
        hint: 'Check that the folder is writable and the disk has room; the files written so far are complete.',
      });
    }
  }
  return files.map((file) => file.name);
}
