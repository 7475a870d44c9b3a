// A test this machine cannot run says why in the output; in CI (CI=true) it fails instead, as the CI machine has
// what every test needs (root for a tmpfs, Chromium, Poppler): a skipped test there would hide a broken setup.
// A CI job that cannot have a thing by its nature (no tmpfs on macOS or Windows) names it, with its reason, in
// GEO_REPORTS_TESTS_WITHOUT (e.g. `tmpfs`): those groups are then not run there, and say so, as elsewhere.
import { beforeAll, describe } from 'vitest';

export const IN_CI = process.env['CI'] === 'true';

/** The needs this machine's CI job declares it cannot meet, from GEO_REPORTS_TESTS_WITHOUT (comma-separated). */
export const DECLARED_WITHOUT: ReadonlySet<string> = new Set(
  (process.env['GEO_REPORTS_TESTS_WITHOUT'] ?? '')
    .split(',')
    .map((need) => need.trim())
    .filter((need) => need !== ''),
);

/** What a group of tests needs (a short name, as in GEO_REPORTS_TESTS_WITHOUT) and why this machine lacks it. */
export interface Requirement {
  need: string;
  /** Why the machine lacks it; null when it lacks nothing. */
  missing: string | null;
}

/**
 * `describe(name, tests)` for tests that need what `requirement` names. Lacking it: in CI every test of the group
 * fails naming what is missing, unless the job declared it cannot have it; elsewhere the group is skipped, and the
 * output names it and why.
 */
export function describeNeeding({ need, missing }: Requirement, name: string, tests: () => void): void {
  if (missing === null) {
    describe(name, tests);
  } else if (IN_CI && !DECLARED_WITHOUT.has(need)) {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(
          `Cannot run here: ${missing}. In CI (CI=true) every test must run: give the CI machine what it lacks, ` +
            `or, where it cannot have it, declare GEO_REPORTS_TESTS_WITHOUT=${need} in its job.`,
        );
      });
      tests();
    });
  } else {
    const declared = DECLARED_WITHOUT.has(need) ? ` (declared by GEO_REPORTS_TESTS_WITHOUT=${need})` : '';
    console.warn(`NOT RUN: "${name}": ${missing}${declared}.${IN_CI ? '' : ' (With CI=true these tests fail instead.)'}`);
    describe.skip(`${name} — not run here: ${missing}`, tests);
  }
}
