// A test this machine cannot run says why in the output; in CI (CI=true) it fails instead, as the CI machine has
// what every test needs (root for a tmpfs, Chromium, Poppler): a skipped test there would hide a broken setup.
import { beforeAll, describe } from 'vitest';

export const IN_CI = process.env['CI'] === 'true';

/**
 * `describe(name, tests)` for tests that need something `missing` says this machine lacks (null: it lacks nothing).
 * Lacking it: in CI every test of the group fails naming what is missing; elsewhere the group is skipped, and the
 * output names it and why.
 */
export function describeNeeding(missing: string | null, name: string, tests: () => void): void {
  if (missing === null) {
    describe(name, tests);
  } else if (IN_CI) {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`Cannot run here: ${missing}. In CI (CI=true) every test must run: give the CI machine what it lacks.`);
      });
      tests();
    });
  } else {
    console.warn(`NOT RUN: "${name}": ${missing}. (With CI=true these tests fail instead.)`);
    describe.skip(`${name} — not run here: ${missing}`, tests);
  }
}
