// Data the tool has no dedicated place for, shown as labelled key/value lists so nothing the API sends is dropped.
import { fieldLabel, fieldValue, formatWithUnit } from '../i18n/format.js';
import type { Phrases } from '../i18n/locales.js';
import type { KeyValue } from './model.js';

// Deeper structures are shown as JSON text: a report is read on paper, not browsed.
const MAX_DEPTH = 6;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A value that carries nothing to show: null, an empty or blank string, an empty list or object, or a list or
 * object of such values only. A key holding one is not data: it gets no row (doctor still lists it).
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (isPlainObject(value)) return Object.values(value).every(isEmptyValue);
  return false;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A scalar as the model holds it: non-finite numbers become null so no "NaN" reaches the page. */
function scalarValue(value: string | number | boolean | null): string | number | boolean | null {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

/** Phrases and language the labels and unit values are written in. */
export interface LabelContext {
  phrases: Phrases;
  language: string;
}

/** `{ value: 92.5, unit: '%' }` → "92.5%" / "92,5 %"; null for any other shape. */
function valueWithUnit(record: Record<string, unknown>, language: string): string | null {
  const keys = Object.keys(record);
  const value = record['value'];
  const unit = record['unit'];
  if (keys.length !== 2 || typeof value !== 'number' || !Number.isFinite(value) || typeof unit !== 'string') return null;
  return formatWithUnit(value, unit, language);
}

function jsonText(value: unknown): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined for undefined, a function or a symbol; its type leaves that out
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** One value as a KeyValue value: scalars as they are, lists of scalars joined, structures nested; empty items left out. */
export function toKeyValueValue(value: unknown, context: LabelContext, depth = 0): KeyValue['value'] {
  if (isScalar(value)) return scalarValue(value);
  if (Array.isArray(value)) {
    const items = value.filter((item) => !isEmptyValue(item));
    if (items.every(isScalar)) return items.map((v) => String(scalarValue(v) ?? '—')).join(', ');
    if (depth >= MAX_DEPTH) return jsonText(items);
    // Labelled by their place in the list the API sent, empty ones counted.
    return value.flatMap((item, index) =>
      isEmptyValue(item) ? [] : [{ key: String(index), label: itemLabel(item, index), value: toKeyValueValue(item, context, depth + 1) }],
    );
  }
  if (isPlainObject(value)) {
    const withUnit = valueWithUnit(value, context.language);
    if (withUnit !== null) return withUnit;
    if (depth >= MAX_DEPTH) return jsonText(value);
    return toKeyValues(value, context, depth + 1);
  }
  // undefined, bigint, functions: never produced by JSON, shown as text rather than lost.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a bigint or a function as text
  return value === undefined ? null : String(value);
}

/** A list item is labelled by its own name or title when it has one, else by its position. */
function itemLabel(item: unknown, index: number): string {
  if (isPlainObject(item)) {
    for (const field of ['name', 'title', 'label', 'keyword']) {
      const named = item[field];
      if (typeof named === 'string' && named.trim() !== '') return named;
    }
  }
  return `#${index + 1}`;
}

/** Every key of `record` as a labelled entry, in the order the API sent them; empty values (see isEmptyValue) skipped. */
export function toKeyValues(record: Record<string, unknown>, context: LabelContext, depth = 0): KeyValue[] {
  const entries: KeyValue[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (isEmptyValue(value)) continue;
    const shown = typeof value === 'string' ? fieldValue(context.phrases, key, value) : toKeyValueValue(value, context, depth);
    entries.push({ key, label: fieldLabel(context.phrases, key), value: shown });
  }
  return entries;
}
