// Input checks run before a request is built, so a wrong argument never spends quota.
import { InvalidParameterError } from './errors.js';

/** Spec: the project list takes at most 100 rows per page. */
export const MAX_PAGE_SIZE = 100;

const show = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
};

/** Ids are positive integers. */
export function checkId(parameter: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidParameterError(parameter, `expected a positive integer, got ${show(value)}`);
  }
  return value;
}

export function checkLimit(parameter: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new InvalidParameterError(parameter, `expected an integer from 1 to ${MAX_PAGE_SIZE}, got ${show(value)}`);
  }
  return value;
}

export function checkOffset(parameter: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidParameterError(parameter, `expected an integer of 0 or more, got ${show(value)}`);
  }
  return value;
}

export function checkEnum<const T extends string>(parameter: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new InvalidParameterError(parameter, `expected one of ${allowed.join(', ')}, got ${show(value)}`);
  }
  return value as T;
}

/** A non-empty list of distinct allowed values, in the order given. */
export function checkEnumList<const T extends string>(parameter: string, value: unknown, allowed: readonly T[]): T[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidParameterError(parameter, `expected a non-empty list of ${allowed.join(', ')}, got ${show(value)}`);
  }
  const seen = new Set<T>();
  for (const item of value) {
    const checked = checkEnum(parameter, item, allowed);
    if (seen.has(checked)) throw new InvalidParameterError(parameter, `${show(item)} is listed twice`);
    seen.add(checked);
  }
  return [...seen];
}

export function checkNonEmptyText(parameter: string, value: unknown, maxLength = 255): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidParameterError(parameter, `expected a non-empty text, got ${show(value)}`);
  }
  if (value.length > maxLength) throw new InvalidParameterError(parameter, `longer than ${maxLength} characters`);
  return value;
}

/** An absolute http(s) URL, as a webhook target must be. */
export function checkHttpUrl(parameter: string, value: unknown): string {
  if (typeof value !== 'string') throw new InvalidParameterError(parameter, `expected a URL, got ${show(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidParameterError(parameter, `${show(value)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidParameterError(parameter, `expected an http or https URL, got the scheme ${url.protocol}`);
  }
  return value;
}

/** SEO audit step names travel comma-separated, so each must be a bare word like `step3_serp`. */
export function checkStepNames(parameter: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidParameterError(parameter, `expected a non-empty list of step names, got ${show(value)}`);
  }
  return value.map((step: unknown) => {
    if (typeof step !== 'string' || !/^[A-Za-z0-9_-]+$/.test(step)) {
      throw new InvalidParameterError(parameter, `expected step names like step3_serp, got ${show(step)}`);
    }
    return step;
  });
}

export function checkBoolean(parameter: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidParameterError(parameter, `expected true or false, got ${show(value)}`);
  return value;
}
