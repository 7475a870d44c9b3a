// Vitest global setup: the tests that spawn the real CLI run bin/geo-reports.js, which runs dist/. Build dist/
// first when any source is newer than the last build, so no test ever runs a stale build (for `npm test` and for
// `npx vitest run one.test.ts` alike). An unchanged tree costs a few stat calls.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_INFO = join(ROOT, 'dist', '.tsbuildinfo');

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function builtAt(): number {
  try {
    return statSync(BUILD_INFO).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const sources = Math.max(...['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => newestChange(join(ROOT, p))));
  if (sources < builtAt()) return;
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) {
    throw new Error(`npm run build failed, so the CLI cannot be tested:\n${build.stdout}${build.stderr}`);
  }
  // tsc leaves its build info untouched when nothing changed in content; mark this check as done.
  const now = new Date();
  utimesSync(BUILD_INFO, now, now);
}
