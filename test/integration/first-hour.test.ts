// An agency's first hour with the README alone: its config example is the file config/geo-reports.example.jsonc,
// word for word; pasted as it is into config/geo-reports.json, it passes `run --dry-run` against the simulator; its
// addresses are example hosts, never a private range.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';

const REPOSITORY = new URL('../../', import.meta.url).pathname;
const EXAMPLE = join(REPOSITORY, 'config', 'geo-reports.example.jsonc');
const TOKEN = 'tok-first-hour-4e1b7c9d2a6f8035';

let sim: SimulatorHandle;
let root: string;
beforeAll(async () => {
  sim = await startSimulator({ tokens: [TOKEN], projectCount: 3 });
  root = await mkdtemp(join(tmpdir(), 'geo-first-hour-'));
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe("the README's config example", () => {
  it('is config/geo-reports.example.jsonc, word for word', async () => {
    const readme = await readFile(join(REPOSITORY, 'README.md'), 'utf8');
    const example = await readFile(EXAMPLE, 'utf8');
    expect(readme).toContain(`\`\`\`jsonc\n${example}\`\`\`\n`);
  });

  it('names example hosts only, never a private address', async () => {
    const example = await readFile(EXAMPLE, 'utf8');
    expect(example).not.toMatch(/\b(?:10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|127\.\d+\.\d+\.\d+|localhost)\b/);
    const hosts = [...example.matchAll(/(?:@|:\/\/)([a-z0-9.-]+)/gi)].map((m) => m[1] as string);
    expect(hosts.length).toBeGreaterThan(5);
    for (const host of hosts) expect(host, host).toMatch(/\.example$/);
  });

  it('pasted as it is into config/geo-reports.json, passes run --dry-run against the simulator', async () => {
    const dir = join(root, 'pasted');
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(join(dir, 'config', 'geo-reports.json'), await readFile(EXAMPLE, 'utf8'));
    await copyFile(join(REPOSITORY, 'config', 'logo.svg'), join(dir, 'config', 'logo.svg'));
    const result = await runCli(['run', '--dry-run', '--period', '2026-10'], {
      env: { ...process.env, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url },
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    // Its output.dir, relative to the config file, is output/ beside config/.
    expect(result.stdout + result.stderr).toContain(join(dir, 'output'));
  });
});
