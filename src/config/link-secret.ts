// The secret the client links are made from (GEO_REPORTS_LINK_SECRET): from the environment only, checked before
// anything is read or written. Kept apart from the links record so that a command's --help loads no schema.
import { ConfigError } from '../errors.js';

/** 32 bytes of entropy or so: `openssl rand -base64 32` gives 44 characters. */
export const MIN_SECRET_LENGTH = 32;

/** The secret, checked: none or a short one is a configuration error (exit 2) whose fix makes a good one. */
export function checkLinkSecret(secret: string | undefined, envName: string): string {
  const fix = `Make one with \`openssl rand -base64 32\`, keep it with your other secrets, and set it in ${envName} (the same one every month: a new secret gives every client a new address).`;
  if (secret === undefined || secret.trim() === '') {
    throw new ConfigError(`${envName} is not set: the client links are made from it.`, { hint: fix });
  }
  if (secret.trim().length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `${envName} is too short (${secret.trim().length} characters): it needs at least ${MIN_SECRET_LENGTH}, or the links could be guessed.`,
      { hint: fix },
    );
  }
  return secret.trim();
}
