// Config file + environment → Config, or a ConfigError that names the key and says what is expected.
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, visit as visitJsonc, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { ALERT_WEBHOOK_URL_ENV, BASE_URL_ENV, BROWSER_WS_ENDPOINT_ENV, LINK_SECRET_ENV, SMTP_URL_ENV, TOKEN_ENV, WEBHOOK_SECRET_ENV } from './environment.js';
import { lineOfJsonPath, readAnnotationFiles } from './annotations.js';
import { loadTranslations } from './translations.js';
import { browserEndpointProblem, ConfigSchema, type Config } from './schema.js';

export const DEFAULT_CONFIG_PATH = 'config/geo-reports.json';
export { BASE_URL_ENV, BROWSER_WS_ENDPOINT_ENV, SMTP_URL_ENV, TOKEN_ENV };

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file read, or null when the defaults were used. */
  path: string | null;
}

/**
 * Reads the config file. An explicit path must exist; the default path is optional (the defaults
 * give a professional report with no configuration at all).
 */
export async function loadConfig(options: { path?: string; cwd: string }): Promise<LoadedConfig> {
  const explicit = options.path !== undefined;
  const path = resolve(options.cwd, options.path ?? DEFAULT_CONFIG_PATH);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { config: ConfigSchema.parse({}), path: null };
    }
    throw new ConfigError(`Cannot read the config file ${path}: ${(error as Error).message}`, {
      hint: 'Check the path given with --config. The config/geo-reports.json of the geo-reports repository is a complete example to start from (README: Configuration).',
    });
  }
  const raw = parseConfigText(text, path);
  refuseSecrets(raw, path);
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues, path, text));
  const config = parsed.data;
  // Every path written in the file is relative to the file; output.dir left out stays output/ of the working folder.
  const written = raw as { output?: { dir?: unknown }; site?: { dir?: unknown } };
  if (typeof written.output?.dir === 'string') config.output.dir = await configPath(config.output.dir, 'output.dir', path, options.cwd);
  if (config.site.dir !== undefined) config.site.dir = await configPath(config.site.dir, 'site.dir', path, options.cwd);
  // annotations/<project-id>.csv beside the config file: added to each client's annotations, checked now.
  for (const [id, entries] of await readAnnotationFiles(dirname(path))) {
    const client = (config.clients[id] ??= {});
    client.annotations = [...(client.annotations ?? []), ...entries];
  }
  if (config.agency.logo !== undefined) config.agency.logo = resolve(dirname(path), config.agency.logo);
  if (config.report.templates !== undefined) config.report.templates = await templateFolder(resolve(dirname(path), config.report.templates), path);
  if (config.report.translations !== undefined) {
    config.report.translations = resolve(dirname(path), config.report.translations);
    // Read and checked now: a wrong file stops the command before any request, naming its line.
    await loadTranslations(config.report.translations);
  }
  return { config, path };
}

/** Words for jsonc-parser's errors: what is wrong at that place. */
const SYNTAX_ERRORS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'this is no JSON value (a text without its double quotes, a stray word?)',
  InvalidNumberFormat: 'a number is not valid',
  PropertyNameExpected: 'a key in double quotes is expected here',
  ValueExpected: 'a value is expected here',
  ColonExpected: 'a colon ":" is missing after the key',
  CommaExpected: 'a comma "," is missing before this entry',
  CloseBraceExpected: 'a closing brace "}" is missing',
  CloseBracketExpected: 'a closing bracket "]" is missing',
  EndOfFileExpected: 'the file goes on after its last closing brace',
  UnexpectedEndOfComment: 'a block comment is never closed',
  UnexpectedEndOfString: 'a text is never closed (its closing double quote is missing)',
  InvalidEscapeCharacter: 'a backslash escape is not valid (write \\\\ for a backslash)',
  InvalidCharacter: 'a character is not valid here (a line break inside a text?)',
};

/**
 * The config file's text as a value: JSON with comments (line and block) and trailing commas allowed, since the
 * README's example holds comments; every syntax error at its line and column, in words.
 */
export function parseConfigText(source: string, path: string): unknown {
  // Windows Notepad saves UTF-8 with a byte order mark: it is no part of the JSON.
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const errors: ParseError[] = [];
  const raw: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length === 0) {
    refuseKeys(text, path);
    return raw;
  }
  const lines = errors.slice(0, 5).map((error) => {
    const before = text.slice(0, error.offset).split('\n');
    return `  - line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${SYNTAX_ERRORS[printParseErrorCode(error.error)] ?? printParseErrorCode(error.error)}`;
  });
  throw new ConfigError(`The config file ${path} cannot be read as JSON:\n${lines.join('\n')}`, {
    hint: 'Fix the first place named (the others often follow from it). Comments (// and /* */) and a trailing comma are fine.',
  });
}

/** Keys that would reach an object's prototype instead of being a key of it (`clients.__proto__`). */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A key the reader would not keep as written is refused at its line: `__proto__` and its kin (the parser would set
 * the object's prototype, and the entry would vanish silently), and a key given twice in one object (the last one
 * would win, and the first be lost without a word).
 */
