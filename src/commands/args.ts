// Value parsers for flags and arguments, and the option sets several commands share. Every parser throws a
// UsageError that names the flag and says what was expected, before any request is sent.
import { isPeriod } from '../period.js';
import { UsageError, type ValueParser } from './define.js';

export { UsageError } from './define.js';

const got = (text: string): string => ` (got "${text}")`;

/** A whole number within [min, max]: "--limit must be 100 or less (got "500")." */
export function integer(range: { min?: number; max?: number } = {}): ValueParser<number> {
  const min = range.min ?? 0;
  return (text, name) => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
      throw new UsageError(
        min === 1 ? `${name} must be a positive whole number${got(text)}.` : `${name} must be a whole number of ${min} or more${got(text)}.`,
      );
    }
    if (range.max !== undefined && value > range.max) throw new UsageError(`${name} must be ${range.max} or less${got(text)}.`);
    return value;
  };
}

/** An id: a whole number of 1 or more. */
export const positiveInteger: ValueParser<number> = integer({ min: 1 });

/** One of `allowed`: "--status must be one of active, paused, archived (got "deleted")." */
export function choice<T extends string>(allowed: readonly T[]): ValueParser<T> {
  return (text, name) => {
    if (!(allowed as readonly string[]).includes(text)) throw new UsageError(`${name} must be one of ${allowed.join(', ')}${got(text)}.`);
    return text as T;
  };
}

/** `a,b,c` → distinct values in order, each one of `allowed`. */
export function listOf<T extends string>(allowed: readonly T[]): ValueParser<T[]> {
  return (text, name) => {
    const items = text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length === 0) throw new UsageError(`${name} needs a comma-separated list of ${allowed.join(', ')}.`);
    const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (unknown.length > 0) {
      throw new UsageError(
        `${name}: unknown value${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${allowed.join(', ')}.`,
      );
    }
    return [...new Set(items)] as T[];
  };
}

/** The subcommand of `command`: one of `actions`. */
export function subcommandOf<T extends string>(command: string, actions: readonly T[]): ValueParser<T> {
  return (text) => {
    if ((actions as readonly string[]).includes(text)) return text as T;
    const expected = `${actions.slice(0, -1).join(', ')} or ${actions.at(-1)}`;
    throw new UsageError(`${command}: unknown subcommand "${text}" (expected ${expected}).`, { hint: `Run \`geo-reports ${command} --help\`.` });
  };
}

/** A number from 0 to 1: a share of requests. */
export const ratio: ValueParser<number> = (text, name) => {
  const value = /^\d*\.?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 1)) throw new UsageError(`${name} must be a number from 0 to 1${got(text)}.`);
  return value;
};

/** A month to report: YYYY-MM. */
export const periodValue: ValueParser<string> = (text, name) => {
  if (!isPeriod(text)) throw new UsageError(`${name} must look like 2026-10${got(text)}.`);
  return text;
};

/** A text that is not blank, trimmed. */
export const nonBlank: ValueParser<string> = (text, name) => {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`${name} must not be empty.`);
  return trimmed;
};

/** Options of every command that talks to the API. */
export const API_OPTIONS = {
  'base-url': { type: 'string', value: 'URL', help: 'API base URL (default: AGENCY_API_BASE_URL, or api.baseUrl in the config)' },
  config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
  'allow-insecure': { type: 'boolean', help: 'allow a plain http:// base URL that is not loopback' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
} as const;

/** Refuses flags that only make sense with another selector or subcommand. */
export function refuseFlags(given: ReadonlySet<string>, names: readonly string[], context: string): void {
  const present = names.filter((name) => given.has(name));
  if (present.length > 0) throw new UsageError(`${present.map((n) => `--${n}`).join(', ')} cannot be used ${context}.`);
}

/** The one selector flag given among `names` (`--project N` or `--scan N`…), with its value; a UsageError otherwise. */
export function oneSelector<O extends Readonly<Record<string, unknown>>, K extends keyof O & string>(
  command: string,
  options: O,
  names: readonly K[],
): { [N in K]: { name: N; value: NonNullable<O[N]> } }[K] {
  const present = names.filter((name) => options[name] !== undefined);
  const [only] = present;
  if (present.length === 1 && only !== undefined) return { name: only, value: options[only] } as { [N in K]: { name: N; value: NonNullable<O[N]> } }[K];
  const flags = names.map((name) => `--${name} N`);
  const list = flags.length === 2 ? flags.join(' or ') : `${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}`;
  const extra = present.length < 2 ? '' : names.length === 2 ? ', not both' : ` (got ${present.map((name) => `--${name}`).join(' and ')})`;
  throw new UsageError(`${command}: give exactly one of ${list}${extra}.`, { hint: `Run \`geo-reports ${command} --help\`.` });
}
