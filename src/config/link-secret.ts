// The secret the client links are made from (GEO_REPORTS_LINK_SECRET): from the environment only, checked before
// anything is read or written. Kept apart from the links record so that a command's --help loads no schema.
import { createRequire } from 'node:module';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ConfigError } from '../errors.js';

/** 32 bytes of entropy or so: `openssl rand -base64 32` gives 44 characters. */
export const MIN_SECRET_LENGTH = 32;

/**
 * Least guesses, as zxcvbn counts them (log10), a secret must cost: about 86 bits. zxcvbn counts a random character
 * as ten guesses, so a random hex secret of 32 characters reads as 10^31 or so and `openssl rand -base64 32` as
 * 10^44, where the walks, runs, words and repeats a guesser tries first stay under 10^20.
 */
export const MIN_GUESSES_LOG10 = 26;

/** The secret, checked: none, a short one or a guessable one is a configuration error (exit 2) whose fix makes a good one. */
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

/** What a guesser's piece is, in words; the piece itself is never said (it is part of the secret). */
const PIECES: Record<string, string> = {
  dictionary: 'common passwords or words',
  spatial: 'a keyboard walk',
  repeat: 'a repeated piece',
  sequence: 'an alphabet or digit run',
  date: 'a date',
  regex: 'a year',
};

let estimator: ZxcvbnFactory | null = null;

/**
 * zxcvbn (Dropbox's estimator, @zxcvbn-ts) with its common passwords, common words and keyboard layouts: loaded on
 * the first check only (a quarter of a second), so the commands that take no secret never pay for it.
 */
function guesser(): ZxcvbnFactory {
  if (estimator !== null) return estimator;
  const require = createRequire(import.meta.url);
  const core = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  estimator = new core.ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
  return estimator;
}

/** Why a long secret is still a guess away (what it is made of and the guesses it costs), or null. */
export function weakness(secret: string): string | null {
  const result = guesser().check(secret);
  if (result.guessesLog10 >= MIN_GUESSES_LOG10) return null;
  const kinds = [...new Set(result.sequence.map((match) => PIECES[match.pattern]).filter((kind) => kind !== undefined))];
  const made =
    kinds.length === 0 ? 'has too little randomness' : `is made of ${kinds.length === 1 ? kinds[0] : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`}`;
  return `${made} (about 10^${Math.floor(result.guessesLog10)} guesses, where a random one costs over 10^${MIN_GUESSES_LOG10})`;
}