function refuseKeys(text: string, path: string): void {
  const objects: Array<Map<string, number>> = [];
  const problems: string[] = [];
  visitJsonc(
    text,
    {
      onObjectBegin: () => {
        objects.push(new Map());
      },
      onObjectEnd: () => {
        objects.pop();
      },
      onObjectProperty: (property, _offset, _length, startLine, _startCharacter, pathSupplier) => {
        const line = startLine + 1;
        const key = configKey([...pathSupplier(), property]);
        const seen = objects.at(-1);
        if (PROTOTYPE_KEYS.has(property)) problems.push(`  - line ${line}, ${key}: the key "${property}" is not allowed (it is no client, section or setting)`);
        else if (seen?.has(property) === true)
          problems.push(`  - line ${line}, ${key}: given a second time (first at line ${seen.get(property)}); only one would be read`);
        else seen?.set(property, line);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  if (problems.length === 0) return;
  throw new ConfigError(`Invalid config file ${path}:\n${problems.slice(0, 10).join('\n')}`, {
    hint: 'Remove the key, or merge the two entries into one: every key is read once, as written (a client by its project id, e.g. "102").',
  });
}

/**
 * A folder of the config, relative to the config file. Versions before read output.dir and site.dir from the
 * working folder: a config that relied on that (the folder there, none beside the file) is told how to write it.
 */
async function configPath(written: string, key: string, configPath: string, cwd: string): Promise<string> {
  const path = resolve(dirname(configPath), written);
  const before = resolve(cwd, written);
  if (path === before || isAbsolute(written)) return path;
  const exists = (dir: string): Promise<boolean> =>
    stat(dir).then(
      (info) => info.isDirectory(),
      () => false,
    );
  if (!(await exists(path)) && (await exists(before))) {
    const fixed = relative(dirname(configPath), before) || '.';
    throw new ConfigError(
      `Invalid config file ${configPath}:\n  - ${key}: "${written}" is read relative to the config file, so it names ${path}, which does not exist; the folder is at ${before} (relative to the working folder, as earlier versions read it).`,
      { hint: `Write ${JSON.stringify(fixed)} for ${key}: every path in the config is relative to the config file.` },
    );
  }
  return path;
}

/** report.templates must be a folder: a missing one is refused now, before anything is rendered or asked. */
async function templateFolder(dir: string, configPath: string): Promise<string> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(dir)).isDirectory();
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ConfigError(
      `Invalid config file ${configPath}:\n  - report.templates: ${missing ? `the folder ${dir} does not exist` : `cannot read ${dir} (${(error as Error).message})`}`,
      { hint: `The path is relative to the config file. Make the folder with \`geo-reports template init ${dir}\`, or correct report.templates.` },
    );
  }
  if (!isFolder) {
    throw new ConfigError(`Invalid config file ${configPath}:\n  - report.templates: ${dir} is a file, not a template folder`, {
      hint: 'Give the folder that holds report.hbs, partials/, assets/ and locales/ (`geo-reports template init DIR` makes one).',
    });
  }
  return dir;
}

const SECRET_KEY = /(token|secret|password|passwd|api[_-]?key|authorization|bearer|smtp[_-]?url)/i;
/** "pass", "smtp_pass", "smtpPass", but not "bypass". */
const isSecretKey = (key: string): boolean => SECRET_KEY.test(key) || /^pass$|[_-]pass$/i.test(key) || /[a-z]Pass$/.test(key);
/** A URL that carries a login, e.g. smtp://user:password@host. */
const URL_WITH_LOGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i;

/** A secret written into the config file is refused, and the message says where it goes instead. */
function refuseSecrets(raw: unknown, path: string, trail: string[] = []): void {
  // A chat webhook URL is its own secret: whoever has it can post to the room.
  if (typeof raw === 'string' && trail[0] === 'alerts' && /^https?:\/\//i.test(raw)) {
    throw new ConfigError(
      `The config file ${path} holds a URL at "${trail.join('.')}"; the chat channel of alerts carries a secret and is read from the environment only.`,
      {
        hint: `Remove it from the file and set ${ALERT_WEBHOOK_URL_ENV}=<the incoming-webhook URL> in the environment.`,
      },
    );
  }
  if (typeof raw === 'string' && URL_WITH_LOGIN.test(raw)) {
    const key = trail.join('.');
    // Each URL that may carry a login has its own environment variable.
    const where =
      key === 'render.browserWSEndpoint'
        ? `set it in ${BROWSER_WS_ENDPOINT_ENV} instead`
        : `the SMTP connection comes from ${SMTP_URL_ENV}=smtp://user:password@host:587 in the environment`;
    throw new ConfigError(`The config file ${path} holds a URL with a login at "${key}"; secrets are never read from files: ${where}.`, {
      hint: `Remove it from the file; ${where}.`,
    });
  }
  if (raw === null || typeof raw !== 'object') return;
  for (const [key, value] of Object.entries(raw)) {
    const here = [...trail, key];
    if (isSecretKey(key) && (here[0] === 'listen' || /webhook|sign/i.test(here.join('.')))) {
      throw new ConfigError(`The config file ${path} holds a secret at "${here.join('.')}"; secrets are never read from files.`, {
        hint: `Remove "${here.join('.')}" from the file and set ${WEBHOOK_SECRET_ENV} in the environment (comma-separated while a secret is rotated).`,
      });
    }
    if (isSecretKey(key) && (here[0] === 'site' || /link/i.test(here.join('.')))) {
      throw new ConfigError(`The config file ${path} holds a secret at "${here.join('.')}"; secrets are never read from files.`, {
        hint: `Remove "${here.join('.')}" from the file and set ${LINK_SECRET_ENV} in the environment (the same one every month: a new secret gives every client a new address).`,
      });
    }
    if (isSecretKey(key)) {
      const mail = here[0] === 'delivery' || /pass|smtp/i.test(key);
      throw new ConfigError(`The config file ${path} holds a secret at "${here.join('.')}"; secrets are never read from files.`, {
        hint: mail
          ? `Remove "${here.join('.')}" from the file and set ${SMTP_URL_ENV}=smtp://user:password@host:587 (or smtps://…:465) in the environment.`
          : `Remove "${here.join('.')}" from the file and set ${TOKEN_ENV} in the environment (comma-separated for several tokens).`,
      });
    }
    refuseSecrets(value, path, here);
  }
}

