// One way to declare a command: each option's type, value name, default and help in one place. Parsing (node:util
// parseArgs, strict) and the `--help` text are made from that declaration, so they cannot drift apart. Then the
// value parsers of flags and arguments, and how a command prints a result.
import { parseArgs } from 'node:util';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { DEFAULT_HELP_WIDTH, helpTable, helpWidth, wrapHelp, wrapWords } from '../help-layout.js';
import { nearestName } from '../nearest-name.js';
import { isAnyPeriod, isPeriod, type MonthPeriod, type Period } from '../period.js';

export type { CommandContext, Output } from '../command-context.js';
export { UsageError } from '../errors.js';

/** Turns the text of a flag or argument into its value, or throws a UsageError naming `name` (`--limit`). */
export type ValueParser<T> = (text: string, name: string) => T;

interface OptionBase {
  /** What it does, for --help: prose wrapped to the terminal's width, where a line indented by `\n  ` stays a line (an item of a list). */
  help: string;
  /** One-letter alias, e.g. `o` for `-o`. */
  short?: string;
}

/** A switch: true when given, false otherwise. */
export interface FlagOption extends OptionBase {
  type: 'boolean';
}

/** An option with a value: `--limit N`. */
export interface ValueOption<T = unknown> extends OptionBase {
  type: 'string';
  /** The value's name in the help: `N`, `URL`, `YYYY-MM`. */
  value: string;
  /** @default the text as given */
  parse?: ValueParser<T>;
  /** May be given more than once: every value, in order (an empty list when absent). */
  multiple?: boolean;
  /** Value when the option is absent; shown in the help. */
  default?: T;
}

export type OptionSpec = FlagOption | ValueOption;
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A positional argument: `<project-id>`. */
export interface ArgumentSpec<T = unknown> {
  help: string;
  parse?: ValueParser<T>;
  /** A UsageError `missing <name>` when absent (with `variadic`: when none is given). @default false */
  required?: boolean;
  /** The last argument only: takes every remaining one, a list (`SRC...`). */
  variadic?: boolean;
}

export type ArgumentSpecs = Readonly<Record<string, ArgumentSpec>>;

type ParsedValue<S> = S extends { parse: ValueParser<infer T> } ? T : string;

export type OptionValue<S> = S extends FlagOption
  ? boolean
  : S extends { multiple: true }
    ? Array<ParsedValue<S>>
    : S extends { default: unknown }
      ? ParsedValue<S>
      : ParsedValue<S> | undefined;

export type OptionValues<S extends OptionSpecs> = { -readonly [K in keyof S]: OptionValue<S[K]> };

export type ArgumentValues<A extends ArgumentSpecs> = {
  -readonly [K in keyof A]: A[K] extends { variadic: true }
    ? Array<ParsedValue<A[K]>>
    : A[K] extends { required: true }
      ? ParsedValue<A[K]>
      : ParsedValue<A[K]> | undefined;
};

/** What a command's `run` gets: typed values, defaults applied. */
export interface CommandInput<S extends OptionSpecs, A extends ArgumentSpecs> {
  options: OptionValues<S>;
  args: ArgumentValues<A>;
  /** Options written on the command line (an option left to its default is not). */
  given: ReadonlySet<keyof S & string>;
}

export interface CommandSpec<S extends OptionSpecs, A extends ArgumentSpecs> {
  name: string;
  /** What the command does, shown under the usage line. */
  description: string;
  options?: S;
  /** Positional arguments, in order. */
  args?: A;
  /** Usage lines after `geo-reports <name> `, when one generated line does not say it well (subcommands). */
  usage?: readonly string[];
  /** Shown after the options: exit codes, notes. */
  epilog?: string;
  /** A long-running command whose normal end is SIGINT / SIGTERM: exits with its own code, not 130/143. */
  stopsOnSignal?: boolean;
}

/** The work of a command, given typed values; resolves to the exit code. */
export type CommandRun<S extends OptionSpecs, A extends ArgumentSpecs> = (input: CommandInput<S, A>, ctx: CommandContext) => Promise<number>;

/** A command as the CLI sees it, once loaded (its line in `geo-reports --help` is in the registry). */
export interface Command {
  name: string;
  stopsOnSignal: boolean;
  /** The --help text, laid out for `width` columns. @default 80 */
  help(width?: number): string;
  /** Parses argv (printing the help for --help) and runs; resolves to the exit code. */
  run(argv: string[], ctx: CommandContext): Promise<number>;
}

const HELP_OPTION: FlagOption = { type: 'boolean', short: 'h', help: 'print this help' };

