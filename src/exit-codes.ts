// The exit codes of the CLI, in one table: main() turns errors into them, commands and the batch return them,
// and `geo-reports --help` and the README list them.

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** Some reports are held by the pre-send check (rendered, not released). */
  held: 4,
  /** EX_TEMPFAIL: every token's daily quota is used up; run again tomorrow to finish. */
  quota: 75,
  sigint: 130,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each code means, as `--help` says it. */
export const EXIT_MEANINGS: Readonly<Record<keyof typeof EXIT, string>> = {
  ok: 'ok',
  failure: 'failure (some projects failed, or an API error)',
  usage: 'usage, config or disk error (full, read-only)',
  held: 'reports held by the pre-send check',
  quota: 'daily quota used up (run again tomorrow)',
  sigint: 'stopped by SIGINT',
  sigterm: 'stopped by SIGTERM',
};

/** "0 ok, 1 failure, …" for help texts, in one line: the help's layout wraps it at the terminal's width. */
export function describeExitCodes(): string {
  const items = (Object.keys(EXIT) as Array<keyof typeof EXIT>).map((name) => `${EXIT[name]} ${EXIT_MEANINGS[name]}`);
  return `${items.join(', ')}.`;
}
