// The checks of a template set, without running it: every partial and helper a template calls exists, every name
// it asks for is one the page has (followed through {{#each}}, {{#with}}, partials and block parameters), every
// phrase key is in a locale file; and what an agency brings stays sealed: no script, no event handler, no remote
// resource, nothing written without escaping unnoticed. Images and fonts it references are listed for inlining.
// The AST types are Handlebars' global `hbs` namespace, declared by its package.
import { URL_ATTRIBUTES } from './page-check.js';
import type {} from 'handlebars';
import { LANGUAGES, type Locales } from '../i18n/locales.js';
import type { HelperResult } from './helpers.js';
import {
  ANY,
  ClientPageSchema,
  EmailPageSchema,
  IndexPageSchema,
  itemsOf,
  member,
  memberNames,
  ReportPageSchema,
  RootPageSchema,
  shapeOf,
  TEXT,
  type ValueShape,
} from './template-values.js';
import { SECTIONS } from '../sections/index.js';

/** A problem of a template set, at its place in a file. */
export interface TemplateProblem {
  severity: 'error' | 'warning';
  /** Absolute path of the file. */
  file: string;
  /** 1-based; absent when the problem is the file as a whole. */
  line?: number;
  column?: number;
  message: string;
}

/** One file of a template set, as read. */
export interface TemplateFile {
  /** Path inside the folder, with forward slashes: `partials/summary.hbs`. */
  name: string;
  /** Absolute path. */
  path: string;
  text: string;
  fromAgency: boolean;
}

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type SubExpression = hbs.AST.SubExpression;
type Hash = hbs.AST.Hash;

export interface ParsedTemplate {
  file: TemplateFile;
  ast: Program;
}

/** A file the agency's template or stylesheet points at (an image, a font), to be inlined as a data: URI. */
export interface InlineReference {
  file: TemplateFile;
  /** Where the path is written in the file's text. */
  offset: number;
  written: string;
  /** A stylesheet's paths are relative to the stylesheet, a template's to the folder. */
  relativeTo: 'folder' | 'file';
  /** Fonts may be referenced from CSS (@font-face), images from both. */
  fonts: boolean;
}

export interface LintInput {
  report: ParsedTemplate | null;
  index: ParsedTemplate | null;
  /** The published site's pages (site/client.hbs, site/root.hbs). */
  client: ParsedTemplate | null;
  root: ParsedTemplate | null;
  /** The message that carries a report (email.hbs). */
  email: ParsedTemplate | null;
  /** The partials that parsed, by name. */
  partials: ReadonlyMap<string, ParsedTemplate>;
  /** Every partial of the set, parsed or not (one with a syntax error is reported once, not as missing). */
  partialNames: ReadonlySet<string>;
  styles: readonly TemplateFile[];
  helpers: ReadonlyMap<string, HelperResult | 'built-in'>;
  /** The phrases, to check the keys of {{t}}; null when a locale file is broken (reported on its own). */
  phrases: Locales | null;
}

type LintSetup = LintInput & {
  /** Per partial, every hash name its calls give it (`{{> kv-list entries=… compact=true}}`: entries, compact). */
  partialParameters: ReadonlyMap<string, ReadonlySet<string>>;
};

export interface LintResult {
  problems: TemplateProblem[];
  references: InlineReference[];
}

/** The @-values Handlebars and the renderer give a template. */
const DATA_NAMES = new Set(['root', 'index', 'key', 'first', 'last', 'level', 'language', 'phrases', 'partial-block']);

/** Elements that run code or load a document or resource of their own. */
const FORBIDDEN_ELEMENTS = new Map([
  ['script', 'a client report runs no script'],
  ['iframe', 'a client report embeds no other page'],
  ['frame', 'a client report embeds no other page'],
  ['frameset', 'a client report embeds no other page'],
  ['object', 'a client report embeds no plug-in or document'],
  ['embed', 'a client report embeds no plug-in or document'],
  ['applet', 'a client report embeds no plug-in or document'],
  ['portal', 'a client report embeds no other page'],
  ['base', 'it would change where every link of the report leads'],
  ['link', 'a client report loads no stylesheet or resource: put the rules in assets/extra.css'],
]);