/** A key as it is written in the file: `clients."109".goals[0].by` (list items by index, ids quoted). */
export function configKey(path: readonly PropertyKey[]): string {
  let key = '';
  for (const part of path) {
    if (typeof part === 'number') key += `[${part}]`;
    else {
      const name = String(part);
      const written = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
      key += key === '' ? written : `.${written}`;
    }
  }
  return key;
}

function describeIssues(issues: z.core.$ZodIssue[], path: string, source: string): string {
  const lines = issues.map((issue) => {
    const key = issue.path.length > 0 ? configKey(issue.path) : '(top level)';
    // An annotation is one of many alike: its line says which.
    if (issue.path.includes('annotations')) {
      const line = lineOfJsonPath(source, issue.path);
      if (line !== null) return `  - line ${line}, ${key}: ${issue.message}`;
    }
    if (issue.code === 'unrecognized_keys') {
      return `  - ${key === '(top level)' ? '' : `${key}: `}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    }
    return `  - ${key}: ${issue.message}`;
  });
  return `Invalid config file ${path}:\n${lines.join('\n')}`;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** localhost, 127.x.x.x or ::1: traffic that never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The API base URL: https, or http only on loopback unless insecure transport was allowed explicitly. */
export function resolveBaseUrl(candidates: Array<string | undefined>, options: { allowInsecure: boolean }): string {
  const value = candidates.find((c) => c !== undefined && c.trim() !== '');
  if (value === undefined) {
    throw new ConfigError('No API base URL is set.', {
      hint: `Pass --base-url https://… or set ${BASE_URL_ENV}; for a local trial, run \`geo-reports demo\`.`,
    });
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`The API base URL "${value}" is not a URL.`, { hint: 'Use a form like https://app.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`The API base URL must use https:// (got ${url.protocol}).`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError('The API base URL must not carry credentials.', { hint: `Put tokens in ${TOKEN_ENV}.` });
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !loopback && !options.allowInsecure) {
    throw new ConfigError(`Refusing plain http:// to ${url.host}: tokens would cross the network unencrypted.`, {
      hint: 'Use https://, or pass --allow-insecure if you really mean it.',
    });
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * The remote browser to print on, first set of: the --browser-ws-endpoint flag, GEO_REPORTS_BROWSER_WS_ENDPOINT,
 * render.browserWSEndpoint (already checked with the config); undefined for a local Chromium.
 */
export function resolveBrowserEndpoint(flag: string | undefined, env: string | undefined, config: Config): string | undefined {
  for (const [value, source] of [
    [flag, '--browser-ws-endpoint'],
    [env, BROWSER_WS_ENDPOINT_ENV],
  ] as const) {
    if (value === undefined || value.trim() === '') continue;
    const problem = browserEndpointProblem(value.trim());
    // The value itself is not repeated: a browser pool's URL may carry its token.
    if (problem !== null) {
      throw new ConfigError(`${source} is not a browser endpoint: ${problem}.`, {
        hint: `Give the browser's DevTools WebSocket URL, ws://host:port/devtools/browser/<id> (printed by Chrome started with --remote-debugging-port).`,
      });
    }
    return value.trim();
  }
  return config.render.browserWSEndpoint;
}

const LOGO_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
};

/** The logo as a data: URI, so the report holds it and Chromium never fetches anything. */
export async function readLogo(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const type = LOGO_TYPES[extname(path).toLowerCase()];
  if (type === undefined) {
    throw new ConfigError(`agency.logo: unsupported file type "${extname(path)}" (${path}).`, {
      hint: 'Use a .png, .jpg, .svg or .webp file.',
    });
  }
  try {
    const bytes = await readFile(path);
    return `data:${type};base64,${bytes.toString('base64')}`;
  } catch (error) {
    throw new ConfigError(`agency.logo: cannot read ${path}: ${(error as Error).message}`, {
      hint: 'The logo path is relative to the config file.',
    });
  }
}
