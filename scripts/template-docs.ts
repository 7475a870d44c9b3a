// The generated parts of docs/templates.md, between `<!-- BEGIN GENERATED: name -->` and `<!-- END GENERATED -->`:
// every value a template can use (from the zod declarations of the pages: src/report/model.ts and
// src/render/template-check/values.ts), every helper (from HELPERS in src/render/helpers.ts), and the worked examples
// (the files of examples/agency-templates, which the tests run). The prose around them is written by hand.
//
//   node --import tsx scripts/template-docs.ts           rewrites docs/templates.md
//   node --import tsx scripts/template-docs.ts --check   exits 1 when docs/templates.md is not up to date
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HELPERS } from '../src/render/helpers.js';
import {
  ClientPageSchema,
  EmailPageSchema,
  IndexPageSchema,
  ReportPageSchema,
  RootPageSchema,
  shapeOf,
  type ValueField,
  type ValueShape,
} from '../src/render/template-check/values.js';

export const DOC_PATH = fileURLToPath(new URL('../docs/templates.md', import.meta.url));
const EXAMPLE_DIR = new URL('../examples/agency-templates/', import.meta.url);

/** The shape in words: "text", "number or null", "list", "one of …". */
function typeOf(shape: ValueShape, field: Pick<ValueField, 'nullable' | 'optional'>): string {
  const base = ((): string => {
    switch (shape.kind) {
      case 'scalar':
        return shape.values === undefined ? shape.type : `one of ${shape.values.map((v) => `"${v}"`).join(', ')}`;
      case 'list':
        return 'list';
      case 'object':
        return 'group';
      case 'either':
        return shape.options.map((option) => typeOf(option, { nullable: false, optional: false })).join(' or ');
      case 'any':
        return 'any';
    }
  })();
  return `${base}${field.nullable ? ' or null' : ''}${field.optional ? ', may be absent' : ''}`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One row per value, depth first, lists as `name[]` (what {{#each name}} loops over). */
function valueRows(shape: ValueShape, prefix: string, seen: ReadonlySet<ValueShape>, rows: string[]): void {
  if (shape.kind !== 'object') return;
  for (const [name, field] of shape.fields) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    rows.push(`| \`${path}\` | ${cell(typeOf(field.shape, field))} | ${cell(field.description ?? '')} |`);
    const inner = field.shape.kind === 'list' ? field.shape.item : field.shape;
    // A value holding its own kind (a key/value list inside a key/value list) is described once, by its words.
    if (inner.kind === 'object' && !seen.has(inner)) valueRows(inner, field.shape.kind === 'list' ? `${path}[]` : path, new Set(seen).add(inner), rows);
  }
}

function valuesTable(shape: ValueShape): string {
  const rows: string[] = [];
  valueRows(shape, '', new Set(), rows);
  return ['| value | type | what it is |', '|---|---|---|', ...rows].join('\n');
}

function helpersTable(): string {
  const rows = Object.entries(HELPERS).map(([name, helper]) => `| \`${name}\` | \`${cell(helper.usage)}\` | ${cell(helper.description)} |`);
  return ['| helper | written | what it does |', '|---|---|---|', ...rows].join('\n');
}

async function exampleFile(name: string, language: string): Promise<string> {
  const text = await readFile(new URL(name, EXAMPLE_DIR), 'utf8');
  return `\`examples/agency-templates/${name}\`:\n\n\`\`\`${language}\n${text.trimEnd()}\n\`\`\``;
}

/** The text of each generated part, by its name. */
export async function generatedParts(): Promise<Record<string, string>> {
  return {
    'report-values': valuesTable(shapeOf(ReportPageSchema)),
    'index-values': valuesTable(shapeOf(IndexPageSchema)),
    'client-values': valuesTable(shapeOf(ClientPageSchema)),
    'root-values': valuesTable(shapeOf(RootPageSchema)),
    'email-values': valuesTable(shapeOf(EmailPageSchema)),
    helpers: helpersTable(),
    'example-page': [await exampleFile('partials/about-us.hbs', 'handlebars'), await exampleFile('locales/en.json', 'json')].join('\n\n'),
    'example-order': await exampleFile('report.hbs', 'handlebars'),
    'example-style': await exampleFile('assets/extra.css', 'css'),
  };
}

const PART = /(<!-- BEGIN GENERATED: ([\w-]+) -->)[\s\S]*?(<!-- END GENERATED -->)/g;

/** `doc` with every generated part written again; an unknown part name is an error, not a silent skip. */
export async function regenerate(doc: string): Promise<string> {
  const parts = await generatedParts();
  const used = new Set<string>();
  const result = doc.replace(PART, (_whole, begin: string, name: string, end: string) => {
    const text = parts[name];
    if (text === undefined) throw new Error(`docs/templates.md has a generated part "${name}" that the generator does not make.`);
    used.add(name);
    return `${begin}\n${text}\n${end}`;
  });
  const missing = Object.keys(parts).filter((name) => !used.has(name));
  if (missing.length > 0) throw new Error(`docs/templates.md lacks the generated part(s) ${missing.join(', ')}.`);
  return result;
}

async function main(argv: string[]): Promise<number> {
  const current = await readFile(DOC_PATH, 'utf8');
  const next = await regenerate(current);
  if (argv.includes('--check')) {
    if (next === current) return 0;
    process.stderr.write('docs/templates.md is not up to date: run `node --import tsx scripts/template-docs.ts`.\n');
    return 1;
  }
  if (next !== current) await writeFile(DOC_PATH, next);
  process.stdout.write(next === current ? 'docs/templates.md is up to date.\n' : 'docs/templates.md written.\n');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