/**
 * A command from its declaration and its work. `run` is a separate argument so that TypeScript reads the option
 * types from the declaration first (a parser made by a generic call such as `choice(LIST)` included).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a command without options or arguments declares none
export function defineCommand<const S extends OptionSpecs = {}, const A extends ArgumentSpecs = {}>(spec: CommandSpec<S, A>, run: CommandRun<S, A>): Command {
  const options: OptionSpecs = spec.options ?? {};
  const argumentSpecs: ArgumentSpecs = spec.args ?? {};
  if ('help' in options) throw new Error(`${spec.name}: --help is given to every command; do not declare it.`);
  if (
    Object.values(argumentSpecs)
      .slice(0, -1)
      .some((a) => a.variadic === true)
  ) {
    throw new Error(`${spec.name}: only the last argument can take the remaining ones.`);
  }
  const help = (width = DEFAULT_HELP_WIDTH): string => helpText(spec, options, argumentSpecs, width);
  return {
    name: spec.name,
    stopsOnSignal: spec.stopsOnSignal === true,
    help,
    async run(argv, ctx) {
      const input = parseCommandLine(spec.name, argv, options, argumentSpecs);
      if (input === null) {
        ctx.stdout.write(help(helpWidth(ctx.stdout)));
        return 0;
      }
      return run(input as CommandInput<S, A>, ctx);
    },
  };
}

/** Required arguments in angle brackets, optional ones in square brackets, a list with "...". */
function argumentsOf(argumentSpecs: ArgumentSpecs): string[] {
  return Object.entries(argumentSpecs).map(([name, a]) => {
    const shown = `<${name}>${a.variadic === true ? '...' : ''}`;
    return a.required === true ? shown : `[${shown}]`;
  });
}

function usageError(command: string, message: string): UsageError {
  return new UsageError(`${command}: ${message}`, { hint: `Run \`geo-reports ${command} --help\`.` });
}

/** argv → typed input; null when --help was asked. */
function parseCommandLine(
  command: string,
  argv: string[],
  options: OptionSpecs,
  argumentSpecs: ArgumentSpecs,
): CommandInput<OptionSpecs, ArgumentSpecs> | null {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: HELP_OPTION };
  for (const [name, option] of Object.entries(options)) {
    config[name] = {
      type: option.type,
      ...(option.short !== undefined ? { short: option.short } : {}),
      ...(option.type === 'string' && option.multiple === true ? { multiple: true } : {}),
    };
  }
  const names = Object.keys(argumentSpecs);
  const variadic = Object.values(argumentSpecs).at(-1)?.variadic === true;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: names.length > 0, strict: true });
  } catch (error) {
    const said = (error as Error).message.replace(/\. To specify.*$/s, '.');
    const nearest = nearestOption(error, Object.keys(config));
    throw usageError(command, nearest === undefined ? said : `${said.replace(/\.?$/, '.')} Did you mean --${nearest}?`);
  }
  if (parsed.values['help'] === true) return null;
  if (!variadic && parsed.positionals.length > names.length) {
    throw usageError(command, `unexpected argument "${parsed.positionals[names.length]}".`);
  }

  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    const raw = parsed.values[name];
    if (raw !== undefined) given.add(name);
    if (option.type === 'boolean') {
      values[name] = raw === true;
      continue;
    }
    const parse = (text: string): unknown => (option.parse === undefined ? text : option.parse(text, `--${name}`));
    if (option.multiple === true) values[name] = ((raw as string[] | undefined) ?? []).map(parse);
    else values[name] = raw === undefined ? option.default : parse(raw as string);
  }
  const args: Record<string, unknown> = {};
  names.forEach((name, index) => {
    const spec = argumentSpecs[name] as ArgumentSpec;
    const parse = (text: string): unknown => (spec.parse === undefined ? text : spec.parse(text, name));
    if (spec.variadic === true) {
      const rest = parsed.positionals.slice(index);
      if (rest.length === 0 && spec.required === true) throw usageError(command, `missing <${name}>.`);
      args[name] = rest.map(parse);
      return;
    }
    const text = parsed.positionals[index];
    if (text === undefined) {
      if (spec.required === true) throw usageError(command, `missing <${name}>.`);
      args[name] = undefined;
    } else {
      args[name] = parse(text);
    }
  });
  return { options: values, args, given } as CommandInput<OptionSpecs, ArgumentSpecs>;
}

/** For an unknown option, the declared one it most likely meant. */
function nearestOption(error: unknown, names: readonly string[]): string | undefined {
  if ((error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const given = /Unknown option '--([^'=]+)/.exec((error as Error).message)?.[1];
  return given === undefined ? undefined : nearestName(given, names);
}

