// What a template can ask for: the model of the page (ReportModel or IndexModel) and the few values the renderer
// adds to it, read from their zod declarations. docs/templates.md lists them from here, and `template check`
// follows every name a template uses through them to find the ones the model does not have.
import { z } from 'zod';
import { IndexModelSchema, IndexRowSchema, ReportModelSchema } from '../../report/model.js';
import { EmailModelSchema } from '../../report/email-model.js';
import { ClientPageModelSchema, RootPageModelSchema } from '../../report/site-model.js';

/** The orders the agency index can be sorted in (pre-rendered: the page needs no script). */
export const SORT_ORDERS = ['drop', 'name', 'geo', 'critical'] as const;

const styles = z
  .string()
  .describe("The page's stylesheet (fonts, brand colours, the built-in CSS, then extra.css): write <style>{{styles}}</style> in the <head>.");
const logo = z.string().nullable().describe('The agency logo as a checked data: URI, or null: <img src="{{logo}}">.');

/** What report.hbs and its partials get: the ReportModel, and the renderer's additions. */
export const ReportPageSchema = ReportModelSchema.extend({ styles, logo });

/** What index.hbs gets: the IndexModel, and the renderer's additions. */
export const IndexPageSchema = IndexModelSchema.extend({
  styles,
  logo,
  orders: z
    .array(
      z.object({
        order: z.enum(SORT_ORDERS),
        checked: z.boolean().describe('True for the first order (the one shown when the page opens).'),
        label: z.string(),
        rows: z.array(IndexRowSchema).describe('The rows in this order.'),
      }),
    )
    .describe('The rows sorted each way the agency can switch between, without a script.'),
});

/** What site/client.hbs gets: a client's page of the published site, and the renderer's additions. */
export const ClientPageSchema = ClientPageModelSchema.extend({ styles, logo });

/** What site/root.hbs gets: the site's root and 404 page, and the renderer's additions. */
export const RootPageSchema = RootPageModelSchema.extend({ styles, logo });

const checkedColor = z.string().describe('A hex colour, checked (an unreadable one is replaced by the default).');

/** What email.hbs gets: the message's model, and the renderer's additions (checked colours, the logo's cid: address). */
export const EmailPageSchema = EmailModelSchema.extend({
  colors: z
    .object({
      primary: checkedColor,
      primaryInk: checkedColor.describe('The primary colour, darkened when needed to be readable as text on the background.'),
      onPrimary: checkedColor.describe('White or near-black, whichever reads on the primary colour (the button, the header).'),
      accent: checkedColor,
      text: checkedColor,
      muted: checkedColor,
      background: checkedColor,
    })
    .describe('The brand colours (agency.colors), checked for contrast: mail clients take no stylesheet variables, so each is written inline.'),
  font: z.string().describe('The brand font stack with web-safe fallbacks (a mail client has no embedded font).'),
  logo: z
    .string()
    .nullable()
    .describe('The agency logo as "cid:…", the inline part of the message (shown even where remote images are blocked), or null: <img src="{{logo}}">.'),
  logoWidth: z
    .number()
    .nullable()
    .describe('The width in CSS pixels the logo is shown at, for its width attribute (Outlook sizes an image by its attributes); null when not known.'),
  logoHeight: z.number().nullable().describe('The height in CSS pixels the logo is shown at (40, less for a very wide logo); null when not known.'),
});

/** The form of a value, as far as a template can tell: fields to ask for, items to loop over, or text. */
export type ValueShape =
  | { kind: 'object'; fields: ReadonlyMap<string, ValueField> }
  | { kind: 'list'; item: ValueShape }
  | { kind: 'scalar'; type: 'text' | 'number' | 'yes/no' | 'nothing'; values?: readonly string[] }
  | { kind: 'either'; options: readonly ValueShape[] }
  /** Not known here (a helper's result, a value a template made): anything may be asked of it. */
  | { kind: 'any' };

export interface ValueField {
  shape: ValueShape;
  description: string | undefined;
  /** May be null (a section left out, a value the API did not give). */
  nullable: boolean;
  /** May be absent. */
  optional: boolean;
}

export const ANY: ValueShape = { kind: 'any' };
export const TEXT: ValueShape = { kind: 'scalar', type: 'text' };

interface Unwrapped {
  schema: z.ZodType;
  description: string | undefined;
  nullable: boolean;
  optional: boolean;
}

