// GEO_REPORTS_SMTP_URL → connection settings, TLS policy, a printable form without the password, and a redactor.
import { isLoopbackHost, SMTP_URL_ENV } from '../../config/load.js';
import { ConfigError } from '../../errors.js';

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://, port 465 by default). */
  secure: boolean;
  /** smtp:// must upgrade with STARTTLS, or the connection is refused before the login is sent. */
  requireTLS: boolean;
  user: string | null;
  password: string | null;
  /** The URL with the password removed: safe to print and log. */
  display: string;
}

const DEFAULT_PORTS = { 'smtp:': 587, 'smtps:': 465 } as const;

/** How a login with a URL's own characters is written. */
const ENCODE_FIX =
  'percent-encode the characters of the user and password that a URL reads as its own: # as %23, ? as %3F, / as %2F, @ as %40, : as %3A, % as %25 (`node -p "encodeURIComponent(process.argv[1])" \'the password\'` prints it encoded).';

/**
 * Reads the SMTP URL. Plain smtp:// is allowed as is on loopback only; elsewhere STARTTLS becomes mandatory
 * unless `allowInsecure`. Errors never repeat the value (it holds the password).
 */
export function parseSmtpUrl(value: string | undefined, options: { allowInsecure: boolean }): SmtpSettings {
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`${SMTP_URL_ENV} is not set: there is no SMTP server to send through.`, {
      hint: `Set ${SMTP_URL_ENV}=smtp://user:password@smtp.example.com:587 (STARTTLS) or smtps://user:password@smtp.example.com:465; try the messages first with --dry-run, which needs no server.`,
    });
  }
  const raw = value.trim();
  refuseUnencodedLogin(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${SMTP_URL_ENV} is not a URL.`, { hint: `Use the form smtp://user:password@host:587; ${ENCODE_FIX}` });
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    // The scheme is said only when it stands as one (smtp:// …): "user:password@host" reads as the scheme "user:".
    const said = raw.startsWith(`${url.protocol}//`) && url.protocol.length <= 10 ? ` (got ${url.protocol}//)` : '';
    throw new ConfigError(`${SMTP_URL_ENV} must start with smtp:// or smtps://${said}.`, { hint: 'Use the form smtp://user:password@host:587.' });
  }
  if (url.hash !== '') {
    throw new ConfigError(`${SMTP_URL_ENV} holds a "#": the address would end there, and a password after it would be read as a host and port.`, {
      hint: `If the "#" is in the password, ${ENCODE_FIX}`,
    });
  }
  if (url.hostname === '') throw new ConfigError(`${SMTP_URL_ENV} names no host.`, { hint: 'Use the form smtp://user:password@host:587.' });
  if (url.search !== '' || (url.pathname !== '' && url.pathname !== '/')) {
    throw new ConfigError(`${SMTP_URL_ENV} takes no path and no options after "?".`, {
      hint: 'Use the form smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (TLS).',
    });
  }
  const secure = url.protocol === 'smtps:';
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = isLoopbackHost(url.hostname) || isLoopbackHost(hostname);
  const user = url.username === '' ? null : safeDecode(url.username);
  const password = url.password === '' ? null : safeDecode(url.password);
  const display = `${url.protocol}//${user !== null ? `${encodeURIComponent(user)}@` : ''}${url.hostname}:${port}`;
  return { host: hostname, port, secure, requireTLS: !secure && !loopback && !options.allowInsecure, user, password, display };
}

/**
 * A "#", "?" or "/" in the login part (before the last "@") ends a URL's host where the user meant a password:
 * `smtp://agency:4821#rest@host` reads as host "agency", port 4821. Refused before parsing, and the message says
 * nothing of the value (it holds the password).
 */
function refuseUnencodedLogin(raw: string): void {
  const start = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0].length ?? 0;
  const at = raw.lastIndexOf('@');
  if (at <= start) return;
  if (/[#?/\\]/.test(raw.slice(start, at))) {
    throw new ConfigError(`${SMTP_URL_ENV} has a "#", "?" or "/" in its user or password: a URL ends its host there, so the login cannot be read.`, {
      hint: `Keep the form smtp://user:password@host:587 and ${ENCODE_FIX}`,
    });
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Replaces the password (as typed, and percent-encoded as it stands in the URL) in any text meant for output. */
export function createRedactor(secrets: Array<string | null | undefined>): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === null || secret === undefined || secret.length < 3) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(Buffer.from(secret).toString('base64'));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((result, form) => result.split(form).join('***'), text);
}