function helpText(spec: CommandSpec<OptionSpecs, ArgumentSpecs>, options: OptionSpecs, argumentSpecs: ArgumentSpecs, width: number): string {
  const usage = spec.usage ?? [[...argumentsOf(argumentSpecs), '[options]'].join(' ')];
  // A usage line too long for the terminal goes on under the command's name.
  const lines = usage.flatMap((line, i) => {
    const [first = '', ...more] = wrapWords(
      `geo-reports ${spec.name}${line === '' ? '' : ` ${line}`}`,
      width,
      'Usage: geo-reports '.length + 2,
      'Usage: '.length,
    );
    return [`${i === 0 ? 'Usage:' : '      '} ${first.trimStart()}`, ...more];
  });

  const argumentRows = Object.entries(argumentSpecs).map(([name, a]): [string, string] => [`<${name}>`, a.help]);
  const optionRows: Array<[string, string]> = [
    ...Object.entries(options).map(([name, o]): [string, string] => [optionLabel(name, o), describeOption(o)]),
    [optionLabel('help', HELP_OPTION), HELP_OPTION.help],
  ];
  // Arguments and options in one table: their descriptions start in the same column.
  const table = helpTable([...argumentRows, ...optionRows], width);
  const [argumentTable, optionTable] = [table.slice(0, argumentRows.length), table.slice(argumentRows.length)];
  const parts = [lines.join('\n'), wrapHelp(spec.description.trim(), width)];
  if (argumentRows.length > 0) parts.push(`Arguments:\n${argumentTable.join('\n')}`);
  parts.push(`Options:\n${optionTable.join('\n')}`);
  if (spec.epilog !== undefined) parts.push(wrapHelp(spec.epilog.trim(), width));
  return `${parts.join('\n\n')}\n`;
}

function optionLabel(name: string, option: OptionSpec): string {
  const flag = `${option.short !== undefined ? `-${option.short}, ` : ''}--${name}`;
  return option.type === 'string' ? `${flag} ${option.value}` : flag;
}

function describeOption(option: OptionSpec): string {
  if (option.type === 'boolean' || option.default === undefined) return option.help;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a default is a number or a word
  return `${option.help} (default ${String(option.default)})`;
}

const got = (text: string): string => ` (got "${text}")`;

// Value parsers: each throws a UsageError that names the flag and says what was expected, before any request is sent.

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
    const nearest = nearestName(text, actions);
    throw new UsageError(`${command}: unknown subcommand "${text}" (expected ${expected}).${nearest === undefined ? '' : ` Did you mean "${nearest}"?`}`, {
      hint: `Run \`geo-reports ${command} --help\`.`,
    });
  };
}

/** A number from 0 to 1: a share of requests. */
export const ratio: ValueParser<number> = (text, name) => {
  const value = /^\d*\.?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 1)) throw new UsageError(`${name} must be a number from 0 to 1${got(text)}.`);
  return value;
};

/** A period to report or review: a month (YYYY-MM), a quarter (YYYY-Qn) or a year (YYYY). */
export const anyPeriodValue: ValueParser<Period> = (text, name) => {
  if (!isAnyPeriod(text)) throw new UsageError(`${name} must be a month (2026-10), a quarter (2026-Q3) or a year (2026)${got(text)}.`);
  return text;
};

/** A month to report: YYYY-MM. */
export const periodValue: ValueParser<MonthPeriod> = (text, name) => {
  if (!isPeriod(text)) throw new UsageError(`${name} must look like 2026-10${got(text)}.`);
  return text;
};

/** A text that is not blank, trimmed. */
export const nonBlank: ValueParser<string> = (text, name) => {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`${name} must not be empty.`);
  return trimmed;
};

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

/** Prints `data` as JSON with --json, otherwise as the table `render` makes. */
export function printResult(ctx: CommandContext, json: boolean, data: unknown, render: () => string): void {
  ctx.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${render()}\n`);
}

/** A plain text table: headers, aligned columns, numbers right-aligned. */
export function table(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((row) => row.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((h, i) => Math.min(60, Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length))));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d.,%]+$|^–$/.test(r[i] ?? '')));
  const fit = (text: string, i: number): string => {
    const w = widths[i] ?? 0;
    const clipped = text.length > w ? `${text.slice(0, w - 1)}…` : text;
    return numeric[i] ? clipped.padStart(w) : clipped.padEnd(w);
  };
  const line = (r: string[]): string => r.map(fit).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(headers), rule, ...cells.map(line)].join('\n') + (rows.length === 0 ? '\n(none)' : '');
}

/** A score or delta for a table cell: one decimal at most, `–` when unknown. */
export function formatNumber(value: unknown, options: { signed?: boolean } = {}): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return options.signed === true && value > 0 ? `+${text}` : text;
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM` (UTC) for tables; other values as they come. */
export function formatTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]}` : value;
}

/** Text of a loose field for a table cell. */
export function formatText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}