/** Peels optional, nullable, default and pipe wrappers, keeping the first description met. */
function unwrap(schema: z.ZodType): Unwrapped {
  let current = schema;
  let description = schema.description;
  let nullable = false;
  let optional = false;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (def.type === 'nullable') nullable = true;
    else if (def.type === 'optional' || def.type === 'exact_optional' || def.type === 'default' || def.type === 'prefault') optional ||= def.type !== 'default';
    else if (def.type === 'pipe' && def.in !== undefined) {
      current = def.in;
      description ??= current.description;
      continue;
    } else break;
    if (def.innerType === undefined) break;
    current = def.innerType;
    description ??= current.description;
  }
  return { schema: current, description, nullable, optional };
}

const shapes = new WeakMap<z.ZodType, ValueShape>();

/** The shape of a zod schema; recursive schemas (a key/value list in a key/value list) are followed once. */
export function shapeOf(schema: z.ZodType): ValueShape {
  const known = shapes.get(schema);
  if (known !== undefined) return known;
  const { schema: inner } = unwrap(schema);
  const def = inner._zod.def as { type: string; element?: z.ZodType; options?: z.ZodType[]; entries?: Record<string, string> };
  switch (def.type) {
    case 'object': {
      const fields = new Map<string, ValueField>();
      const shape: ValueShape = { kind: 'object', fields };
      // Registered before its fields: a field of the same schema finds it instead of recursing.
      shapes.set(schema, shape);
      for (const [name, field] of Object.entries((inner as z.ZodObject).shape)) {
        const unwrapped = unwrap(field as z.ZodType);
        fields.set(name, {
          shape: shapeOf(field as z.ZodType),
          description: unwrapped.description,
          nullable: unwrapped.nullable,
          optional: unwrapped.optional,
        });
      }
      return shape;
    }
    case 'array': {
      const shape: { kind: 'list'; item: ValueShape } = { kind: 'list', item: ANY };
      shapes.set(schema, shape);
      shape.item = shapeOf(def.element as z.ZodType);
      return shape;
    }
    case 'union': {
      const options: ValueShape[] = [];
      const shape: ValueShape = { kind: 'either', options };
      shapes.set(schema, shape);
      for (const option of def.options ?? []) options.push(shapeOf(option));
      return shape;
    }
    case 'enum':
      return remember(schema, { kind: 'scalar', type: 'text', values: Object.values(def.entries ?? {}) });
    case 'string':
      return remember(schema, TEXT);
    case 'number':
      return remember(schema, { kind: 'scalar', type: 'number' });
    case 'boolean':
      return remember(schema, { kind: 'scalar', type: 'yes/no' });
    case 'null':
      return remember(schema, { kind: 'scalar', type: 'nothing' });
    default:
      return remember(schema, ANY);
  }
}

function remember(schema: z.ZodType, shape: ValueShape): ValueShape {
  shapes.set(schema, shape);
  return shape;
}

/**
 * What `name` gives when asked of a value of `shape`, or null when such a value has no `name`. A list has its
 * `length` and its items by number, a text its `length`; a value that is one of several gives what any of them does.
 */
export function member(shape: ValueShape, name: string): ValueShape | null {
  switch (shape.kind) {
    case 'any':
      return ANY;
    case 'object':
      return shape.fields.get(name)?.shape ?? null;
    case 'list':
      if (name === 'length') return { kind: 'scalar', type: 'number' };
      return /^\d+$/.test(name) ? shape.item : null;
    case 'scalar':
      return shape.type === 'text' && name === 'length' ? { kind: 'scalar', type: 'number' } : null;
    case 'either': {
      const found = shape.options.map((option) => member(option, name)).filter((s): s is ValueShape => s !== null);
      if (found.length === 0) return null;
      return found.length === 1 ? (found[0] as ValueShape) : { kind: 'either', options: found };
    }
  }
}

/** The items of a list (what `{{#each}}` loops over), or the value itself when it is not one. */
export function itemsOf(shape: ValueShape): ValueShape {
  if (shape.kind === 'list') return shape.item;
  if (shape.kind === 'either') {
    const lists = shape.options.filter((option) => option.kind === 'list');
    if (lists.length === 1) return itemsOf(lists[0] as ValueShape);
    if (lists.length > 1) return { kind: 'either', options: lists.map(itemsOf) };
  }
  return shape.kind === 'object' ? ANY : shape;
}

/** The names a value of this shape has, for "did you mean" hints. */
export function memberNames(shape: ValueShape): string[] {
  if (shape.kind === 'object') return [...shape.fields.keys()];
  if (shape.kind === 'either') return [...new Set(shape.options.flatMap(memberNames))];
  if (shape.kind === 'list') return ['length'];
  return [];
}
