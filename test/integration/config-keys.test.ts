// The config file as editors save it and as a hostile or careless hand writes it, read by the real CLI: a UTF-8
// byte order mark (Windows Notepad) is read; `__proto__`, `constructor` and a key given twice are refused at their line.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';

let root: string;
let sim: SimulatorHandle;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-config-keys-'));
  sim = await startSimulator({ seed: 5, projectCount: 3 });
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

/** `geo-reports projects --config <file>` with `text` as the file, against the simulator. */
async function projects(name: string, text: string | Buffer): Promise<CliResult> {
  const cwd = join(root, name);
  await mkdir(cwd, { recursive: true });
  await writeFile(join(cwd, 'geo-reports.json'), text);
  return runCli(['projects', '--config', 'geo-reports.json'], {
    cwd,
    env: { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: sim.url },
  });
}

const CONFIG = '{\r\n  "agency": { "name": "Northwind Digital" },\r\n  "clients": { "102": { "displayName": "Menuiserie Bonnet" } }\r\n}\r\n';

describe('the config file', () => {
  it('saved with a UTF-8 byte order mark and CRLF (Windows Notepad) is read', async () => {
    const result = await projects('bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CONFIG)]));
    expect(result.stderr).not.toContain('cannot be read as JSON');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('102');
  });

  it('with a "__proto__" or "constructor" key is refused at its line, exit 2, nothing asked of the service', async () => {
    const before = sim.state.requests.length;
    const proto = await projects(
      'proto',
      '{\n  "clients": {\n    "102": { "displayName": "Bonnet" },\n    "__proto__": { "displayName": "Everyone" }\n  }\n}\n',
    );
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain('line 4, clients.__proto__: the key "__proto__" is not allowed');
    const ctor = await projects('constructor', '{\n  "agency": {\n    "constructor": { "name": "x" }\n  }\n}\n');
    expect(ctor.code).toBe(2);
    expect(ctor.stderr).toContain('line 3, agency.constructor: the key "constructor" is not allowed');
    expect(sim.state.requests.length).toBe(before);
  });

  it('with a key given twice is refused naming both lines, exit 2', async () => {
    const text =
      '{\n  "clients": {\n    "102": { "displayName": "Menuiserie Bonnet" },\n    "103": { "displayName": "Boulangerie" },\n    "102": { "displayName": "Bonnet & Fils" }\n  }\n}\n';
    const result = await projects('duplicate', text);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 5, clients."102": given a second time (first at line 3)');
    expect(result.stderr).toContain('Fix: ');
  });
});
