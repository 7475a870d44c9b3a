// Command-line parsing on node:util parseArgs: strict flags, typed values, and errors that say what was expected.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GeoReportsError } from '../errors.js';

/** Bad command-line input: exit code 2. */
export class UsageError extends GeoReportsError {}

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Options every command that talks to the API accepts. */
export const API_OPTIONS = {
  'base-url': { type: 'string' },
  'allow-insecure': { type: 'boolean' },
  config: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies OptionSpec;

export const API_OPTIONS_HELP = `  --base-url URL       API base URL (default: AGENCY_API_BASE_URL, or api.baseUrl in the config)
  --config FILE        config file (default: config/geo-reports.json when present)
  --allow-insecure     allow a plain http:// base URL that is not loopback
  --json               print JSON instead of a table`;

/** Parses argv; returns null after printing help when --help was asked. */
export function parseCommandArgs(
  argv: string[],
  spec: { options: OptionSpec; positionals?: number; help: string; command: string },
  out: { write(s: string): boolean },
): ParsedArgs | null {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: (spec.positionals ?? 0) > 0,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${spec.command}: ${(error as Error).message.replace(/\. To specify.*$/s, '.')}`, {
      hint: `Run \`geo-reports ${spec.command} --help\`.`,
    });
  }
  if (parsed.values['help'] === true) {
    out.write(spec.help.endsWith('\n') ? spec.help : `${spec.help}\n`);
    return null;
  }
  if (parsed.positionals.length > (spec.positionals ?? 0)) {
    throw new UsageError(`${spec.command}: unexpected argument "${parsed.positionals[spec.positionals ?? 0]}".`, {
      hint: `Run \`geo-reports ${spec.command} --help\`.`,
    });
  }
  return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
}

/** A positive integer from a flag or argument, or a UsageError naming it. */
export function positiveInt(value: string | boolean | string[] | undefined, name: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a positive whole number${typeof value === 'string' ? ` (got "${value}")` : ''}.`);
  }
  return Number(value);
}

export function optionalPositiveInt(value: string | boolean | string[] | undefined, name: string): number | undefined {
  return value === undefined ? undefined : positiveInt(value, name);
}

/** One of `allowed`, or a UsageError listing them. */
export function oneOf<T extends string>(value: string | boolean | string[] | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${name} must be one of ${allowed.join(', ')}${typeof value === 'string' ? ` (got "${value}")` : ''}.`);
  }
  return value as T;
}

export function stringValue(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
