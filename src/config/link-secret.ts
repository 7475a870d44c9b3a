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
  const weak = weakness(secret.trim());
  if (weak !== null) throw new ConfigError(`${envName} is too easy to guess: it ${weak}, so the links made from it could be found.`, { hint: fix });
  return secret.trim();
}

/** Words a secret written by hand is often made of; a secret mostly made of them is a guess away. */
const COMMON_WORDS = [
  'password',
  'passw0rd',
  'secret',
  'changeme',
  'letmein',
  'qwerty',
  'azerty',
  'admin',
  'welcome',
  'default',
  'example',
  'test',
  'dragon',
  'monkey',
  'sunshine',
  'iloveyou',
  'master',
  'abc123',
  '123456',
  'georeports',
  'reports',
  'agency',
  'northwind',
  'link',
];
/**
 * Least estimated entropy (characters × bits each, from how often each character appears). The estimate reads a
 * random hex secret of 32 characters (128 bits) as about 120: the floor leaves it room.
 */
const MIN_ENTROPY_BITS = 100;

/** Why a long secret is still weak (one character, a repeated piece, common words, too few bits), or null. */
export function weakness(secret: string): string | null {
  const distinct = new Set(secret).size;
  if (distinct < 10) return `uses ${distinct === 1 ? 'one character' : `only ${distinct} different characters`}`;
  for (let size = 1; size <= secret.length / 2; size += 1) {
    if (secret.length % size === 0 && secret.slice(0, size).repeat(secret.length / size) === secret)
      return `repeats "${size <= 8 ? secret.slice(0, size) : `${secret.slice(0, 8)}…`}"`;
  }
  const letters = secret.toLowerCase().replace(/[^a-z0-9]/g, '');
  const found = COMMON_WORDS.filter((word) => letters.includes(word));
  const covered = found.reduce((sum, word) => sum + word.length * (letters.split(word).length - 1), 0);
  if (found.length > 0 && covered * 2 >= letters.length) return `is mostly common words (${found.map((w) => `"${w}"`).join(', ')})`;
  const counts = new Map<string, number>();
  for (const char of secret) counts.set(char, (counts.get(char) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) perCharacter -= (count / secret.length) * Math.log2(count / secret.length);
  const bits = Math.round(perCharacter * secret.length);
  return bits < MIN_ENTROPY_BITS ? `holds about ${bits} bits of entropy, under the ${MIN_ENTROPY_BITS} it needs` : null;
}
