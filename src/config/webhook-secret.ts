// The webhook signing secret(s) of GEO_REPORTS_WEBHOOK_SECRET, read for `listen` and looked at by `doctor`. The
// service owns this secret (the spec does not say where it comes from or how long it is): a short one is used, with
// a warning, since refusing it would leave the agency unable to receive any event. Our own secrets (the link
// secret) keep their floor: we choose those.
import type { CommandContext } from '../command-context.js';
import { ConfigError } from '../errors.js';
import { WEBHOOK_SECRET_ENV } from './environment.js';

/** Under this many characters a signing secret is warned about: a guesser could forge signatures with it. */
export const MIN_WEBHOOK_SECRET_LENGTH = 24;

/** The secrets as set, comma-separated while one is rotated; none at all is empty. */
function secretsOf(env: CommandContext['env']): string[] {
  return (env[WEBHOOK_SECRET_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Every secret of GEO_REPORTS_WEBHOOK_SECRET; none is an error with the fix. A short one is taken (see the warning). */
export function webhookSecrets(env: CommandContext['env']): string[] {
  const secrets = secretsOf(env);
  if (secrets.length === 0) {
    throw new ConfigError(`${WEBHOOK_SECRET_ENV} is not set: deliveries cannot be verified, so none would be accepted.`, {
      hint: `Set ${WEBHOOK_SECRET_ENV} to the signing secret \`geo-reports webhooks create\` printed (several, comma-separated, while a secret is rotated).`,
    });
  }
  return secrets;
}

/** What to tell the agency about a signing secret under the floor (its length only, never a character of it); null when none is. */
export function shortWebhookSecretWarning(env: CommandContext['env']): string | null {
  const secrets = secretsOf(env);
  const short = secrets.findIndex((secret) => secret.length < MIN_WEBHOOK_SECRET_LENGTH);
  if (short === -1) return null;
  const which = secrets.length === 1 ? 'its signing secret' : `signing secret ${short + 1} of ${secrets.length}`;
  return (
    `${WEBHOOK_SECRET_ENV}: ${which} has ${(secrets[short] as string).length} characters, under ${MIN_WEBHOOK_SECRET_LENGTH}: ` +
    `deliveries signed with it are accepted, but a short secret can be guessed and signatures forged. ` +
    `The service chooses it: ask it for a longer one, or give it one made with \`openssl rand -base64 32\` if it lets you.`
  );
}