const MASK = '\uE000';

export function lintTemplates(lintInput: LintInput): LintResult {
  const problems: TemplateProblem[] = [];
  const references: InlineReference[] = [];
  const seen = new Set<string>();
  const report = (file: TemplateFile, severity: TemplateProblem['severity'], at: { line: number; column: number } | null, message: string): void => {
    const key = `${file.path}:${at?.line}:${at?.column}:${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ severity, file: file.path, ...(at ?? {}), message });
  };

  const templates = [lintInput.report, lintInput.index, lintInput.client, lintInput.root, lintInput.email, ...lintInput.partials.values()].filter(
    (t): t is ParsedTemplate => t !== null,
  );
  const input: LintSetup = { ...lintInput, partialParameters: partialParameters(templates) };
  // Every file on its own (so a partial nothing calls is still checked), then each page from its root with the
  // values it gets, into the partials it calls.
  for (const template of templates) new Walker(input, template, report, null).program(template.ast, unknownScope());
  if (input.report !== null) new Walker(input, input.report, report, new Set()).program(input.report.ast, rootScope(shapeOf(ReportPageSchema)));
  if (input.index !== null) new Walker(input, input.index, report, new Set()).program(input.index.ast, rootScope(shapeOf(IndexPageSchema)));
  if (input.client !== null) new Walker(input, input.client, report, new Set()).program(input.client.ast, rootScope(shapeOf(ClientPageSchema)));
  if (input.root !== null) new Walker(input, input.root, report, new Set()).program(input.root.ast, rootScope(shapeOf(RootPageSchema)));
  if (input.email !== null) new Walker(input, input.email, report, new Set()).program(input.email.ast, rootScope(shapeOf(EmailPageSchema)));
  // An agency's own partial of a scan section (section-<name>) gets that section's view, @root the report page.
  for (const section of SECTIONS) {
    const partial = input.partials.get(`section-${section.name}`);
    if (partial === undefined) continue;
    const scope: Scope = { context: shapeOf(section.schema), params: new Map(), parent: null, root: shapeOf(ReportPageSchema) };
    new Walker(input, partial, report, new Set()).program(partial.ast, scope);
  }

  for (const template of templates) {
    if (template.file.fromAgency) checkMarkup(template.file, report, references);
  }
  for (const style of input.styles) {
    if (style.fromAgency) checkCss(style, style.text, 0, report, references, 'file');
  }
  return { problems, references };
}

type Report = (file: TemplateFile, severity: TemplateProblem['severity'], at: { line: number; column: number } | null, message: string) => void;

interface Scope {
  context: ValueShape;
  /** Block parameters (`as |item|`) and hash values visible here. */
  params: ReadonlyMap<string, ValueShape>;
  /** The scope `../` leads to. */
  parent: Scope | null;
  root: ValueShape;
}

const rootScope = (shape: ValueShape): Scope => ({ context: shape, params: new Map(), parent: null, root: shape });
const unknownScope = (): Scope => rootScope(ANY);

const at = (node: Node): { line: number; column: number } => ({ line: node.loc.start.line, column: node.loc.start.column + 1 });

class Walker {
  readonly #input: LintSetup;
  readonly #template: ParsedTemplate;
  readonly #report: Report;
  /** Partials being followed from a page root, to stop at recursion; null when checking one file on its own. */
  readonly #calls: Set<string> | null;
  readonly #inline: Set<string>;

  constructor(input: LintSetup, template: ParsedTemplate, report: Report, calls: Set<string> | null) {
    this.#input = input;
    this.#template = template;
    this.#report = report;
    this.#calls = calls;
    this.#inline = inlinePartials(template.ast);
  }

  get #following(): boolean {
    return this.#calls !== null;
  }

  #problem(node: Node, severity: TemplateProblem['severity'], message: string): void {
    this.#report(this.#template.file, severity, at(node), message);
  }

  program(program: Program | undefined, scope: Scope): void {
    for (const statement of program?.body ?? []) this.#statement(statement, scope);
  }

  #statement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'MustacheStatement': {
        const mustache = node as hbs.AST.MustacheStatement;
        if (!mustache.escaped && this.#template.file.fromAgency && !this.#writesMarkup(mustache)) {
          this.#problem(
            node,
            'error',
            "writes a value without escaping ({{{…}}} or {{&…}}): a value from the API or the config (a client's name) could put markup, a script, in the page; use {{…}} (only {{styles}} and the helpers that draw markup, such as {{historyChart …}}, write HTML, and they need no {{{…}}})",
          );
        }
        this.#call(mustache.path, mustache.params, mustache.hash, scope, node);
        return;
      }
      case 'BlockStatement':
        this.#block(node as hbs.AST.BlockStatement, scope);
        return;
      case 'DecoratorBlock': {
        // {{#*inline "name"}}: a partial of this file, checked where it is called as well as here.
        this.program((node as hbs.AST.DecoratorBlock).program, unknownScope());
        return;
      }
      case 'PartialStatement':
      case 'PartialBlockStatement':
        this.#partial(node as hbs.AST.PartialStatement | hbs.AST.PartialBlockStatement, scope);
        return;
      default:
        return;
    }
  }

  /** Whether an unescaped mustache writes what is HTML by design: {{{styles}}}, or a helper that draws markup. */
  #writesMarkup(mustache: hbs.AST.MustacheStatement): boolean {
    if (mustache.path.type !== 'PathExpression') return false;
    const name = simpleName(mustache.path as PathExpression);
    if (name === null) return false;
    if (name === 'styles' && mustache.params.length === 0) return true;
    return this.#input.helpers.get(name) === 'markup';
  }

  /** A mustache or sub-expression: a helper call when it has arguments or names a helper, else a value. */
  #call(callee: PathExpression | hbs.AST.Literal, params: Expression[], hash: Hash | undefined, scope: Scope, node: Node, always = false): ValueShape {
    if (callee.type !== 'PathExpression') return TEXT;
    const path = callee as PathExpression;
    const name = simpleName(path);
    const helper = name === null ? undefined : this.#input.helpers.get(name);
    const hasArguments = params.length > 0 || (hash?.pairs.length ?? 0) > 0;
    if (helper === undefined && (hasArguments || always)) {
      this.#problem(
        node,
        'error',
        `unknown helper "${path.original}"; the helpers are ${[...this.#input.helpers.keys()].sort().join(', ')} (see docs/templates.md)`,
      );
      this.#arguments(params, hash, scope);
      return ANY;
    }
    if (helper === undefined) return this.#value(path, scope);
    const shapes = this.#arguments(params, hash, scope);
    if (name === 't') this.#phraseKey(params, node);
    if (helper === 'list like its first argument') return shapes[0] ?? ANY;
    if (helper === 'yes/no') return { kind: 'scalar', type: 'yes/no' };
    return helper === 'built-in' ? ANY : TEXT;
  }

  #arguments(params: Expression[], hash: Hash | undefined, scope: Scope): ValueShape[] {
    for (const pair of hash?.pairs ?? []) this.#expression(pair.value, scope);
    return params.map((param) => this.#expression(param, scope));
  }

  #expression(node: Expression, scope: Scope): ValueShape {
    if (node.type === 'SubExpression') {
      const sub = node as SubExpression;
      return this.#call(sub.path, sub.params, sub.hash, scope, node, true);
    }
    if (node.type === 'PathExpression') return this.#value(node as PathExpression, scope);
    if (node.type === 'NumberLiteral') return { kind: 'scalar', type: 'number' };
    if (node.type === 'BooleanLiteral') return { kind: 'scalar', type: 'yes/no' };
    return TEXT;
  }

  /** The shape of a name the template asks for; an error when the page has no such value (it would print nothing). */
  #value(path: PathExpression, scope: Scope): ValueShape {
    const parts = [...path.parts];
    let shape: ValueShape;
    let from: string;
    if (path.data) {
      const head = parts.shift() ?? '';
      if (!DATA_NAMES.has(head)) {
        this.#problem(path, 'error', `"@${head}" is not a value templates get (they get @root, @index, @key, @first, @last); it would render empty`);
        return ANY;
      }
      if (head !== 'root') return ANY;
      shape = scope.root;
      from = '@root';
    } else {
      let target: Scope = scope;
      for (let depth = 0; depth < path.depth; depth += 1) {
        if (target.parent === null) return ANY;
        target = target.parent;
      }
      const isThis = /^(this|\.)(\/|\.|$)/.test(path.original);
      const head = parts[0];
      const param = !isThis && path.depth === 0 && head !== undefined ? findParam(target, head) : undefined;
      if (param !== undefined) {
        parts.shift();
        shape = param;
        from = head ?? '';
      } else {
        shape = target.context;
        from = '';
      }
    }
    const walked: string[] = from === '' ? [] : [from];
    for (const part of parts) {
      const next = member(shape, part);
      if (next === null) {
        if (this.#following) {
          const known = memberNames(shape);
          const has = known.length === 0 ? `is ${describe(shape)}` : `has ${known.join(', ')}`;
          const where = walked.length === 0 ? `here (the value here ${has})` : `("${walked.join('.')}" ${has})`;
          this.#problem(path, 'error', `"${path.original}" is not a value the template gets ${where}; it would render empty (see docs/templates.md)`);
        }
        return ANY;
      }
      walked.push(part);
      shape = next;
    }
    return shape;
  }

  #block(block: hbs.AST.BlockStatement, scope: Scope): void {
    const name = simpleName(block.path);
    const helper = name === null ? undefined : this.#input.helpers.get(name);
    const [first] = block.params;
    const target = first === undefined ? null : this.#expression(first, scope);
    for (const param of block.params.slice(1)) this.#expression(param, scope);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
    for (const pair of block.hash?.pairs ?? []) this.#expression(pair.value, scope);
    if (name === 't') this.#phraseKey(block.params, block);
    const inner = (context: ValueShape, names: ValueShape[]): Scope => ({
      context,
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
      params: new Map((block.program?.blockParams ?? []).map((param, i) => [param, names[i] ?? ANY])),
      parent: scope,
      root: scope.root,
    });
    if (name === 'each') {
      const items = itemsOf(target ?? ANY);
      this.program(block.program, inner(items, [items, ANY]));
      this.program(block.inverse, scope);
      return;
    }
    if (name === 'with') {
      this.program(block.program, inner(target ?? ANY, [target ?? ANY]));
      this.program(block.inverse, scope);
      return;
    }
    if (helper !== undefined) {
      this.program(block.program, scope);
      this.program(block.inverse, scope);
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
    if (block.params.length > 0 || (block.hash?.pairs.length ?? 0) > 0 || name === null) {
      this.#problem(block, 'error', `unknown block helper "${block.path.original}"; the block helpers are if, unless, each and with`);
      this.program(block.program, unknownScope());
      this.program(block.inverse, scope);
      return;
    }
    // {{#name}}…{{/name}} without arguments: a section over a value of the page, as in Mustache.
    const section = this.#value(block.path, scope);
    this.program(block.program, inner(itemsOf(section), [itemsOf(section)]));
    this.program(block.inverse, scope);
  }

  #partial(node: hbs.AST.PartialStatement | hbs.AST.PartialBlockStatement, scope: Scope): void {
    const nameNode = node.name as Expression;
    const context = node.params[0] === undefined ? scope.context : this.#expression(node.params[0], scope);
    for (const param of node.params.slice(1)) this.#expression(param, scope);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
    const hash = new Map((node.hash?.pairs ?? []).map((pair) => [pair.key, this.#expression(pair.value, scope)] as const));
    const isBlock = node.type === 'PartialBlockStatement';
    if (isBlock) this.program(node.program, scope);
    let name: string | null = null;
    if (nameNode.type === 'PathExpression' && !(nameNode as PathExpression).data) name = (nameNode as PathExpression).original;
    else if (nameNode.type === 'StringLiteral') name = (nameNode as hbs.AST.StringLiteral).value;
    else if (nameNode.type === 'SubExpression') this.#expression(nameNode, scope);
    if (name === null || this.#inline.has(name)) return;
    if (!this.#input.partialNames.has(name)) {
      // A partial block shows its own content when the partial is missing: not an error.
      if (!isBlock) {
        this.#problem(
          node,
          'error',
          `the partial "${name}" does not exist: add partials/${name}.hbs to the template folder (partials: ${[...this.#input.partialNames].sort().join(', ')})`,
        );
      }
      return;
    }
    const partial = this.#input.partials.get(name);
    if (partial === undefined || this.#calls === null || this.#calls.has(name)) return;
    // The partial sees the context it is given, with the hash values laid over it.
    const fields = new Map(context.kind === 'object' ? context.fields : []);
    for (const [key, shape] of hash) fields.set(key, { shape, description: undefined, nullable: false, optional: false });
    // A name given to this partial at any of its calls is one of its parameters: absent here, it renders empty.
    for (const parameter of this.#input.partialParameters.get(name) ?? []) {
      if (!fields.has(parameter)) fields.set(parameter, { shape: ANY, description: undefined, nullable: true, optional: true });
    }
    const partialContext: ValueShape = context.kind === 'object' || (context.kind !== 'any' && hash.size > 0) ? { kind: 'object', fields } : context;
    const calls = new Set(this.#calls).add(name);
    const walker = new Walker(this.#input, partial, this.#report, calls);
    walker.program(partial.ast, { context: partialContext, params: new Map(), parent: scope, root: scope.root });
  }

  /**
   * {{t "a" "b"}}: with literal parts, the phrase must be in a locale file; with a value among them (`{{t "priority"
   * priority}}`), some phrase must start with the literal parts before it. Else the report would show a raw key.
   */
  #phraseKey(params: Expression[], node: Node): void {
    const phrases = this.#input.phrases;
    if (phrases === null || params.length === 0) return;
    const literal = params.findIndex((p) => p.type !== 'StringLiteral' && p.type !== 'NumberLiteral');
    const parts = (literal < 0 ? params : params.slice(0, literal)).map((p) => String((p as hbs.AST.StringLiteral | hbs.AST.NumberLiteral).value));
    if (parts.length === 0) return;
    const key = parts.join('.');
    for (const language of LANGUAGES) {
      const own = phrases.phrases(language);
      const found =
        literal < 0
          ? [key, `${key}.one`, `${key}.other`].some((candidate) => own[candidate] !== undefined)
          : Object.keys(own).some((k) => k.startsWith(`${key}.`));
      if (found) continue;
      const what = literal < 0 ? `the phrase "${key}"` : `no phrase "${key}.…"`;
      this.#problem(
        node,
        'error',
        `${what} is in no locale file${language === 'en' ? '' : ` for "${language}"`}: the report would show the key itself; ${nearbyKeys(key, Object.keys(own))}; or add it to locales/en.json`,
      );
      return;
    }
  }
}

/** The phrases that exist near a key, for a message: the closest keys of its group, else the groups there are. */
function nearbyKeys(key: string, keys: readonly string[]): string {
  const group = key.split('.')[0] ?? '';
  const inGroup = keys.filter((k) => k.split('.')[0] === group);
  if (inGroup.length === 0) {
    const groups = [...new Set(keys.map((k) => k.split('.')[0] ?? ''))].sort();
    return `no phrase starts with "${group}."; the groups of phrases are ${groups.join(', ')}`;
  }
  const closest = [...inGroup].sort((a, b) => editDistance(key, a) - editDistance(key, b) || a.localeCompare(b)).slice(0, 6);
  return `the nearest phrases are ${closest.join(', ')}`;
}

/** Levenshtein distance of two short texts. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A value's shape in words, for a message. */
function describe(shape: ValueShape): string {
  switch (shape.kind) {
    case 'scalar':
      return { text: 'a text', number: 'a number', 'yes/no': 'a yes/no', nothing: 'nothing' }[shape.type];
    case 'list':
      return 'a list';
    case 'either':
      return shape.options.map(describe).join(' or ');
    default:
      return 'a value';
  }
}

/** A helper's name: one plain identifier, not `this.x`, `../x`, `@x` or `a.b`. */
function simpleName(path: PathExpression): string | null {
  return path.parts.length === 1 && !path.data && path.depth === 0 && !/^(this|\.)/.test(path.original) ? (path.parts[0] ?? null) : null;
}

function findParam(scope: Scope, name: string): ValueShape | undefined {
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    const found = s.params.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Per partial name, the hash names given to it anywhere in the set. */
function partialParameters(templates: readonly ParsedTemplate[]): Map<string, Set<string>> {
  const parameters = new Map<string, Set<string>>();
  const visit = (node: Node): void => {
    if (node.type === 'PartialStatement' || node.type === 'PartialBlockStatement') {
      const partial = node as hbs.AST.PartialStatement;
      const name = partial.name.type === 'PathExpression' ? partial.name.original : null;
      if (name !== null) {
        const names = parameters.get(name) ?? new Set<string>();
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
        for (const pair of partial.hash?.pairs ?? []) names.add(pair.key);
        parameters.set(name, names);
      }
    }
    const children = [(node as { program?: Program }).program, (node as { inverse?: Program }).inverse];
    for (const child of children) for (const statement of child?.body ?? []) visit(statement);
  };
  for (const template of templates) for (const statement of template.ast.body) visit(statement);
  return parameters;
}

/** Names of the {{#*inline "name"}} partials a file declares. */
function inlinePartials(program: Program): Set<string> {
  const names = new Set<string>();
  const visit = (node: Node): void => {
    if (node.type === 'DecoratorBlock') {
      const decorator = node as hbs.AST.DecoratorBlock;
      const [first] = decorator.params;
      if (decorator.path.original === 'inline' && first?.type === 'StringLiteral') names.add((first as hbs.AST.StringLiteral).value);
    }
    const children = [(node as { program?: Program }).program, (node as { inverse?: Program }).inverse];
    for (const child of children) for (const statement of child?.body ?? []) visit(statement);
  };
  for (const statement of program.body) visit(statement);
  return names;
}

/**
 * The text with every mustache, Handlebars comment and HTML comment blanked out, at the same offsets (line
 * breaks kept), so that the markup around them can be read for what the browser would make of it.
 */
function maskMustaches(text: string): string {
  return text.replace(/\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{\{\{[\s\S]*?\}\}\}\}|\{\{\{[\s\S]*?\}\}\}|\{\{[\s\S]*?\}\}|<!--[\s\S]*?-->/g, (span) =>
    span.startsWith('<!--') ? span.replace(/[^\n]/g, ' ') : span.replace(/[^\n]/g, MASK),
  );
}

/** Line and column (1-based) of `offset` in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s=>/]+)(?:\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const REMOTE = /^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i;
const SCHEME = /^\s*([a-z][a-z0-9+.-]*):/i;

/** The markup of an agency template: no element that runs or loads anything, no handler, no remote URL. */
function checkMarkup(file: TemplateFile, report: Report, references: InlineReference[]): void {
  const text = file.text;
  const masked = maskMustaches(text);
  const problem = (offset: number, severity: TemplateProblem['severity'], message: string): void => report(file, severity, positionOf(text, offset), message);

  for (const tag of masked.matchAll(TAG)) {
    const [, closing, rawName = '', attributes = ''] = tag;
    const tagName = rawName.toLowerCase();
    const tagOffset = tag.index;
    if (closing === '/') continue;
    const why = FORBIDDEN_ELEMENTS.get(tagName);
    if (why !== undefined) {
      // One error per element: its attributes do not matter, it goes.
      problem(tagOffset, 'error', `<${tagName}> is not allowed: ${why}`);
      continue;
    }
    const attributesOffset = tagOffset + 1 + rawName.length;
    for (const attribute of attributes.matchAll(ATTRIBUTE)) {
      const name = (attribute[1] ?? '').toLowerCase();
      const value = attribute[3] ?? attribute[4] ?? attribute[5];
      const nameOffset = attributesOffset + attribute.index;
      if (name.includes(MASK)) continue;
      if (name.startsWith('on')) {
        problem(nameOffset, 'error', `the event handler ${name}="…" is not allowed: a client report runs no script`);
        continue;
      }
      if (tagName === 'meta' && name === 'http-equiv') problem(nameOffset, 'error', '<meta http-equiv> is not allowed: it can reload or redirect the report');
      if (value === undefined) continue;
      const valueOffset = attributesOffset + attribute.index + attribute[0].length - value.length - (attribute[5] === undefined ? 1 : 0);
      const original = text.slice(valueOffset, valueOffset + value.length);
      const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
      if (scheme === 'javascript' || scheme === 'vbscript') {
        problem(valueOffset, 'error', `a ${scheme}: URL is not allowed: a client report runs no script`);
        continue;
      }
      if (name === 'style') {
        checkCss(file, original, valueOffset, report, references, 'folder', masked.slice(valueOffset, valueOffset + value.length));
        continue;
      }
      if (!URL_ATTRIBUTES.has(name)) continue;
      if (REMOTE.test(value) || (scheme !== undefined && scheme !== 'data' && scheme !== 'mailto' && scheme !== 'tel')) {
        problem(
          valueOffset,
          'error',
          `${name}="${value.trim()}" points outside the report: a client report loads nothing from the network; put the file in the template folder and write its path (it is inlined), or write an address as text`,
        );
        continue;
      }
      if (scheme === 'data' || value.trim().startsWith('#') || value.trim() === '') continue;
      const dynamic = value.includes(MASK);
      // An SVG <image> loads its href: an image to inline; any other href is a link.
      if ((name === 'href' || name === 'xlink:href') && tagName !== 'image') {
        if (!dynamic) problem(valueOffset, 'warning', `href="${value}" leads nowhere in the PDF: only #anchors inside the report work`);
        continue;
      }
      if (name === 'srcset') {
        problem(valueOffset, 'error', 'srcset is not supported in a report: use src with one image (it is inlined)');
        continue;
      }
      if (dynamic) {
        if (/^\s*\{\{\s*(?:logo|safeImage\b[^}]*)\s*\}\}\s*$/.test(original)) continue;
        if (value.replace(new RegExp(MASK, 'g'), '').trim() === '') {
          problem(
            valueOffset,
            'warning',
            `${name}="${original}" takes a value of the page: only an inline (data:) image prints, anything else is blocked; write {{safeImage …}}`,
          );
        } else {
          problem(
            valueOffset,
            'error',
            `${name}="${original}" builds a path from a value: write the path of the file in full (it is inlined), e.g. ${name}="images/team.png"`,
          );
        }
        continue;
      }
      references.push({ file, offset: valueOffset + (value.length - value.trimStart().length), written: value.trim(), relativeTo: 'folder', fonts: false });
    }
  }
  // A <style> element of the template: its rules as those of a stylesheet.
  for (const style of masked.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) {
    const body = style[1] ?? '';
    const offset = style.index + style[0].indexOf(body);
    checkCss(file, text.slice(offset, offset + body.length), offset, report, references, 'folder', body);
  }
}

/**
 * CSS of an agency file (a stylesheet, a <style> element, a style attribute): no @import, no remote url(), and
 * each relative url() listed for inlining. `masked` is the same text with mustaches blanked out, when it has any.
 */
function checkCss(
  file: TemplateFile,
  css: string,
  base: number,
  report: Report,
  references: InlineReference[],
  relativeTo: InlineReference['relativeTo'],
  masked: string = css,
): void {
  const problem = (offset: number, message: string): void => report(file, 'error', positionOf(file.text, base + offset), message);
  // Comments read as blanks, at the same offsets.
  const text = masked.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '));
  for (const rule of text.matchAll(/@import\b/gi))
    problem(rule.index, '@import is not allowed: a report loads no stylesheet; write the rules in assets/extra.css');
  for (const url of text.matchAll(/url\(\s*(["']?)([^"')]*)\1\s*\)/gi)) {
    const target = url[2] ?? '';
    const offset = url.index + url[0].indexOf(target, 4);
    const trimmed = target.trim();
    if (trimmed === '' || trimmed.startsWith('#') || /^data:/i.test(trimmed)) continue;
    if (target.includes(MASK)) {
      problem(offset, 'url() built from a value is not allowed: write the path of a file in the template folder (it is inlined)');
      continue;
    }
    if (REMOTE.test(trimmed) || SCHEME.test(trimmed)) {
      problem(
        offset,
        `url(${trimmed}) points outside the report: a client report loads nothing from the network; put the file in the template folder and write its path (it is inlined)`,
      );
      continue;
    }
    references.push({ file, offset: base + offset, written: trimmed, relativeTo, fonts: true });
  }
}
