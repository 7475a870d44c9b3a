// The names check of a template set, without running it: every partial and helper a template calls exists, every
// name it asks for is one the page has (followed through {{#each}}, {{#with}}, partials and block parameters,
// against the schemas of the pages' values), every phrase key is in a locale file.
// The AST types are Handlebars' global `hbs` namespace, declared by its package.
import type {} from 'handlebars';
import { LANGUAGES, type Locales } from '../../i18n/locales.js';
import { nearestName } from '../../nearest-name.js';
import type { HelperResult } from '../helpers.js';
import { eachStatement, nodePosition, type ParsedTemplate, type RecordProblem, type TemplateProblem } from './problems.js';
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
} from './values.js';
import { SECTIONS } from '../../sections/index.js';
import { editDistance } from '../../nearest-name.js';

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type SubExpression = hbs.AST.SubExpression;
type Hash = hbs.AST.Hash;

/** The templates of a set, parsed, with the helpers and phrases they may call. */
export interface NamesCheckInput {
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
  helpers: ReadonlyMap<string, HelperResult | 'built-in'>;
  /** The phrases, to check the keys of {{t}}; null when a locale file is broken (reported on its own). */
  phrases: Locales | null;
}

type NamesSetup = NamesCheckInput & {
  /** Per partial, every hash name its calls give it (`{{> kv-list entries=… compact=true}}`: entries, compact). */
  partialParameters: ReadonlyMap<string, ReadonlySet<string>>;
};

/** The @-values Handlebars and the renderer give a template. */
/** ", did you mean "t"" for a mistyped helper or partial name; empty when no declared name is near. Between names
 * as near, one that starts as the typed one does ({{tr}}: t rather than or). */
function didYouMean(given: string, names: readonly string[]): string {
  const ordered = [...names].sort((a, b) => Number(!a.startsWith(given.charAt(0))) - Number(!b.startsWith(given.charAt(0))) || a.localeCompare(b));
  const nearest = nearestName(given, ordered);
  return nearest === undefined ? '' : `, did you mean "${nearest}"`;
}

const DATA_NAMES = new Set(['root', 'index', 'key', 'first', 'last', 'level', 'language', 'phrases', 'partial-block']);

/** Checks every name, helper, partial and phrase key the templates use; each problem goes to `record`. */
export function checkTemplateNames(names: NamesCheckInput, record: RecordProblem): void {
  const templates = [names.report, names.index, names.client, names.root, names.email, ...names.partials.values()].filter(
    (t): t is ParsedTemplate => t !== null,
  );
  const input: NamesSetup = { ...names, partialParameters: partialParameters(templates) };
  // Every file on its own (so a partial nothing calls is still checked), then each page from its root with the
  // values it gets, into the partials it calls.
  for (const template of templates) new Walker(input, template, record, null).program(template.ast, unknownScope());
  if (input.report !== null) new Walker(input, input.report, record, new Set()).program(input.report.ast, rootScope(shapeOf(ReportPageSchema)));
  if (input.index !== null) new Walker(input, input.index, record, new Set()).program(input.index.ast, rootScope(shapeOf(IndexPageSchema)));
  if (input.client !== null) new Walker(input, input.client, record, new Set()).program(input.client.ast, rootScope(shapeOf(ClientPageSchema)));
  if (input.root !== null) new Walker(input, input.root, record, new Set()).program(input.root.ast, rootScope(shapeOf(RootPageSchema)));
  if (input.email !== null) new Walker(input, input.email, record, new Set()).program(input.email.ast, rootScope(shapeOf(EmailPageSchema)));
  // An agency's own partial of a scan section (section-<name>) gets that section's view, @root the report page.
  for (const section of SECTIONS) {
    const partial = input.partials.get(`section-${section.name}`);
    if (partial === undefined) continue;
    const scope: Scope = { context: shapeOf(section.schema), params: new Map(), parent: null, root: shapeOf(ReportPageSchema) };
    new Walker(input, partial, record, new Set()).program(partial.ast, scope);
  }
}

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

class Walker {
  readonly #input: NamesSetup;
  readonly #template: ParsedTemplate;
  readonly #record: RecordProblem;
  /** Partials being followed from a page root, to stop at recursion; null when checking one file on its own. */
  readonly #calls: Set<string> | null;
  readonly #inline: Set<string>;

  constructor(input: NamesSetup, template: ParsedTemplate, record: RecordProblem, calls: Set<string> | null) {
    this.#input = input;
    this.#template = template;
    this.#record = record;
    this.#calls = calls;
    this.#inline = inlinePartials(template.ast);
  }

  get #following(): boolean {
    return this.#calls !== null;
  }

  #problem(node: Node, severity: TemplateProblem['severity'], message: string): void {
    this.#record(this.#template.file, severity, nodePosition(node), message);
  }

  program(program: Program | undefined, scope: Scope): void {
    for (const statement of program?.body ?? []) this.#statement(statement, scope);
  }

  #statement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'MustacheStatement': {
        const mustache = node as hbs.AST.MustacheStatement;
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
        `unknown helper "${path.original}"${didYouMean(path.original, [...this.#input.helpers.keys()])}; the helpers are ${[...this.#input.helpers.keys()].sort().join(', ')} (see docs/templates.md)`,
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
          `the partial "${name}" does not exist${didYouMean(name, [...this.#input.partialNames])}: add partials/${name}.hbs to the template folder (partials: ${[...this.#input.partialNames].sort().join(', ')})`,
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
    const walker = new Walker(this.#input, partial, this.#record, calls);
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
export function simpleName(path: PathExpression): string | null {
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
    if (node.type !== 'PartialStatement' && node.type !== 'PartialBlockStatement') return;
    const partial = node as hbs.AST.PartialStatement;
    const name = partial.name.type === 'PathExpression' ? partial.name.original : null;
    if (name === null) return;
    const names = parameters.get(name) ?? new Set<string>();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Handlebars leaves `hash` and `program` undefined when a node has none; its types say otherwise
    for (const pair of partial.hash?.pairs ?? []) names.add(pair.key);
    parameters.set(name, names);
  };
  for (const template of templates) eachStatement(template.ast, visit);
  return parameters;
}

/** Names of the {{#*inline "name"}} partials a file declares. */
function inlinePartials(program: Program): Set<string> {
  const names = new Set<string>();
  eachStatement(program, (node) => {
    if (node.type !== 'DecoratorBlock') return;
    const decorator = node as hbs.AST.DecoratorBlock;
    const [first] = decorator.params;
    if (decorator.path.original === 'inline' && first?.type === 'StringLiteral') names.add((first as hbs.AST.StringLiteral).value);
  });
  return names;
}
