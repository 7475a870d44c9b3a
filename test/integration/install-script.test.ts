// scripts/install.sh on a machine that has everything it installs: run again and again, it finds every tool and
// font each time and calls no system package manager. Package managers are stand-ins on PATH that record their
// call; npm's is one too, as the script ends with `npm ci` on every run by design (a real one would rewrite this
// checkout's node_modules).
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding } from '../support/requirement.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/install.sh', import.meta.url));
const PACKAGE_MANAGERS = ['apt-get', 'apt', 'apt-cache', 'dpkg', 'sudo', 'snap', 'npm'];
const RUNS = 5;

/** Why this machine is not one that has everything the script installs; null when it is. */
function lacking(): string | null {
  if (process.platform !== 'linux') return 'scripts/install.sh is for Debian and Ubuntu';
  const check = spawnSync(
    'bash',
    [
      '-c',
      'command -v chromium || command -v chromium-browser; command -v pdftotext && command -v qpdf && fc-list : family | grep -i dejavu && fc-list : family | grep -i "noto sans cjk"',
    ],
    { encoding: 'utf8' },
  );
  return check.status === 0 ? null : 'Chromium, Poppler, qpdf, DejaVu or Noto Sans CJK is not installed (run scripts/install.sh)';
}

let dir: string;
let calls: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-install-'));
  // The script works from its checkout's root (`cd scripts/..`): a copy in a folder of its own, where `npm ci` is harmless.
  await mkdir(join(dir, 'checkout', 'scripts'), { recursive: true });
  await copyFile(SCRIPT, join(dir, 'checkout', 'scripts', 'install.sh'));
  calls = join(dir, 'calls.log');
  await writeFile(calls, '');
  await mkdir(join(dir, 'bin'));
  for (const name of PACKAGE_MANAGERS) {
    const shim = join(dir, 'bin', name);
    await writeFile(shim, `#!/bin/sh\necho "${name} $*" >> ${JSON.stringify(calls)}\n`);
    await chmod(shim, 0o755);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeNeeding({ need: 'debian', missing: lacking() }, 'scripts/install.sh on a machine that has everything', () => {
  it(`runs ${RUNS} times in a row under pipefail, each time calling no system package manager`, async () => {
    const env: NodeJS.ProcessEnv = { PATH: `${join(dir, 'bin')}${delimiter}${process.env['PATH'] ?? ''}`, HOME: dir, LANG: 'C.UTF-8' };
    const codes: Array<number | null> = [];
    for (let run = 0; run < RUNS; run += 1) {
      const result = spawnSync('bash', [join(dir, 'checkout', 'scripts', 'install.sh')], { env, encoding: 'utf8', timeout: 30_000 });
      codes.push(result.status);
    }
    expect(codes).toEqual(Array<number>(RUNS).fill(0));
    const called = (await readFile(calls, 'utf8')).split('\n').filter((line) => line !== '');
    // npm ci, the last line of every run, and nothing else: no apt, no sudo.
    expect(called).toEqual(Array<string>(RUNS).fill('npm ci --no-audit --no-fund'));
  });
});
